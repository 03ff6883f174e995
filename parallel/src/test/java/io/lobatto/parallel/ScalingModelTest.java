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

    @Test
    void theFoldedScheduleHidesTheExchangeBehindTheInteriorAndCountsTheExtraLaunchesAndAllreduceRounds() {
        // 1 ms elements, 0.5 ms rest; launch 10 us; Allreduce 5 us; PCIe 10 us + 8 B/ns; MPI 20 us + 8 B/ns
        ScalingModel m = new ScalingModel(1e-3, 0.5e-3, 10e-6, 8e9, 20e-6, 8e9, 10e-6, 5e-6);
        // 1000 shared nodes: PCIe 11 us each way, MPI 21 us: exchange 10 + 22 + 21 = 53 us < interior 0.9 ms
        double t2 = m.iterationSeconds(2, 0.1, 1000, 1000, 2);
        assertEquals(0.1e-3 + 0.9e-3 + 2 * 10e-6 + 0.5e-3 + 2 * 1 * 5e-6, t2, 1e-15);
        // 1000 ranks: ceil(log2 1000) = 10 Allreduce rounds
        assertEquals(0.1e-3 + 0.9e-3 + 2 * 10e-6 + 0.5e-3 + 2 * 10 * 5e-6, m.iterationSeconds(1000, 0.1, 1000, 1000, 2), 1e-15);
        // an interior of 10 us: the exchange (53 us) is exposed
        ScalingModel thin = new ScalingModel(0.1e-3, 0, 10e-6, 8e9, 20e-6, 8e9, 10e-6, 0);
        assertEquals(0.09e-3 + 53e-6, thin.iterationSeconds(2, 0.9, 1000, 1000, 0), 1e-15);
    }

    @Test
    void fitTakesTheRestAsTheOneRankIterationLessTheElementKernels() {
        NetworkProbe net = new NetworkProbe(3e-6, 20e9, 4e-6, 9e-6, 25e9, 8e-6);
        ScalingModel m = ScalingModel.fit(1.1e-3, 0.7e-3, net);
        assertEquals(0.7e-3, m.elementsSeconds(), 0);
        assertEquals(0.4e-3, m.restSeconds(), 1e-18);
        assertEquals(9e-6, m.pcieLatency(), 0);
        assertEquals(20e9, m.mpiBandwidth(), 0);
        assertEquals(1.1e-3, m.iterationSeconds(1, 0.5, 10, 10, 3), 1e-18);
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> ScalingModel.fit(1e-3, 2e-3, net));
    }

    @Test
    void cubeCurveUsesNearCubicGridsAndLosesEfficiencyMonotonically() {
        org.junit.jupiter.api.Assertions.assertArrayEquals(new int[] {10, 10, 10}, ScalingModel.grid(1000));
        org.junit.jupiter.api.Assertions.assertArrayEquals(new int[] {3, 4, 4}, ScalingModel.grid(48));
        org.junit.jupiter.api.Assertions.assertArrayEquals(new int[] {1, 1, 2}, ScalingModel.grid(2));
        ScalingModel m = new ScalingModel(1e-3, 0.5e-3, 10e-6, 8e9, 20e-6, 8e9, 10e-6, 5e-6);
        double[][] c = m.cubeCurve(31, 7, 2, new int[] {1, 2, 8, 64, 1000});
        assertEquals(1.0, c[0][2], 0);
        // 2 ranks: one face of 31 layers, 218^2 shared nodes, hidden; 2 launches and one Allreduce round
        assertEquals(1.5e-3 / (1.5e-3 + 20e-6 + 10e-6), c[1][2], 1e-12);
        for (int i = 1; i < c.length; i++) {
            org.junit.jupiter.api.Assertions.assertTrue(c[i][2] <= c[i - 1][2], "efficiency at " + c[i][0]);
        }
    }

    @Test
    void networkProbeMeasuresPositiveCostsOnThreadRanks() throws Exception {
        ThreadCommunicator[] comms = ThreadCommunicator.group(2);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            java.util.List<java.util.concurrent.Future<NetworkProbe>> f = new java.util.ArrayList<>();
            for (ThreadCommunicator c : comms) {
                f.add(pool.submit(() -> {
                    try (io.lobatto.backend.cpu.CpuBackend b = new io.lobatto.backend.cpu.CpuBackend(1)) {
                        return NetworkProbe.measure(c, b, 50);
                    }
                }));
            }
            NetworkProbe a = f.get(0).get();
            NetworkProbe b = f.get(1).get();
            assertEquals(a, b, "max over ranks: the same on both");
            org.junit.jupiter.api.Assertions.assertTrue(a.exchangeLatency() > 0 && a.allreduceSeconds() > 0
                    && a.launchSeconds() > 0 && a.readLatency() > 0, a.toString());
            org.junit.jupiter.api.Assertions.assertTrue(a.exchangeBandwidth() > 0 && a.readBandwidth() > 0, a.toString());
        } finally {
            pool.shutdownNow();
        }
    }
}
