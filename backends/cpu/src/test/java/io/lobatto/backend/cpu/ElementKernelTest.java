package io.lobatto.backend.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;

/** The sum-factorised element kernels against dense element matrices built from Kronecker products. */
class ElementKernelTest {

    private static CpuBackend backend;

    @BeforeAll
    static void open() {
        backend = new CpuBackend(2);
    }

    @AfterAll
    static void close() {
        backend.close();
    }

    @ParameterizedTest
    @EnumSource(ElementKernel.class)
    void kernelMatchesDenseElementMatrixForDegreesOneToSix(ElementKernel kernel) {
        Random rnd = new Random(42 + kernel.ordinal());
        for (int n = 1; n <= 6; n++) {
            Basis1D basis = Basis1D.of(n);
            int elements = 2;
            double lambda = 0.7;
            double[] geo = TestSupport.geometry(rnd, kernel, basis, elements, false);
            double[][][] mats = new double[elements][][];
            for (int e = 0; e < elements; e++) {
                mats[e] = TestSupport.elementMatrix(kernel, basis, geo, e, lambda);
            }
            double[] x = TestSupport.random(rnd, elements * basis.np());
            double[] expected = TestSupport.applyDense(mats, x);
            try (DeviceElementData data = backend.uploadElementData(kernel, basis, elements, geo);
                 DeviceVector xl = backend.upload(x);
                 DeviceVector yl = backend.allocate(x.length)) {
                assertEquals(x.length, data.localSize());
                backend.applyElements(data, lambda, xl, yl);
                double[] y = backend.download(yl);
                double err = TestSupport.relErr(y, expected);
                assertTrue(err < 1e-12, kernel + " N=" + n + ": relative error " + err);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = ElementKernel.class, names = {"STIFFNESS_BP35", "STIFFNESS_BP30"})
    void stiffnessAnnihilatesConstantsOnAffineElements(ElementKernel kernel) {
        Random rnd = new Random(7);
        for (int n = 1; n <= 8; n++) {
            Basis1D basis = Basis1D.of(n);
            int elements = 3;
            double[] geo = TestSupport.geometry(rnd, kernel, basis, elements, true);
            double[] ones = new double[elements * basis.np()];
            java.util.Arrays.fill(ones, 1.0);
            double[] x = TestSupport.random(rnd, ones.length);
            try (DeviceElementData data = backend.uploadElementData(kernel, basis, elements, geo);
                 DeviceVector xl = backend.upload(ones);
                 DeviceVector yl = backend.allocate(ones.length);
                 DeviceVector xr = backend.upload(x);
                 DeviceVector yr = backend.allocate(ones.length)) {
                backend.applyElements(data, 0.0, xl, yl);
                backend.applyElements(data, 0.0, xr, yr);
                double scale = TestSupport.maxAbs(backend.download(yr));
                double residual = TestSupport.maxAbs(backend.download(yl));
                assertTrue(residual < 1e-12 * scale, kernel + " N=" + n + ": |S 1| = " + residual + ", |S x| = " + scale);
            }
        }
    }

    @Test
    void massIntegratesOneToTheVolume() {
        // affine elements: the volume is sum of wJ; 1^T M 1 must reproduce it
        Random rnd = new Random(3);
        Basis1D basis = Basis1D.of(4);
        int elements = 5;
        double[] geo = TestSupport.geometry(rnd, ElementKernel.MASS_BP10, basis, elements, true);
        double volume = 0;
        for (double v : geo) {
            volume += v;
        }
        double[] ones = new double[elements * basis.np()];
        java.util.Arrays.fill(ones, 1.0);
        try (DeviceElementData data = backend.uploadElementData(ElementKernel.MASS_BP10, basis, elements, geo);
             DeviceVector xl = backend.upload(ones);
             DeviceVector yl = backend.allocate(ones.length)) {
            backend.applyElements(data, 123.0, xl, yl);
            assertEquals(volume, backend.dot(xl, yl), 1e-12 * volume);
        }
    }

    @ParameterizedTest
    @EnumSource(ElementKernel.class)
    void applyAssembledEqualsScatterApplyShiftGather(ElementKernel kernel) {
        Random rnd = new Random(11 + kernel.ordinal());
        for (int n : new int[] {1, 3, 5}) {
            Basis1D basis = Basis1D.of(n);
            TestSupport.ScatterMap map = TestSupport.brick(n, 3, 2, 2, true);
            int elements = 12;
            double lambda = 0.5;
            double shift = 1.75;
            double[] geo = TestSupport.geometry(rnd, kernel, basis, elements, false);
            double[] xg = TestSupport.random(rnd, map.globalSize());
            int nl = map.scatterIds().length;
            try (CpuBackend b7 = new CpuBackend(7);
                 DeviceElementData data = backend.uploadElementData(kernel, basis, elements, geo);
                 DeviceScatter z = map.upload(backend);
                 DeviceVector xG = backend.upload(xg);
                 DeviceVector xL = backend.allocate(nl);
                 DeviceVector yL = backend.allocate(nl);
                 DeviceVector yG = backend.allocate(map.globalSize());
                 DeviceVector fusedL = backend.allocate(nl);
                 DeviceVector fusedG = backend.allocate(map.globalSize())) {
                backend.scatter(z, xG, xL);
                backend.applyElements(data, lambda, xL, yL);
                double[] xl = backend.download(xL);
                double[] yl = backend.download(yL);
                double[] w = map.inverseDegree();
                for (int i = 0; i < nl; i++) {
                    yl[i] += shift * w[i] * xl[i];
                }
                backend.write(yl, yL);
                backend.gather(z, yL, yG);

                // y_G only: the fused path adds the element values into y_G without forming y_L (fusedL is workspace)
                backend.applyAssembled(data, z, lambda, shift, xG, fusedL, fusedG);
                double errG = TestSupport.relErr(backend.download(fusedG), backend.download(yG));
                assertTrue(errG < 1e-13, kernel + " N=" + n + ": y_G relative error " + errG);

                // same result, bitwise, on 7 threads
                try (DeviceElementData d7 = b7.uploadElementData(kernel, basis, elements, geo);
                     DeviceScatter z7 = map.upload(b7);
                     DeviceVector x7 = b7.upload(xg);
                     DeviceVector l7 = b7.allocate(nl);
                     DeviceVector g7 = b7.allocate(map.globalSize())) {
                    b7.applyAssembled(d7, z7, lambda, shift, x7, l7, g7);
                    assertArrayEquals(backend.download(fusedG), b7.download(g7));
                }
            }
        }
    }

    @Test
    void assembledStiffnessIsSymmetricAndAnnihilatesConstantsWithoutMask() {
        Random rnd = new Random(5);
        int n = 4;
        Basis1D basis = Basis1D.of(n);
        TestSupport.ScatterMap map = TestSupport.brick(n, 2, 2, 2, false);
        int elements = 8;
        double[] geo = TestSupport.geometry(rnd, ElementKernel.STIFFNESS_BP35, basis, elements, false);
        int ng = map.globalSize();
        double[] ones = new double[ng];
        java.util.Arrays.fill(ones, 1);
        try (DeviceElementData data = backend.uploadElementData(ElementKernel.STIFFNESS_BP35, basis, elements, geo);
             DeviceScatter z = map.upload(backend);
             DeviceVector one = backend.upload(ones);
             DeviceVector x = backend.upload(TestSupport.random(rnd, ng));
             DeviceVector y = backend.upload(TestSupport.random(rnd, ng));
             DeviceVector yl = backend.allocate(z.localSize());
             DeviceVector ax = backend.allocate(ng);
             DeviceVector ay = backend.allocate(ng);
             DeviceVector a1 = backend.allocate(ng)) {
            backend.applyAssembled(data, z, 0, 0, one, yl, a1);
            backend.applyAssembled(data, z, 0, 0, x, yl, ax);
            backend.applyAssembled(data, z, 0, 0, y, yl, ay);
            double scale = TestSupport.maxAbs(backend.download(ax));
            assertTrue(TestSupport.maxAbs(backend.download(a1)) < 1e-12 * scale);
            double yAx = backend.dot(y, ax);
            double xAy = backend.dot(x, ay);
            assertEquals(yAx, xAy, 1e-12 * Math.abs(yAx));
            assertTrue(backend.dot(x, ax) > 0);
        }
    }
}
