package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
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

    private static final ElementKernel K = ElementKernel.STIFFNESS_BP30;

    private static AparapiBackend pipelined() {
        return VariantBackends.at48KiB(ElementVariant.PIPELINED);
    }

    /**
     * The register columns forced (their own plan's fallback where they do not fit) on the same 48 KiB: a kernel other
     * than the pipelined one at every N, now that the table takes the pipelined kernel at most degrees.
     */
    private static AparapiBackend existing() {
        return VariantBackends.at48KiB(ElementVariant.REGISTERS);
    }

    /**
     * The blocked factors ({@code -Dlobatto.aparapi.factorBlocks}) where the Gauss points per direction are odd and a group
     * holds several elements (N = 3, 5 and 7 here; N = 2 and 4 unchanged): the same bits and agreements as BP3.5's
     * ({@link VariantChecks#blockedFactorsKeepTheBits}).
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "N={0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {2, 3, 4, 5, 7})
    void blockedFactorsGiveTheSameBits(int n) {
        Basis1D basis = Basis1D.of(n);
        ElementPlan plan = ElementPlan.pipelined(basis.nq(), basis.nqGauss(), 256, 48 * 1024);
        VariantChecks.blockedFactorsKeepTheBits(pipelined(), K, n, plan.elementsPerGroup(),
                basis.nqGauss() % 2 == 1 && plan.elementsPerGroup() > 1);
    }

    static Stream<Arguments> degreesAndLambdas() {
        return IntStream.rangeClosed(1, AparapiBackend.MAX_DEGREE).boxed()
                .flatMap(n -> Stream.of(Arguments.of(n, 0.0), Arguments.of(n, 0.6)));
    }

    /** E = 11: the last group is partly filled wherever a group holds several elements (N <= 9). */
    @ParameterizedTest(name = "N={0} lambda={1}")
    @MethodSource("degreesAndLambdas")
    void elementApplyEqualsHostExistingKernelAndJavaBackend(int n, double lambda) {
        VariantChecks.elementApplyAgrees(pipelined(), existing(), "the table's kernel", K, n, lambda, 21 + n, plan -> {
            assertTrue(plan.contains(": pipelined, "), plan);
            assertEquals(n == 15, plan.contains("two barriers per layer"), plan);
            assertEquals(n == 15, plan.contains("two columns per work-item, 145 work-items x 1 elements"), plan);
            assertEquals(n < 15, plan.contains(" per layer, " + (n + 2) * (n + 2) + " work-items x "), plan);
        });
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
                VariantChecks.elements(p, K, basis, e, geo, lambda, x), VariantChecks.TOL, plan + " vs host");
    }

    @ParameterizedTest(name = "N={0} lambda={1}")
    @MethodSource("degreesAndLambdas")
    void maskedAssembledOperatorEqualsHostAndJavaBackend(int n, double lambda) {
        VariantChecks.maskedAssembledAgrees(pipelined(), K, n, lambda, 31 + n,
                plan -> assertTrue(plan.contains(": pipelined, "), plan));
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
