package io.lobatto.backend.aparapi;

import static io.lobatto.conformance.TestProblems.random;
import static io.lobatto.conformance.TestProblems.relativeError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DevicePointwiseData;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.geometry.GeometricFactors;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.core.pointwise.FieldEvaluation;
import io.lobatto.core.pointwise.PointGeometry;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.Quadrature;
import io.lobatto.gs.ScatterOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * User operators y^e = B^T f(B x^e) on the Aparapi backend (real OpenCL, PoCL in CI): against a dense host
 * reference written here, and against the backend's own BP1.0, BP3.5 and BP3.0 kernels for the functions that
 * are those operators.
 */
class PointwiseBackendTest {

    /** BP5 / BP3.5 (and BP3.0 at Gauss points): dv = G du, v = wJ u with data (G00, G01, G02, G11, G12, G22, wJ). */
    static final class ScreenedDiffusion extends PointwiseFunction {
        ScreenedDiffusion() {
            super(1, 7, FieldEvaluation.VALUES_AND_GRADIENTS);
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            double r = du[0];
            double s = du[1];
            double t = du[2];
            dv[0] = data[0] * r + data[1] * s + data[2] * t;
            dv[1] = data[1] * r + data[3] * s + data[4] * t;
            dv[2] = data[2] * r + data[4] * s + data[5] * t;
            v[0] = data[6] * u[0];
        }
    }

    /** BP1: v = wJ u. */
    static final class Mass extends PointwiseFunction {
        Mass() {
            super(1, 1, FieldEvaluation.VALUES);
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            v[0] = data[0] * u[0];
        }
    }

    /** BP4-like 3-component diffusion with a coupling of the components through the values and gradients. */
    static final class Coupled3 extends PointwiseFunction {
        Coupled3() {
            super(3, 7, FieldEvaluation.VALUES_AND_GRADIENTS);
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            for (int c = 0; c < 3; c++) {
                double r = du[3 * c];
                double s = du[3 * c + 1];
                double t = du[3 * c + 2];
                dv[3 * c] = data[0] * r + data[1] * s + data[2] * t;
                dv[3 * c + 1] = data[1] * r + data[3] * s + data[4] * t;
                dv[3 * c + 2] = data[2] * r + data[4] * s + data[5] * t + 0.25 * (c + 1) * du[(3 * c + 3) % 9];
                v[c] = data[6] * (u[c] + 0.5 * u[(c + 1) % 3]);
            }
        }
    }

    /** Gradients only, 2 components: dv = G du per component (a vector Laplacian). */
    static final class Diffusion2 extends PointwiseFunction {
        Diffusion2() {
            super(2, 6, FieldEvaluation.GRADIENTS);
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            for (int c = 0; c < 2; c++) {
                dv[3 * c] = data[0] * du[3 * c] + data[1] * du[3 * c + 1] + data[2] * du[3 * c + 2];
                dv[3 * c + 1] = data[1] * du[3 * c] + data[3] * du[3 * c + 1] + data[4] * du[3 * c + 2];
                dv[3 * c + 2] = data[2] * du[3 * c] + data[4] * du[3 * c + 1] + data[5] * du[3 * c + 2];
            }
        }
    }

    /** A coefficient computed at the point from the data with Math.sqrt and Math.exp, and a private helper. */
    static final class Coefficient extends PointwiseFunction {
        Coefficient() {
            super(1, 7, FieldEvaluation.VALUES_AND_GRADIENTS);
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            double kappa = 1 + Math.sqrt(Math.abs(data[0])) * Math.exp(-data[6]);
            for (int d = 0; d < 3; d++) {
                dv[d] = kappa * row(data, d, du[0], du[1], du[2]);
            }
            v[0] = Math.max(data[6], 0.0) * u[0];
        }

        private double row(double[] g, int d, double r, double s, double t) {
            double out = g[2] * r + g[4] * s + g[5] * t;
            if (d == 0) {
                out = g[0] * r + g[1] * s + g[2] * t;
            } else if (d == 1) {
                out = g[1] * r + g[3] * s + g[4] * t;
            }
            return out;
        }
    }

    private static final double TOL = 1e-12;

    // ------------------------------------------------------------------ the host reference

