package io.lobatto.backend.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DevicePointwiseData;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.geometry.GeometricFactors;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.core.pointwise.FieldEvaluation;
import io.lobatto.core.pointwise.PointGeometry;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.Quadrature;

/**
 * User operators y = B^T f(B x) on the Java backend: against the built-in BP kernels on a curved mesh, against a
 * dense reference (Kronecker-product B and the pointwise matrix of f read off by applying f to unit vectors),
 * component blocking, the assembled form and the argument checks.
 */
class PointwiseOperatorTest {

    private static CpuBackend backend;

    @BeforeAll
    static void open() {
        backend = new CpuBackend(2);
    }

    @AfterAll
    static void close() {
        backend.close();
    }

    // ------------------------------------------------------------------ test functions

    /**
     * Screened diffusion per component: dv[3c+d] = sum_e G_de du[3c+e], v[c] = data[6] u[c], with data =
     * (G00, G01, G02, G11, G12, G22, lambda wJ). Accumulates (+=) so that a kernel not zeroing v, dv shows up.
     */
    static final class Diffusion extends PointwiseFunction {
        Diffusion(int ncomp, FieldEvaluation evaluation) {
            super(ncomp, 7, evaluation);
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            boolean values = evaluation().readsValues();
            boolean gradients = evaluation().readsGradients();
            for (int c = 0; c < components(); c++) {
                if (gradients) {
                    double a = du[3 * c], b = du[3 * c + 1], t = du[3 * c + 2];
                    dv[3 * c] += data[0] * a + data[1] * b + data[2] * t;
                    dv[3 * c + 1] += data[1] * a + data[3] * b + data[4] * t;
                    dv[3 * c + 2] += data[2] * a + data[4] * b + data[5] * t;
                }
                if (values) {
                    v[c] += data[6] * u[c];
                }
            }
        }
    }

    /** The mass v = data[0] u (data = wJ), BP1. */
    static final class Mass extends PointwiseFunction {
        Mass() {
            super(1, 1, FieldEvaluation.VALUES);
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            v[0] += data[0] * u[0];
        }
    }

    /**
     * Diffusion of each component plus couplings between components: data = (G6, wJ, k, m). With symmetric = true
     * the pointwise matrix is symmetric: dv[3c+d] += k du[3c'+d] and dv[3c+0] += m du[3c'+1], dv[3c'+1] += m du[3c+0]
     * for c' = c+1 mod ncomp ... written as the symmetric pair; v[c] += wJ (u[c] + 0.5 u[c']) symmetrically. With
     * symmetric = false one of each pair is dropped.
     */
    static final class Coupled extends PointwiseFunction {
        private final boolean symmetric;

        Coupled(int ncomp, boolean symmetric) {
            super(ncomp, 9, FieldEvaluation.VALUES_AND_GRADIENTS);
            this.symmetric = symmetric;
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            int nc = components();
            for (int c = 0; c < nc; c++) {
                double a = du[3 * c], b = du[3 * c + 1], t = du[3 * c + 2];
                dv[3 * c] += data[0] * a + data[1] * b + data[2] * t;
                dv[3 * c + 1] += data[1] * a + data[3] * b + data[4] * t;
                dv[3 * c + 2] += data[2] * a + data[4] * b + data[5] * t;
                v[c] += data[6] * u[c];
            }
            for (int c = 0; c < nc; c++) {
                int o = (c + 1) % nc;
                if (o == c) {
                    continue;
                }
                if (o < c && nc == 2) {
                    continue; // with two components the pair (0,1) is the pair (1,0)
                }
                double k = data[7];
                double m = data[8];
                for (int d = 0; d < 3; d++) {
                    dv[3 * c + d] += k * du[3 * o + d];
                    if (symmetric) {
                        dv[3 * o + d] += k * du[3 * c + d];
                    }
                }
                dv[3 * c] += m * du[3 * o + 1];
                dv[3 * o + 1] += m * du[3 * c];
                v[c] += 0.5 * data[6] * u[o];
                if (symmetric) {
                    v[o] += 0.5 * data[6] * u[c];
                }
            }
        }
    }

    // ------------------------------------------------------------------ meshes and data

