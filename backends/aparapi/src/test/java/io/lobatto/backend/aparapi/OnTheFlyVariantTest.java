package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearKernel;
import io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearPointsKernel;
import io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearSharedKernel;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

/**
 * The choice between the three kernels of BP3.5 with the geometric factors on the fly: the table by degree, the
 * {@code lobatto.aparapi.onTheFlyVariant} override, the shared and points plans (work-items, layers of a column,
 * elements per group, local memory) and their fallbacks where they do not fit 48 KiB; no OpenCL needed.
 */
class OnTheFlyVariantTest {

    private static final long KIB48 = 48 * 1024;

    @Test
    void theTableTakesWhatMeasuredFaster() {
        // onfly26.sh at a297613 (H100): registers fastest at 4, shared at 2, 3 and 10, points at 5..9
        for (int n = 1; n <= 15; n++) {
            ElementVariant want = n == 1 || n == 4 ? ElementVariant.REGISTERS
                    : n >= 5 && n <= 9 ? ElementVariant.POINTS : ElementVariant.SHARED;
            assertEquals(want, ElementVariant.onTheFlyTable(n), "N = " + n);
        }
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> ElementVariant.onTheFlyTable(16));
        assertTrue(ex.getMessage().contains("degree is 16") && ex.getMessage().contains("N = 1..15"), ex.getMessage());
    }

    @Test
    void thePropertyForcesEitherOrTheTable() {
        String key = ElementVariant.ON_THE_FLY_PROPERTY;
        String before = System.getProperty(key);
        try {
            System.setProperty(key, "shared");
            assertEquals(ElementVariant.SHARED, ElementVariant.onTheFly(2));
            System.setProperty(key, "Registers");
            assertEquals(ElementVariant.REGISTERS, ElementVariant.onTheFly(7));
            System.setProperty(key, "table");
            assertEquals(ElementVariant.POINTS, ElementVariant.onTheFly(7));
            assertEquals(ElementVariant.SHARED, ElementVariant.onTheFly(10));
            assertEquals(ElementVariant.REGISTERS, ElementVariant.onTheFly(4));
            System.setProperty(key, "points");
            assertEquals(ElementVariant.POINTS, ElementVariant.onTheFly(7));
            System.setProperty(key, "pipelined");   // a stored-factor structure, not an on-the-fly one
            assertThrows(IllegalArgumentException.class, () -> ElementVariant.onTheFly(7));
            System.setProperty(key, "columns");
            IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> ElementVariant.onTheFly(7));
            assertEquals("lobatto.aparapi.onTheFlyVariant is 'columns'; expected shared, registers, points or table",
                    ex.getMessage());
            // the stored factors' property does not move the on-the-fly choice
            System.clearProperty(key);
            System.setProperty("lobatto.aparapi.elementVariant", "registers");
            assertEquals(ElementVariant.POINTS, ElementVariant.onTheFly(7));
        } finally {
            System.clearProperty("lobatto.aparapi.elementVariant");
            if (before == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, before);
            }
        }
    }

    @Test
    void theSharedPlanHoldsTheGridTheTGridAndTheCoefficients() {
        // N = 7: Nq = 8, S = 9; per element 2 x 8 x 9 x 8 (u and t-grids) + 4 x 8 x 9 (two pairs of flux layers) + 21
        ElementPlan p = ElementPlan.trilinearShared(8, 256, KIB48);
        assertNotNull(p);
        assertEquals(ElementVariant.SHARED, p.variant());
        assertTrue(p.onTheFly());
        assertEquals(64, p.threadsPerElement());
        assertEquals(4, p.elementsPerGroup());
        assertEquals(1461, p.localPerElement());
        assertEquals(8 * 9 + 16, p.matrixDoubles());
        assertEquals(4 * 1461 + 88, p.localDoubles());
        assertEquals(List.of("nq", "elemsPerGroup", "fromGlobal", "sweep", "perElem", "dStride", "ldsMat"),
                List.copyOf(p.constants(ElementKernel.STIFFNESS_BP35, 8, 1).keySet()));
        assertEquals(Map.of("nq", 8, "elemsPerGroup", 4, "fromGlobal", 1, "sweep", 0, "perElem", 1461, "dStride", 9,
                        "ldsMat", 4 * 1461),
                p.constants(ElementKernel.STIFFNESS_BP35, 8, 1));
        assertEquals("shared, 2D columns (geometric factors on the fly), 64 work-items x 4 elements per group, 5932 doubles local",
                p.describe(ElementKernel.STIFFNESS_BP35));
        // N = 1: 4 work-items, 64 elements per group; N = 12 fits one element; N = 13 does not fit 48 KiB
        assertEquals(64, ElementPlan.trilinearShared(2, 256, KIB48).elementsPerGroup());
        assertEquals(1, ElementPlan.trilinearShared(13, 256, KIB48).elementsPerGroup());
        assertNull(ElementPlan.trilinearShared(14, 256, KIB48));
        assertNull(ElementPlan.trilinearShared(8, 63, KIB48), "64 work-items do not fit a group of 63");
    }

    @Test
    void thePointsPlanHoldsFourGridsAndTheCoefficients() {
        String before = System.getProperty(ElementPlan.PER_COLUMN_PROPERTY);
        System.clearProperty(ElementPlan.PER_COLUMN_PROPERTY);
        try {
            // N = 7: 64 columns x 4 slots of 2 layers (the table); per element 4 x 512 + 21, then D (8 x 9), the nodes and
            // weights
            ElementPlan p = ElementPlan.trilinearPoints(8, 256, KIB48);
            assertNotNull(p);
            assertEquals(ElementVariant.POINTS, p.variant());
            assertTrue(p.onTheFly());
            assertEquals(256, p.threadsPerElement());
            assertEquals(2, p.perColumn());
            assertEquals(1, p.elementsPerGroup());
            assertEquals(4 * 512 + 21, p.localPerElement());
            assertEquals(8 * 9 + 16, p.matrixDoubles());
            assertEquals(Map.of("nq", 8, "elemsPerGroup", 1, "fromGlobal", 4, "threadsPerElem", 256, "perColumn", 2,
                    "perElem", 2069, "dStride", 9, "ldsMat", 2069, "sweep", 0), p.constants(ElementKernel.STIFFNESS_BP35, 8, 4));
            assertEquals("points, 3D (geometric factors on the fly), 2 layers of a column per work-item, 256 work-items x 1"
                    + " elements per group, 2157 doubles local, contractions rolled", p.describe(ElementKernel.STIFFNESS_BP35));
            // N = 8: 81 columns x 3 slots of 3 layers
            assertEquals(243, ElementPlan.trilinearPoints(9, 256, KIB48).threadsPerElement());
            // N = 3: 64 points, one each, four elements per group; N = 6: 343 points in two shares of 172, rounded up to 192
            assertEquals(4, ElementPlan.trilinearPoints(4, 256, KIB48).elementsPerGroup());
            assertEquals(192, ElementPlan.trilinearPoints(7, 256, KIB48).threadsPerElement());
            // N = 10: 4 x 1331 + 21 + 11 x 11 + 22 doubles = 43.9 KB fits 48 KiB, 1331 points in 6 shares of 224
            assertEquals(1, ElementPlan.trilinearPoints(11, 256, KIB48).elementsPerGroup());
            assertEquals(224, ElementPlan.trilinearPoints(11, 256, KIB48).threadsPerElement());
            assertNull(ElementPlan.trilinearPoints(12, 256, KIB48));
            // K layers of a column forced (auto: the smallest that fits): N = 10 121 columns x 2 slots of 6
            System.setProperty(ElementPlan.PER_COLUMN_PROPERTY, "auto");
            assertEquals(242, ElementPlan.trilinearPoints(11, 256, KIB48).threadsPerElement());
        } finally {
            if (before == null) {
                System.clearProperty(ElementPlan.PER_COLUMN_PROPERTY);
            } else {
                System.setProperty(ElementPlan.PER_COLUMN_PROPERTY, before);
            }
        }
    }

    @Test
    void theWantedKernelOrTheOtherWhereItDoesNotFit() {
        KernelBuilds.Spec shared = KernelBuilds.element(ElementKernel.STIFFNESS_BP35, 7,
                KernelBuilds.trilinearPlan(Basis1D.of(7), 1024, KIB48, "test", ElementVariant.SHARED, s -> 1024), 2);
        assertEquals(StiffnessBp35TrilinearSharedKernel.class, shared.family());
        assertEquals("BP3.5 N=7 (factors on the fly, shared, assembled, p update)", shared.label());
        assertEquals(256, shared.groupSize());
        KernelBuilds.Spec registers = KernelBuilds.element(ElementKernel.STIFFNESS_BP35, 7,
                KernelBuilds.trilinearPlan(Basis1D.of(7), 1024, KIB48, "test", ElementVariant.REGISTERS, s -> 1024), 1);
        assertEquals(StiffnessBp35TrilinearKernel.class, registers.family());
        assertEquals("BP3.5 N=7 (factors on the fly, assembled)", registers.label());
        KernelBuilds.Spec points = KernelBuilds.element(ElementKernel.STIFFNESS_BP35, 7,
                KernelBuilds.trilinearPlan(Basis1D.of(7), 1024, KIB48, "test", ElementVariant.POINTS, s -> 1024), 5);
        assertEquals(StiffnessBp35TrilinearPointsKernel.class, points.family());
        assertEquals("BP3.5 N=7 (factors on the fly, points, one kernel, atomic)", points.label());
        assertEquals(256, points.groupSize());
        assertEquals(ElementVariant.SHARED, KernelBuilds.trilinearPlan(Basis1D.of(11), 1024, KIB48, "test",
                ElementVariant.POINTS, s -> 1024).variant(), "N = 11 in 48 KiB: the points layout does not fit");
        ElementPlan n13 = KernelBuilds.trilinearPlan(Basis1D.of(13), 1024, KIB48, "test", ElementVariant.SHARED, s -> 1024);
        assertEquals(ElementVariant.REGISTERS, n13.variant(), "N = 13 in 48 KiB: the shared layout does not fit");
        // a build that allows fewer work-items than planned: planned again for what it allows
        ElementPlan capped = KernelBuilds.trilinearPlan(Basis1D.of(7), 1024, KIB48, "test", ElementVariant.SHARED, s -> 128);
        assertEquals(2, capped.elementsPerGroup());
    }
}
