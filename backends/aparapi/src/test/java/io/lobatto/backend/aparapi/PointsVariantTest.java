package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * BP1.0, BP3.5 and BP3.0 in the {@link ElementVariant#POINTS} structure (the shared kernel's 3D structure with several
 * points per work-item where P^3 exceeds the group of 256) at N = 1..12 in the 48 KiB of NVIDIA GPUs (the 3D plan up to
 * BP3.5 N = 10, BP3.0 N = 9 and BP1.0 N = 12, the shared plan above), lambda = 0 and lambda != 0: equal to the host
 * reference, to the register kernels on the same 48 KiB and to the Java backend, element by element and as the
 * assembled operator with a Dirichlet mask, the shift W and p = z + beta p folded in; Jacobi PCG takes the same
 * iterations as with the register columns.
 */
class PointsVariantTest {

    private static final ElementKernel K = ElementKernel.STIFFNESS_BP35;

    private static AparapiBackend points() {
        return VariantBackends.at48KiB(ElementVariant.POINTS);
    }

    private static AparapiBackend registers() {
        return VariantBackends.at48KiB(ElementVariant.REGISTERS);
    }

    /** BP3.5 with lambda = 0 and 0.6, BP1.0 and BP3.0 with 0.6, N = 1..12. */
    static Stream<Arguments> kernelsDegreesAndLambdas() {
        return IntStream.rangeClosed(1, 12).boxed().flatMap(n -> Stream.of(Arguments.of(K, n, 0.0), Arguments.of(K, n, 0.6),
                Arguments.of(ElementKernel.MASS_BP10, n, 0.6), Arguments.of(ElementKernel.STIFFNESS_BP30, n, 0.6)));
    }

    /**
     * The plan string of {@code k} at N = n in 48 KiB (groups of at most 256): the 3D points up to BP3.5 N = 10, BP3.0
     * N = 9 and BP1.0 N = 12 (P = N + 2 GL points for BP1.0 and BP3.0), the shared plan above.
     */
    private static void assertPlan(ElementKernel k, int n, String plan) {
        int last = switch (k) {
            case STIFFNESS_BP35 -> 10;
            case STIFFNESS_BP30 -> 9;
            case MASS_BP10 -> 12;
        };
        if (n <= last) {
            int p = k.usesGaussQuadrature() ? n + 2 : n + 1;
            int shares = (p * p * p + 255) / 256;
            int layers = k == ElementKernel.MASS_BP10 ? 1 : ElementPlan.pointsPerColumn(k, false, p, 256);
            assertTrue(plan.contains(": points, 3D, " + (layers > 1 ? layers + " layers of a column"
                    : shares + " points") + " per work-item, "), plan);
        } else {
            assertTrue(plan.contains(": 2D, "), plan);
        }
    }

    /** E = 11: the last group is partly filled wherever a group holds several elements. */
    @ParameterizedTest(name = "{0} N={1} lambda={2}")
    @MethodSource("kernelsDegreesAndLambdas")
    void elementApplyEqualsHostRegisterKernelsAndJavaBackend(ElementKernel k, int n, double lambda) {
        VariantChecks.elementApplyAgrees(points(), registers(), "the register kernels", k, n, lambda, 51 + n,
                plan -> assertPlan(k, n, plan));
    }

    /**
     * The assembled operator (input modes 1 and 2): BP3.5 at N = 2 (several elements per group) and 6, 7, 10 (several
     * points per work-item), BP1.0 and BP3.0 at N = 2 and 7.
     */
    static Stream<Arguments> assembledCases() {
        return Stream.of(Arguments.of(K, 2), Arguments.of(K, 6), Arguments.of(K, 7), Arguments.of(K, 10),
                Arguments.of(ElementKernel.MASS_BP10, 2), Arguments.of(ElementKernel.MASS_BP10, 7),
                Arguments.of(ElementKernel.STIFFNESS_BP30, 2), Arguments.of(ElementKernel.STIFFNESS_BP30, 7));
    }

