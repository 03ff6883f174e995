package io.lobatto.examples;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import io.lobatto.backend.aparapi.AparapiBackend;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.basis.Basis1D;

/** Checks of command-line values made before any work, with messages that say what to change. */
final class CliChecks {

    /** The N range in help texts. */
    static final String DEGREE_RANGE = Basis1D.MIN_DEGREE + ".." + AparapiBackend.MAX_DEGREE + " on the aparapi backend (its "
            + "kernels), " + Basis1D.MIN_DEGREE + ".." + Basis1D.MAX_DEGREE + " on the cpu backend";

    private CliChecks() {
    }

    /** N within what the library supports ({@link Basis1D}) and, when {@code backend} is given, what that backend supports. */
    static void requireDegree(int n, Backend backend) {
        if (n < Basis1D.MIN_DEGREE || n > Basis1D.MAX_DEGREE) {
            throw new IllegalArgumentException("-N " + n + " is out of range: N must be " + DEGREE_RANGE);
        }
        if (backend instanceof AparapiBackend && n > AparapiBackend.MAX_DEGREE) {
            throw new IllegalArgumentException("-N " + n + " is above the aparapi backend's limit N <= " + AparapiBackend.MAX_DEGREE
                    + ": use a lower N or the cpu backend (-b cpu, N <= " + Basis1D.MAX_DEGREE + ")");
        }
    }

    /** Three element counts, each >= 1. */
    static void requireElements(int[] elements, String option) {
        if (elements == null || elements.length != 3) {
            throw new IllegalArgumentException(option + " needs three element counts nx,ny,nz (e.g. 6,6,6), got "
                    + (elements == null ? "none" : elements.length + ": " + join(elements)));
        }
        if (elements[0] < 1 || elements[1] < 1 || elements[2] < 1) {
            throw new IllegalArgumentException(option + " needs counts >= 1 in every direction, got " + join(elements));
        }
    }

    /**
     * That {@code file} can be written, before the work that produces it: the folder exists, it is not a folder, and
     * opening it for writing works (a file that did not exist is created and removed again; one that does is not changed).
     */
    @SuppressWarnings("try") // the channel is only opened, to see that the file can be written
    static void requireWritable(Path file, String option) {
        Path abs = file.toAbsolutePath();
        if (Files.isDirectory(abs)) {
            throw new IllegalArgumentException(option + " " + file + " is a folder: give a file name, e.g. " + file.resolve("u.vtu"));
        }
        Path dir = abs.getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            throw new IllegalArgumentException(option + " " + file + ": the folder " + dir + " does not exist; create it or choose another path");
        }
        boolean existed = Files.exists(abs);
        try (FileChannel ch = FileChannel.open(abs, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            // opened: writable
        } catch (IOException | SecurityException ex) {
            String why = ex instanceof IOException io ? CliErrors.describeIo(io) : ex.getMessage();
            throw new IllegalArgumentException(option + " " + file + " cannot be created or written (" + why + "); choose another path", ex);
        }
        if (!existed) {
            try {
                Files.deleteIfExists(abs);
            } catch (IOException ignored) {
                // an empty file stays behind; it is overwritten after the solve
            }
        }
    }

    private static String join(int[] a) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < a.length; i++) {
            sb.append(i == 0 ? "" : ",").append(a[i]);
        }
        return sb.toString();
    }
}
