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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * The register-column kernel of one-component user operators that read gradients (BK3/BK5 at high N, where the
 * general kernel's grids would go to global scratch): forced at every N, against the dense host reference, the
 * general kernel and the built-in BP3.5 and BP3.0; and chosen by the plan on a 48 KiB device exactly where the general
 * kernel would not fit.
 */
class PointwiseColumnKernelTest {

    private static final double TOL = 1e-12;

    /** Gradients only: dv = G du. */
    static final class Diffusion1 extends PointwiseFunction {
        Diffusion1() {
            super(1, 6, FieldEvaluation.GRADIENTS);
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            dv[0] = data[0] * du[0] + data[1] * du[1] + data[2] * du[2];
            dv[1] = data[1] * du[0] + data[3] * du[1] + data[4] * du[2];
            dv[2] = data[2] * du[0] + data[4] * du[1] + data[5] * du[2];
        }
    }

    /** Degrees that cover the smallest, a few middle ones, the H100's p = 7 and the largest tested (CI time: every N is a build). */
    static Stream<Arguments> cases() {
        return IntStream.of(1, 3, 7, 10).boxed().flatMap(n -> Stream.of(
                Arguments.of(new PointwiseBackendTest.Coefficient(), n, Quadrature.GAUSS),
                Arguments.of(new PointwiseBackendTest.Coefficient(), n, Quadrature.GLL),
                Arguments.of(new Diffusion1(), n, Quadrature.GAUSS), Arguments.of(new Diffusion1(), n, Quadrature.GLL)));
    }

    private static double[] apply(AparapiBackend be, DevicePointwiseData d, double[] x) {
        try (DeviceVector dx = be.upload(x); DeviceVector dy = be.allocate(x.length)) {
            be.applyPointwise(d, dx, dy);
            return be.download(dy);
        }
    }

    @ParameterizedTest(name = "{0} N={1} {2}")
    @MethodSource("cases")
    void agreesWithTheHostReferenceAndTheGeneralKernel(PointwiseFunction f, int n, Quadrature quad) {
        AparapiBackend be = OpenClAvailability.backend();
        Basis1D basis = Basis1D.of(n);
        int elements = n <= 3 ? 23 : 5;
        double[] data = PointwiseBackendTest.randomData(elements * quad.pointsPerElement(basis) * f.dataPerPoint(), 7 + n);
        double[] x = random(elements * basis.np(), 11 + n);
        double[] got;
        be.pointwiseColumns(true);
        try (DevicePointwiseData d = be.uploadPointwise(f, basis, quad, elements, data)) {
            assertTrue(be.plan(d).contains("columns"), be.plan(d));
            got = apply(be, d, x);
        } finally {
            be.pointwiseColumns(false);
        }
        double err = relativeError(got, PointwiseBackendTest.reference(f, basis, quad, elements, data, x));
        assertTrue(err < TOL, f + " N=" + n + " " + quad + ": relative error " + err);
        be.pointwiseGeneral(true);
        try (DevicePointwiseData d = be.uploadPointwise(f, basis, quad, elements, data)) {
            err = relativeError(got, apply(be, d, x));
        } finally {
            be.pointwiseGeneral(false);
        }
        assertTrue(err < TOL, "against the general kernel: relative error " + err);
    }

    static Stream<Arguments> builtInCases() {
        return Stream.of(1, 7, 10).flatMap(n -> Stream.of(Arguments.of(ElementKernel.STIFFNESS_BP35, n),
                Arguments.of(ElementKernel.STIFFNESS_BP30, n)));
    }

    /** ScreenedDiffusion on the column kernel gives what the built-in BP3.5 (GLL) and BP3.0 (Gauss) give. */
    @ParameterizedTest(name = "{0} N={1}")
    @MethodSource("builtInCases")
    void screenedDiffusionAgreesWithTheBuiltInKernels(ElementKernel kernel, int n) {
        AparapiBackend be = OpenClAvailability.backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(2, 2, 1, n);
        Basis1D basis = mesh.basis();
        int elements = mesh.elementCount();
        Quadrature quad = kernel == ElementKernel.STIFFNESS_BP35 ? Quadrature.GLL : Quadrature.GAUSS;
        double[] data = PointwiseBackendTest.diffusionData(mesh, quad);
        double[] x = random(elements * basis.np(), 17);
        double[] got;
        be.pointwiseColumns(true);
        try (DevicePointwiseData d = be.uploadPointwise(new PointwiseBackendTest.ScreenedDiffusion(), basis, quad, elements,
                data)) {
            assertTrue(be.plan(d).contains("columns"), be.plan(d));
            got = apply(be, d, x);
        } finally {
            be.pointwiseColumns(false);
        }
        double[] want;
        try (DeviceElementData ed = be.uploadElementData(kernel, basis, elements, data);
             DeviceVector dx = be.upload(x); DeviceVector dy = be.allocate(x.length)) {
            be.applyElements(ed, 1.0, dx, dy);
            want = be.download(dy);
        }
        double err = relativeError(got, want);
        assertTrue(err < TOL, kernel + " N=" + n + ": relative error " + err);
    }

    /** y_G = Z^T B^T f(B Z x_G) and its dot on the column kernel, against the host. */
    @ParameterizedTest(name = "{0} N={1}")
    @MethodSource("assembledCases")
    void assembledAgreesWithTheHost(Quadrature quad, int n) {
        AparapiBackend be = OpenClAvailability.backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, n);
        ScatterOperator z = TestProblems.partlyMasked(mesh);
        Basis1D basis = mesh.basis();
        int elements = mesh.elementCount();
        int nl = z.localSize();
        int ng = z.globalSize();
        PointwiseFunction f = new PointwiseBackendTest.Coefficient();
        double[] data = PointwiseBackendTest.randomData(elements * quad.pointsPerElement(basis) * 7, 23);
        double[] xg = random(ng, 29);
        double[] xl = new double[nl];
        int[] ids = z.scatterIds();
        for (int i = 0; i < nl; i++) {
            xl[i] = ids[i] >= 0 ? xg[ids[i]] : 0;
        }
        double[] yl = PointwiseBackendTest.reference(f, basis, quad, elements, data, xl);
        double[] want = new double[ng];
        for (int i = 0; i < nl; i++) {
            if (ids[i] >= 0) {
                want[ids[i]] += yl[i];
            }
        }
        double wantDot = 0;
        for (int i = 0; i < ng; i++) {
            wantDot += xg[i] * want[i];
        }
        be.pointwiseColumns(true);
        try (DevicePointwiseData d = be.uploadPointwise(f, basis, quad, elements, data);
             DeviceScatter dz = be.uploadScatter(z.scatterIds(), z.gatherStarts(), z.gatherIds(), z.blockStarts(),
                     z.inverseDegree(), z.globalSize());
             DeviceVector dx = be.upload(xg); DeviceVector dyl = be.allocate(nl);
             DeviceVector dy = be.allocate(ng); DeviceVector dy2 = be.allocate(ng)) {
            assertTrue(be.plan(d).contains("columns"), be.plan(d));
            be.applyPointwiseAssembled(d, dz, dx, dyl, dy);
            assertTrue(relativeError(be.download(dy), want) < TOL, "assembled: " + relativeError(be.download(dy), want));
            assertTrue(relativeError(be.download(dyl), yl) < TOL, "yL holds y_L");
            double dot = be.applyPointwiseAssembledDot(d, dz, dx, dyl, dy2);
            assertTrue(relativeError(be.download(dy2), want) < TOL, "assembled+dot: y_G");
            assertEquals(wantDot, dot, TOL * Math.abs(wantDot) + 1e-14, "x_G . y_G");
        } finally {
            be.pointwiseColumns(false);
        }
    }

    static Stream<Arguments> assembledCases() {
        return Stream.of(Arguments.of(Quadrature.GLL, 3), Arguments.of(Quadrature.GAUSS, 2));
    }

    /**
     * On a 48 KiB device (the H100's OpenCL limit) the plan takes the columns exactly where the general kernel's grids
     * would go to global scratch, and the values-only kernels wherever the function reads values only.
     */
    @Test
    void plansColumnsWhereTheGeneralGridsDoNotFit() {
        long lds = 48 * 1024;
        for (int n = 1; n <= AparapiBackend.MAX_DEGREE; n++) {
            for (Quadrature quad : Quadrature.values()) {
                PointwiseFunction f = new PointwiseBackendTest.ScreenedDiffusion();
                boolean global = KernelBuilds.pointwisePlan(f, quad, n, 256, lds, false).globalGrids();
                KernelBuilds.PointwisePlan plan = KernelBuilds.pointwisePlan(f, quad, n, 256, lds, false, false, false);
                KernelBuilds.PointwisePlan cols = KernelBuilds.columnPlan(quad, n, 256, lds);
                KernelBuilds.PointwiseShape want = global && cols != null ? KernelBuilds.PointwiseShape.COLUMNS
                        : KernelBuilds.PointwiseShape.GENERAL;
                assertEquals(want, plan.shape(), "N=" + n + " " + quad + ": " + plan.describe());
                KernelBuilds.PointwisePlan mass = KernelBuilds.pointwisePlan(new PointwiseBackendTest.Mass(), quad, n, 256, lds,
                        false, false, false);
                assertEquals(quad == Quadrature.GLL ? KernelBuilds.PointwiseShape.MAP : KernelBuilds.PointwiseShape.LINES,
                        mass.shape(), "Mass N=" + n + " " + quad);
            }
        }
        // BK5 at N = 10..14 and BK3 at N = 8..14 leave the global scratch
        assertEquals(KernelBuilds.PointwiseShape.COLUMNS, KernelBuilds.pointwisePlan(new PointwiseBackendTest.ScreenedDiffusion(),
                Quadrature.GLL, 11, 256, lds, false, false, false).shape());
        assertEquals(KernelBuilds.PointwiseShape.COLUMNS, KernelBuilds.pointwisePlan(new PointwiseBackendTest.ScreenedDiffusion(),
                Quadrature.GAUSS, 11, 256, lds, false, false, false).shape());
    }
}