    /** A 2 x 1 x 2 box of degree n, curved by a smooth sinusoidal map (non-constant Jacobians). */
    static SpectralElementMesh curvedMesh(int n) {
        HexMesh hex = HexMesh.box(2, 1, 2, 0, 1, 0, 0.7, 0, 1.2);
        return SpectralElementMesh.of(hex, n, NodeMap.sinusoidal(0.06, 0, 1, 0, 0.7, 0, 1.2));
    }

    /** (G6, lambda wJ) at the points of {@code quadrature}. */
    static double[] diffusionData(SpectralElementMesh mesh, Quadrature quadrature, double lambda) {
        return GeometricFactors.pointData(mesh, quadrature, 7, (x, dxdr, w, q) ->
                q[6] = lambda * PointGeometry.diffusion(dxdr, w, 1.0, q, 0));
    }

    /** (G6, wJ, k(x), m(x)) with smooth coupling coefficients. */
    static double[] coupledData(SpectralElementMesh mesh, Quadrature quadrature) {
        return GeometricFactors.pointData(mesh, quadrature, 9, (x, dxdr, w, q) -> {
            double wj = PointGeometry.diffusion(dxdr, w, 1.0, q, 0);
            q[6] = wj;
            q[7] = 0.3 * wj * (1 + x[0] * x[1]);
            q[8] = -0.2 * wj * (1 + Math.sin(x[2]));
        });
    }

    // ------------------------------------------------------------------ dense reference

    /**
     * y = B^T f(B x) with dense B: per point, the rows of I x I x I and of the three gradients (Kronecker products
     * of the 1D matrices; for GAUSS the gradients are D~ I), and the pointwise matrix of f read off by applying
     * f to unit vectors of (u, du).
     */
    static double[] denseApply(PointwiseFunction f, Basis1D basis, Quadrature quadrature, int elements, double[] pd,
                               double[] x) {
        int n = basis.nq();
        boolean gauss = quadrature == Quadrature.GAUSS;
        int m = quadrature.pointsPerDirection(basis);
        double[] interp = gauss ? basis.interpolation() : TestSupport.identity(n);
        double[] deriv = gauss ? TestSupport.matmul(basis.gaussDifferentiation(), basis.interpolation(), m, m, n)
                : basis.differentiation();
        double[][] bq = TestSupport.kron(interp, interp, interp, m, n);
        double[][][] grad = {TestSupport.kron(deriv, interp, interp, m, n), TestSupport.kron(interp, deriv, interp, m, n),
            TestSupport.kron(interp, interp, deriv, m, n)};
        int np = n * n * n, npq = m * m * m;
        int nc = f.components();
        int dpp = f.dataPerPoint();
        int width = 4 * nc; // inputs/outputs: u[0..nc), du[0..3nc)
        boolean values = f.evaluation().readsValues();
        boolean gradients = f.evaluation().readsGradients();
        double[] y = new double[x.length];
        double[] u = new double[nc], du = new double[3 * nc], v = new double[nc], dv = new double[3 * nc];
        double[] data = new double[dpp];
        double[] in = new double[width];
        double[] out = new double[width];
        for (int e = 0; e < elements; e++) {
            for (int p = 0; p < npq; p++) {
                System.arraycopy(pd, (e * npq + p) * dpp, data, 0, dpp);
                // point matrix M[i][j], column j = f(unit vector j)
                double[][] mat = new double[width][width];
                for (int j = 0; j < width; j++) {
                    java.util.Arrays.fill(u, 0);
                    java.util.Arrays.fill(du, 0);
                    java.util.Arrays.fill(v, 0);
                    java.util.Arrays.fill(dv, 0);
                    if (j < nc) {
                        if (!values) {
                            continue;
                        }
                        u[j] = 1;
                    } else {
                        if (!gradients) {
                            continue;
                        }
                        du[j - nc] = 1;
                    }
                    f.apply(u, du, data, v, dv);
                    for (int i = 0; i < width; i++) {
                        mat[i][j] = i < nc ? v[i] : dv[i - nc];
                    }
                }
                // in = B x at point p
                java.util.Arrays.fill(in, 0);
                for (int c = 0; c < nc; c++) {
                    int xb = (c * elements + e) * np;
                    for (int k = 0; k < np; k++) {
                        double xk = x[xb + k];
                        in[c] += bq[p][k] * xk;
                        for (int d = 0; d < 3; d++) {
                            in[nc + 3 * c + d] += grad[d][p][k] * xk;
                        }
                    }
                }
                for (int i = 0; i < width; i++) {
                    double s = 0;
                    for (int j = 0; j < width; j++) {
                        s += mat[i][j] * in[j];
                    }
                    out[i] = s;
                }
                // y += B^T out
                for (int c = 0; c < nc; c++) {
                    int yb = (c * elements + e) * np;
                    for (int k = 0; k < np; k++) {
                        double s = bq[p][k] * out[c];
                        for (int d = 0; d < 3; d++) {
                            s += grad[d][p][k] * out[nc + 3 * c + d];
                        }
                        y[yb + k] += s;
                    }
                }
            }
        }
        return y;
    }