    /** out[a,b,c] = sum A0[a][i] A1[b][j] A2[c][k] in[i,j,k], A_d (m x n) row-major, grids index i + n(j + n k). */
    static double[] tensor(double[] a0, double[] a1, double[] a2, int m, int n, double[] in) {
        double[] s1 = new double[m * n * n];
        for (int k = 0; k < n; k++) {
            for (int j = 0; j < n; j++) {
                for (int a = 0; a < m; a++) {
                    double s = 0;
                    for (int i = 0; i < n; i++) {
                        s += a0[a * n + i] * in[i + n * (j + n * k)];
                    }
                    s1[a + m * (j + n * k)] = s;
                }
            }
        }
        double[] s2 = new double[m * m * n];
        for (int k = 0; k < n; k++) {
            for (int b = 0; b < m; b++) {
                for (int a = 0; a < m; a++) {
                    double s = 0;
                    for (int j = 0; j < n; j++) {
                        s += a1[b * n + j] * s1[a + m * (j + n * k)];
                    }
                    s2[a + m * (b + m * k)] = s;
                }
            }
        }
        double[] out = new double[m * m * m];
        for (int c = 0; c < m; c++) {
            for (int b = 0; b < m; b++) {
                for (int a = 0; a < m; a++) {
                    double s = 0;
                    for (int k = 0; k < n; k++) {
                        s += a2[c * n + k] * s2[a + m * (b + m * k)];
                    }
                    out[a + m * (b + m * c)] = s;
                }
            }
        }
        return out;
    }

