package io.lobatto.backend.aparapi;

import static io.lobatto.conformance.TestProblems.random;
import static io.lobatto.conformance.TestProblems.relativeError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DevicePointwiseData;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.core.pointwise.FieldEvaluation;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.Quadrature;
import io.lobatto.gs.ScatterOperator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * The kernels of user operators whose function reads values only (BK1): the register-line kernel at
 * Gauss points and the pointwise map at GLL points, against the dense host reference, the general kernel and the
 * built-in BP1.0, for 1..3 components, N = 1..10 and element counts that leave the last work-group partly filled.
 */
class PointwiseValuesKernelsTest {

    private static final double TOL = 1e-12;

    /** One component: v = d0 u + d1 u^2 (nonlinear, so the interpolated value is what f sees). */
    static final class Values1 extends PointwiseFunction {
        Values1() {
            super(1, 2, FieldEvaluation.VALUES);
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            v[0] = data[0] * u[0] + data[1] * u[0] * u[0];
        }
    }

    /** Two components coupled through the values: a 2 x 2 mass-like block from three data. */
    static final class Values2 extends PointwiseFunction {
        Values2() {
            super(2, 3, FieldEvaluation.VALUES);
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            v[0] = data[0] * u[0] + data[1] * u[1];
            v[1] = data[1] * u[0] + data[2] * u[1];
        }
    }

    /** Three components, coupled cyclically, with Math.exp of a datum. */
    static final class Values3 extends PointwiseFunction {
        Values3() {
            super(3, 2, FieldEvaluation.VALUES);
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            double k = Math.exp(-data[1]);
            for (int c = 0; c < 3; c++) {
                v[c] = data[0] * u[c] + k * u[(c + 1) % 3];
            }
        }
    }

    static PointwiseFunction function(int ncomp) {
        return switch (ncomp) {
            case 1 -> new Values1();
            case 2 -> new Values2();
            default -> new Values3();
        };
    }

    /** Degrees that cover the smallest, a few middle ones, the H100's p = 7 and the largest tested (CI time: every N is a build). */
    static Stream<Arguments> cases() {
        return IntStream.of(1, 3, 7, 10).boxed().flatMap(n -> IntStream.rangeClosed(1, 3).boxed()
                .flatMap(c -> Stream.of(Arguments.of(n, c, Quadrature.GAUSS), Arguments.of(n, c, Quadrature.GLL))));
    }

    /** Against the dense host reference and the general kernel, on the variant the plan names. */
    @ParameterizedTest(name = "N={0} ncomp={1} {2}")
    @MethodSource("cases")
    void agreeWithTheHostReferenceAndTheGeneralKernel(int n, int ncomp, Quadrature quad) {
        AparapiBackend be = OpenClAvailability.backend();
        Basis1D basis = Basis1D.of(n);
        int elements = n <= 3 ? 37 : 5;
        PointwiseFunction f = function(ncomp);
        double[] data = PointwiseBackendTest.randomData(elements * quad.pointsPerElement(basis) * f.dataPerPoint(), 3 + n);
        double[] x = random(ncomp * elements * basis.np(), 5 + n + ncomp);
        double[] want = PointwiseBackendTest.reference(f, basis, quad, elements, data, x);
        double[] got;
        try (DevicePointwiseData d = be.uploadPointwise(f, basis, quad, elements, data)) {
            String plan = be.plan(d);
            if (quad == Quadrature.GLL) {
                assertTrue(plan.contains("pointwise map"), plan);
            } else if (n <= 8 || ncomp == 1) {
                // fits a 48 KiB local memory (PoCL offers more): N >= 9 with 2-3 components may not
                assertTrue(plan.contains("lines"), plan);
            }
            got = apply(be, d, x);
        }
        double err = relativeError(got, want);
        assertTrue(err < TOL, "N=" + n + " ncomp=" + ncomp + " " + quad + ": relative error " + err);
        be.pointwiseGeneral(true);
        double[] general;
        try (DevicePointwiseData d = be.uploadPointwise(f, basis, quad, elements, data)) {
            assertTrue(be.plan(d).contains("3D"), be.plan(d));
            general = apply(be, d, x);
        } finally {
            be.pointwiseGeneral(false);
        }
        err = relativeError(got, general);
        assertTrue(err < TOL, "against the general kernel: relative error " + err);
    }

