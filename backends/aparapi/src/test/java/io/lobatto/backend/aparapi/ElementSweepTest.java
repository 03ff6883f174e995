package io.lobatto.backend.aparapi;

import static io.lobatto.backend.aparapi.AparapiBackendTest.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.ElementOperator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * u and the scatter ids through registers, and element slots that take several elements in turn
 * ({@link ElementPlan#SWEEP_PROPERTY}: the BP3.5 kernels of the 3D structures, S = 1 keeps the ids for the atomic adds,
 * S &gt; 1 loads the next element's u and ids, on the fly also its map coefficients, while the current one is computed).
 * Against the host
 * reference, the register kernels and the Java backend, element by element (11 elements: the last group partly filled)
 * and as the masked assembled operator with the shift W and the folded p update (4 elements), and in the atomic form
 * against the element kernel and the gather; in the 3D structure with several elements per group (N = 1) and one point per
 * work-item (N = 5), and in the points structure with two points per work-item (N = 6) and K layers of a column (N = 7).
 */
@ExtendWith(io.lobatto.backend.aparapi.conformance.SkipWithoutOpenCl.class)
class ElementSweepTest {

    private static final ElementKernel K = ElementKernel.STIFFNESS_BP35;

    /** The plan's suffix of {@code sweep}. */
    private static String inTurn(int sweep) {
        return sweep == 1 ? ", u and ids through registers" : ", " + sweep + " elements per slot in turn";
    }

    @Test
    void elementApplyAndMaskedAssembledOperatorAgree() {
        PropertyGuard.keeping(() -> {
            for (int sweep : new int[] {1, 2, 3}) {
                System.setProperty(ElementPlan.SWEEP_PROPERTY, Integer.toString(sweep));
                for (ElementVariant v : new ElementVariant[] {ElementVariant.SHARED, ElementVariant.POINTS}) {
                    AparapiBackend be = VariantBackends.get(v);
                    for (int n : v == ElementVariant.SHARED ? new int[] {1, 5} : new int[] {6, 7}) {
                        VariantChecks.elementApplyAgrees(be, VariantBackends.get(ElementVariant.REGISTERS), "the register kernels",
                                K, n, 0.6, 101 + n, plan -> assertTrue(plan.endsWith(inTurn(sweep)), sweep + ": " + plan));
                        VariantChecks.maskedAssembledAgrees(be, K, n, 0.6, 111 + n,
                                plan -> assertTrue(plan.endsWith(inTurn(sweep)), sweep + ": " + plan));
                    }
                }
            }
        }, ElementPlan.SWEEP_PROPERTY);
    }

    /**
     * The atomic form ({@code cas} on PoCL) with u and the ids through registers adds at the ids it loaded with u: y_G
     * equals the element kernel and the gather with u straight into local memory, with and without the shift, on a partly
     * masked box.
     */
    @Test
    void theAtomicFormAgrees() {
        AparapiBackend be = VariantBackends.get(ElementVariant.POINTS);
        for (int n : new int[] {1, 5, 6, 7}) {
            SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, n);
            assertSweepAgrees(be, ElementOperator.of(K, mesh, 0.75), TestProblems.partlyMasked(mesh), "N=" + n, "BP3.5 N=" + n);
        }
    }

    /**
     * BP3.5's register columns with their ids kept ({@link ElementPlan#KEEP_IDS_PROPERTY}): element by element, the masked
     * assembled operator, and in the atomic form against the ids read again, N = 3, 4; the property's errors.
     */
    @Test
    void theRegisterColumnsKeepTheirIds() {
        keepIds(VariantBackends.get(ElementVariant.REGISTERS), new int[] {3, 4});
    }

    /** The same for BP3.5's pipelined columns ({@link ElementVariant#PIPELINED}), N = 2, 5. */
    @Test
    void thePipelinedColumnsKeepTheirIds() {
        keepIds(PipelinedVariantBackend.get(), new int[] {2, 5});
    }

    private static void keepIds(AparapiBackend be, int[] degrees) {
        PropertyGuard.keeping(() -> {
            System.setProperty(ElementPlan.KEEP_IDS_PROPERTY, "1");
            for (int n : degrees) {
                VariantChecks.elementApplyAgrees(be, VariantBackends.get(ElementVariant.SHARED), "the shared kernels", K, n, 0.6,
                        121 + n, plan -> assertTrue(plan.contains(", ids kept in the atomic form"), plan));
                VariantChecks.maskedAssembledAgrees(be, K, n, 0.6, 131 + n,
                        plan -> assertTrue(plan.contains(", ids kept in the atomic form"), plan));
                SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, n);
                ScatterOperator z = TestProblems.partlyMasked(mesh);
                ElementOperator op = ElementOperator.of(K, mesh, 0.75);
                for (double shift : new double[] {0, 0.6}) {
                    String what = be + " N=" + n + " shift " + shift;
                    System.setProperty(ElementPlan.KEEP_IDS_PROPERTY, "0");
                    double[] want = apply(be, op, z, shift, what, "", "");
                    System.setProperty(ElementPlan.KEEP_IDS_PROPERTY, "1");
                    System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "cas");
                    assertClose(want, apply(be, op, z, shift, what, "BP3.5 N=" + n + " [ids kept]", "atomic"), 1e-14,
                            what + ": y_G, ids kept, atomic");
                    System.clearProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY);
                }
            }
            assertEquals(0, ElementPlan.of(ElementKernel.STIFFNESS_BP30, 5, 6, 256, VariantBackends.NVIDIA_LOCAL, "test",
                    ElementVariant.REGISTERS).keepIds(ElementKernel.STIFFNESS_BP30));
            System.setProperty(ElementPlan.KEEP_IDS_PROPERTY, "2");
            ElementPlan p = ElementPlan.of(K, 5, 6, 256, VariantBackends.NVIDIA_LOCAL, "test", ElementVariant.REGISTERS);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.keepIds(K));
            assertEquals("-Dlobatto.aparapi.keepIds=2: expected table, 0 or 1", e.getMessage());
        }, ElementPlan.KEEP_IDS_PROPERTY, AparapiBackend.ATOMIC_OPERATOR_PROPERTY);
    }

    /**
     * The factors on the fly (the points kernel, 48 KiB) with 3 elements per slot, its u and coefficients loaded a
     * element ahead: y_G equals the same kernel without a sweep, through the gather and in the atomic form, with the mass
     * term (lambda 0.75, which reads the grid u and the coefficients after the second barrier) and the shift.
     */
    @Test
    void theFactorsOnTheFlyAgree() {
        AparapiBackend be = VariantBackends.at48KiB(ElementVariant.POINTS);
        for (int n : new int[] {4, 6, 7}) {
            SpectralElementMesh mesh = TestProblems.perturbedBox(3, 2, 2, n, 0.2, 19L * n);
            ElementOperator op = io.lobatto.operators.StiffnessBp35.on(mesh, 0.75).withGeometryOnTheFly();
            assertSweepAgrees(be, op, TestProblems.partlyMasked(mesh), "on the fly N=" + n,
                    "BP3.5 N=" + n + " (factors on the fly, points");
        }
    }

    /**
     * y_G = A x of {@code op} with u and the ids through registers, one element per slot (stored factors only: on the
     * fly 1 is 0) and 3 in turn, through the gather, in the atomic form and as the one-kernel operator without atomics,
     * against u straight into local memory through the gather, shift 0 and 0.6 (x the same random vector); the launches' labels contain {@code label}.
     */
    private static void assertSweepAgrees(AparapiBackend be, ElementOperator op, ScatterOperator z, String name, String label) {
        boolean onTheFly = label.contains("on the fly");
        PropertyGuard.keeping(() -> {
            for (double shift : new double[] {0, 0.6}) {
                String what = name + " shift " + shift;
                System.setProperty(ElementPlan.SWEEP_PROPERTY, "0");
                // the launches are found by label, and other tests build kernels of this label with other constants
                double[] want = apply(be, op, z, shift, what, "", "");
                assertTrue(java.util.Arrays.stream(want).anyMatch(v -> v != 0), what + ": y_G is not zero");
                for (int sweep : onTheFly ? new int[] {3} : new int[] {1, 3}) {
                    System.setProperty(ElementPlan.SWEEP_PROPERTY, Integer.toString(sweep));
                    String tag = label + (onTheFly ? ", " + sweep + " elements per slot"
                            : sweep == 1 ? " [u through registers]" : " [" + sweep + " elements per slot]");
                    assertClose(want, apply(be, op, z, shift, what, tag, ""), 1e-14, what + ": y_G, S = " + sweep);
                    System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "cas");
                    String atomicTag = sweep == 1 ? label + " [ids kept]" : tag;
                    assertClose(want, apply(be, op, z, shift, what, atomicTag, "atomic"), 1e-14,
                            what + ": y_G, S = " + sweep + ", atomic");
                    System.clearProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY);
                    // the one-kernel operator without atomics: flagged ids written to y_G by the element kernel
                    System.setProperty(AparapiBackend.ONE_KERNEL_PROPERTY, "true");
                    assertClose(want, apply(be, op, z, shift, what, tag, "direct"), 1e-14, what + ": y_G, S = " + sweep + ", direct");
                    System.clearProperty(AparapiBackend.ONE_KERNEL_PROPERTY);
                }
            }
        }, ElementPlan.SWEEP_PROPERTY, AparapiBackend.ATOMIC_OPERATOR_PROPERTY, AparapiBackend.ONE_KERNEL_PROPERTY);
    }

    /**
     * y_G = A x of {@code op} bound now; with {@code form} "atomic" the one atomic kernel ran and no gather, with "direct"
     * the one-kernel operator without atomics ran.
     */
    private static double[] apply(AparapiBackend be, ElementOperator op, ScatterOperator z, double shift, String what,
                                  String label, String form) {
        try (AssembledOperator a = AssembledOperator.bind(op, z, be, shift);
             DeviceVector x = be.upload(TestProblems.random(z.globalSize(), 7L * op.degree()));
             DeviceVector y = be.allocate(z.globalSize())) {
            be.fill(y, 7);
            List<String> ops = OneKernelOperatorTest.launched(be, () -> a.apply(x, y));
            assertTrue(ops.stream().anyMatch(s -> s.contains(label)), what + ": " + ops);
            if (form.equals("atomic")) {
                assertTrue(ops.stream().anyMatch(s -> s.endsWith("one kernel, atomic)")), what + ": " + ops);
                assertFalse(ops.stream().anyMatch(s -> s.startsWith("gather")), what + ": no gather, " + ops);
            }
            if (form.equals("direct")) {
                assertTrue(ops.stream().anyMatch(s -> s.contains(label) && s.endsWith("one kernel)")), what + ": " + ops);
            }
            return be.download(y);
        }
    }

    /**
     * BP1.0 and BP3.0, the 2D structure and the factors on the fly in the shared structure take one element per slot
     * whatever the property; the points kernel of the factors on the fly takes it.
     */
    @Test
    void onlyTheStoredBp35ThreeDimensionalKernelsSweep() {
        PropertyGuard.keeping(() -> {
            System.setProperty(ElementPlan.SWEEP_PROPERTY, "4");
            AparapiBackend be = VariantBackends.get(ElementVariant.SHARED);
            for (ElementKernel k : new ElementKernel[] {ElementKernel.MASS_BP10, ElementKernel.STIFFNESS_BP30}) {
                String plan = VariantChecks.plan(be, k, 3);
                assertFalse(plan.contains("in turn"), k + ": " + plan);
            }
            assertTrue(VariantChecks.plan(be, K, 3).endsWith(inTurn(4)), VariantChecks.plan(be, K, 3));
            ElementPlan twoD = ElementPlan.of(K, 13, 14, 256, VariantBackends.NVIDIA_LOCAL, "test", ElementVariant.SHARED);
            assertFalse(twoD.threeD(), twoD.describe(K));
            assertEquals(0, twoD.sweep(K));
            assertEquals(4, ElementPlan.trilinearPoints(8, 256, VariantBackends.NVIDIA_LOCAL).sweep(K));
            assertEquals(0, ElementPlan.trilinearShared(8, 256, VariantBackends.NVIDIA_LOCAL).sweep(K));
            // on the fly at N = 1 an element has 8 work-items, fewer than the 21 coefficients a sweep holds
            assertEquals(0, ElementPlan.trilinearPoints(2, 256, VariantBackends.NVIDIA_LOCAL).sweep(K));
            System.setProperty(ElementPlan.SWEEP_PROPERTY, "1");
            assertEquals(0, ElementPlan.trilinearPoints(8, 256, VariantBackends.NVIDIA_LOCAL).sweep(K));
        }, ElementPlan.SWEEP_PROPERTY);
    }

    /**
     * The tables ({@code sweep26.sh} at b836e3d, a1efb31, 3f93a27, ab0cafa and 5f70759): the stored factors 2 at N = 5, 1
     * at N = 3, 8 and 9, else 0; on the fly 0; the register columns keep their ids at N = 11, the pipelined ones at N = 10; and the
     * plans of the points backend say so.
     */
    @Test
    void theTable() {
        for (int n = 1; n <= 15; n++) {
            assertEquals(n == 5 ? 2 : n == 3 || n == 8 || n == 9 ? 1 : 0, ElementPlan.sweepTable(n, false), "stored N = " + n);
            assertEquals(0, ElementPlan.sweepTable(n, true), "on the fly N = " + n);
            assertEquals(n == 11 ? 1 : 0, ElementPlan.keepIdsTable(n, ElementVariant.REGISTERS), "register columns N = " + n);
            assertEquals(n == 10 ? 1 : 0, ElementPlan.keepIdsTable(n, ElementVariant.PIPELINED), "pipelined columns N = " + n);
        }
        PropertyGuard.keeping(() -> {
            System.clearProperty(ElementPlan.SWEEP_PROPERTY);
            AparapiBackend be = VariantBackends.get(ElementVariant.POINTS);
            assertTrue(VariantChecks.plan(be, K, 5).endsWith(inTurn(2)), VariantChecks.plan(be, K, 5));
            assertFalse(VariantChecks.plan(be, K, 7).contains("through registers"), VariantChecks.plan(be, K, 7));
            assertTrue(VariantChecks.plan(be, K, 8).endsWith(inTurn(1)), VariantChecks.plan(be, K, 8));
        }, ElementPlan.SWEEP_PROPERTY);
    }

    /** A value the property does not take is named with its range. */
    @Test
    void aBadSweepIsNamed() {
        PropertyGuard.keeping(() -> {
            for (String bad : new String[] {"-1", "65", "two"}) {
                System.setProperty(ElementPlan.SWEEP_PROPERTY, bad);
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, ElementPlan::elementSweep);
                assertEquals("-Dlobatto.aparapi.elementSweep=" + bad + ": expected table or 0..64", e.getMessage());
            }
            System.setProperty(ElementPlan.SWEEP_PROPERTY, " table ");
            assertEquals(-1, ElementPlan.elementSweep());
        }, ElementPlan.SWEEP_PROPERTY);
    }
}
