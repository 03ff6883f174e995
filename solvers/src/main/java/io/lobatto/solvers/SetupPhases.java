package io.lobatto.solvers;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Where the setup of a solve goes, phase by phase (mesh, numbering, Z, geometry, diagonals, p-multigrid levels,
 * eigenvalue bounds, right-hand side, ...): wall-clock seconds summed per phase name, in the order the phases first
 * ran. Thread-safe. The main job prints it under {@code --profile}; the {@code solve} benchmark writes it to its JSON.
 *
 * <p>Where the process's CPU time can be read (Linux: {@code /proc/self/stat}, 10 ms ticks), each {@link #add} also
 * charges the process CPU time (every thread: the caller, the backend's workers, the JIT compilers, the garbage
 * collector) since the previous {@code add}, or since construction, to its phase: on a loaded machine wall time
 * measures the other processes too, CPU time what this one did. Phases are meant to run one after the other on one
 * thread; CPU time spent between two phases is charged to the second.
 */
public final class SetupPhases {

    private final Map<String, Long> nanos = new LinkedHashMap<>();
    private final Map<String, Long> cpuNanos = new LinkedHashMap<>();
    private long lastCpu = processCpuNanos();

    /** Adds {@code elapsedNanos} to {@code phase}, and the process CPU time since the previous add. */
    public synchronized void add(String phase, long elapsedNanos) {
        nanos.merge(phase, elapsedNanos, Long::sum);
        long cpu = processCpuNanos();
        if (cpu >= 0 && lastCpu >= 0) {
            cpuNanos.merge(phase, cpu - lastCpu, Long::sum);
        }
        lastCpu = cpu;
    }

    /**
     * Process CPU seconds per phase, in first-run order (a copy), or an empty map where the process's CPU time cannot
     * be read.
     */
    public synchronized Map<String, Double> cpuSeconds() {
        Map<String, Double> out = new LinkedHashMap<>();
        cpuNanos.forEach((k, v) -> out.put(k, v * 1e-9));
        return out;
    }

    /**
     * The CPU time of this process so far (user and system, all threads, those that ended included) in nanoseconds,
     * from {@code /proc/self/stat} in clock ticks of 10 ms (Linux's USER_HZ); -1 where it cannot be read.
     */
    static long processCpuNanos() {
        try (java.io.FileInputStream in = new java.io.FileInputStream("/proc/self/stat")) {
            String stat = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
            // fields after the command name, which is in parentheses and may hold spaces: utime and stime are 14 and 15
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Runs {@code work}, adds its wall time to {@code phase} and returns its result. */
    public <T> T time(String phase, Supplier<T> work) {
        long t0 = System.nanoTime();
        try {
            return work.get();
        } finally {
            add(phase, System.nanoTime() - t0);
        }
    }

    /** Runs {@code work} and adds its wall time to {@code phase}. */
    public void run(String phase, Runnable work) {
        long t0 = System.nanoTime();
        try {
            work.run();
        } finally {
            add(phase, System.nanoTime() - t0);
        }
    }

    /** Seconds per phase, in first-run order (a copy). */
    public synchronized Map<String, Double> seconds() {
        Map<String, Double> out = new LinkedHashMap<>();
        nanos.forEach((k, v) -> out.put(k, v * 1e-9));
        return out;
    }

    /** The sum over the phases, in seconds. */
    public synchronized double totalSeconds() {
        long t = 0;
        for (long v : nanos.values()) {
            t += v;
        }
        return t * 1e-9;
    }

    @Override
    public synchronized String toString() {
        StringBuilder b = new StringBuilder();
        nanos.forEach((k, v) -> b.append(b.length() == 0 ? "" : ", ").append(k).append(String.format(" %.3f s", v * 1e-9)));
        return b.toString();
    }
}