    private static double[] apply(AparapiBackend be, DevicePointwiseData d, double[] x) {
        try (DeviceVector dx = be.upload(x); DeviceVector dy = be.allocate(x.length)) {
            be.applyPointwise(d, dx, dy);
            return be.download(dy);
        }
    }

    /** Mass as a user function at Gauss points (the line kernel) gives what the built-in BP1.0 gives. */
    @ParameterizedTest(name = "N={0}")
    @MethodSource("degrees")
    void massAsAFunctionAgreesWithTheBuiltInBp10(int n) {
        AparapiBackend be = OpenClAvailability.backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 1, n);
        Basis1D basis = mesh.basis();
        int elements = mesh.elementCount();
        double[] factors = PointwiseBackendTest.diffusionData(mesh, Quadrature.GAUSS);
        double[] wj = new double[factors.length / 7];
        for (int i = 0; i < wj.length; i++) {
            wj[i] = factors[7 * i + 6];
        }
        double[] x = random(elements * basis.np(), 19 + n);
        double[] got;
        try (DevicePointwiseData d = be.uploadPointwise(new PointwiseBackendTest.Mass(), basis, Quadrature.GAUSS, elements, wj)) {
            assertTrue(be.plan(d).contains("lines"), be.plan(d));
            got = apply(be, d, x);
        }
        double[] want;
        try (DeviceElementData ed = be.uploadElementData(ElementKernel.MASS_BP10, basis, elements, wj);
             DeviceVector dx = be.upload(x); DeviceVector dy = be.allocate(x.length)) {
            be.applyElements(ed, 1.0, dx, dy);
            want = be.download(dy);
        }
        double err = relativeError(got, want);
        assertTrue(err < TOL, "N=" + n + ": relative error " + err);
    }

    static Stream<Integer> degrees() {
        return IntStream.of(1, 2, 4, 7, 9, 10).boxed();
    }

    /** y_G = Z^T B^T f(B Z x_G) through the scatter ids, and its dot, on both values-only kernels. */
    @ParameterizedTest(name = "N={0} ncomp={1} {2}")
    @MethodSource("assembledCases")
    void assembledAgreesWithTheHost(int n, int ncomp, Quadrature quad) {
        AparapiBackend be = OpenClAvailability.backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, n);
        ScatterOperator z = TestProblems.partlyMasked(mesh);
        Basis1D basis = mesh.basis();
        int elements = mesh.elementCount();
        int nl = z.localSize();
        int ng = z.globalSize();
        PointwiseFunction f = function(ncomp);
        double[] data = PointwiseBackendTest.randomData(elements * quad.pointsPerElement(basis) * f.dataPerPoint(), 23);
        double[] xg = random(ncomp * ng, 29);
        double[] xl = new double[ncomp * nl];
        int[] ids = z.scatterIds();
        for (int c = 0; c < ncomp; c++) {
            for (int i = 0; i < nl; i++) {
                xl[c * nl + i] = ids[i] >= 0 ? xg[c * ng + ids[i]] : 0;
            }
        }
        double[] yl = PointwiseBackendTest.reference(f, basis, quad, elements, data, xl);
        double[] want = new double[ncomp * ng];
        for (int c = 0; c < ncomp; c++) {
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
             DeviceVector dx = be.upload(xg); DeviceVector dyl = be.allocate(ncomp * nl);
             DeviceVector dy = be.allocate(ncomp * ng); DeviceVector dy2 = be.allocate(ncomp * ng)) {
            assertTrue(be.plan(d).contains(quad == Quadrature.GLL ? "pointwise map" : "lines"), be.plan(d));
            be.applyPointwiseAssembled(d, dz, dx, dyl, dy);
            assertTrue(relativeError(be.download(dy), want) < TOL, "assembled: " + relativeError(be.download(dy), want));
            assertTrue(relativeError(be.download(dyl), yl) < TOL, "yL holds y_L");
            double dot = be.applyPointwiseAssembledDot(d, dz, dx, dyl, dy2);
            assertTrue(relativeError(be.download(dy2), want) < TOL, "assembled+dot: y_G");
            assertEquals(wantDot, dot, TOL * Math.abs(wantDot) + 1e-14, "x_G . y_G");
        }
    }

    static Stream<Arguments> assembledCases() {
        return Stream.of(Arguments.of(2, 1, Quadrature.GAUSS), Arguments.of(3, 3, Quadrature.GAUSS),
                Arguments.of(2, 2, Quadrature.GLL), Arguments.of(4, 3, Quadrature.GLL));
    }
}
