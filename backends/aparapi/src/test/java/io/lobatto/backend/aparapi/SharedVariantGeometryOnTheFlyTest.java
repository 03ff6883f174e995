package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.backend.aparapi.conformance.SkipWithoutOpenCl;
import io.lobatto.conformance.GeometryOnTheFlyConformance;
import io.lobatto.core.backend.Backend;
import io.lobatto.operators.BoundElementOperator;
import io.lobatto.operators.StiffnessBp35;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs {@link GeometryOnTheFlyConformance} with BP3.5's factors on the fly in the shared-memory layout
 * ({@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearSharedKernel}) at every degree, against the stored
 * factors in the shared variant and the Java reference.
 */
@ExtendWith(SkipWithoutOpenCl.class)
class SharedVariantGeometryOnTheFlyTest extends GeometryOnTheFlyConformance {

    @Override
    protected Backend backend() {
        return SharedVariantBackend.get();
    }

    @Override
    protected boolean computesOnTheFly() {
        return true;
    }

    @Test
    void everyDegreeRunsTheForcedKernel() {
        for (int n : new int[] {1, 6, 7, 8}) {
            String plan = onTheFlyPlan(backend(), n);
            assertTrue(plan.contains("shared, 2D columns (geometric factors on the fly)"), "N = " + n + ": " + plan);
        }
    }

    /** The plan of the on-the-fly BP3.5 kernel at {@code degree} on {@code be}. */
    static String onTheFlyPlan(Backend be, int degree) {
        var mesh = io.lobatto.conformance.TestProblems.perturbedBox(2, 2, 2, degree, 0.2, 5L);
        try (BoundElementOperator b = StiffnessBp35.on(mesh, 1).withGeometryOnTheFly().bind(be)) {
            return ((AparapiBackend) be).plan(b.data());
        }
    }
}
