package io.lobatto.examples;

import java.io.PrintWriter;
import java.util.Locale;

import io.lobatto.solvers.ConjugateGradient;

/**
 * A one-line CG progress display (iteration, residual against its target, elapsed time and ETA) for solves that
 * run longer than {@link #DELAY_NANOS}, rewritten in place with a carriage return and erased when the solve ends.
 * Only on a terminal ({@code System.console() != null}): piped or redirected output stays free of it.
 */
final class SolveProgress implements ConjugateGradient.Monitor, AutoCloseable {

    /** Solves shorter than this show no progress. */
    static final long DELAY_NANOS = 2_000_000_000L;
    private static final long REFRESH_NANOS = 250_000_000L;

    private final PrintWriter out;
    private final boolean enabled;
    private final String label;
    private final int maxIterations;
    private long start;
    private long lastPrint;
    private double r0 = Double.NaN;
    private int shown;

    private SolveProgress(PrintWriter out, boolean enabled, String label, int maxIterations) {
        this.out = out;
        this.enabled = enabled;
        this.label = label;
        this.maxIterations = maxIterations;
    }

    /** Shows progress on {@code out} when standard output is a terminal, else does nothing. */
    static SolveProgress onTerminal(PrintWriter out, String label, int maxIterations) {
        return new SolveProgress(out, System.console() != null, label, maxIterations);
    }

    @Override
    public void iteration(int iteration, double residualNorm, double targetNorm) {
        if (!enabled) {
            return;
        }
        long now = System.nanoTime();
        if (iteration == 0) {
            start = now;
            r0 = residualNorm;
            return;
        }
        if (now - start < DELAY_NANOS || now - lastPrint < REFRESH_NANOS) {
            return;
        }
        lastPrint = now;
        String line = format(label, iteration, residualNorm, r0, targetNorm, (now - start) * 1e-9, maxIterations);
        out.print("\r" + line + " ".repeat(Math.max(0, shown - line.length())));
        out.flush();
        shown = line.length();
    }

    /**
     * The progress line. The ETA extrapolates the mean convergence rate so far, log(r0 / r) per iteration, to the
     * target (capped at the iteration limit); with no target (fixed iterations) it counts the iterations left.
     */
    static String format(String label, int iteration, double r, double r0, double target, double elapsedSeconds, int maxIterations) {
        double perIteration = elapsedSeconds / iteration;
        int left;
        if (target <= 0) {
            left = maxIterations - iteration;
        } else if (r > target && r < r0) {
            double rate = Math.log(r0 / r) / iteration;
            left = (int) Math.min(maxIterations - iteration, Math.ceil(Math.log(r / target) / rate));
        } else {
            left = -1;
        }
        String eta = left < 0 ? "?" : duration(left * perIteration);
        return String.format(Locale.ROOT, "%sCG iteration %d: residual %.3e (target %.3e), %s elapsed, ETA %s", label, iteration, r,
                target, duration(elapsedSeconds), eta);
    }

    static String duration(double seconds) {
        if (seconds < 60) {
            return String.format(Locale.ROOT, "%.0f s", Math.ceil(seconds));
        }
        long s = (long) Math.ceil(seconds);
        return s < 3600 ? String.format(Locale.ROOT, "%d min %02d s", s / 60, s % 60)
                : String.format(Locale.ROOT, "%d h %02d min", s / 3600, (s % 3600) / 60);
    }

    /** Erases the progress line, if one is shown. */
    @Override
    public void close() {
        if (shown > 0) {
            out.print("\r" + " ".repeat(shown) + "\r");
            out.flush();
            shown = 0;
        }
    }
}
