package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
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

    private static final ElementKernel K = ElementKernel.STIFFNESS_BP35;

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

    static Stream<Arguments> degreesAndLambdas() {
        return IntStream.rangeClosed(1, AparapiBackend.MAX_DEGREE).boxed()
                .flatMap(n -> Stream.of(Arguments.of(n, 0.0), Arguments.of(n, 0.6)));
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
        VariantChecks.elementApplyAgrees(pipelined(), existing(), "the table's kernel", K, n, lambda, 21 + n,
                plan -> assertPlan(n, plan));
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
                VariantChecks.elements(p, K, basis, e, geo, lambda, x), VariantChecks.TOL, plan + " vs host");
    }

    @ParameterizedTest(name = "N={0} lambda={1}")
    @MethodSource("degreesAndLambdas")
    void maskedAssembledOperatorEqualsHostAndJavaBackend(int n, double lambda) {
        VariantChecks.maskedAssembledAgrees(pipelined(), K, n, lambda, 31 + n, plan -> assertPlan(n, plan));
    }

    /**
     * {@code -Dlobatto.aparapi.elementBankPad} (on by default) pads the element regions of a group of several elements where
     * Nq is odd (N = 2: 28 elements of 105 doubles instead of 90, 105 = 9 mod 16) and nowhere else: the element apply gives
     * the same bits as unpadded ({@code false}; E = 61, the last group partly filled), and the masked assembled operator
     * still agrees with the host and the Java backend.
     */
    @ParameterizedTest(name = "N={0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {2, 4, 6, 7})
    void bankPaddedGroupsGiveTheSameBits(int n) {
        AparapiBackend p = pipelined();
        Basis1D basis = Basis1D.of(n);
        int e = 61;
        double lambda = 0.6;
        double[] geo = HostReference.geometry(K, basis, e, 51 + n);
        double[] x = HostReference.random(e * basis.np(), 52 + n);
        String before = System.getProperty(ElementPlan.BANK_PAD_PROPERTY);
        System.setProperty(ElementPlan.BANK_PAD_PROPERTY, "false");
        try {
            String plainPlan = VariantChecks.plan(p, K, n);
            double[] plain = VariantChecks.elements(p, K, basis, e, geo, lambda, x);
            System.clearProperty(ElementPlan.BANK_PAD_PROPERTY);   // the default: padded
            String paddedPlan = VariantChecks.plan(p, K, n);
            int nq = n + 1;
            ElementPlan plan = ElementPlan.pipelinedBp35(nq, 256, 48 * 1024);
            if (nq % 2 == 1) {
                assertEquals(nq * nq % 16, plan.localPerElement() % 16, paddedPlan);
                assertTrue(!paddedPlan.equals(plainPlan), paddedPlan);
            } else {
                assertEquals(plainPlan, paddedPlan);
            }
            double[] padded = VariantChecks.elements(p, K, basis, e, geo, lambda, x);
            for (int i = 0; i < plain.length; i++) {
                assertEquals(Double.doubleToLongBits(plain[i]), Double.doubleToLongBits(padded[i]), paddedPlan + " entry " + i);
            }
            VariantChecks.maskedAssembledAgrees(p, K, n, lambda, 61 + n,
                    s -> assertTrue(s.contains(", " + plan.localDoubles() + " doubles local"), s + " / " + plan));
        } finally {
            if (before == null) {
                System.clearProperty(ElementPlan.BANK_PAD_PROPERTY);
            } else {
                System.setProperty(ElementPlan.BANK_PAD_PROPERTY, before);
            }
        }
    }

    /**
     * {@code -Dlobatto.aparapi.factorBlocks} (on by default) stores the factors blocked by the group's elements,
     * layer-major inside a block, where Nq is odd and a group holds several elements (N = 2, 4, 6 here; N = 7 unchanged):
     * on E = 61 (the last block partly filled) the element apply and the element diagonal give the same bits as
     * element-major factors ({@code false}), by the host upload and by the device split of packed factors; the masked
     * assembled operator (p = z + beta p folded in) agrees with the host and the Java backend; and the one-kernel atomic
     * operator agrees with the two kernels.
     */
    @ParameterizedTest(name = "N={0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {2, 4, 6, 7})
    void blockedFactorsGiveTheSameBits(int n) {
        int perGroup = ElementPlan.pipelinedBp35(n + 1, 256, 48 * 1024).elementsPerGroup();
        VariantChecks.blockedFactorsKeepTheBits(pipelined(), K, n, perGroup, (n + 1) % 2 == 1 && perGroup > 1);
    }

    /** The blocked layout is a one-to-one map of the E P^3 points into its length, layer c of a block contiguous. */
    @Test
    void blockedLayoutIsOneToOne() {
        for (int block : new int[] {0, 1, 3, 28}) {
            for (int p : new int[] {2, 3, 5}) {
                int e = 61;
                int p2 = p * p;
                int p3 = p2 * p;
                long length = FactorLayout.length(e, p3, block);
                assertEquals(block == 0 ? (long) e * p3 : (long) (e + block - 1) / block * block * p3, length);
                boolean[] hit = new boolean[(int) length];
                for (int el = 0; el < e; el++) {
                    for (int q = 0; q < p3; q++) {
                        int at = (int) FactorLayout.index(el, q, p2, p3, block);
                        assertTrue(at >= 0 && at < length && !hit[at], "block " + block + " P " + p + " e " + el + " q " + q);
                        hit[at] = true;
                        if (block > 0 && q % p2 > 0) {
                            assertEquals(at - 1, FactorLayout.index(el, q - 1, p2, p3, block));   // a layer's points in a row
                        }
                        if (block > 0 && el % block > 0) {   // then the next element's same layer
                            assertEquals(at - p2, FactorLayout.index(el - 1, q, p2, p3, block));
                        }
                    }
                }
            }
        }
    }

    /**
     * The padding: the least length at least the region's that is the element's columns modulo 16; N = 2's 90 doubles
     * padded to 105 by default; the switches take true or false and name anything else.
     */
    @Test
    void bankPadIsTheLeastLengthOfTheColumnsModulo16() {
        assertEquals(105, ElementPlan.bankPad(90, 9));
        assertEquals(25, ElementPlan.bankPad(25, 25));
        assertEquals(41, ElementPlan.bankPad(26, 25));
        assertEquals(105, ElementPlan.pipelinedBp35(3, 256, 48 * 1024).localPerElement());
        PropertyGuard.keeping(() -> {
            System.setProperty(ElementPlan.BANK_PAD_PROPERTY, "false");
            assertEquals(90, ElementPlan.pipelinedBp35(3, 256, 48 * 1024).localPerElement());
            System.setProperty(ElementPlan.BANK_PAD_PROPERTY, "yes");
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> ElementPlan.pipelinedBp35(3, 256, 48 * 1024));
            assertEquals("-Dlobatto.aparapi.elementBankPad=yes: expected true or false", e.getMessage());
        }, ElementPlan.BANK_PAD_PROPERTY);
    }

    /** The register cap of the pipelined BP3.5 kernel: 64 at N = 2 (stored factors), none at the other degrees. */
    @Test
    void registerCapOfThePipelinedKernel() {
        for (int n = 1; n <= 15; n++) {
            assertEquals(n == 2 ? 64 : 0, ElementPlan.registerCapTable(K, n, ElementVariant.PIPELINED, false, 1), "N = " + n);
            assertEquals(0, ElementPlan.registerCapTable(ElementKernel.STIFFNESS_BP30, n, ElementVariant.PIPELINED, false, 1));
        }
        ElementPlan n2 = KernelBuilds.firstPlan(K, Basis1D.of(2), 1024, 48 * 1024, "test", ElementVariant.PIPELINED);
        assertTrue(n2.describe(K).contains(", at most 64 registers on NVIDIA"), n2.describe(K));
    }

    /** Jacobi PCG to 1e-10 on a deformed box with a Dirichlet mask: the same iterations and solution as the table's kernels. */
    @ParameterizedTest(name = "N={0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {3, 7})
    void cgTakesTheSameIterationsAsTheTable(int n) {
        VariantChecks.jacobiPcgAgrees(existing(), pipelined(), K, n, "table's kernel against pipelined");
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
