package io.lobatto.examples;

import java.io.PrintWriter;

import io.lobatto.backend.aparapi.AparapiBackend;
import io.lobatto.backend.aparapi.LaunchStatistics;
import io.lobatto.core.backend.Backend;

/**
 * {@code --profile}: per-kernel split of a solve on the aparapi backend: launches and device time per
 * kernel from OpenCL event profiling, per launch and per iteration, and their sum against the measured
 * wall time per iteration (the difference is launch gaps and host work).
 */
final class KernelTimes {

    private KernelTimes() {
    }

    static void start(Backend backend) {
        if (backend instanceof AparapiBackend a) {
            a.collectStatistics(true);
        }
    }

    static void print(Backend backend, PrintWriter out, int iterations, double wallSecondsPerIteration) {
        if (!(backend instanceof AparapiBackend a)) {
            out.println("(per-kernel times are available on the aparapi backend only)");
            return;
        }
        java.util.List<LaunchStatistics> stats = a.statistics();
        int width = Math.max(28, stats.stream().mapToInt(s -> s.op().length()).max().orElse(0));
        String name = "%-" + width + "s";
        out.printf(name + " %9s %14s %16s%n", "kernel", "launches", "device[us]", "device/iter[us]");
        double kernelSum = 0;
        for (LaunchStatistics s : stats) {
            double kPerIt = iterations == 0 ? 0 : s.kernelNanos() / 1e3 / iterations;
            kernelSum += kPerIt;
            out.printf(name + " %9d %14.1f %16.1f%n", s.op(), s.launches(), s.kernelMicrosPerLaunch(), kPerIt);
        }
        out.printf(name + " %9s %14s %16.1f%n", "sum of kernels", "", "", kernelSum);
        double wall = wallSecondsPerIteration * 1e6;
        out.printf(java.util.Locale.ROOT, name + " %9s %14s %16.1f   (wall / sum of kernels = %.3f)%n", "wall per iteration", "", "",
                wall, kernelSum > 0 ? wall / kernelSum : Double.NaN);
        a.collectStatistics(false);
    }
}