    private static double[] apply(DevicePointwiseData data, double[] x) {
        try (DeviceVector xl = backend.upload(x); DeviceVector yl = backend.allocate(x.length)) {
            backend.fill(yl, Double.NaN); // the apply must overwrite every entry
            backend.applyPointwise(data, xl, yl);
            return backend.download(yl);
        }
    }

    private static double[] applyElements(ElementKernel kernel, Basis1D basis, int elements, double[] geo, double lambda,
                                          double[] x) {
        try (DeviceElementData data = backend.uploadElementData(kernel, basis, elements, geo);
             DeviceVector xl = backend.upload(x);
             DeviceVector yl = backend.allocate(x.length)) {
            backend.applyElements(data, lambda, xl, yl);
            return backend.download(yl);
        }
    }

    private static void assertClose(double[] expected, double[] actual, double tol, String what) {
        assertEquals(expected.length, actual.length, what + ": length");
        double err = TestSupport.relErr(actual, expected);
        assertTrue(TestSupport.maxAbs(expected) > 0, what + ": the reference is zero");
        assertTrue(err < tol, what + ": relative error " + err);
    }

    // ------------------------------------------------------------------ against the built-in kernels

    @Test
    void gllDiffusionEqualsBp35OnCurvedMesh() {
        Random rnd = new Random(1);
        double lambda = 0.8;
        for (int n : new int[] {1, 2, 4, 9}) {
            SpectralElementMesh mesh = curvedMesh(n);
            Basis1D basis = mesh.basis();
            int e = mesh.elementCount();
            double[] geo = GeometricFactors.atGll(mesh).packed();
            double[] x = TestSupport.random(rnd, mesh.localSize());
            double[] expected = applyElements(ElementKernel.STIFFNESS_BP35, basis, e, geo, lambda, x);
            try (DevicePointwiseData data = backend.uploadPointwise(new Diffusion(1, FieldEvaluation.VALUES_AND_GRADIENTS),
                    basis, Quadrature.GLL, e, diffusionData(mesh, Quadrature.GLL, lambda))) {
                assertEquals(x.length, data.localSize());
                assertClose(expected, apply(data, x), 1e-12, "BP3.5 N=" + n);
            }
        }
    }

    @Test
    void gaussMassEqualsBp10OnCurvedMesh() {
        Random rnd = new Random(2);
        for (int n : new int[] {1, 3, 5, 9}) {
            SpectralElementMesh mesh = curvedMesh(n);
            Basis1D basis = mesh.basis();
            int e = mesh.elementCount();
            double[] packed = GeometricFactors.atGauss(mesh).packed();
            double[] wj = new double[packed.length / 7];
            for (int p = 0; p < wj.length; p++) {
                wj[p] = packed[7 * p + 6];
            }
            double[] x = TestSupport.random(rnd, mesh.localSize());
            double[] expected = applyElements(ElementKernel.MASS_BP10, basis, e, wj, 0, x);
            double[] pd = GeometricFactors.pointData(mesh, Quadrature.GAUSS, 1,
                    (pos, dxdr, w, q) -> q[0] = w * PointGeometry.determinant(dxdr));
            try (DevicePointwiseData data = backend.uploadPointwise(new Mass(), basis, Quadrature.GAUSS, e, pd)) {
                assertClose(expected, apply(data, x), 1e-12, "BP1.0 N=" + n);
            }
        }
    }

