package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.conformance.BackendFixture;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * The pipelined BP3.0 kernel ({@link io.lobatto.backend.aparapi.kernels.StiffnessBp30PipelinedKernel}) at N = 1..15
 * with the 48 KiB of local memory of NVIDIA GPUs (as the H100 plans it: two pairs of flux layers up to N = 14; one pair
 * and two columns per work-item at N = 15), lambda = 0 (the branch that skips wJ) and lambda != 0: equal to the host
 * reference, to the existing BP3.0 kernels of the table on the same 48 KiB, and to the Java backend, element by element
 * and as the assembled operator with a Dirichlet mask, the shift W and p = z + beta p folded in.
 */
class PipelinedBp30Test {

    private static final double TOL = 1e-12;
    private static final ElementKernel K = ElementKernel.STIFFNESS_BP30;
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

    /** E = 11: the last group is partly filled wherever a group holds several elements (N <= 9). */
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
        assertTrue(plan.contains(": pipelined, "), plan);
        assertEquals(n == 15, plan.contains("two barriers per layer"), plan);
        assertEquals(n == 15, plan.contains("two columns per work-item, 145 work-items x 1 elements"), plan);
        assertEquals(n < 15, plan.contains(" per layer, " + (n + 2) * (n + 2) + " work-items x "), plan);
        double[] y = elements(p, basis, e, geo, lambda, x);
        AparapiBackendTest.assertClose(HostReference.applyElements(K, basis, e, geo, lambda, x), y, TOL, plan + " vs host");
        AparapiBackendTest.assertClose(elements(existing(), basis, e, geo, lambda, x), y, TOL, plan + " vs the table's kernel");
        AparapiBackendTest.assertClose(elements(BackendFixture.reference(), basis, e, geo, lambda, x), y, TOL,
                plan + " vs the Java backend");
    }

    /**
     * On the device's whole local memory (PoCL's; an AMD GPU's 64 KiB does the same) N = 15 has two pairs of flux layers and
     * still two columns per work-item: one barrier per layer with two columns.
     */
    @ParameterizedTest(name = "N={0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {13, 14, 15})
    void twoColumnsWithOneBarrierPerLayer(int n) {
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
        assertTrue(plan.contains(": pipelined, lines + columns, one barrier per layer, "), plan);
        assertEquals(n == 15, plan.contains("two columns per work-item"), plan);
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
            assertTrue(plan.contains(": pipelined, "), plan);
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

    /**
     * The plans: one barrier per layer up to N = 14; at N = 15 in 48 KiB one pair of flux layers and, P^2 = 289 exceeding the
     * group of 256, 145 work-items with two columns each (so also at N = 13 in groups of 128); the shared plan where even
     * half the columns exceed the group; BP3.5's pipelined kernel does not fit 48 KiB at N = 15, so it takes the register
     * plan there ({@link PipelinedBp35Test} checks its plans).
     */
    @Test
    void plansAtTheLimitsOfTheGroupAndTheLocalMemory() {
        ElementPlan n15 = KernelBuilds.firstPlan(K, Basis1D.of(15), 1024, 48 * 1024, "test", ElementVariant.PIPELINED);
        assertEquals(ElementVariant.PIPELINED, n15.variant());
        assertEquals(145, n15.groupSize());
        assertEquals(2, n15.columnsPerItem());
        assertEquals(1, n15.fluxBuffers());
        ElementPlan n14 = KernelBuilds.firstPlan(K, Basis1D.of(14), 1024, 48 * 1024, "test", ElementVariant.PIPELINED);
        assertEquals(256, n14.groupSize());
        assertEquals(1, n14.columnsPerItem());
        assertEquals(2, n14.fluxBuffers());
        ElementPlan n7 = KernelBuilds.firstPlan(K, Basis1D.of(7), 1024, 48 * 1024, "test", ElementVariant.PIPELINED);
        assertEquals(2, n7.fluxBuffers());
        assertEquals(3 * 81, n7.groupSize());
        assertEquals(ElementVariant.SHARED,
                KernelBuilds.firstPlan(K, Basis1D.of(15), 128, 48 * 1024, "test", ElementVariant.PIPELINED).variant());
        ElementPlan n13 = KernelBuilds.firstPlan(K, Basis1D.of(13), 128, 48 * 1024, "test", ElementVariant.PIPELINED);
        assertEquals(ElementVariant.PIPELINED, n13.variant());
        assertEquals(113, n13.groupSize());
        assertEquals(2, n13.columnsPerItem());
        ElementPlan bp35 = KernelBuilds.firstPlan(ElementKernel.STIFFNESS_BP35, Basis1D.of(15), 1024, 48 * 1024, "test",
                ElementVariant.PIPELINED);
        assertEquals(ElementVariant.REGISTERS, bp35.variant());
        assertEquals(256, bp35.groupSize());
    }
}
