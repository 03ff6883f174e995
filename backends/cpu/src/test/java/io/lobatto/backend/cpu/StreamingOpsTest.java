package io.lobatto.backend.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.lobatto.core.backend.DeviceVector;

/** BS1-BS5 against plain loops; reductions bitwise independent of the thread count. */
class StreamingOpsTest {

    /** Lengths below, at and above one chunk, and several chunks with a ragged tail. */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 7, 8192, 8193, 50_001})
    void streamingOpsMatchPlainLoops(int n) {
        Random rnd = new Random(n);
        double[] x = TestSupport.random(rnd, n);
        double[] y = TestSupport.random(rnd, n);
        double[] a = TestSupport.random(rnd, n);
        try (CpuBackend b = new CpuBackend(3);
             DeviceVector dx = b.upload(x);
             DeviceVector dy = b.upload(y);
             DeviceVector da = b.upload(a);
             DeviceVector dz = b.allocate(n)) {
            b.fill(dz, 2.5);
            double[] z = b.download(dz);
            for (double v : z) {
                assertEquals(2.5, v);
            }
            b.copy(dx, dz);
            assertArrayEquals(x, b.download(dz));

            b.axpby(0.3, dx, -1.7, dy);
            double[] expected = new double[n];
            for (int i = 0; i < n; i++) {
                expected[i] = 0.3 * x[i] - 1.7 * y[i];
            }
            assertArrayEquals(expected, b.download(dy), 1e-14);

            b.axpby(2.0, dz, 0.5, dz); // x and y the same vector
            for (int i = 0; i < n; i++) {
                expected[i] = 2.5 * x[i];
            }
            assertArrayEquals(expected, b.download(dz), 1e-14);

            b.pointwiseMultiply(da, dx, dz);
            for (int i = 0; i < n; i++) {
                expected[i] = a[i] * x[i];
            }
            assertArrayEquals(expected, b.download(dz), 1e-14);
            b.pointwiseMultiply(da, dz, dz); // in place
            for (int i = 0; i < n; i++) {
                expected[i] *= a[i];
            }
            assertArrayEquals(expected, b.download(dz), 1e-14);

            double dot = 0, nrm = 0;
            for (int i = 0; i < n; i++) {
                dot += x[i] * a[i];
                nrm += x[i] * x[i];
            }
            assertEquals(dot, b.dot(dx, da), 1e-14 * Math.max(1, n));
            assertEquals(nrm, b.norm2(dx), 1e-14 * Math.max(1, n));
            assertEquals(b.dot(dx, dx), b.norm2(dx));
        }
    }

    @Test
    void axpbyWithZeroBetaDoesNotReadY() {
        try (CpuBackend b = new CpuBackend(2);
             DeviceVector x = b.upload(new double[] {1, 2, 3});
             DeviceVector y = b.upload(new double[] {Double.NaN, Double.POSITIVE_INFINITY, 0})) {
            b.axpby(2, x, 0, y);
            assertArrayEquals(new double[] {2, 4, 6}, b.download(y));
        }
    }

    @Test
    void reductionsAreBitwiseIndependentOfThreadCount() {
        int n = 123_457; // 16 chunks, ragged tail
        Random rnd = new Random(99);
        double[] x = TestSupport.random(rnd, n);
        double[] y = TestSupport.random(rnd, n);
        double[] p = TestSupport.random(rnd, n);
        double[] ap = TestSupport.random(rnd, n);
        for (int i = 0; i < n; i += 17) {
            x[i] *= 1e8; // make the summation order matter
        }
        long[] dots = new long[3];
        long[] norms = new long[3];
        long[] cg = new long[3];
        double[][] xs = new double[3][];
        int[] threads = {1, 2, 7};
        for (int t = 0; t < 3; t++) {
            try (CpuBackend b = new CpuBackend(threads[t]);
                 DeviceVector dx = b.upload(x);
                 DeviceVector dy = b.upload(y);
                 DeviceVector dp = b.upload(p);
                 DeviceVector dap = b.upload(ap)) {
                dots[t] = Double.doubleToLongBits(b.dot(dx, dy));
                norms[t] = Double.doubleToLongBits(b.norm2(dx));
                cg[t] = Double.doubleToLongBits(b.cgUpdate(0.37, dp, dap, dx, dy));
                xs[t] = b.download(dx);
            }
        }
        for (int t = 1; t < 3; t++) {
            assertEquals(dots[0], dots[t], "dot with " + threads[t] + " threads");
            assertEquals(norms[0], norms[t], "norm2 with " + threads[t] + " threads");
            assertEquals(cg[0], cg[t], "cgUpdate with " + threads[t] + " threads");
            assertArrayEquals(xs[0], xs[t]);
        }
    }

    @Test
    void cgUpdateEqualsTheSeparateOps() {
        int n = 40_000;
        Random rnd = new Random(1);
        double[] x = TestSupport.random(rnd, n);
        double[] r = TestSupport.random(rnd, n);
        double[] p = TestSupport.random(rnd, n);
        double[] ap = TestSupport.random(rnd, n);
        double alpha = 0.731;
        try (CpuBackend b = new CpuBackend(2);
             DeviceVector x1 = b.upload(x);
             DeviceVector r1 = b.upload(r);
             DeviceVector x2 = b.upload(x);
             DeviceVector r2 = b.upload(r);
             DeviceVector dp = b.upload(p);
             DeviceVector dap = b.upload(ap)) {
            double rr = b.cgUpdate(alpha, dp, dap, x1, r1);
            b.axpby(alpha, dp, 1, x2);
            b.axpby(-alpha, dap, 1, r2);
            double rr2 = b.norm2(r2);
            assertEquals(Double.doubleToLongBits(rr2), Double.doubleToLongBits(rr));
            assertArrayEquals(b.download(x2), b.download(x1));
            assertArrayEquals(b.download(r2), b.download(r1));
            double plain = 0;
            double[] rNew = b.download(r1);
            for (int i = 0; i < n; i++) {
                assertEquals(r[i] - alpha * ap[i], rNew[i], 1e-15);
                plain += rNew[i] * rNew[i];
            }
            assertEquals(plain, rr, 1e-14 * n);
            // p and ap may be the same vector (both are only read)
            double same = b.cgUpdate(0.1, dp, dp, x1, r1);
            assertTrue(Double.isFinite(same));
        }
    }

    /**
     * The indexed gather y_i = x_{idx_i} against a host loop: random indices with repeats (y longer than x), lengths
     * below and above one chunk; bad arguments are refused with their value and limit.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 8193, 50_001})
    void indexedGatherMatchesAHostLoop(int n) {
        Random rnd = new Random(31 + n);
        double[] x = TestSupport.random(rnd, Math.max(1, n / 3));
        int[] idx = new int[n];
        for (int i = 0; i < n; i++) {
            idx[i] = rnd.nextInt(x.length);
        }
        double[] expected = new double[n];
        for (int i = 0; i < n; i++) {
            expected[i] = x[idx[i]];
        }
        try (CpuBackend b = new CpuBackend(3);
             DeviceVector dx = b.upload(x);
             io.lobatto.core.backend.DeviceIntVector di = b.upload(idx);
             DeviceVector dy = b.allocate(n)) {
            b.fill(dy, 7);
            b.indexedGather(dx, di, dy);
            assertArrayEquals(expected, b.download(dy), 0.0);
            if (n > 1) {
                java.util.Set<Integer> seen = new java.util.HashSet<>();
                boolean repeats = false;
                for (int i : idx) {
                    repeats |= !seen.add(i);
                }
                assertTrue(repeats, "the indices repeat");
            }
            try (DeviceVector shortY = b.allocate(n + 1)) {
                IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                        () -> b.indexedGather(dx, di, shortY));
                assertTrue(e.getMessage().contains("idx has length " + n + " but y has length " + (n + 1)), e.getMessage());
            }
        }
        try (CpuBackend b = new CpuBackend(1);
             DeviceVector dx = b.upload(new double[] {1, 2, 3});
             io.lobatto.core.backend.DeviceIntVector di = b.upload(new int[] {0, 3});
             DeviceVector dy = b.allocate(2)) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> b.indexedGather(dx, di, dy));
            assertTrue(e.getMessage().contains("idx holds 3, not in [0, 3)"), e.getMessage());
        }
    }
}
