package io.lobatto.examples;

import java.io.PrintWriter;

import io.lobatto.backend.aparapi.AparapiBackend;
import io.lobatto.backend.aparapi.LaunchStatistics;
import io.lobatto.core.backend.Backend;

/**
 * {@code --profile}: per-kernel time split of a solve on the Aparapi backend (launch counts, host wall
 * time per launch and OpenCL-profiled kernel time per launch; their difference is Aparapi's host-side
 * launch overhead).
 */
final class KernelTimes {

    private KernelTimes() {
    }

    /** Must run before any Aparapi class is loaded (Aparapi reads its configuration once). */
    static void enableAparapiProfiling() {
        System.setProperty("com.aparapi.enableProfiling", "true");
    }

    static void start(Backend backend) {
        if (backend instanceof AparapiBackend a) {
            a.collectStatistics(true);
        }
    }

    static void print(Backend backend, PrintWriter out, int iterations) {
        if (!(backend instanceof AparapiBackend a)) {
            out.println("(per-kernel times are available on the aparapi backend only)");
            return;
        }
        java.util.List<LaunchStatistics> stats = a.statistics();
        int width = Math.max(28, stats.stream().mapToInt(s -> s.op().length()).max().orElse(0));
        String name = "%-" + width + "s";
        out.printf(name + " %9s %12s %12s %14s %14s%n", "kernel", "launches", "wall[us]", "kernel[us]", "wall/iter[us]",
                "kernel/iter[us]");
        double wallSum = 0, kernelSum = 0;
        for (LaunchStatistics s : stats) {
            double perIt = iterations == 0 ? 0 : s.wallNanos() / 1e3 / iterations;
            double kPerIt = iterations == 0 ? 0 : s.kernelNanos() / 1e3 / iterations;
            wallSum += perIt;
            kernelSum += kPerIt;
            out.printf(name + " %9d %12.1f %12.1f %14.1f %14.1f%n", s.op(), s.launches(), s.wallMicrosPerLaunch(),
                    s.kernelMicrosPerLaunch(), perIt, kPerIt);
        }
        out.printf(name + " %9s %12s %12s %14.1f %14.1f%n", "sum", "", "", "", wallSum, kernelSum);
        a.collectStatistics(false);
    }
}
