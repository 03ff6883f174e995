package io.lobatto.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import io.lobatto.core.backend.ElementKernel;

/** FLOP and byte counts against the papers' formulas, worked by hand for small N. */
class FlopCountsTest {

    @Test
    void bp35MatchesHipBone() {
        // hipBone: 12E(N+1)^4 + 15E(N+1)^3 for S_L plus 3E(N+1)^3 for lambda W
        for (int n = 1; n <= 15; n++) {
            double q = n + 1;
            assertEquals(12 * Math.pow(q, 4) + 18 * Math.pow(q, 3), FlopCounts.flopsPerElement(ElementKernel.STIFFNESS_BP35, n), 0);
        }
    }

    @Test
    void bp10ByHandAtN1() {
        // Nq = 2, M = 3: interpolation 2 (3*8 + 9*4 + 27*2) = 228 each way, 27 scalings
        assertEquals(2 * 228 + 27, FlopCounts.flopsPerElement(ElementKernel.MASS_BP10, 1), 0);
        // BP3.0 at N = 1: 2 * 228 + 12 * 81 + 20 * 27
        assertEquals(2 * 228 + 12 * 81 + 20 * 27, FlopCounts.flopsPerElement(ElementKernel.STIFFNESS_BP30, 1), 0);
    }

    @Test
    void bytesAreTable2() {
        // N = 3: Np = 64, NpGL = 125
        assertEquals(8 * (2 * 64 + 125), FlopCounts.bytesPerElement(ElementKernel.MASS_BP10, 3), 0);
        assertEquals(8 * 9 * 64, FlopCounts.bytesPerElement(ElementKernel.STIFFNESS_BP35, 3), 0);
        assertEquals(8 * (2 * 64 + 7 * 125), FlopCounts.bytesPerElement(ElementKernel.STIFFNESS_BP30, 3), 0);
    }

    @Test
    void nekboneCountAndRoofline() {
        assertEquals(1000 * (12 * 4096 + 34 * 512), FlopCounts.nekboneFlopsPerIteration(1000, 7), 0);
        // R = B F / bytes: 2 TB/s, 10 FLOPs per 8 bytes -> 2.5 TFLOP/s
        assertEquals(2.5e12, FlopCounts.roofline(2e12, 10, 8), 1);
    }
}
