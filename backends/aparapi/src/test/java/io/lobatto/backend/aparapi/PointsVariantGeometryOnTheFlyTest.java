package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lobatto.backend.aparapi.conformance.SkipWithoutOpenCl;
import io.lobatto.conformance.GeometryOnTheFlyConformance;
import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.operators.BoundElementOperator;
import io.lobatto.operators.StiffnessBp35;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs {@link GeometryOnTheFlyConformance} with BP3.5's factors on the fly one work-item per point
 * ({@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearPointsKernel}) at the suite's degrees (N = 1..8 and
 * 10), planned for the 48 KiB of NVIDIA GPUs (N = 10 fits one element; from N = 11 the shared layout runs), against the
 * stored factors in
 * the same backend and the Java reference; and every choice of layers per work-item ({@code pointsPerColumn}), the
 * strided points (K = 1), K that divides P and K that does not (a last slot partly past the element), against the
 * stored factors on the Java backend.
 */
@ExtendWith(SkipWithoutOpenCl.class)
class PointsVariantGeometryOnTheFlyTest extends GeometryOnTheFlyConformance {

    @Override
    protected Backend backend() {
        return VariantBackends.at48KiB(ElementVariant.POINTS);
    }

    @Override
    protected boolean computesOnTheFly() {
        return true;
    }

    @Test
    void everyDegreeRunsTheForcedKernel() {
        for (int n : new int[] {1, 3, 6, 7, 10}) {
            String plan = SharedVariantGeometryOnTheFlyTest.onTheFlyPlan(backend(), n);
            assertTrue(plan.contains("points, 3D (geometric factors on the fly)"), "N = " + n + ": " + plan);
        }
        String n11 = SharedVariantGeometryOnTheFlyTest.onTheFlyPlan(backend(), 11);
        assertTrue(n11.contains("shared, 2D columns (geometric factors on the fly)"), "N = 11: " + n11);
    }

    @Test
    void everyLayersPerWorkItemAgreesWithTheStoredFactors() {
        Backend be = backend();
        for (int degree : new int[] {4, 6, 7, 8, 9}) {
            SpectralElementMesh mesh = TestProblems.perturbedBox(3, 2, 2, degree, 0.2, 11L * degree);
            StiffnessBp35 stored = StiffnessBp35.on(mesh, 0.7);
            double[] x = TestProblems.random(stored.localSize(), 5L * degree);
            // the Java backend's stored factors: the Aparapi stored kernel at N = 7 shares the column sums under test
            Backend ref = io.lobatto.conformance.BackendFixture.reference();
            double[] want;
            try (BoundElementOperator bs = stored.bind(ref); DeviceVector rx = ref.upload(x); DeviceVector ry = ref.allocate(x.length)) {
                bs.apply(rx, ry);
                want = ref.download(ry);
            }
            try (DeviceVector dx = be.upload(x); DeviceVector yf = be.allocate(x.length)) {
                for (int k : new int[] {1, 2, 3, 4, 8}) {
                    String before = System.getProperty(ElementPlan.PER_COLUMN_PROPERTY);
                    System.setProperty(ElementPlan.PER_COLUMN_PROPERTY, Integer.toString(k));
                    BoundElementOperator bf;
                    try {
                        bf = stored.withGeometryOnTheFly().bind(be);
                    } finally {
                        restore(before);
                    }
                    try (bf) {
                        String plan = ((AparapiBackend) be).plan(bf.data());
                        int p = degree + 1;
                        boolean fits = k == 1 || p * p * ((p + k - 1) / k) <= 256;
                        int used = fits ? k : ElementPlan.smallestPerColumn(p, 256);
                        assertTrue(used == 1 ? plan.contains(" points per work-item") : plan.contains(used + " layers of a column"),
                                "N = " + degree + ", K = " + k + ": " + plan);
                        bf.apply(dx, yf);
                        VariantChecks.assertWithin(be.download(yf), want, 1e-12, "N = " + degree + ", K = " + k);
                    }
                }
            }
        }
    }

    @Test
    void theLayersPerWorkItem() {
        String before = System.getProperty(ElementPlan.PER_COLUMN_PROPERTY);
        try {
            System.clearProperty(ElementPlan.PER_COLUMN_PROPERTY);
            // the smallest K whose P^2 ceil(P / K) work-items fit 256: 1 while P^3 does
            int[] want = {1, 1, 1, 1, 1, 2, 2, 3, 5, 6};
            for (int n = 1; n <= 10; n++) {
                assertEquals(want[n - 1], ElementPlan.smallestPerColumn(n + 1, 256), "N = " + n);
            }
            // the measured table (columns26.sh at 1323f1c, final26.sh at 2c4982e, caps26.sh at 99183da, pad26.sh at
            // a818621): BP3.5 at N = 7 and 8
            ElementKernel bp35 = ElementKernel.STIFFNESS_BP35;
            assertEquals(2, ElementPlan.pointsPerColumn(bp35, false, 8, 256));
            assertEquals(2, ElementPlan.pointsPerColumn(bp35, true, 8, 256), "on the fly");
            assertEquals(3, ElementPlan.pointsPerColumn(bp35, false, 9, 256));
            assertEquals(3, ElementPlan.pointsPerColumn(bp35, true, 9, 256), "on the fly");
            assertEquals(1, ElementPlan.pointsPerColumn(bp35, true, 7, 256), "on the fly");
            assertEquals(1, ElementPlan.pointsPerColumn(bp35, true, 10, 256), "on the fly");
            assertEquals(1, ElementPlan.pointsPerColumn(bp35, false, 10, 256));
            assertEquals(1, ElementPlan.pointsPerColumn(bp35, false, 7, 256));
            assertEquals(1, ElementPlan.pointsPerColumn(ElementKernel.STIFFNESS_BP30, false, 8, 256));
            System.setProperty(ElementPlan.PER_COLUMN_PROPERTY, "auto");
            assertEquals(5, ElementPlan.pointsPerColumn(bp35, true, 10, 256));
            System.setProperty(ElementPlan.PER_COLUMN_PROPERTY, "4");
            assertEquals(4, ElementPlan.pointsPerColumn(bp35, true, 8, 256));
            assertEquals(5, ElementPlan.pointsPerColumn(bp35, true, 10, 256), "4 layers at P = 10 take 300 work-items");
            System.setProperty(ElementPlan.PER_COLUMN_PROPERTY, "9");
            IllegalArgumentException ex = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> ElementPlan.pointsPerColumn(bp35, true, 8, 256));
            assertEquals("-Dlobatto.aparapi.pointsPerColumn=9: expected table, auto or 1..8", ex.getMessage());
        } finally {
            restore(before);
        }
    }

    private static void restore(String before) {
        if (before == null) {
            System.clearProperty(ElementPlan.PER_COLUMN_PROPERTY);
        } else {
            System.setProperty(ElementPlan.PER_COLUMN_PROPERTY, before);
        }
    }
}
