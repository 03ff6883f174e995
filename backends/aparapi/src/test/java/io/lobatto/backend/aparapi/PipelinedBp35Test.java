package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.conformance.BackendFixture;
import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.ElementOperator;
import io.lobatto.solvers.ConjugateGradient;
import io.lobatto.solvers.JacobiPreconditioner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * The pipelined BP3.5 kernel with stored factors ({@link io.lobatto.backend.aparapi.kernels.StiffnessBp35PipelinedKernel})
 * at N = 1..15 with the 48 KiB of local memory of NVIDIA GPUs (as the H100 plans it: the kernel up to N = 12, the register
 * columns from N = 13, where the grid, the t-grid and the flux layers of one element do not fit), lambda = 0 (the branch
 * that skips wJ) and lambda != 0: equal to the host reference, to the existing BP3.5 kernels of the table on the same
 * 48 KiB, and to the Java backend, element by element and as the assembled operator with a Dirichlet mask, the shift W
 * and p = z + beta p folded in; Jacobi PCG takes the same iterations as with the table's kernels.
 */
class PipelinedBp35Test {

    private static final double TOL = 1e-12;
    private static final ElementKernel K = ElementKernel.STIFFNESS_BP35;
    private static AparapiBackend pipelined;
    private static AparapiBackend existing;

    private static synchronized AparapiBackend pipelined() {
        AparapiBackendTest.b(); // skips or fails without OpenCL
        if (pipelined == null) {
            pipelined = new AparapiBackend(OpenClDevices.select(OpenClDevices.configuredSelector()), 48 * 1024,
                    ElementVariant.PIPELINED);
        }
        return pipelined;
    }

    /**
     * The register columns forced (their own plan's fallback where they do not fit) on the same 48 KiB: a kernel other
     * than the pipelined one at every N, now that the table takes the pipelined kernel at most degrees.
     */
    private static synchronized AparapiBackend existing() {
        AparapiBackendTest.b();
        if (existing == null) {
            existing = new AparapiBackend(OpenClDevices.select(OpenClDevices.configuredSelector()), 48 * 1024,
                    ElementVariant.REGISTERS);
        }
        return existing;
    }

    @AfterAll
    static synchronized void close() {
        if (pipelined != null) {
            pipelined.close();
        }
        if (existing != null) {
            existing.close();
        }
    }

    static Stream<Arguments> degreesAndLambdas() {
        return IntStream.rangeClosed(1, AparapiBackend.MAX_DEGREE).boxed()
                .flatMap(n -> Stream.of(Arguments.of(n, 0.0), Arguments.of(n, 0.6)));
    }

    private static double[] elements(Backend b, Basis1D basis, int e, double[] geo, double lambda, double[] x) {
        try (DeviceElementData d = b.uploadElementData(K, basis, e, geo); DeviceVector dx = b.upload(x);
             DeviceVector dy = b.allocate(x.length)) {
            b.applyElements(d, lambda, dx, dy);
            return b.download(dy);
        }
    }

    /** The plan string of the kernel at N = n in 48 KiB: the pipelined kernel up to N = 12, else the register columns. */
    private static void assertPlan(int n, String plan) {
        if (n <= 12) {
            assertTrue(plan.contains(": pipelined, shared columns, one barrier per layer, " + (n + 1) * (n + 1)
                    + " work-items x "), plan);
        } else {
            assertTrue(plan.contains(": registers, columns, "), plan);
        }
    }

    /** E = 11: the last group is partly filled wherever a group holds several elements (N <= 6). */
    @ParameterizedTest(name = "N={0} lambda={1}")
    @MethodSource("degreesAndLambdas")
    void elementApplyEqualsHostExistingKernelAndJavaBackend(int n, double lambda) {
        AparapiBackend p = pipelined();
        Basis1D basis = Basis1D.of(n);
        int e = 11;
        double[] geo = HostReference.geometry(K, basis, e, 21 + n);
        double[] x = HostReference.random(e * basis.np(), 22 + n);
        String plan;
        try (DeviceElementData d = p.uploadElementData(K, basis, e, geo)) {
            plan = p.plan(d);
        }
        assertPlan(n, plan);
        double[] y = elements(p, basis, e, geo, lambda, x);
        AparapiBackendTest.assertClose(HostReference.applyElements(K, basis, e, geo, lambda, x), y, TOL, plan + " vs host");
        AparapiBackendTest.assertClose(elements(existing(), basis, e, geo, lambda, x), y, TOL, plan + " vs the table's kernel");
        AparapiBackendTest.assertClose(elements(BackendFixture.reference(), basis, e, geo, lambda, x), y, TOL,
                plan + " vs the Java backend");
    }

