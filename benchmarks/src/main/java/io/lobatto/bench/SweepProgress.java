package io.lobatto.bench;

import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A one-line progress display for the benchmark sweeps ("bk 7/45: BK3 N = 7, 1 min 02 s elapsed, ETA ~3 min"),
 * on a terminal only: {@link #installOnTerminal()} (called by {@code main} when {@code System.console() != null})
 * routes standard output through a stream that erases the line before anything else is printed. Without it
 * (piped, redirected, tests) every call here does nothing, so logs and result files stay clean.
 */
final class SweepProgress {

    private static volatile Status status;
    /** System.nanoTime() by which a sweep stops starting points ({@code --time-limit}), or 0 for none. */
    private static volatile long deadline;

    /**
     * The sweeps of this JVM stop starting points {@code seconds} after the JVM started (0 or less: never), when the next
     * point would probably not end in time (it is assumed to take as long as the longest point so far):
     * {@link #next} then throws {@link Cut}.
     */
    static void timeLimit(double seconds) {
        if (seconds <= 0) {
            deadline = 0;
            return;
        }
        long uptimeNanos = java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() * 1_000_000L;
        deadline = System.nanoTime() + (long) (seconds * 1e9) - uptimeNanos;
    }

    /** A sweep stopped by {@link #timeLimit} before its point {@code what}; the message says which and why. */
    static final class Cut extends RuntimeException {
        Cut(String message) {
            super(message);
        }
    }

    private long longest;
    private long lastStart;

    private final String suite;
    private final int total;
    private final long start = System.nanoTime();
    private int done;

    private SweepProgress(String suite, int total) {
        this.suite = suite;
        this.total = total;
    }

    /** A sweep of {@code total} points. */
    static SweepProgress start(String suite, int total) {
        return new SweepProgress(suite, Math.max(1, total));
    }

    /** Point {@code what} starts (the previous one is done). */
    void next(String what) {
        long now = System.nanoTime();
        if (done > 0) {
            longest = Math.max(longest, now - lastStart);
        }
        long end = deadline;
        if (end != 0 && now + longest > end) {
            throw new Cut(String.format(Locale.ROOT, "%s cut by --time-limit before point %d/%d (%s): %.0f s left, the "
                    + "longest point so far took %.0f s", suite, done + 1, total, what, (end - now) * 1e-9, longest * 1e-9));
        }
        lastStart = now;
        Status s = status;
        if (s != null) {
            s.show(format(suite, done, total, what, (System.nanoTime() - start) * 1e-9));
        }
        done++;
    }

    /** The ETA assumes the points left take as long as the mean so far (larger N usually take longer: a lower bound). */
    static String format(String suite, int done, int total, String what, double elapsedSeconds) {
        String eta = done == 0 ? "?" : "~" + duration(elapsedSeconds / done * (total - done));
        return String.format(Locale.ROOT, "%s %d/%d: %s, %s elapsed, ETA %s", suite, done + 1, total, what, duration(elapsedSeconds), eta);
    }

    static String duration(double seconds) {
        long s = (long) Math.ceil(seconds);
        return s < 60 ? s + " s" : s < 3600 ? String.format(Locale.ROOT, "%d min %02d s", s / 60, s % 60)
                : String.format(Locale.ROOT, "%d h %02d min", s / 3600, (s % 3600) / 60);
    }

    /** On a terminal: standard output erases the progress line before it prints. */
    static void installOnTerminal() {
        if (System.console() == null || status != null) {
            return;
        }
        OutputStream raw = new FileOutputStream(FileDescriptor.out);
        Status s = new Status(raw);
        status = s;
        System.setOut(new PrintStream(s, true, StandardCharsets.UTF_8));
    }

    /** The terminal's standard output with the progress line. */
    private static final class Status extends OutputStream {
        private final OutputStream out;
        private int shown;

        Status(OutputStream out) {
            this.out = out;
        }

        synchronized void show(String line) {
            try {
                erase();
                out.write(line.getBytes(StandardCharsets.UTF_8));
                out.flush();
                shown = line.length();
            } catch (IOException ignored) {
                // a progress line is not worth failing a benchmark for
            }
        }

        private void erase() throws IOException {
            if (shown > 0) {
                out.write(("\r" + " ".repeat(shown) + "\r").getBytes(StandardCharsets.UTF_8));
                shown = 0;
            }
        }

        @Override
        public synchronized void write(int b) throws IOException {
            erase();
            out.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            erase();
            out.write(b, off, len);
        }

        @Override
        public synchronized void flush() throws IOException {
            out.flush();
        }
    }
}
