package io.lobatto.core.mesh;

import io.lobatto.core.geometry.GeometricFactors;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The mesh's fields made on first use (positions, the local-to-global map) are made by parallel loops on the common
 * fork-join pool. A first use from inside such a loop (the geometric factors' elements in parallel, each reading
 * positions), by several threads at once (ranks as threads), must not deadlock: a pool worker waiting for the positions
 * while the thread making them waits for its own loop's tasks. Seen as a hang of {@code DistributedHCoarseningTest} on 2
 * cores.
 */
class LazyFieldsTest {

    @Test
    void firstUseInsideParallelLoopsOfSeveralThreadsCompletes() {
        NodeMap map = NodeMap.sinusoidal(0.05, 0, 1, 0, 1, 0, 1);
        double[] reference = GeometricFactors.atGauss(SpectralElementMesh.of(
                HexMesh.box(8, 8, 8, 0, 1, 0, 1, 0, 1), 3, map)).packed();
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
                for (int round = 0; round < 60; round++) {
                    List<Future<double[]>> f = new ArrayList<>();
                    for (int t = 0; t < threads; t++) {
                        f.add(pool.submit(() -> GeometricFactors.atGauss(
                                SpectralElementMesh.of(HexMesh.box(8, 8, 8, 0, 1, 0, 1, 0, 1), 3, map)).packed()));
                    }
                    for (int t = 0; t < threads; t++) {
                        assertArrayEquals(reference, f.get(t).get(), "round " + round + ", thread " + t);
                    }
                }
            });
        } finally {
            pool.shutdownNow();
        }
    }
}
