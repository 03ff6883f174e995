package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.core.backend.DeviceIntVector;
import io.lobatto.core.backend.DeviceVector;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The indexed gather y_i = x_{idx_i} ({@link io.lobatto.backend.aparapi.kernels.IndexedGatherKernel}) against a host
 * loop: random indices with repeats, one launch, no host wait; out-of-range indices are refused from the range known at
 * upload.
 */
class IndexedGatherTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 1000, 70_001})
    void indexedGatherMatchesAHostLoop(int n) {
        AparapiBackend b = AparapiBackendTest.b();
        java.util.Random rnd = new java.util.Random(17 + n);
        double[] x = new double[Math.max(1, n / 3)];
        for (int i = 0; i < x.length; i++) {
            x[i] = rnd.nextDouble() - 0.5;
        }
        int[] idx = new int[n];
        double[] expected = new double[n];
        for (int i = 0; i < n; i++) {
            idx[i] = rnd.nextInt(x.length);
            expected[i] = x[idx[i]];
        }
        try (DeviceVector dx = b.upload(x); DeviceIntVector di = b.upload(idx); DeviceVector dy = b.allocate(n)) {
            b.fill(dy, 7);
            b.synchronize();
            long launches = b.launches();
            long[] waits = b.hostWaits();
            b.indexedGather(dx, di, dy);
            assertEquals(1, b.launches() - launches, "launches of one indexed gather");
            long[] after = b.hostWaits();
            assertEquals(waits[0], after[0], "queue drains of an indexed gather");
            assertEquals(waits[1], after[1], "copy waits of an indexed gather");
            assertArrayEquals(expected, b.download(dy), 0.0);
        }
    }

    @Test
    void refusesIndicesOutOfRangeAndMismatchedLengths() {
        AparapiBackend b = AparapiBackendTest.b();
        try (DeviceVector dx = b.upload(new double[] {1, 2, 3}); DeviceIntVector di = b.upload(new int[] {2, 3});
             DeviceIntVector neg = b.upload(new int[] {-1, 0}); DeviceVector dy = b.allocate(2);
             DeviceVector dy3 = b.allocate(3)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.indexedGather(dx, di, dy));
            assertTrue(e.getMessage().contains("idx holds 3, not in [0, 3)"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> b.indexedGather(dx, neg, dy));
            assertTrue(e.getMessage().contains("idx holds -1"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> b.indexedGather(dx, di, dy3));
            assertTrue(e.getMessage().contains("idx has length 2 but y has length 3"), e.getMessage());
        }
    }
}
