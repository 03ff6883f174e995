package io.lobatto.parallel;

/** An MPI call failed or MPI could not be loaded; the message names the call and the error code. */
public final class MpiException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** An exception with a message that says what failed. */
    public MpiException(String message) {
        super(message);
    }
}
