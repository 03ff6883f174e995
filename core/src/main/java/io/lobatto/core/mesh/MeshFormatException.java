package io.lobatto.core.mesh;

/** Malformed mesh input: the message starts with the 1-based line number and says what was expected. */
public final class MeshFormatException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final int line;

    /** @param line 1-based line number of the offending input (0 if unknown, e.g. at end of input) */
    public MeshFormatException(int line, String message) {
        super((line > 0 ? "line " + line + ": " : "") + message);
        this.line = line;
    }

    /** 1-based line number of the offending input, 0 if not tied to a line. */
    public int line() {
        return line;
    }
}
