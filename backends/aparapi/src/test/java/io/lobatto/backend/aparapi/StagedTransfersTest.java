package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lobatto.backend.aparapi.runtime.ClBuffer;
import io.lobatto.backend.aparapi.runtime.ClContext;
import org.junit.jupiter.api.Test;

/**
 * Copies of 8 MB and more go through two pinned staging buffers of 16 MB (several rounds, an uneven last one); they must
 * land exactly where the direct copies of small arrays do, at offsets in the array and in the buffer.
 */
class StagedTransfersTest {

    @Test
    void largeWritesAndReadsRoundTripAtOffsets() {
        ClContext cl = OpenClAvailability.backend().runtime();
        int n = 5_000_003;                                        // 40 MB of doubles: 3 rounds, the last short
        double[] x = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = i * 0.5 - 1e6;
        }
        try (ClBuffer b = cl.allocate(8L * (n + 7), "test doubles")) {
            cl.write(x, 3, n - 3, b, 7);                          // x[3..n) to b[7..n+4)
            double[] back = new double[n + 1];
            cl.read(b, 7, back, 1, n - 3);                        // into back[1..n-2)
            for (int i = 0; i < n - 3; i++) {
                if (back[1 + i] != x[3 + i]) {
                    assertEquals(x[3 + i], back[1 + i], "element " + i);
                }
            }
            assertEquals(0.0, back[0]);
            assertEquals(0.0, back[n - 2]);
        }
        int m = 9_000_002;                                        // 36 MB of ints, read back as doubles' bytes
        int[] ids = new int[m];
        for (int i = 0; i < m; i++) {
            ids[i] = i * 7 - 3;
        }
        try (ClBuffer b = cl.allocate(4L * m, "test ints")) {
            cl.write(ids, 0, m, b, 0);
            double[] pairs = new double[m / 2];
            cl.read(b, 0, pairs, 0, m / 2);
            boolean little = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN;
            for (int i = 0; i < m / 2; i++) {
                long bits = Double.doubleToRawLongBits(pairs[i]);
                int lo = (int) bits, hi = (int) (bits >>> 32);
                int first = little ? lo : hi, second = little ? hi : lo;
                if (first != ids[2 * i] || second != ids[2 * i + 1]) {
                    assertArrayEquals(new int[] {ids[2 * i], ids[2 * i + 1]}, new int[] {first, second}, "ints " + 2 * i);
                }
            }
        }
    }
}
