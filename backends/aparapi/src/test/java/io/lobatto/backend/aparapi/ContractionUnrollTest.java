package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.conformance.BackendFixture;
import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.operators.BoundElementOperator;
import io.lobatto.operators.StiffnessBp35;
import org.junit.jupiter.api.Test;

/**
 * The contraction loops' unrolling ({@link ContractionUnroll}, {@code -Dlobatto.aparapi.contractionUnroll}): the pragma
 * lands before every contraction loop and nowhere else, a build with it is cached apart, the table, the errors; and
 * kernels built rolled, unrolled by 2 or fully give what the register kernels, the host and the Java backend give (BP3.5
 * at N = 5 and 7, BP3.0 at N = 4, the masked assembled operator, and the factors on the fly against the Java backend's
 * stored factors).
 */
class ContractionUnrollTest {

    private static final ElementKernel K = ElementKernel.STIFFNESS_BP35;

    private static ElementPlan plan(ElementKernel k, int n) {
        Basis1D b = Basis1D.of(n);
        return ElementPlan.of(k, b.nq(), b.nqGauss(), 256, 48 * 1024, "test", ElementVariant.POINTS);
    }

    @Test
    void thePragmaPrecedesEveryContractionLoopAndNothingElse() {
        PropertyGuard.keeping(() -> {
            System.setProperty(ElementPlan.UNROLL_PROPERTY, "compiler");
            // no register cap (the table caps N = 7), so that the keys differ by the unrolling alone
            System.setProperty(ElementPlan.MAX_REGISTERS_PROPERTY, "none");
            KernelBuilds.Spec plain = KernelBuilds.element(K, 7, plan(K, 7), 0);
            String source = plain.source().source();
            assertFalse(source.contains("#pragma unroll"), "the compiler's choice: no pragma");
            int loops = ContractionUnroll.loops(source);
            // the gradients and the divergence of the columns, and the 3D and 2D stiffness's sums
            assertTrue(loops >= 4, "contraction loops in BP3.5's points kernel: " + loops);
            System.setProperty(ElementPlan.UNROLL_PROPERTY, "2");
            KernelBuilds.Spec two = KernelBuilds.element(K, 7, plan(K, 7), 0);
            String unrolled = two.source().source();
            String[] lines = unrolled.split("\n");
            int pragmas = 0;
            for (int i = 0; i < lines.length; i++) {
                if (lines[i].contains("#pragma unroll")) {
                    assertEquals("#pragma unroll 2", lines[i].strip());
                    assertEquals("for (int m = 0; m<P; m++){", lines[i + 1].strip(), "line " + (i + 2));
                    pragmas++;
                }
            }
            assertEquals(loops, pragmas);
            assertEquals(source, unrolled.replaceAll("(?m)^[ \\t]*#pragma unroll 2\\n", ""), "nothing else changes");
            assertEquals(plain.key() + "/unroll=2", two.key(), "an unrolled kernel is cached apart");
            assertEquals(source, ContractionUnroll.apply(source, 0));
        }, ElementPlan.UNROLL_PROPERTY, ElementPlan.MAX_REGISTERS_PROPERTY);
    }

