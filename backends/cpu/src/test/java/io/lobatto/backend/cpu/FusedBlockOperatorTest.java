package io.lobatto.backend.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;

/**
 * The block kernels and the fused block operator ({@link BlockAssembly}) against the element-by-element
 * path: applyElements against the dense element matrices for N = 1..MAX_DEGREE + 1 (blocks up to
 * {@link TensorBlock#MAX_DEGREE}, the element-by-element kernels above; from N = 7 applied without forming them), and applyAssembledDotUpdate against axpby + scatter, applyElements,
 * shift, gather and a host dot, bitwise equal on 1, 2 and 5 threads.
 */
class FusedBlockOperatorTest {

    @ParameterizedTest
    @EnumSource(ElementKernel.class)
    void applyElementsEqualsDenseElementMatricesOnEveryDegree(ElementKernel kernel) {
        Random rnd = new Random(3 + kernel.ordinal());
        try (CpuBackend be = new CpuBackend(2)) {
            for (int n = 1; n <= TensorBlock.MAX_DEGREE + 1; n++) {
                Basis1D basis = Basis1D.of(n);
                int elements = n <= 3 ? 19 : n <= 6 ? 9 : 3; // not a multiple of the block size: a padded last block
                double[] geo = TestSupport.geometry(rnd, kernel, basis, elements, false);
                double[] x = TestSupport.random(rnd, elements * basis.np());
                double[] expected = new double[x.length];
                int np = basis.np();
                for (int e = 0; e < elements; e++) {
                    if (n <= 6) { // the dense matrix; above, the same sums without forming it (O(P Np^2) is minutes at N = 11)
                        double[][] a = TestSupport.elementMatrix(kernel, basis, geo, e, 0.75);
                        for (int i = 0; i < np; i++) {
                            double s = 0;
                            for (int j = 0; j < np; j++) {
                                s += a[i][j] * x[e * np + j];
                            }
                            expected[e * np + i] = s;
                        }
                    } else {
                        System.arraycopy(TestSupport.elementApply(kernel, basis, geo, e, 0.75, x, e * np), 0, expected, e * np, np);
                    }
                }
                try (DeviceElementData data = be.uploadElementData(kernel, basis, elements, geo);
                     DeviceVector xl = be.upload(x); DeviceVector yl = be.allocate(x.length)) {
                    assertEquals(n <= TensorBlock.MAX_DEGREE, ((CpuElementData) data).blocks != null, "block kernels at N=" + n);
                    be.applyElements(data, 0.75, xl, yl);
                    double err = TestSupport.relErr(be.download(yl), expected);
                    assertTrue(err < 1e-12, kernel + " N=" + n + ": relative error " + err);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ElementKernel.class)
    void fusedUpdateEqualsAxpbyScatterApplyGatherAndDot(ElementKernel kernel) {
        Random rnd = new Random(29 + kernel.ordinal());
        for (int n : new int[] {1, 4, 8, TensorBlock.MAX_DEGREE, TensorBlock.MAX_DEGREE + 1}) {
            for (boolean mask : new boolean[] {true, false}) {
                checkFusedUpdate(kernel, rnd, n, mask, 3, 2, 3);
            }
        }
    }

    /**
     * Blocks whose positions all have global ids run the fused operator's loops without the id check, the others (a
     * block with a masked node, the padded last block) the checked ones; both kinds in one operator give the host's
     * result, at N = 4 (blocks of 8 elements). 18 x 3 x 3 elements with the Dirichlet mask: the block of elements 80..87 lies inside (x = 8..15, y = z = 1);
     * 17 x 1 x 1 unmasked: two complete blocks and a padded one.
     */
    @ParameterizedTest
    @EnumSource(ElementKernel.class)
    void completeAndCheckedBlocksInOneOperator(ElementKernel kernel) {
        Random rnd = new Random(31 + kernel.ordinal());
        int n = 4; // blocks of B = 8 elements
        TensorBlock tb = TensorBlocks.of(n);
        for (int[] box : new int[][] {{18, 3, 3, 1}, {17, 1, 1, 0}}) {
            boolean mask = box[3] == 1;
            TestSupport.ScatterMap map = TestSupport.brick(n, box[0], box[1], box[2], mask);
            int elements = box[0] * box[1] * box[2];
            double[] geo = TestSupport.geometry(rnd, kernel, Basis1D.of(n), elements, false);
            try (CpuBackend be = new CpuBackend(1);
                 DeviceElementData data = be.uploadElementData(kernel, Basis1D.of(n), elements, geo);
                 DeviceScatter z = map.upload(be)) {
                BlockAssembly a = ((CpuElementData) data).assembly((CpuScatter) z);
                int complete = 0;
                for (boolean c : a.complete) {
                    complete += c ? 1 : 0;
                }
                int blocks = (elements + tb.b - 1) / tb.b;
                String where = kernel + " on " + box[0] + " x " + box[1] + " x " + box[2] + (mask ? " masked" : "");
                assertEquals(blocks, a.complete.length, where + ": blocks");
                if (mask) {
                    assertTrue(a.complete[80 / tb.b], where + ": the block of elements 80..87 is inside");
                    assertTrue(complete < blocks, where + ": blocks on the boundary are checked");
                } else {
                    assertEquals(blocks - 1, complete, where + ": all but the padded last block are complete");
                    assertTrue(!a.complete[blocks - 1], where + ": the padded last block is checked");
                }
            }
            checkFusedUpdate(kernel, rnd, n, mask, box[0], box[1], box[2]);
        }
    }

    /**
     * applyAssembledDotUpdate on an ex x ey x ez brick at degree n against axpby, scatter, applyElements, shift,
     * gather and a host dot, and bitwise the same on 1, 2 and 5 threads.
     */
    private static void checkFusedUpdate(ElementKernel kernel, Random rnd, int n, boolean mask, int ex, int ey, int ez) {
        Basis1D basis = Basis1D.of(n);
        TestSupport.ScatterMap map = TestSupport.brick(n, ex, ey, ez, mask);
        int elements = ex * ey * ez;
        int nl = map.scatterIds().length;
        int ng = map.globalSize();
        double lambda = 0.5, shift = 0.25, beta = 0.625;
        double[] geo = TestSupport.geometry(rnd, kernel, basis, elements, false);
        double[] zg = TestSupport.random(rnd, ng);
        double[] pg = TestSupport.random(rnd, ng);
        // expected, on the host: p = z + beta p; y_L = L Z p + shift W Z p; y_G = Z^T y_L; p . y_G
        double[] p = new double[ng];
        for (int i = 0; i < ng; i++) {
            p[i] = zg[i] + beta * pg[i];
        }
        double[] yg;
        double[] ylExpected;
        try (CpuBackend ref = new CpuBackend(1);
             DeviceElementData data = ref.uploadElementData(kernel, basis, elements, geo);
             DeviceScatter z = map.upload(ref);
             DeviceVector dp = ref.upload(p); DeviceVector xl = ref.allocate(nl); DeviceVector yl = ref.allocate(nl);
             DeviceVector dy = ref.allocate(ng)) {
            ref.scatter(z, dp, xl);
            ref.applyElements(data, lambda, xl, yl);
            double[] u = ref.download(xl);
            ylExpected = ref.download(yl);
            double[] w = map.inverseDegree();
            for (int i = 0; i < nl; i++) {
                ylExpected[i] += shift * w[i] * u[i];
            }
            ref.write(ylExpected, yl);
            ref.gather(z, yl, dy);
            yg = ref.download(dy);
        }
        double dot = 0;
        for (int i = 0; i < ng; i++) {
            dot += p[i] * yg[i];
        }
        double[] firstY = null;
        double firstDot = 0;
        for (int threads : new int[] {1, 2, 5}) {
            try (CpuBackend be = new CpuBackend(threads);
                 DeviceElementData data = be.uploadElementData(kernel, basis, elements, geo);
                 DeviceScatter z = map.upload(be);
                 DeviceVector dz = be.upload(zg); DeviceVector dp = be.upload(pg);
                 DeviceVector yl = be.allocate(nl); DeviceVector dy = be.allocate(ng)) {
                be.fill(dy, Double.NaN); // the fused operator must not read y_G
                double fused = be.applyAssembledDotUpdate(data, z, lambda, shift, dz, beta, dp, yl, dy);
                String where = kernel + " N=" + n + (mask ? " masked" : "") + " on " + threads + " threads";
                assertArrayEquals(p, be.download(dp), 1e-15, where + ": p = z + beta p");
                double[] y = be.download(dy);
                double err = TestSupport.relErr(y, yg);
                assertTrue(err < 1e-13, where + ": y_G relative error " + err);
                assertEquals(dot, fused, 1e-12 * Math.abs(dot), where + ": p . Ap");
                if (firstY == null) {
                    firstY = y;
                    firstDot = fused;
                } else {
                    assertArrayEquals(firstY, y, 0.0, where + ": bitwise as on 1 thread");
                    assertEquals(firstDot, fused, 0.0, where + ": p . Ap bitwise as on 1 thread");
                }
            }
        }
    }
}
