package io.lobatto.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
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
     * Seconds every benchmark point warms up for at least: 3, or {@code -Dlobatto.bench.warmupSeconds} (a GPU kernel
     * settles in its first runs, so a sweep of many GPU points may take less; the Java backend's JIT needs the 3).
     */
    public static final double WARMUP_SECONDS = Double.parseDouble(System.getProperty("lobatto.bench.warmupSeconds", "3"));

    /** Seconds after which the warm-up stops even if the time per run has not settled. */
    public static final double WARMUP_MAX_SECONDS = 30;

    /** Length of a warm-up window: the mean time per run is compared window to window. */
    static final double WARMUP_WINDOW_SECONDS = 0.5;

    /**
     * Runs {@code op} at least {@code minRuns} times and for at least {@link #WARMUP_SECONDS}, then until the
     * mean time per run of two windows of {@link #WARMUP_WINDOW_SECONDS} in a row no longer improves by 10%
     * on the best earlier window and the JIT finished no compilation during the last window (where the JVM
     * reports its compilation time), at most {@link #WARMUP_MAX_SECONDS}: the JIT compiles the CPU backend's
     * per-N kernels (dozens of methods) in the background, which takes seconds, longer on a busy machine, where
     * a flat time alone can mean that the compiler threads did not get a core.
     */
    public static void warmUp(int minRuns, Runnable op) {
        long start = System.nanoTime();
        long min = start + (long) (WARMUP_SECONDS * 1e9);
        long max = start + (long) (WARMUP_MAX_SECONDS * 1e9);
        long window = (long) (WARMUP_WINDOW_SECONDS * 1e9);
        double best = Double.MAX_VALUE;
        int runs = 0;
        int flat = 0;
        long jit = jitMillis();
        while (true) {
            long w0 = System.nanoTime();
            int n = 0;
            do {
                op.run();
                n++;
            } while (System.nanoTime() - w0 < window);
            runs += n;
            long now = System.nanoTime();
            double mean = (double) (now - w0) / n;
            flat = mean > 0.9 * best ? flat + 1 : 0;
            long jitNow = jitMillis();
            boolean jitQuiet = jitNow == jit;
            jit = jitNow;
            if (runs >= minRuns && now >= min && ((flat >= 2 && jitQuiet) || now >= max)) {
                return;
            }
            best = Math.min(best, mean);
        }
    }

    /**
     * Milliseconds the JIT has spent compiling so far (all compiler threads; grows when a compilation finishes),
     * or 0 where the JVM does not report it.
     */
    public static long jitMillis() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }

    /** Inner repetitions so that one sample lasts about {@code targetSeconds} given an estimate per run. */
    public static int innerFor(double estimateSeconds, double targetSeconds) {
        return (int) Math.max(1, Math.min(1000, targetSeconds / Math.max(estimateSeconds, 1e-7)));
    }
}