    @Test
    void theTableAndTheErrors() {
        PropertyGuard.keeping(() -> {
            System.clearProperty(ElementPlan.UNROLL_PROPERTY);
            // one element per slot, u straight into local memory: the plans end with the unrolling
            System.setProperty(ElementPlan.SWEEP_PROPERTY, "0");
            assertEquals(-1, ElementPlan.contractionUnroll());
            // unroll26.sh at 08d0411, 13cfce7 and ab2d278: stored fully at N = 8, by 2 at N = 10; on the fly rolled at N = 7,
            // by 2 at N = 8
            for (int n = 1; n <= 15; n++) {
                assertEquals(n == 8 ? 16 : 0, ElementPlan.unrollTable(K, n, false, ElementVariant.POINTS), "points N = " + n);
                assertEquals(n == 10 ? 2 : 0, ElementPlan.unrollTable(K, n, false, ElementVariant.PIPELINED), "pipelined N = " + n);
                // the register columns index private arrays in these loops: unrolled, they spill
                assertEquals(0, ElementPlan.unrollTable(K, n, false, ElementVariant.REGISTERS), "registers N = " + n);
                assertEquals(0, ElementPlan.unrollTable(K, n, false, ElementVariant.SHARED), "shared N = " + n);
                assertEquals(n == 7 ? 1 : n == 8 ? 2 : 0, ElementPlan.unrollTable(K, n, true, ElementVariant.POINTS),
                        "on the fly N = " + n);
                assertEquals(0, ElementPlan.unrollTable(K, n, true, ElementVariant.SHARED), "on the fly, shared, N = " + n);
                assertEquals(0, ElementPlan.unrollTable(ElementKernel.STIFFNESS_BP30, n, false, ElementVariant.POINTS));
                assertEquals(0, ElementPlan.unrollTable(ElementKernel.MASS_BP10, n, false, ElementVariant.POINTS));
            }
            assertTrue(plan(K, 8).describe(K).endsWith(", contractions unrolled fully"), plan(K, 8).describe(K));
            assertFalse(plan(K, 7).describe(K).contains("contractions"), plan(K, 7).describe(K));
            ElementPlan onTheFly7 = ElementPlan.trilinearPoints(8, 256, 48 * 1024);
            assertTrue(onTheFly7.describe(K).endsWith(", contractions rolled"), onTheFly7.describe(K));
            ElementPlan onTheFly8 = ElementPlan.trilinearPoints(9, 256, 48 * 1024);
            assertTrue(onTheFly8.describe(K).endsWith(", contractions unrolled by 2"), onTheFly8.describe(K));
            System.setProperty(ElementPlan.UNROLL_PROPERTY, "1");
            assertTrue(plan(K, 8).describe(K).endsWith(", contractions rolled"), plan(K, 8).describe(K));
            System.setProperty(ElementPlan.UNROLL_PROPERTY, "2");
            assertTrue(plan(K, 8).describe(K).endsWith(", contractions unrolled by 2"), plan(K, 8).describe(K));
            // BP1.0's kernels have no loop over m < P: nothing to mark, nothing said, no second build
            ElementPlan mass = plan(ElementKernel.MASS_BP10, 7);
            assertEquals(0, mass.unroll(ElementKernel.MASS_BP10));
            assertFalse(mass.describe(ElementKernel.MASS_BP10).contains("contractions"), mass.describe(ElementKernel.MASS_BP10));
            System.setProperty(ElementPlan.UNROLL_PROPERTY, "0");
            assertEquals(0, ElementPlan.contractionUnroll());
            assertFalse(onTheFly7.describe(K).contains("contractions"));
            for (String bad : new String[] {"33", "-1", "often"}) {
                System.setProperty(ElementPlan.UNROLL_PROPERTY, bad);
                IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, ElementPlan::contractionUnroll);
                assertEquals("-Dlobatto.aparapi.contractionUnroll=" + bad + ": expected table, compiler or 0..32", ex.getMessage());
            }
            IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> ContractionUnroll.apply("", 40));
            assertEquals("unroll 40 is out of range 0..32", ex.getMessage());
        }, ElementPlan.UNROLL_PROPERTY, ElementPlan.SWEEP_PROPERTY);
    }

    /** Each entry of the table marks loops in the kernel it was measured on; BP1.0 and the register columns get none. */
    @Test
    void everyTableEntryMarksItsKernel() {
        PropertyGuard.keeping(() -> {
            System.clearProperty(ElementPlan.UNROLL_PROPERTY);
            Basis1D b10 = Basis1D.of(10);
            ElementPlan pipelined10 = ElementPlan.of(K, b10.nq(), b10.nqGauss(), 256, 48 * 1024, "test", ElementVariant.PIPELINED);
            ElementPlan registers10 = ElementPlan.of(K, b10.nq(), b10.nqGauss(), 256, 48 * 1024, "test", ElementVariant.REGISTERS);
            Object[][] cases = {
                {plan(K, 8), 8, "#pragma unroll 16"},
                {pipelined10, 10, "#pragma unroll 2"},
                {ElementPlan.trilinearPoints(8, 256, 48 * 1024), 7, "#pragma unroll 1"},
                {ElementPlan.trilinearPoints(9, 256, 48 * 1024), 8, "#pragma unroll 2"},
            };
            for (Object[] c : cases) {
                ElementPlan p = (ElementPlan) c[0];
                String source = KernelBuilds.element(K, (Integer) c[1], p, 1).source().source();
                int marked = source.split(java.util.regex.Pattern.quote((String) c[2]), -1).length - 1;
                assertTrue(marked > 0 && marked == ContractionUnroll.loops(source), p.describe(K) + ": " + marked);
            }
            assertEquals(0, registers10.unroll(K), registers10.describe(K));
            assertFalse(KernelBuilds.element(K, 10, registers10, 1).source().source().contains("#pragma unroll"));
        }, ElementPlan.UNROLL_PROPERTY);
    }

    @Test
    void rolledAndUnrolledKernelsAgree() {
        PropertyGuard.keeping(() -> {
            AparapiBackend points = VariantBackends.at48KiB(ElementVariant.POINTS);
            AparapiBackend registers = VariantBackends.at48KiB(ElementVariant.REGISTERS);
            // one element per slot, u straight into local memory: the plans end with the unrolling
            System.setProperty(ElementPlan.SWEEP_PROPERTY, "0");
            for (int u : new int[] {1, 2, 16}) {
                System.setProperty(ElementPlan.UNROLL_PROPERTY, Integer.toString(u));
                String note = u == 1 ? ", contractions rolled" : u == 2 ? ", contractions unrolled by 2"
                        : ", contractions unrolled fully";
                for (int n : new int[] {5, 7}) {
                    VariantChecks.elementApplyAgrees(points, registers, "the register kernels", K, n, 0.6, 131 + n + u,
                            plan -> assertTrue(plan.endsWith(note), plan));
                }
                VariantChecks.elementApplyAgrees(points, registers, "the register kernels", ElementKernel.STIFFNESS_BP30, 4, 0.6,
                        141 + u, plan -> assertTrue(plan.endsWith(note), plan));
                VariantChecks.maskedAssembledAgrees(points, K, 7, 0.6, 151 + u, plan -> assertTrue(plan.endsWith(note), plan));
                onTheFlyAgrees(points, 7, u, note);
            }
        }, ElementPlan.UNROLL_PROPERTY, ElementPlan.SWEEP_PROPERTY);
    }

    /** BP3.5 with the factors on the fly at N = n against the Java backend's stored factors, to 1e-12. */
    private static void onTheFlyAgrees(AparapiBackend be, int n, int u, String note) {
        SpectralElementMesh mesh = TestProblems.perturbedBox(3, 2, 2, n, 0.2, 17L * n + u);
        StiffnessBp35 stored = StiffnessBp35.on(mesh, 0.7);
        double[] x = TestProblems.random(stored.localSize(), 7L * n + u);
        Backend ref = BackendFixture.reference();
        double[] want;
        try (BoundElementOperator bs = stored.bind(ref); DeviceVector rx = ref.upload(x); DeviceVector ry = ref.allocate(x.length)) {
            bs.apply(rx, ry);
            want = ref.download(ry);
        }
        try (BoundElementOperator bf = stored.withGeometryOnTheFly().bind(be); DeviceVector dx = be.upload(x);
             DeviceVector yf = be.allocate(x.length)) {
            String plan = be.plan(bf.data());
            assertTrue(plan.contains("(geometric factors on the fly)") && plan.endsWith(note), plan);
            bf.apply(dx, yf);
            VariantChecks.assertWithin(be.download(yf), want, 1e-12, "on the fly N = " + n + ", unroll " + u);
        }
    }

    @Test
    void unrolledKernelsAreDistinctBuilds() {
        PropertyGuard.keeping(() -> {
            System.setProperty(ElementPlan.UNROLL_PROPERTY, "1");
            String one = KernelBuilds.element(K, 5, plan(K, 5), 1).key();
            System.setProperty(ElementPlan.UNROLL_PROPERTY, "compiler");
            assertNotEquals(one, KernelBuilds.element(K, 5, plan(K, 5), 1).key());
        }, ElementPlan.UNROLL_PROPERTY);
    }
}
