package io.lobatto.solvers;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Where the setup of a solve goes, phase by phase (mesh, numbering, Z, geometry, diagonals, p-multigrid levels,
 * eigenvalue bounds, right-hand side, ...): wall-clock seconds summed per phase name, in the order the phases first
 * ran. Thread-safe. The main job prints it under {@code --profile}; the {@code solve} benchmark writes it to its JSON.
 */
public final class SetupPhases {

    private final Map<String, Long> nanos = new LinkedHashMap<>();

    /** Adds {@code elapsedNanos} to {@code phase}. */
    public synchronized void add(String phase, long elapsedNanos) {
        nanos.merge(phase, elapsedNanos, Long::sum);
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