    /** On the device's whole local memory (PoCL's) the kernel runs at N = 13..15 too (one element per group). */
    @ParameterizedTest(name = "N={0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {13, 14, 15})
    void highDegreesOnTheWholeLocalMemory(int n) {
        AparapiBackend p = PipelinedVariantBackend.get();
        Basis1D basis = Basis1D.of(n);
        int e = 3;
        double lambda = 0.6;
        double[] geo = HostReference.geometry(K, basis, e, 41 + n);
        double[] x = HostReference.random(e * basis.np(), 42 + n);
        String plan;
        try (DeviceElementData d = p.uploadElementData(K, basis, e, geo)) {
            plan = p.plan(d);
        }
        assertTrue(plan.contains(": pipelined, shared columns, one barrier per layer, " + (n + 1) * (n + 1) + " work-items x 1 "),
                plan);
        AparapiBackendTest.assertClose(HostReference.applyElements(K, basis, e, geo, lambda, x),
                elements(p, basis, e, geo, lambda, x), TOL, plan + " vs host");
    }

    @ParameterizedTest(name = "N={0} lambda={1}")
    @MethodSource("degreesAndLambdas")
    void maskedAssembledOperatorEqualsHostAndJavaBackend(int n, double lambda) {
        AparapiBackend b = pipelined();
        Backend java = BackendFixture.reference();
        Basis1D basis = Basis1D.of(n);
        HostReference.Mesh m = HostReference.boxMesh(n, 2, 1, 2, true);
        int e = m.elements();
        double shift = 1.4;
        double beta = 0.37;
        double[] geo = HostReference.geometry(K, basis, e, 31 + n);
        double[] xg = HostReference.random(m.globalSize(), 32 + n);
        double[] zg = HostReference.random(m.globalSize(), 33 + n);
        double[] xl = HostReference.scatter(m.scatterIds(), xg);
        double[] yl = HostReference.applyElements(K, basis, e, geo, lambda, xl);
        for (int i = 0; i < yl.length; i++) {
            yl[i] += shift * m.inverseDegree()[i] * xl[i];
        }
        double[] yg = HostReference.gather(m.scatterIds(), yl, m.globalSize());
        double[] javaYg;
        try (DeviceElementData d = java.uploadElementData(K, basis, e, geo);
             DeviceScatter z = java.uploadScatter(m.scatterIds(), m.gatherStarts(), m.gatherIds(),
                     new int[] {0, m.globalSize()}, m.inverseDegree(), m.globalSize());
             DeviceVector dx = java.upload(xg); DeviceVector dyl = java.allocate(yl.length);
             DeviceVector dyg = java.allocate(m.globalSize())) {
            java.applyAssembled(d, z, lambda, shift, dx, dyl, dyg);
            javaYg = java.download(dyg);
        }
        try (DeviceElementData d = b.uploadElementData(K, basis, e, geo);
             DeviceScatter z = b.uploadScatter(m.scatterIds(), m.gatherStarts(), m.gatherIds(), null, m.inverseDegree(),
                     m.globalSize());
             DeviceVector dx = b.upload(xg); DeviceVector dz = b.upload(zg); DeviceVector dyl = b.allocate(yl.length);
             DeviceVector dyg = b.allocate(m.globalSize()); DeviceVector ep = b.upload(xg);
             DeviceVector eyg = b.allocate(m.globalSize())) {
            String plan = b.plan(d);
            assertPlan(n, plan);
            b.applyAssembled(d, z, lambda, shift, dx, dyl, dyg);
            AparapiBackendTest.assertClose(yg, b.download(dyg), TOL, plan + ": y_G vs host");
            AparapiBackendTest.assertClose(javaYg, b.download(dyg), TOL, plan + ": y_G vs the Java backend");
            // p = z + beta p folded into the operator (input mode 2) against the update then the apply
            double fused = b.applyAssembledDotUpdate(d, z, lambda, shift, dz, beta, dx, dyl, dyg);
            b.axpby(1, dz, beta, ep);
            double expected = b.applyAssembledDot(d, z, lambda, shift, ep, dyl, eyg);
            AparapiBackendTest.assertClose(b.download(ep), b.download(dx), TOL, "p = z + beta p");
            AparapiBackendTest.assertClose(b.download(eyg), b.download(dyg), TOL, plan + ": A p");
            assertEquals(expected, fused, TOL * Math.max(1, Math.abs(expected)), plan + ": p . Ap");
        }
    }

    /** Jacobi PCG to 1e-10 on a deformed box with a Dirichlet mask: the same iterations and solution as the table's kernels. */
    @ParameterizedTest(name = "N={0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {3, 7})
    void cgTakesTheSameIterationsAsTheTable(int n) {
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 3, 2, n);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        ElementOperator op = ElementOperator.of(K, mesh, 0.3);
        AparapiBackend[] backends = {existing(), pipelined()};
        double[][] x = new double[2][];
        int[] iterations = new int[2];
        for (int v = 0; v < 2; v++) {
            AparapiBackend be = backends[v];
            try (AssembledOperator a = AssembledOperator.bind(op, z, be, 0); JacobiPreconditioner jacobi = JacobiPreconditioner.of(a);
                 DeviceVector b = be.upload(TestProblems.random(z.globalSize(), 9)); DeviceVector xv = be.allocate(z.globalSize());
                 ConjugateGradient cg = new ConjugateGradient(a, jacobi).relativeTolerance(1e-10).maxIterations(2000)) {
                iterations[v] = cg.solve(b, xv).iterations();
                x[v] = be.download(xv);
            }
        }
        assertTrue(iterations[0] > 10, "iterations " + iterations[0]);
        assertEquals(iterations[0], iterations[1], "iterations, table's kernel against pipelined");
        AparapiBackendTest.assertClose(x[0], x[1], 1e-9, "solution, table's kernel against pipelined");
    }

    /**
     * The plans: N = 7 in 48 KiB holds 4 elements of 64 work-items (1440 doubles each: two grids of 8 x 9 x 8 and four
     * 8 x 9 flux layers); N = 12 one element; from N = 13 (and where Nq^2 exceeds the group) the register plan; BP1.0
     * keeps its table.
     */
    @Test
    void plansAtTheLimitsOfTheGroupAndTheLocalMemory() {
        ElementPlan n7 = KernelBuilds.firstPlan(K, Basis1D.of(7), 1024, 48 * 1024, "test", ElementVariant.PIPELINED);
        assertEquals(ElementVariant.PIPELINED, n7.variant());
        assertEquals(4 * 64, n7.groupSize());
        assertEquals(1440, n7.localPerElement());
        assertEquals(4 * 1440 + 72, n7.localDoubles());
        ElementPlan n12 = KernelBuilds.firstPlan(K, Basis1D.of(12), 1024, 48 * 1024, "test", ElementVariant.PIPELINED);
        assertEquals(ElementVariant.PIPELINED, n12.variant());
        assertEquals(169, n12.groupSize());
        assertNull(ElementPlan.pipelinedBp35(14, 256, 48 * 1024));
        assertEquals(ElementVariant.REGISTERS,
                KernelBuilds.firstPlan(K, Basis1D.of(13), 1024, 48 * 1024, "test", ElementVariant.PIPELINED).variant());
        assertEquals(ElementVariant.PIPELINED,
                KernelBuilds.firstPlan(K, Basis1D.of(10), 128, 48 * 1024, "test", ElementVariant.PIPELINED).variant());
        assertEquals(ElementVariant.SHARED,
                KernelBuilds.firstPlan(K, Basis1D.of(11), 128, 48 * 1024, "test", ElementVariant.PIPELINED).variant());
        assertEquals(ElementVariant.PIPELINED,
                KernelBuilds.firstPlan(K, Basis1D.of(14), 256, 64 * 1024, "test", ElementVariant.PIPELINED).variant());
        assertNull(ElementPlan.pipelinedBp35(16, 256, 64 * 1024));
        assertEquals(ElementVariant.REGISTERS, KernelBuilds.firstPlan(ElementKernel.MASS_BP10, Basis1D.of(7), 1024, 48 * 1024,
                "test", ElementVariant.PIPELINED).variant());
        assertEquals(ElementVariant.PIPELINED, forcedPipelined());
    }

    /** {@code -Dlobatto.aparapi.elementVariant=pipelined} applies to BP3.5 (and BP3.0), not to BP1.0. */
    private static ElementVariant forcedPipelined() {
        String before = System.getProperty("lobatto.aparapi.elementVariant");
        System.setProperty("lobatto.aparapi.elementVariant", "pipelined");
        try {
            assertEquals(ElementVariant.PIPELINED, ElementVariant.of(ElementKernel.STIFFNESS_BP30, 7));
            assertEquals(ElementVariant.table(ElementKernel.MASS_BP10, 7), ElementVariant.of(ElementKernel.MASS_BP10, 7));
            return ElementVariant.of(K, 7);
        } finally {
            if (before == null) {
                System.clearProperty("lobatto.aparapi.elementVariant");
            } else {
                System.setProperty("lobatto.aparapi.elementVariant", before);
            }
        }
    }
}
