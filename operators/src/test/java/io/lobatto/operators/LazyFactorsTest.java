package io.lobatto.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * {@link ElementOperator#geometricFactors()} on an operator whose factors are made on first use (a mesh with device
 * geometry), first asked for from inside parallel loops on the common fork-join pool by several threads at once. The
 * factors are made by a parallel loop themselves: a pool worker blocked on a lock held by the thread making them could
 * not run that loop's tasks, and with one worker (2 cores) the first use hung. The same hazard as the mesh's lazy fields
 * ({@code io.lobatto.core.mesh.LazyFieldsTest}).
 */
class LazyFactorsTest {

    @Test
    void factorsFirstAskedForInsideParallelLoopsOfSeveralThreadsComplete() {
        NodeMap map = NodeMap.sinusoidal(0.05, 0, 1, 0, 1, 0, 1);
        SpectralElementMesh first = SpectralElementMesh.of(HexMesh.box(6, 6, 6, 0, 1, 0, 1, 0, 1), 3, map);
        ElementOperator probe = ElementOperator.of(ElementKernel.STIFFNESS_BP35, first, 0);
        assertTrue(probe.deviceGeometry().isPresent(), "the factors of this operator are made on first use");
        double[] reference = probe.geometricFactors().packed();
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
                for (int round = 0; round < 30; round++) {
                    List<Future<List<double[]>>> f = new ArrayList<>();
                    for (int t = 0; t < threads; t++) {
                        f.add(pool.submit(() -> {
                            ElementOperator op = ElementOperator.of(ElementKernel.STIFFNESS_BP35,
                                    SpectralElementMesh.of(HexMesh.box(6, 6, 6, 0, 1, 0, 1, 0, 1), 3, map), 0);
                            return IntStream.range(0, 16).parallel().mapToObj(i -> op.geometricFactors().packed()).toList();
                        }));
                    }
                    for (int t = 0; t < threads; t++) {
                        for (double[] got : f.get(t).get()) {
                            assertArrayEquals(reference, got, "round " + round + ", thread " + t);
                        }
                    }
                }
            });
        } finally {
            pool.shutdownNow();
        }
    }
}