    @ParameterizedTest(name = "{0} N={1}")
    @MethodSource("assembledCases")
    void maskedAssembledOperatorEqualsHostAndJavaBackend(ElementKernel k, int n) {
        VariantChecks.maskedAssembledAgrees(points(), k, n, 0.6, 61 + n, plan -> assertPlan(k, n, plan));
    }

    /**
     * Every choice of layers per work-item ({@code -Dlobatto.aparapi.pointsPerColumn}) for the stiffness kernels: the
     * strided points (K = 1, several per work-item), K dividing P and not; against the host, the register kernels and the
     * Java backend, lambda != 0.
     */
    @Test
    void everyLayersPerWorkItem() {
        PropertyGuard.keeping(() -> {
            for (int layers : new int[] {1, 3, 4}) {
                System.setProperty(ElementPlan.PER_COLUMN_PROPERTY, Integer.toString(layers));
                for (ElementKernel k : new ElementKernel[] {K, ElementKernel.STIFFNESS_BP30}) {
                    for (int n : new int[] {6, 7}) {
                        int p = k.usesGaussQuadrature() ? n + 2 : n + 1;
                        String want = layers > 1 && p * p * ((p + layers - 1) / layers) <= 256 ? layers + " layers of a column"
                                : layers == 1 ? " points per work-item" : "layers of a column";
                        VariantChecks.elementApplyAgrees(points(), registers(), "the register kernels", k, n, 0.6, 71 + n,
                                plan -> assertTrue(plan.contains(want), layers + ": " + plan));
                    }
                }
            }
        }, ElementPlan.PER_COLUMN_PROPERTY);
    }

