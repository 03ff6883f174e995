package io.lobatto.backend.aparapi;

import static io.lobatto.backend.aparapi.AparapiBackendTest.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.ElementOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Where the column sums of the points structure with K &gt; 1 layers per work-item read their operands: the t-direction's
 * D entries from constant memory ({@link ElementPlan#CONSTANT_D_PROPERTY}), and on the fly the K points' fluxes stored
 * after all K are computed ({@link ElementPlan#DEFER_FLUXES_PROPERTY}). Stored factors at N = 7 (K = 2) and N = 8 (K = 3,
 * the last slot's third layer past the grid) element by element against the host reference, the register kernels and
 * the Java backend, and as the masked assembled operator; on the fly y_G through the gather and in the atomic form
 * against both switches off, with the mass term and the shift.
 */
@ExtendWith(io.lobatto.backend.aparapi.conformance.SkipWithoutOpenCl.class)
class ColumnSumsSourcesTest {

    private static final ElementKernel K = ElementKernel.STIFFNESS_BP35;

    @Test
    void theStoredFactorsAgreeWithDFromConstantMemory() {
        PropertyGuard.keeping(() -> {
            System.setProperty(ElementPlan.CONSTANT_D_PROPERTY, "1");
            AparapiBackend be = VariantBackends.get(ElementVariant.POINTS);
            for (int n : new int[] {7, 8}) {
                VariantChecks.elementApplyAgrees(be, VariantBackends.get(ElementVariant.REGISTERS), "the register kernels", K, n,
                        0.6, 201 + n, plan -> assertTrue(plan.contains("layers of a column") && plan.endsWith(
                                ", D_c from constant memory"), plan));
                VariantChecks.maskedAssembledAgrees(be, K, n, 0.6, 211 + n,
                        plan -> assertTrue(plan.endsWith(", D_c from constant memory"), plan));
            }
        }, ElementPlan.CONSTANT_D_PROPERTY);
    }

    @Test
    void theFactorsOnTheFlyAgreeWithEitherSwitch() {
        AparapiBackend be = VariantBackends.at48KiB(ElementVariant.POINTS);
        PropertyGuard.keeping(() -> {
            for (int n : new int[] {7, 8}) {
                SpectralElementMesh mesh = TestProblems.perturbedBox(3, 2, 2, n, 0.2, 23L * n);
                ElementOperator op = io.lobatto.operators.StiffnessBp35.on(mesh, 0.75).withGeometryOnTheFly();
                ScatterOperator z = TestProblems.partlyMasked(mesh);
                String label = "BP3.5 N=" + n + " (factors on the fly, points";
                for (double shift : new double[] {0, 0.6}) {
                    String what = "on the fly N=" + n + " shift " + shift;
                    System.setProperty(ElementPlan.CONSTANT_D_PROPERTY, "0");
                    System.setProperty(ElementPlan.DEFER_FLUXES_PROPERTY, "0");
                    double[] want = ElementSweepTest.apply(be, op, z, shift, what, label, "");
                    assertTrue(java.util.Arrays.stream(want).anyMatch(v -> v != 0), what + ": y_G is not zero");
                    for (String[] on : new String[][] {{"1", "0"}, {"0", "1"}, {"1", "1"}}) {
                        System.setProperty(ElementPlan.CONSTANT_D_PROPERTY, on[0]);
                        System.setProperty(ElementPlan.DEFER_FLUXES_PROPERTY, on[1]);
                        String arm = what + ", constantD " + on[0] + ", deferFluxes " + on[1];
                        String plan = ElementPlan.trilinearPoints(n + 1, 256, VariantBackends.NVIDIA_LOCAL).describe(K);
                        assertEquals(on[0].equals("1"), plan.contains(", D_c from constant memory"), arm + ": " + plan);
                        assertEquals(on[1].equals("1"), plan.contains(", fluxes stored after the column"), arm + ": " + plan);
                        assertClose(want, ElementSweepTest.apply(be, op, z, shift, arm, label, ""), 1e-14, arm);
                        System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "cas");
                        assertClose(want, ElementSweepTest.apply(be, op, z, shift, arm, label, "atomic"), 1e-14, arm + ", atomic");
                        System.clearProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY);
                    }
                }
            }
        }, ElementPlan.CONSTANT_D_PROPERTY, ElementPlan.DEFER_FLUXES_PROPERTY, AparapiBackend.ATOMIC_OPERATOR_PROPERTY);
    }

    /**
     * Only BP3.5's points plans with K &gt; 1 take the switches (constant memory also on the fly, the deferred stores only
     * there); the others build with 0 whatever the properties.
     */
    @Test
    void onlyTheColumnPlansTakeTheSwitches() {
        PropertyGuard.keeping(() -> {
            System.setProperty(ElementPlan.CONSTANT_D_PROPERTY, "1");
            System.setProperty(ElementPlan.DEFER_FLUXES_PROPERTY, "1");
            long local = VariantBackends.NVIDIA_LOCAL;
            ElementPlan columns = ElementPlan.of(K, 8, 9, 256, local, "test", ElementVariant.POINTS);
            assertTrue(columns.perColumn() > 1, columns.describe(K));
            assertEquals(1, columns.constantD(K));
            assertEquals(0, columns.deferFluxes(K), "stored factors have no fluxes to defer");
            assertEquals(1, (int) columns.constants(K, 8, 1).get("constD"));
            ElementPlan onePoint = ElementPlan.of(K, 6, 7, 256, local, "test", ElementVariant.POINTS);
            assertEquals(1, onePoint.perColumn(), onePoint.describe(K));
            assertEquals(0, onePoint.constantD(K));
            assertEquals(0, (int) onePoint.constants(K, 6, 1).get("constD"));
            assertEquals(0, ElementPlan.of(ElementKernel.STIFFNESS_BP30, 8, 9, 256, local, "test", ElementVariant.POINTS)
                    .constantD(ElementKernel.STIFFNESS_BP30));
            assertEquals(0, ElementPlan.of(K, 8, 9, 256, local, "test", ElementVariant.SHARED).constantD(K));
            ElementPlan onTheFly = ElementPlan.trilinearPoints(8, 256, local);
            assertEquals(1, onTheFly.constantD(K));
            assertEquals(1, onTheFly.deferFluxes(K));
            assertEquals(0, (int) ElementPlan.trilinearShared(8, 256, local).constants(K, 8, 1).get("constD"));
            assertFalse(ElementPlan.trilinearPoints(6, 256, local).describe(K).contains("constant memory"));
        }, ElementPlan.CONSTANT_D_PROPERTY, ElementPlan.DEFER_FLUXES_PROPERTY);
    }

    /** The tables: neither switch is on anywhere until a GPU run says so. */
    @Test
    void theTables() {
        for (int n = 1; n <= 15; n++) {
            assertEquals(0, ElementPlan.constantDTable(n, false), "stored N = " + n);
            assertEquals(0, ElementPlan.constantDTable(n, true), "on the fly N = " + n);
            assertEquals(0, ElementPlan.deferFluxesTable(n), "on the fly N = " + n);
        }
    }

    @Test
    void aBadValueIsNamed() {
        PropertyGuard.keeping(() -> {
            ElementPlan p = ElementPlan.trilinearPoints(8, 256, VariantBackends.NVIDIA_LOCAL);
            System.setProperty(ElementPlan.CONSTANT_D_PROPERTY, "yes");
            assertEquals("-Dlobatto.aparapi.constantD=yes: expected table, 0 or 1",
                    assertThrows(IllegalArgumentException.class, () -> p.constantD(K)).getMessage());
            System.clearProperty(ElementPlan.CONSTANT_D_PROPERTY);
            System.setProperty(ElementPlan.DEFER_FLUXES_PROPERTY, "2");
            assertEquals("-Dlobatto.aparapi.deferFluxes=2: expected table, 0 or 1",
                    assertThrows(IllegalArgumentException.class, () -> p.deferFluxes(K)).getMessage());
        }, ElementPlan.CONSTANT_D_PROPERTY, ElementPlan.DEFER_FLUXES_PROPERTY);
    }
}