    static double[] transpose(double[] a, int m, int n) {
        double[] t = new double[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                t[j * m + i] = a[i * n + j];
            }
        }
        return t;
    }

    static double[] multiply(double[] a, double[] b, int m, int k, int n) {
        double[] c = new double[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int l = 0; l < k; l++) {
                    s += a[i * k + l] * b[l * n + j];
                }
                c[i * n + j] = s;
            }
        }
        return c;
    }

    /** y_L = B^T f(B x_L) on the host, component-blocked, from the 1D matrices: Bv = I (or 1), Bd = D Bv. */
    static double[] reference(PointwiseFunction f, Basis1D basis, Quadrature quad, int elements, double[] data, double[] x) {
        int q = basis.nq();
        int p = quad.pointsPerDirection(basis);
        int np = q * q * q;
        int p3 = p * p * p;
        double[] bv = quad == Quadrature.GAUSS ? basis.interpolation() : identity(q);
        double[] d = quad == Quadrature.GAUSS ? basis.gaussDifferentiation() : basis.differentiation();
        double[] bd = multiply(d, bv, p, p, q);
        double[] bvt = transpose(bv, p, q);
        double[] bdt = transpose(bd, p, q);
        int nc = f.components();
        int nd = f.dataPerPoint();
        double[] y = new double[nc * elements * np];
        double[] u = new double[nc];
        double[] du = new double[3 * nc];
        double[] v = new double[nc];
        double[] dv = new double[3 * nc];
        double[] pd = new double[nd];
        for (int e = 0; e < elements; e++) {
            double[][] uq = new double[nc][];
            double[][][] dq = new double[nc][3][];
            for (int c = 0; c < nc; c++) {
                double[] xe = new double[np];
                System.arraycopy(x, (c * elements + e) * np, xe, 0, np);
                uq[c] = tensor(bv, bv, bv, p, q, xe);
                dq[c][0] = tensor(bd, bv, bv, p, q, xe);
                dq[c][1] = tensor(bv, bd, bv, p, q, xe);
                dq[c][2] = tensor(bv, bv, bd, p, q, xe);
            }
            double[][] vq = new double[nc][p3];
            double[][][] dvq = new double[nc][3][p3];
            for (int pt = 0; pt < p3; pt++) {
                for (int c = 0; c < nc; c++) {
                    u[c] = uq[c][pt];
                    for (int dd = 0; dd < 3; dd++) {
                        du[3 * c + dd] = dq[c][dd][pt];
                    }
                }
                System.arraycopy(data, (e * p3 + pt) * nd, pd, 0, nd);
                java.util.Arrays.fill(v, 0);
                java.util.Arrays.fill(dv, 0);
                f.apply(u, du, pd, v, dv);
                for (int c = 0; c < nc; c++) {
                    vq[c][pt] = f.evaluation().readsValues() ? v[c] : 0;
                    for (int dd = 0; dd < 3; dd++) {
                        dvq[c][dd][pt] = f.evaluation().readsGradients() ? dv[3 * c + dd] : 0;
                    }
                }
            }
            for (int c = 0; c < nc; c++) {
                double[] ye = tensor(bvt, bvt, bvt, q, p, vq[c]);
                double[] yr = tensor(bdt, bvt, bvt, q, p, dvq[c][0]);
                double[] ys = tensor(bvt, bdt, bvt, q, p, dvq[c][1]);
                double[] yt = tensor(bvt, bvt, bdt, q, p, dvq[c][2]);
                for (int i = 0; i < np; i++) {
                    y[(c * elements + e) * np + i] = ye[i] + yr[i] + ys[i] + yt[i];
                }
            }
        }
        return y;
    }

    static double[] identity(int n) {
        double[] m = new double[n * n];
        for (int i = 0; i < n; i++) {
            m[i * n + i] = 1;
        }
        return m;
    }

    /** The packed (G00, G01, G02, G11, G12, G22, wJ) of a deformed box at the quadrature's points. */
    static double[] diffusionData(SpectralElementMesh mesh, Quadrature quad) {
        return GeometricFactors.pointData(mesh, quad, 7, (x, dxdr, w, q) -> q[6] = PointGeometry.diffusion(dxdr, w, 1, q, 0));
    }

    static double[] randomData(int n, long seed) {
        double[] r = random(n, seed);
        for (int i = 0; i < n; i++) {
            r[i] = 0.5 + 0.25 * r[i];
        }
        return r;
    }

    private static double[] runLocal(AparapiBackend be, PointwiseFunction f, Basis1D basis, Quadrature quad, int elements,
                                     double[] data, double[] x) {
        try (DevicePointwiseData d = be.uploadPointwise(f, basis, quad, elements, data);
             DeviceVector dx = be.upload(x); DeviceVector dy = be.allocate(x.length)) {
            be.applyPointwise(d, dx, dy);
            return be.download(dy);
        }
    }

    // ------------------------------------------------------------------ tests

    static Stream<Arguments> degreesAndQuadratures() {
        return IntStream.of(1, 2, 5, 8).boxed()
                .flatMap(n -> Stream.of(Arguments.of(n, Quadrature.GLL), Arguments.of(n, Quadrature.GAUSS)));
    }

    /** The most general function (3 components, values and gradients, coupled) against the host reference. */
    @ParameterizedTest(name = "N={0} {1}")
    @MethodSource("degreesAndQuadratures")
    void threeComponentsAgreeWithTheHostReference(int n, Quadrature quad) {
        AparapiBackend be = OpenClAvailability.backend();
        Basis1D basis = Basis1D.of(n);
        int elements = 5;
        PointwiseFunction f = new Coupled3();
        double[] data = randomData(elements * quad.pointsPerElement(basis) * 7, 11 + n);
        double[] x = random(3 * elements * basis.np(), 3 + n);
        double[] got = runLocal(be, f, basis, quad, elements, data, x);
        double err = relativeError(got, reference(f, basis, quad, elements, data, x));
        assertTrue(err < TOL, "N=" + n + " " + quad + ": relative error " + err);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("functions")
    void functionsAgreeWithTheHostReference(PointwiseFunction f, int n, Quadrature quad) {
        AparapiBackend be = OpenClAvailability.backend();
        Basis1D basis = Basis1D.of(n);
        int elements = 3;
        double[] data = randomData(elements * quad.pointsPerElement(basis) * f.dataPerPoint(), 5);
        double[] x = random(f.components() * elements * basis.np(), 7);
        double[] got = runLocal(be, f, basis, quad, elements, data, x);
        double err = relativeError(got, reference(f, basis, quad, elements, data, x));
        assertTrue(err < TOL, f + " N=" + n + " " + quad + ": relative error " + err);
    }

    static Stream<Arguments> functions() {
        return Stream.of(Arguments.of(new Coefficient(), 3, Quadrature.GLL), Arguments.of(new Coefficient(), 4, Quadrature.GAUSS),
                Arguments.of(new Diffusion2(), 2, Quadrature.GAUSS), Arguments.of(new Diffusion2(), 5, Quadrature.GLL),
                Arguments.of(new Mass(), 6, Quadrature.GLL), Arguments.of(new Mass(), 1, Quadrature.GAUSS));
    }

    static Stream<Arguments> builtInCases() {
        return Stream.of(1, 2, 5, 7).flatMap(n -> Stream.of(Arguments.of(ElementKernel.STIFFNESS_BP35, n),
                Arguments.of(ElementKernel.STIFFNESS_BP30, n), Arguments.of(ElementKernel.MASS_BP10, n)));
    }

    /** The functions that are BP3.5, BP3.0 and BP1.0 give what the backend's own kernels give (lambda = 1). */
    @ParameterizedTest(name = "{0} N={1}")
    @MethodSource("builtInCases")
    void builtInOperatorsAsFunctionsAgreeWithTheBuiltInKernels(ElementKernel kernel, int n) {
        AparapiBackend be = OpenClAvailability.backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(2, 2, 1, n);
        Basis1D basis = mesh.basis();
        int elements = mesh.elementCount();
        Quadrature quad = kernel == ElementKernel.STIFFNESS_BP35 ? Quadrature.GLL : Quadrature.GAUSS;
        double[] factors = diffusionData(mesh, quad);
        PointwiseFunction f = new ScreenedDiffusion();
        double[] data = factors;
        if (kernel == ElementKernel.MASS_BP10) {
            f = new Mass();
            data = new double[factors.length / 7];
            for (int i = 0; i < data.length; i++) {
                data[i] = factors[7 * i + 6];
            }
        }
        double[] x = random(elements * basis.np(), 17);
        double[] got = runLocal(be, f, basis, quad, elements, data, x);
        double[] want;
        try (DeviceElementData ed = be.uploadElementData(kernel, basis, elements, data);
             DeviceVector dx = be.upload(x); DeviceVector dy = be.allocate(x.length)) {
            be.applyElements(ed, 1.0, dx, dy);
            want = be.download(dy);
        }
        double err = relativeError(got, want);
        assertTrue(err < TOL, kernel + " N=" + n + ": relative error " + err);
    }

    /** y_G = Z^T B^T f(B Z x_G) per component block, and its fused dot, against the host. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("assembledCases")
    void assembledAgreesWithScatterElementGatherOnTheHost(Quadrature quad, int n) {
        AparapiBackend be = OpenClAvailability.backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, n);
        ScatterOperator z = TestProblems.partlyMasked(mesh);
        Basis1D basis = mesh.basis();
        int elements = mesh.elementCount();
        int nl = z.localSize();
        int ng = z.globalSize();
        PointwiseFunction f = new Coupled3();
        double[] data = randomData(elements * quad.pointsPerElement(basis) * 7, 23);
        double[] xg = random(3 * ng, 29);
        double[] xl = new double[3 * nl];
        int[] ids = z.scatterIds();
        for (int c = 0; c < 3; c++) {
            for (int i = 0; i < nl; i++) {
                xl[c * nl + i] = ids[i] >= 0 ? xg[c * ng + ids[i]] : 0;
            }
        }
        double[] yl = reference(f, basis, quad, elements, data, xl);
        double[] want = new double[3 * ng];
        for (int c = 0; c < 3; c++) {
            for (int i = 0; i < nl; i++) {
                if (ids[i] >= 0) {
                    want[c * ng + ids[i]] += yl[c * nl + i];
                }
            }
        }
        double wantDot = 0;
        for (int i = 0; i < want.length; i++) {
            wantDot += xg[i] * want[i];
        }
        try (DevicePointwiseData d = be.uploadPointwise(f, basis, quad, elements, data);
             DeviceScatter dz = be.uploadScatter(z.scatterIds(), z.gatherStarts(), z.gatherIds(), z.blockStarts(),
                     z.inverseDegree(), z.globalSize());
             DeviceVector dx = be.upload(xg); DeviceVector dyl = be.allocate(3 * nl);
             DeviceVector dy = be.allocate(3 * ng); DeviceVector dy2 = be.allocate(3 * ng)) {
            be.applyPointwiseAssembled(d, dz, dx, dyl, dy);
            double[] got = be.download(dy);
            assertTrue(relativeError(got, want) < TOL, "assembled: relative error " + relativeError(got, want));
            assertTrue(relativeError(be.download(dyl), yl) < TOL, "yL holds y_L");
            double dot = be.applyPointwiseAssembledDot(d, dz, dx, dyl, dy2);
            assertTrue(relativeError(be.download(dy2), want) < TOL, "assembled+dot: y_G");
            assertEquals(wantDot, dot, TOL * Math.abs(wantDot) + 1e-14, "x_G . y_G");
        }
    }

    static Stream<Arguments> assembledCases() {
        return Stream.of(Arguments.of(Quadrature.GLL, 3), Arguments.of(Quadrature.GAUSS, 2));
    }

    @Test
    void rejectsAFunctionOutsideTheSubsetAtBindTime() {
        AparapiBackend be = OpenClAvailability.backend();
        String m = assertThrows(IllegalArgumentException.class, () -> be.uploadPointwise(
                new PointwiseTranslatorTest.ReadsField(), Basis1D.of(2), Quadrature.GLL, 1, new double[0])).getMessage();
        assertTrue(m.contains("GETFIELD") && m.contains("kappa"), m);
    }

    @Test
    void rejectsBadArguments() {
        AparapiBackend be = OpenClAvailability.backend();
        String m = assertThrows(IllegalArgumentException.class, () -> be.uploadPointwise(new Mass(), Basis1D.of(2),
                Quadrature.GLL, 2, new double[5])).getMessage();
        assertTrue(m.contains("pointData has length 5") && m.contains("54"), m);
        m = assertThrows(IllegalArgumentException.class, () -> be.uploadPointwise(new Mass(), Basis1D.of(16),
                Quadrature.GLL, 1, new double[17 * 17 * 17])).getMessage();
        assertTrue(m.contains("N = 16") && m.contains("15"), m);
        try (DevicePointwiseData d = be.uploadPointwise(new Mass(), Basis1D.of(2), Quadrature.GLL, 2, new double[54]);
             DeviceVector x = be.allocate(54); DeviceVector y = be.allocate(53)) {
            m = assertThrows(IllegalArgumentException.class, () -> be.applyPointwise(d, x, y)).getMessage();
            assertTrue(m.contains("yL has length 53") && m.contains("54"), m);
            m = assertThrows(IllegalArgumentException.class, () -> be.applyPointwise(d, x, x)).getMessage();
            assertTrue(m.contains("distinct"), m);
        }
    }

    /**
     * The plan for elements whose grids exceed the local memory (3 components at high N on a 48 KiB GPU): the grids
     * in global scratch give the same result.
     */
    @ParameterizedTest(name = "N={0} {1}")
    @MethodSource("globalGridCases")
    void elementGridsInGlobalScratchAgreeWithTheHostReference(int n, Quadrature quad) {
        AparapiBackend be = OpenClAvailability.backend();
        Basis1D basis = Basis1D.of(n);
        int elements = 7;
        PointwiseFunction f = new Coupled3();
        double[] data = randomData(elements * quad.pointsPerElement(basis) * 7, 41 + n);
        double[] x = random(3 * elements * basis.np(), 43 + n);
        be.pointwiseGlobalGrids(true);
        try (DevicePointwiseData d = be.uploadPointwise(f, basis, quad, elements, data)) {
            assertTrue(be.plan(d).contains("global scratch"), be.plan(d));
            double[] got = runLocal(be, f, basis, quad, elements, data, x);
            double err = relativeError(got, reference(f, basis, quad, elements, data, x));
            assertTrue(err < TOL, "N=" + n + " " + quad + ": relative error " + err);
        } finally {
            be.pointwiseGlobalGrids(false);
        }
    }

    static Stream<Arguments> globalGridCases() {
        return Stream.of(Arguments.of(1, Quadrature.GAUSS), Arguments.of(2, Quadrature.GLL), Arguments.of(4, Quadrature.GAUSS),
                Arguments.of(7, Quadrature.GLL));
    }

    /**
     * Agreement with the Java backend, the reference of every backend: local and assembled, 3 components, both
     * quadratures. Skipped (not failed) only while the Java backend has no user operators (it throws
     * UnsupportedOperationException there).
     */
    @ParameterizedTest(name = "N={0} {1}")
    @MethodSource("cpuCases")
    void agreesWithTheJavaBackend(int n, Quadrature quad) {
        AparapiBackend be = OpenClAvailability.backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(2, 2, 2, n);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        Basis1D basis = mesh.basis();
        int elements = mesh.elementCount();
        PointwiseFunction f = new Coupled3();
        double[] data = randomData(elements * quad.pointsPerElement(basis) * 7, 53);
        double[] xl = random(3 * z.localSize(), 59);
        double[] xg = random(3 * z.globalSize(), 61);
        double[][] want = new double[2][];
        double wantDot;
        try (io.lobatto.backend.cpu.CpuBackend cpu = new io.lobatto.backend.cpu.CpuBackend(1)) {
            DevicePointwiseData d;
            try {
                d = cpu.uploadPointwise(f, basis, quad, elements, data);
            } catch (UnsupportedOperationException e) {
                org.junit.jupiter.api.Assumptions.abort("the Java backend has no user operators yet: " + e.getMessage());
                return;
            }
            try (d; DeviceScatter dz = cpu.uploadScatter(z.scatterIds(), z.gatherStarts(), z.gatherIds(), z.blockStarts(),
                    z.inverseDegree(), z.globalSize()); DeviceVector x = cpu.upload(xl); DeviceVector y = cpu.allocate(xl.length);
                 DeviceVector g = cpu.upload(xg); DeviceVector yl = cpu.allocate(xl.length);
                 DeviceVector yg = cpu.allocate(xg.length)) {
                cpu.applyPointwise(d, x, y);
                want[0] = cpu.download(y);
                wantDot = cpu.applyPointwiseAssembledDot(d, dz, g, yl, yg);
                want[1] = cpu.download(yg);
            }
        }
        try (DevicePointwiseData d = be.uploadPointwise(f, basis, quad, elements, data);
             DeviceScatter dz = be.uploadScatter(z.scatterIds(), z.gatherStarts(), z.gatherIds(), z.blockStarts(),
                     z.inverseDegree(), z.globalSize()); DeviceVector x = be.upload(xl); DeviceVector y = be.allocate(xl.length);
             DeviceVector g = be.upload(xg); DeviceVector yl = be.allocate(xl.length);
             DeviceVector yg = be.allocate(xg.length)) {
            be.applyPointwise(d, x, y);
            assertTrue(relativeError(be.download(y), want[0]) < TOL, "local: " + relativeError(be.download(y), want[0]));
            double dot = be.applyPointwiseAssembledDot(d, dz, g, yl, yg);
            assertTrue(relativeError(be.download(yg), want[1]) < TOL, "assembled: " + relativeError(be.download(yg), want[1]));
            assertEquals(wantDot, dot, TOL * Math.abs(wantDot), "x_G . y_G");
        }
    }

    static Stream<Arguments> cpuCases() {
        return Stream.of(Arguments.of(1, Quadrature.GAUSS), Arguments.of(4, Quadrature.GLL), Arguments.of(5, Quadrature.GAUSS),
                Arguments.of(8, Quadrature.GLL));
    }

    /** A class compiled without -g (no LocalVariableTable): the translator names the locals itself. */
    @Test
    void aClassWithoutLocalVariableNamesAgreesWithTheHostReference() throws Exception {
        AparapiBackend be = OpenClAvailability.backend();
        var ctor = PointwiseTranslatorTest.withoutLocalVariableTables(PointwiseTranslatorTest.FancyStripped.class).getDeclaredConstructor();
        ctor.setAccessible(true);
        PointwiseFunction f = ctor.newInstance();
        Basis1D basis = Basis1D.of(3);
        Quadrature quad = Quadrature.GAUSS;
        double[] data = randomData(2 * quad.pointsPerElement(basis) * 2, 31);
        double[] x = random(2 * basis.np(), 37);
        double err = relativeError(runLocal(be, f, basis, quad, 2, data, x), reference(f, basis, quad, 2, data, x));
        assertTrue(err < TOL, "relative error " + err);
    }

    /** kernel-info: the generated OpenCL of a user function is clean C with the user's function inlined. */
    @Test
    void generatedSourceHasTheUserFunctionInlined() {
        var builds = KernelBuilds.pointwiseKernels(new Coefficient(), Quadrature.GAUSS, 3, 1024, 48 * 1024);
        String src = builds.get(0).source().source();
        assertTrue(src.contains("static inline __attribute__((always_inline)) void io_lobatto_backend_aparapi_PointwiseBackendTest_Coefficient__apply("), src);
        assertTrue(src.contains("sqrt(") && src.contains("exp(") && !src.contains("$"), src);
        assertTrue(src.contains("#define LB_NCOMP (1)") && src.contains("#define LB_NDATA (7)"), src);
    }
}