    /**
     * Every place the 3D stiffness may load its factors ({@code -Dlobatto.aparapi.prefetchFactors}): with u before the
     * first barrier (K layers of a column, and one point per work-item at N = 2, several elements per group, and N = 4,
     * 5) and all K at once after the gradients; K = 2 and 3 (3 does not divide P = 8), BP3.5 and BP3.0 (P = 9: K = 3 both
     * times), element by element against the host, the register kernels and the Java backend, and as the masked
     * assembled operator reading x_G; a value it does not know is named.
     */
    @Test
    void everyFactorPrefetch() {
        PropertyGuard.keeping(() -> {
            for (String where : new String[] {"early", "batched"}) {
                System.setProperty(ElementPlan.PREFETCH_PROPERTY, where);
                for (int layers : new int[] {2, 3}) {
                    System.setProperty(ElementPlan.PER_COLUMN_PROPERTY, Integer.toString(layers));
                    for (ElementKernel k : new ElementKernel[] {K, ElementKernel.STIFFNESS_BP30}) {
                        // BP3.0's P = 9 takes 3 layers where 2 do not fit the group
                        String want = (k == K || layers == 3 ? layers : 3) + " layers of a column";
                        VariantChecks.elementApplyAgrees(points(), registers(), "the register kernels", k, 7, 0.6, 81 + layers,
                                plan -> assertTrue(plan.contains(want) && plan.contains(", factors " + where), where + ": " + plan));
                    }
                }
                System.setProperty(ElementPlan.PER_COLUMN_PROPERTY, "2");
                VariantChecks.maskedAssembledAgrees(points(), K, 7, 0.6, 91, plan -> assertTrue(
                        plan.contains("2 layers of a column") && plan.contains(", factors " + where), where + ": " + plan));
                System.setProperty(ElementPlan.PER_COLUMN_PROPERTY, "table");
                for (int n : new int[] {2, 4, 5}) {
                    for (ElementKernel k : new ElementKernel[] {K, ElementKernel.STIFFNESS_BP30}) {
                        if (k == ElementKernel.STIFFNESS_BP30 && n == 5) {
                            continue;      // P = 7: 343 points, more than the group
                        }
                        // one point per work-item: early applies, batched (which needs columns) falls back to after
                        String loads = where.equals("early") ? ", factors early" : "";
                        VariantChecks.elementApplyAgrees(points(), registers(), "the register kernels", k, n, 0.6, 95 + n,
                                plan -> assertTrue(plan.contains(" 1 points per work-item") && plan.contains(loads)
                                        && (!loads.isEmpty() || !plan.contains(", factors")), where + ": " + plan));
                    }
                }
                VariantChecks.maskedAssembledAgrees(points(), K, 4, 0.6, 99, plan -> assertTrue(
                        plan.contains(" 1 points per work-item") && plan.contains(where.equals("early") ? ", factors early" : ""),
                        where + ": " + plan));
            }
            System.setProperty(ElementPlan.PREFETCH_PROPERTY, "soon");
            IllegalArgumentException ex = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    ElementPlan::prefetchFactors);
            assertEquals("-Dlobatto.aparapi.prefetchFactors=soon: expected table, after, early or batched", ex.getMessage());
        }, ElementPlan.PREFETCH_PROPERTY, ElementPlan.PER_COLUMN_PROPERTY);
    }

    /** Where the plans take the factors early: columns and one point per work-item; not strided points, nor BP1.0. */
    @Test
    void prefetchAppliesWhereThePlanAllows() {
        PropertyGuard.keeping(() -> {
            System.setProperty(ElementPlan.PREFETCH_PROPERTY, "early");
            System.setProperty(ElementPlan.PER_COLUMN_PROPERTY, "1");
            assertEquals(1, plan(K, 5).prefetch(K), "N = 5: 216 points, one per work-item");
            assertEquals(0, plan(K, 7).prefetch(K), "N = 7: 512 points strided over 256 work-items");
            assertEquals(0, plan(ElementKernel.MASS_BP10, 3).prefetch(ElementKernel.MASS_BP10));
            System.setProperty(ElementPlan.PER_COLUMN_PROPERTY, "2");
            assertEquals(1, plan(K, 7).prefetch(K));
            System.setProperty(ElementPlan.PREFETCH_PROPERTY, "batched");
            assertEquals(2, plan(K, 7).prefetch(K));
            System.setProperty(ElementPlan.PER_COLUMN_PROPERTY, "1");
            assertEquals(0, plan(K, 5).prefetch(K), "batched needs columns");
            // the table (prefetch26.sh at 67f943c, caps26.sh at 99183da): early at N = 3 and 4 (one point per work-item),
            // after elsewhere (strided points at N = 6, 2 and 3 layers at N = 7 and 8) and for BP3.0; where layers are forced,
            // early at N = 6
            System.clearProperty(ElementPlan.PREFETCH_PROPERTY);
            System.clearProperty(ElementPlan.PER_COLUMN_PROPERTY);
            int[] want = {0, 0, 1, 1, 0, 0, 0, 0, 0, 0};
            for (int n = 1; n <= 10; n++) {
                assertEquals(want[n - 1], plan(K, n).prefetch(K), "N = " + n);
                assertEquals(0, plan(ElementKernel.STIFFNESS_BP30, n).prefetch(ElementKernel.STIFFNESS_BP30), "BP3.0 N = " + n);
            }
            System.setProperty(ElementPlan.PER_COLUMN_PROPERTY, "auto");
            assertEquals(1, plan(K, 6).prefetch(K), "N = 6, 2 layers forced: early");
            assertEquals(0, plan(K, 7).prefetch(K), "N = 7, 2 layers: after");
            assertEquals(0, plan(K, 8).prefetch(K), "N = 8, 3 layers: after");
        }, ElementPlan.PREFETCH_PROPERTY, ElementPlan.PER_COLUMN_PROPERTY);
    }

    /**
     * A register cap ({@code -Dlobatto.aparapi.elementMaxRegisters}, a PTX edit on NVIDIA, no effect elsewhere): the element
     * kernel's build carries the token and is cached under its own key; it builds and gives the same results, BP3.5 and
     * BP3.0 at N = 7 (on PoCL the token is dropped: the PTX edit itself is {@code PtxRegisterCapTest}'s); the table caps
     * BP3.5's stored points kernel at N = 7 only, at 32, {@code none} takes every cap off, and a count outside 16..255 is
     * named.
     */
    @Test
    void aRegisterCapBuildsAndAgrees() {
        PropertyGuard.keeping(() -> {
            ElementPlan n7 = plan(K, 7);
            System.setProperty(ElementPlan.MAX_REGISTERS_PROPERTY, "none");
            KernelBuilds.Spec none = KernelBuilds.element(K, 7, n7, 0);
            String uncapped = none.key();
            assertEquals("", none.source().options(), "none: no cap");
            System.clearProperty(ElementPlan.MAX_REGISTERS_PROPERTY);
            KernelBuilds.Spec table = KernelBuilds.element(K, 7, n7, 0);
            assertEquals("-lobatto-maxnreg=32", table.source().options(), "the table's cap at N = 7");
            assertEquals(uncapped + "/maxnreg=32", table.key());
            assertTrue(n7.describe(K).endsWith(", at most 32 registers on NVIDIA"), n7.describe(K));
            for (int n = 1; n <= 15; n++) {
                assertEquals(n == 7 ? 32 : 0, ElementPlan.registerCapTable(K, n, ElementVariant.POINTS, false, 2), "N = " + n);
                assertEquals(0, ElementPlan.registerCapTable(K, n, ElementVariant.POINTS, false, 1), "one point, N = " + n);
                assertEquals(0, ElementPlan.registerCapTable(K, n, ElementVariant.POINTS, true, 2), "on the fly N = " + n);
                assertEquals(0, ElementPlan.registerCapTable(ElementKernel.STIFFNESS_BP30, n, ElementVariant.POINTS, false, 2));
            }
            assertEquals(0, plan(K, 8).registerCap(K));
            assertEquals(0, ElementPlan.trilinearPoints(8, 256, VariantBackends.NVIDIA_LOCAL).registerCap(K));
            assertEquals("", KernelBuilds.element(K, 8, plan(K, 8), 0).source().options());
            VariantChecks.elementApplyAgrees(points(), registers(), "the register kernels", K, 7, 0.6, 97,
                    plan -> assertTrue(plan.endsWith(", at most 32 registers on NVIDIA"), plan));
            System.setProperty(ElementPlan.MAX_REGISTERS_PROPERTY, "48");
            KernelBuilds.Spec capped = KernelBuilds.element(K, 7, n7, 0);
            assertEquals("-lobatto-maxnreg=48", capped.source().options(), "the element kernel's build carries the cap");
            assertEquals(uncapped + "/maxnreg=48", capped.key(), "a capped kernel is cached apart from the uncapped one");
            for (ElementKernel k : new ElementKernel[] {K, ElementKernel.STIFFNESS_BP30}) {
                VariantChecks.elementApplyAgrees(points(), registers(), "the register kernels", k, 7, 0.6, 101,
                        plan -> assertTrue(plan.contains(": points, 3D"), plan));
            }
            System.setProperty(ElementPlan.MAX_REGISTERS_PROPERTY, "300");
            IllegalArgumentException ex = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    ElementPlan::maxRegisters);
            assertEquals("-Dlobatto.aparapi.elementMaxRegisters=300: expected table, none or 16..255", ex.getMessage());
        }, ElementPlan.MAX_REGISTERS_PROPERTY);
    }

    /**
     * Columns padded to whole warps ({@code -Dlobatto.aparapi.padColumns}): the extra work-items take no layer, and the
     * results stay those of the host, the register kernels and the Java backend (BP3.5 at N = 6 and 8, K = 2 and 3: 196 and
     * 243 work-items padded to 224 and 256); the table pads the stored factors at N = 8 only; a value it does not know is
     * named.
     */
    @Test
    void columnsPaddedToWholeWarpsAgree() {
        PropertyGuard.keeping(() -> {
            System.setProperty(ElementPlan.PAD_COLUMNS_PROPERTY, "true");
            System.setProperty(ElementPlan.PER_COLUMN_PROPERTY, "auto");
            assertEquals(224, ElementPlan.columnThreads(true, 7, 2, 256));
            assertEquals(256, ElementPlan.columnThreads(false, 9, 3, 256));
            assertEquals(256, ElementPlan.columnThreads(false, 8, 2, 256));
            assertEquals(243, ElementPlan.columnThreads(true, 9, 3, 250), "no room in the group: unpadded");
            for (int n : new int[] {6, 8}) {
                VariantChecks.elementApplyAgrees(points(), registers(), "the register kernels", K, n, 0.6, 111 + n,
                        plan -> assertTrue(plan.contains((n == 6 ? 224 : 256) + " work-items"), plan));
            }
            VariantChecks.maskedAssembledAgrees(points(), K, 6, 0.6, 119, plan -> assertTrue(plan.contains("224 work-items"),
                    plan));
            // the table (pad26.sh at a818621): the stored factors at N = 8 only
            System.clearProperty(ElementPlan.PAD_COLUMNS_PROPERTY);
            assertEquals(196, ElementPlan.columnThreads(true, 7, 2, 256));
            assertEquals(256, ElementPlan.columnThreads(true, 9, 3, 256));
            assertEquals(243, ElementPlan.columnThreads(false, 9, 3, 256), "on the fly, or BP3.0: unpadded");
            System.setProperty(ElementPlan.PAD_COLUMNS_PROPERTY, "false");
            assertEquals(243, ElementPlan.columnThreads(true, 9, 3, 256));
            System.setProperty(ElementPlan.PAD_COLUMNS_PROPERTY, "yes");
            IllegalArgumentException ex = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> ElementPlan.columnThreads(true, 9, 3, 256));
            assertEquals("-Dlobatto.aparapi.padColumns=yes: expected table, true or false", ex.getMessage());
        }, ElementPlan.PAD_COLUMNS_PROPERTY, ElementPlan.PER_COLUMN_PROPERTY);
    }

    private static ElementPlan plan(ElementKernel k, int n) {
        Basis1D b = Basis1D.of(n);
        return ElementPlan.of(k, b.nq(), b.nqGauss(), 256, 48 * 1024, "test", ElementVariant.POINTS);
    }

    /** Jacobi PCG to 1e-10 on a deformed box with a Dirichlet mask: the same iterations and solution as the register columns. */
    @Test
    void cgTakesTheSameIterationsAsTheRegisterColumns() {
        VariantChecks.jacobiPcgAgrees(registers(), points(), K, 7, "register columns against points");
    }

    /**
     * The plans in groups of 256: one work-item per point while P^3 fits (N = 5: 216 work-items, one element), then
     * equal shares rounded up to a warp (N = 6: 343 points on 192 work-items, N = 10: 1331 on 224) but at N = 7, where
     * BP3.5 takes 2 layers of a column per work-item (64 columns x 4 slots; N = 8: 3 layers, 243 work-items padded to 256), 4 P^3 doubles per element and D; N = 11 does not fit 48 KiB (the shared plan); in groups of
     * 128, N = 8 takes strided points; BP3.0 and BP1.0 at the limits of 48 KiB; the override applies to every kernel.
     */
    @Test
    void plansAtTheLimitsOfTheGroupAndTheLocalMemory() {
        ElementPlan n5 = KernelBuilds.firstPlan(K, Basis1D.of(5), 1024, 48 * 1024, "test", ElementVariant.POINTS);
        assertEquals(ElementVariant.POINTS, n5.variant());
        assertEquals(216, n5.groupSize());
        ElementPlan n6 = ElementPlan.points(K, 7, 8, 256, 48 * 1024);
        assertEquals(192, n6.threadsPerElement(), "343 points in two shares, rounded up to a warp");
        assertEquals(1, n6.perColumn());
        assertEquals(1, n6.elementsPerGroup());
        ElementPlan n7 = KernelBuilds.firstPlan(K, Basis1D.of(7), 1024, 48 * 1024, "test", ElementVariant.POINTS);
        assertEquals(ElementVariant.POINTS, n7.variant());
        assertEquals(256, n7.groupSize());
        assertEquals(4 * 512, n7.localPerElement());
        assertEquals(4 * 512 + 8 * 9, n7.localDoubles());
        assertTrue(n7.threeD() && n7.tLocal());
        assertEquals(2, n7.perColumn(), "N = 7: 64 columns x 4 slots of 2 layers");
        assertEquals(224, ElementPlan.points(K, 11, 12, 256, 48 * 1024).threadsPerElement(), "1331 points in 6 shares");
        // N = 8 in groups of 256: 3 layers of a column, the 243 work-items padded to 256 (the table); in groups of 128, 81
        // columns would need 9 layers each, past the 8 of the gradient arrays: strided points
        ElementPlan n8 = ElementPlan.points(K, 9, 10, 256, 48 * 1024);
        assertEquals(3, n8.perColumn());
        assertEquals(256, n8.threadsPerElement());
        ElementPlan g128 = ElementPlan.points(K, 9, 10, 128, 48 * 1024);
        assertEquals(128, g128.threadsPerElement());
        assertEquals(1, g128.perColumn());
        assertEquals(1, ElementPlan.smallestPerColumn(9, 128));
        assertEquals(1, ElementPlan.trilinearPoints(9, 128, 48 * 1024).perColumn());
        assertEquals(3, ElementPlan.trilinearPoints(9, 256, 48 * 1024).perColumn());
        // BP1.0 has no stiffness: its points stay strided
        assertEquals(1, ElementPlan.points(ElementKernel.MASS_BP10, 7, 8, 256, 48 * 1024).perColumn());
        assertNull(ElementPlan.points(K, 12, 13, 256, 48 * 1024));
        assertEquals(ElementVariant.SHARED,
                KernelBuilds.firstPlan(K, Basis1D.of(11), 1024, 48 * 1024, "test", ElementVariant.POINTS).variant());
        // BP3.0 at N = 9: P = 11, 4 P^3 + I (11 x 10) + D (11 x 11) doubles; N = 10 does not fit
        ElementPlan bp30 = ElementPlan.points(ElementKernel.STIFFNESS_BP30, 10, 11, 256, 48 * 1024);
        assertEquals(4 * 1331 + 110 + 121, bp30.localDoubles());
        assertTrue(bp30.pointInterp());
        assertNull(ElementPlan.points(ElementKernel.STIFFNESS_BP30, 11, 12, 256, 48 * 1024));
        // BP1.0: two P^3 grids and I; N = 12 (P = 14) fits, N = 13 does not
        assertEquals(2 * 2744 + 14 * 13, ElementPlan.points(ElementKernel.MASS_BP10, 13, 14, 256, 48 * 1024).localDoubles());
        assertNull(ElementPlan.points(ElementKernel.MASS_BP10, 14, 15, 256, 48 * 1024));
        assertEquals(ElementVariant.POINTS, forcedPoints());
    }

    /** {@code -Dlobatto.aparapi.elementVariant=points} applies to every kernel. */
    private static ElementVariant forcedPoints() {
        String before = System.getProperty("lobatto.aparapi.elementVariant");
        System.setProperty("lobatto.aparapi.elementVariant", "points");
        try {
            assertEquals(ElementVariant.POINTS, ElementVariant.of(ElementKernel.STIFFNESS_BP30, 7));
            assertEquals(ElementVariant.POINTS, ElementVariant.of(ElementKernel.MASS_BP10, 7));
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
