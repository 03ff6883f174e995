package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.backend.aparapi.conformance.SkipWithoutOpenCl;
import io.lobatto.conformance.GeometryOnTheFlyConformance;
import io.lobatto.core.backend.Backend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs {@link GeometryOnTheFlyConformance} with BP3.5's factors on the fly one work-item per point
 * ({@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearPointsKernel}) at every degree, planned for the
 * 48 KiB of NVIDIA GPUs (N = 10 fits one element; from N = 11 the shared layout runs), against the stored factors in
 * the same backend and the Java reference.
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
}
