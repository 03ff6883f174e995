package io.lobatto.core.backend;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** {@link ScatterWeights}: W = 1 / degree, 0 where masked, and the arguments named when they are wrong. */
class ScatterWeightsTest {

    @Test
    void weightsAreInverseDegreesAndZeroWhereMasked() {
        // two linear 1D elements sharing node 1; node 0 masked: local ids 0..3 -> assembled -1, 0, 0, 1
        int[] ids = {-1, 0, 0, 1};
        int[] degree = {2, 1};
        assertArrayEquals(new double[] {0, 0.5, 0.5, 1}, ScatterWeights.inverseDegree(ids, degree));
    }

    @Test
    void manyChunksGiveTheSequentialWeights() {
        int n = 300_000;
        int[] ids = new int[n];
        int[] degree = new int[7];
        for (int i = 0; i < n; i++) {
            ids[i] = i % 11 == 0 ? -1 : i % 7;
        }
        for (int i = 0; i < n; i++) {
            if (ids[i] >= 0) {
                degree[ids[i]]++;
            }
        }
        double[] w = ScatterWeights.inverseDegree(ids, degree);
        for (int i = 0; i < n; i++) {
            assertEquals(ids[i] < 0 ? 0 : 1.0 / degree[ids[i]], w[i], 0, "node " + i);
        }
    }

    @Test
    void badIdsAndDegreesAreNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ScatterWeights.inverseDegree(new int[] {0, 2}, new int[] {1, 1}));
        assertEquals("scatterIds[1] = 2 is not in [-1, 2)", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ScatterWeights.inverseDegree(new int[] {1, 0}, new int[] {1, 0}));
        assertEquals("degree[1] = 0 must be >= 1 (assembled node of local node 0)", e.getMessage());
    }
}
