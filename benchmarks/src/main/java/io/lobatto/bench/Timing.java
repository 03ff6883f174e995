package io.lobatto.bench;

import java.util.Arrays;

import io.lobatto.core.backend.Backend;

/**
 * Timing as in the papers: warm-up runs, then repeated back-to-back runs, each timed with the host wall
 * clock around the operation followed by {@link Backend#synchronize()}; median and spread reported.
 */
public final class Timing {

    /** Seconds per run of {@code reps} timed samples. */
    public record Samples(double[] seconds) {

        public double median() {
            double[] s = seconds.clone();
            Arrays.sort(s);
            int n = s.length;
            return n % 2 == 1 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
        }

        public double min() {
            return Arrays.stream(seconds).min().orElse(Double.NaN);
        }

        public double max() {
            return Arrays.stream(seconds).max().orElse(Double.NaN);
        }
    }

    private Timing() {
    }

    /**
     * Runs {@code op} {@code warmup} times, then {@code reps} samples of {@code inner} back-to-back runs
     * each; a sample is (wall time of the inner runs + synchronize) / inner.
     */
    public static Samples measure(Backend backend, int warmup, int reps, int inner, Runnable op) {
        return measure(warmup, reps, inner, i -> op.run(), backend::synchronize);
    }

    /**
     * As {@link #measure(Backend, int, int, int, Runnable)} for any operation: {@code op} gets the call's
     * index, {@code sync} (run after the warm-up and at the end of each sample, inside the timing) waits
     * for the work to finish.
     */
    public static Samples measure(int warmup, int reps, int inner, java.util.function.IntConsumer op, Runnable sync) {
        for (int i = 0; i < warmup; i++) {
            op.accept(i);
        }
        sync.run();
        double[] s = new double[reps];
        for (int r = 0; r < reps; r++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < inner; i++) {
                op.accept(i);
            }
            sync.run();
            s[r] = (System.nanoTime() - t0) * 1e-9 / inner;
        }
        return new Samples(s);
    }

    /**
     * Seconds every benchmark point warms up for at least: enough for the JIT to compile the CPU backend's
     * per-N kernels (dozens of methods) before the timed runs, on a busy machine too.
     */
    public static final double WARMUP_SECONDS = 1.5;

    /** Runs {@code op} at least {@code minRuns} times and until {@link #WARMUP_SECONDS} have passed. */
    public static void warmUp(int minRuns, Runnable op) {
        long end = System.nanoTime() + (long) (WARMUP_SECONDS * 1e9);
        for (int i = 0; i < minRuns || System.nanoTime() < end; i++) {
            op.run();
        }
    }

    /** Inner repetitions so that one sample lasts about {@code targetSeconds} given an estimate per run. */
    public static int innerFor(double estimateSeconds, double targetSeconds) {
        return (int) Math.max(1, Math.min(1000, targetSeconds / Math.max(estimateSeconds, 1e-7)));
    }
}