    @Test
    void gaussDiffusionEqualsBp30OnCurvedMesh() {
        Random rnd = new Random(3);
        double lambda = 1.3;
        for (int n : new int[] {1, 3, 6, 9}) {
            SpectralElementMesh mesh = curvedMesh(n);
            Basis1D basis = mesh.basis();
            int e = mesh.elementCount();
            double[] geo = GeometricFactors.atGauss(mesh).packed();
            double[] x = TestSupport.random(rnd, mesh.localSize());
            double[] expected = applyElements(ElementKernel.STIFFNESS_BP30, basis, e, geo, lambda, x);
            try (DevicePointwiseData data = backend.uploadPointwise(new Diffusion(1, FieldEvaluation.VALUES_AND_GRADIENTS),
                    basis, Quadrature.GAUSS, e, diffusionData(mesh, Quadrature.GAUSS, lambda))) {
                assertClose(expected, apply(data, x), 1e-12, "BP3.0 N=" + n);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Quadrature.class)
    void pureGradientEvaluationEqualsStiffnessWithoutMass(Quadrature quadrature) {
        Random rnd = new Random(4);
        SpectralElementMesh mesh = curvedMesh(3);
        Basis1D basis = mesh.basis();
        int e = mesh.elementCount();
        ElementKernel kernel = quadrature == Quadrature.GLL ? ElementKernel.STIFFNESS_BP35 : ElementKernel.STIFFNESS_BP30;
        double[] geo = quadrature == Quadrature.GLL ? GeometricFactors.atGll(mesh).packed()
                : GeometricFactors.atGauss(mesh).packed();
        double[] x = TestSupport.random(rnd, mesh.localSize());
        double[] expected = applyElements(kernel, basis, e, geo, 0.0, x);
        // lambda wJ stored as 5.0 wJ but GRADIENTS never reads it
        try (DevicePointwiseData data = backend.uploadPointwise(new Diffusion(1, FieldEvaluation.GRADIENTS), basis,
                quadrature, e, diffusionData(mesh, quadrature, 5.0))) {
            assertClose(expected, apply(data, x), 1e-12, quadrature + " GRADIENTS");
        }
    }

    @ParameterizedTest
    @EnumSource(Quadrature.class)
    void pureValueEvaluationMatchesDenseMass(Quadrature quadrature) {
        Random rnd = new Random(5);
        SpectralElementMesh mesh = curvedMesh(4);
        Basis1D basis = mesh.basis();
        int e = mesh.elementCount();
        double[] pd = GeometricFactors.pointData(mesh, quadrature, 1,
                (pos, dxdr, w, q) -> q[0] = w * PointGeometry.determinant(dxdr) * (1 + pos[0]));
        Mass f = new Mass();
        double[] x = TestSupport.random(rnd, mesh.localSize());
        double[] expected = denseApply(f, basis, quadrature, e, pd, x);
        try (DevicePointwiseData data = backend.uploadPointwise(f, basis, quadrature, e, pd)) {
            assertClose(expected, apply(data, x), 1e-12, quadrature + " VALUES");
        }
    }

    // ------------------------------------------------------------------ several components

    @ParameterizedTest
    @EnumSource(Quadrature.class)
    void threeComponentsEqualThreeScalarApplies(Quadrature quadrature) {
        Random rnd = new Random(6);
        SpectralElementMesh mesh = curvedMesh(3);
        Basis1D basis = mesh.basis();
        int e = mesh.elementCount();
        int nl = mesh.localSize();
        double[] pd = diffusionData(mesh, quadrature, 0.6);
        double[] x = TestSupport.random(rnd, 3 * nl);
        try (DevicePointwiseData vector = backend.uploadPointwise(new Diffusion(3, FieldEvaluation.VALUES_AND_GRADIENTS),
                basis, quadrature, e, pd);
             DevicePointwiseData scalar = backend.uploadPointwise(new Diffusion(1, FieldEvaluation.VALUES_AND_GRADIENTS),
                     basis, quadrature, e, pd)) {
            assertEquals(3 * nl, vector.localSize());
            assertEquals(3, vector.components());
            double[] y = apply(vector, x);
            for (int c = 0; c < 3; c++) {
                double[] xc = java.util.Arrays.copyOfRange(x, c * nl, (c + 1) * nl);
                double[] yc = apply(scalar, xc);
                double[] got = java.util.Arrays.copyOfRange(y, c * nl, (c + 1) * nl);
                // the same arithmetic in the same order: bitwise equal
                for (int i = 0; i < nl; i++) {
                    assertEquals(yc[i], got[i], 0.0, "component " + c + " entry " + i);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Quadrature.class)
    void couplingMatchesDenseReferenceAndIsSymmetric(Quadrature quadrature) {
        Random rnd = new Random(7);
        for (int nc : new int[] {2, 3}) {
            SpectralElementMesh mesh = curvedMesh(2);
            Basis1D basis = mesh.basis();
            int e = mesh.elementCount();
            int len = nc * mesh.localSize();
            double[] pd = coupledData(mesh, quadrature);
            double[] x = TestSupport.random(rnd, len);
            double[] z = TestSupport.random(rnd, len);
            for (boolean symmetric : new boolean[] {true, false}) {
                Coupled f = new Coupled(nc, symmetric);
                String what = quadrature + " ncomp=" + nc + (symmetric ? " symmetric" : " non-symmetric");
                try (DevicePointwiseData data = backend.uploadPointwise(f, basis, quadrature, e, pd)) {
                    double[] ax = apply(data, x);
                    double[] az = apply(data, z);
                    assertClose(denseApply(f, basis, quadrature, e, pd, x), ax, 1e-12, what);
                    assertClose(denseApply(f, basis, quadrature, e, pd, z), az, 1e-12, what);
                    double zAx = dot(z, ax);
                    double xAz = dot(x, az);
                    double scale = Math.sqrt(dot(ax, ax) * dot(z, z));
                    if (symmetric) {
                        assertEquals(zAx, xAz, 1e-12 * scale, what + ": z.Ax vs x.Az");
                    } else {
                        assertTrue(Math.abs(zAx - xAz) > 1e-6 * scale, what + ": the defect " + (zAx - xAz)
                                + " is too small to show non-symmetry");
                    }
                }
            }
        }
    }

    private static double dot(double[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    // ------------------------------------------------------------------ assembled

    @ParameterizedTest
    @EnumSource(Quadrature.class)
    void assembledEqualsGatherApplyScatterPerComponent(Quadrature quadrature) {
        Random rnd = new Random(8);
        int n = 3;
        int nc = 3;
        int ex = 3, ey = 2, ez = 2;
        int e = ex * ey * ez;
        Basis1D basis = Basis1D.of(n);
        TestSupport.ScatterMap map = TestSupport.brick(n, ex, ey, ez, true); // boundary masked
        int nl = map.scatterIds().length;
        int ng = map.globalSize();
        HexMesh hex = HexMesh.box(ex, ey, ez, 0, 1, 0, 1, 0, 1);
        SpectralElementMesh mesh = SpectralElementMesh.of(hex, n, NodeMap.sinusoidal(0.05, 0, 1, 0, 1, 0, 1));
        assertEquals(nl, mesh.localSize());
        double[] pd = coupledData(mesh, quadrature);
        double[] xg = TestSupport.random(rnd, nc * ng);
        try (CpuBackend b3 = new CpuBackend(3);
             DevicePointwiseData data = backend.uploadPointwise(new Coupled(nc, true), basis, quadrature, e, pd);
             DeviceScatter z = map.upload(backend);
             DeviceVector xG = backend.upload(xg);
             DeviceVector yL = backend.allocate(nc * nl);
             DeviceVector yG = backend.allocate(nc * ng);
             DeviceVector yL2 = backend.allocate(nc * nl);
             DeviceVector yG2 = backend.allocate(nc * ng)) {
            // reference: scalar scatter of each block, the local apply, scalar gather of each block
            double[] xl = new double[nc * nl];
            for (int c = 0; c < nc; c++) {
                try (DeviceVector g = backend.upload(java.util.Arrays.copyOfRange(xg, c * ng, (c + 1) * ng));
                     DeviceVector l = backend.allocate(nl)) {
                    backend.scatter(z, g, l);
                    System.arraycopy(backend.download(l), 0, xl, c * nl, nl);
                }
            }
            double[] ylRef = apply(data, xl);
            double[] ygRef = new double[nc * ng];
            for (int c = 0; c < nc; c++) {
                try (DeviceVector l = backend.upload(java.util.Arrays.copyOfRange(ylRef, c * nl, (c + 1) * nl));
                     DeviceVector g = backend.allocate(ng)) {
                    backend.gather(z, l, g);
                    System.arraycopy(backend.download(g), 0, ygRef, c * ng, ng);
                }
            }
            backend.fill(yG, Double.NaN);
            backend.applyPointwiseAssembled(data, z, xG, yL, yG);
            double[] yg = backend.download(yG);
            // same arithmetic per element and per row: bitwise equal
            for (int i = 0; i < yg.length; i++) {
                assertEquals(ygRef[i], yg[i], 0.0, quadrature + ": y_G[" + i + "]");
            }
            double[] yl = backend.download(yL);
            for (int i = 0; i < yl.length; i++) {
                assertEquals(ylRef[i], yl[i], 0.0, quadrature + ": y_L[" + i + "]");
            }
            assertTrue(TestSupport.maxAbs(yg) > 0);

            double fused = backend.applyPointwiseAssembledDot(data, z, xG, yL2, yG2);
            double[] yg2 = backend.download(yG2);
            for (int i = 0; i < yg.length; i++) {
                assertEquals(yg[i], yg2[i], 0.0, quadrature + ": dot variant y_G[" + i + "]");
            }
            double ref = dot(xg, ygRef);
            assertEquals(ref, fused, 1e-12 * Math.sqrt(dot(xg, xg) * dot(ygRef, ygRef)), quadrature + ": x_G . y_G");
            // masked global nodes do not exist; a symmetric function gives x.Ay = y.Ax on the assembled operator
            double[] wg = TestSupport.random(rnd, nc * ng);
            try (DeviceVector wG = backend.upload(wg); DeviceVector awG = backend.allocate(nc * ng)) {
                backend.applyPointwiseAssembled(data, z, wG, yL, awG);
                double wAx = dot(wg, yg);
                double xAw = dot(xg, backend.download(awG));
                assertEquals(wAx, xAw, 1e-12 * Math.abs(wAx) + 1e-14, quadrature + ": w.Ax vs x.Aw");
            }
            // deterministic for any number of threads
            try (DevicePointwiseData d3 = b3.uploadPointwise(new Coupled(nc, true), basis, quadrature, e, pd);
                 DeviceScatter z3 = map.upload(b3);
                 DeviceVector x3 = b3.upload(xg);
                 DeviceVector yl3 = b3.allocate(nc * nl);
                 DeviceVector yg3 = b3.allocate(nc * ng)) {
                double fused3 = b3.applyPointwiseAssembledDot(d3, z3, x3, yl3, yg3);
                assertEquals(fused, fused3, 0.0, "x_G . y_G with 3 threads");
            }
        }
    }

    // ------------------------------------------------------------------ argument checks

    private static <T extends Throwable> void assertMessage(Class<T> type, Executable call, String... parts) {
        T t = assertThrows(type, call);
        for (String p : parts) {
            assertTrue(t.getMessage().contains(p), "message '" + t.getMessage() + "' lacks '" + p + "'");
        }
    }

    @Test
    void uploadRejectsBadArguments() {
        Basis1D basis = Basis1D.of(2);
        Diffusion f = new Diffusion(1, FieldEvaluation.GRADIENTS);
        double[] ok = new double[2 * 27 * 7];
        assertMessage(IllegalArgumentException.class,
                () -> backend.uploadPointwise(null, basis, Quadrature.GLL, 2, ok), "function", "null");
        assertMessage(IllegalArgumentException.class,
                () -> backend.uploadPointwise(f, null, Quadrature.GLL, 2, ok), "basis", "null");
        assertMessage(IllegalArgumentException.class,
                () -> backend.uploadPointwise(f, basis, null, 2, ok), "quadrature", "null");
        assertMessage(IllegalArgumentException.class,
                () -> backend.uploadPointwise(f, basis, Quadrature.GLL, 2, null), "pointData", "null");
        assertMessage(IllegalArgumentException.class,
                () -> backend.uploadPointwise(f, basis, Quadrature.GLL, 0, new double[0]), "elements", ">= 1", "0");
        // GLL: 27 points per element; GAUSS: 64
        assertMessage(IllegalArgumentException.class,
                () -> backend.uploadPointwise(f, basis, Quadrature.GLL, 2, new double[377]), "pointData", "377",
                "2 * 27", "* 7 = 378");
        assertMessage(IllegalArgumentException.class,
                () -> backend.uploadPointwise(f, basis, Quadrature.GAUSS, 2, ok), "pointData", "378", "2 * 64",
                "= 896");
        double[] bad = ok.clone();
        bad[7 * 30 + 2] = Double.NaN;
        assertMessage(IllegalArgumentException.class,
                () -> backend.uploadPointwise(f, basis, Quadrature.GLL, 2, bad), "pointData[212]", "NaN", "element 1",
                "point 3", "entry 2");
        // a copy is taken
        double[] pd = new double[27 * 7];
        try (DevicePointwiseData data = backend.uploadPointwise(f, basis, Quadrature.GLL, 1, pd)) {
            pd[0] = 1e300;
            double[] y = apply(data, TestSupport.random(new Random(9), 27));
            assertEquals(0.0, TestSupport.maxAbs(y), 0.0, "the zero data was copied");
            assertSame(f, data.function());
            assertEquals(Quadrature.GLL, data.quadrature());
            assertEquals(2, data.degree());
            assertEquals(1, data.elements());
        }
    }

    @Test
    void applyRejectsWrongLengthsAliasingAndForeignData() {
        Basis1D basis = Basis1D.of(2);
        try (DevicePointwiseData data = backend.uploadPointwise(new Diffusion(2, FieldEvaluation.GRADIENTS), basis,
                Quadrature.GLL, 3, new double[3 * 27 * 7]);
             CpuBackend other = new CpuBackend(1)) {
            int nl = 2 * 3 * 27;
            DeviceVector x = backend.allocate(nl);
            DeviceVector y = backend.allocate(nl);
            assertMessage(IllegalArgumentException.class,
                    () -> backend.applyPointwise(data, backend.allocate(nl - 1), y), "xL", String.valueOf(nl - 1),
                    String.valueOf(nl));
            assertMessage(IllegalArgumentException.class,
                    () -> backend.applyPointwise(data, x, backend.allocate(81)), "yL", "81", String.valueOf(nl));
            assertMessage(IllegalArgumentException.class, () -> backend.applyPointwise(data, x, x), "distinct");
            assertMessage(IllegalArgumentException.class,
                    () -> other.applyPointwise(data, other.allocate(nl), other.allocate(nl)), "data");

            TestSupport.ScatterMap map = TestSupport.brick(2, 3, 1, 1, false);
            int ng = map.globalSize();
            DeviceScatter z = map.upload(backend);
            DeviceVector xg = backend.allocate(2 * ng);
            DeviceVector yg = backend.allocate(2 * ng);
            backend.applyPointwiseAssembled(data, z, xg, y, yg); // the right sizes pass
            assertMessage(IllegalArgumentException.class,
                    () -> backend.applyPointwiseAssembled(data, z, backend.allocate(ng), y, yg), "xG",
                    String.valueOf(ng), String.valueOf(2 * ng));
            assertMessage(IllegalArgumentException.class,
                    () -> backend.applyPointwiseAssembled(data, z, xg, y, backend.allocate(2 * ng + 1)), "yG",
                    String.valueOf(2 * ng + 1));
            assertMessage(IllegalArgumentException.class,
                    () -> backend.applyPointwiseAssembled(data, z, xg, backend.allocate(81), yg), "yL", "81");
            assertMessage(IllegalArgumentException.class,
                    () -> backend.applyPointwiseAssembledDot(data, z, xg, y, xg), "distinct");
            DeviceScatter small = TestSupport.brick(2, 2, 1, 1, false).upload(backend);
            assertMessage(IllegalArgumentException.class,
                    () -> backend.applyPointwiseAssembled(data, small, xg, y, yg), "z.localSize()", "54", "81");
        }
    }

    @Test
    void closedDataIsRejectedAndCloseIsIdempotent() {
        Basis1D basis = Basis1D.of(1);
        DevicePointwiseData data = backend.uploadPointwise(new Mass(), basis, Quadrature.GAUSS, 1, new double[27]);
        assertFalse(data.isClosed());
        data.close();
        data.close();
        assertTrue(data.isClosed());
        DeviceVector x = backend.allocate(8);
        DeviceVector y = backend.allocate(8);
        assertMessage(IllegalStateException.class, () -> backend.applyPointwise(data, x, y), "closed");
        DeviceScatter z = TestSupport.brick(1, 1, 1, 1, false).upload(backend);
        assertMessage(IllegalStateException.class,
                () -> backend.applyPointwiseAssembled(data, z, backend.allocate(8), y, backend.allocate(8)), "closed");
        CpuBackend closed = new CpuBackend(1);
        closed.close();
        assertThrows(IllegalStateException.class,
                () -> closed.uploadPointwise(new Mass(), basis, Quadrature.GAUSS, 1, new double[27]));
    }
}
