package io.lobatto.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ScalingModelTest {

    @Test
    void hiddenExchangeCostsOnlyTheLaunchAndTheAllreducesAndAnExposedOneCountsInFull() {
        // 1 ms of elements, 0.5 ms rest, 10 layers: 0.2 ms boundary, 0.8 ms interior
        ScalingModel fast = new ScalingModel(1e-3, 0.5e-3, 0, Double.POSITIVE_INFINITY, 0, Double.POSITIVE_INFINITY, 0, 10e-6);
        assertEquals(1.5e-3, fast.iterationSeconds(1, 7, 10, 10, 10), 1e-15);
        assertEquals(1.5e-3 + 20e-6, fast.iterationSeconds(2, 7, 10, 10, 10), 1e-15);
        // MPI of 1 s latency: exchange 1 s exposed after the boundary 0.2 ms
        ScalingModel slow = new ScalingModel(1e-3, 0.5e-3, 0, Double.POSITIVE_INFINITY, 1, Double.POSITIVE_INFINITY, 0, 0);
        assertEquals(0.2e-3 + 1 + 0.5e-3, slow.iterationSeconds(2, 7, 10, 10, 10), 1e-12);
        // the shared plane's bytes: (10*7+1)^2 nodes * 8 bytes over 1 GB/s of MPI
        ScalingModel bw = new ScalingModel(0, 0, 0, Double.POSITIVE_INFINITY, 0, 1e9, 0, 0);
        assertEquals(71.0 * 71 * 8 / 1e9, bw.iterationSeconds(2, 7, 10, 10, 10), 1e-15);
    }
}
