package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.backend.aparapi.conformance.SkipWithoutOpenCl;
import io.lobatto.conformance.GeometryOnTheFlyConformance;
import io.lobatto.core.backend.Backend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs {@link GeometryOnTheFlyConformance} with BP3.5's factors on the fly in the register columns
 * ({@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearKernel}) at every degree, against the stored factors
 * in the register variant and the Java reference.
 */
@ExtendWith(SkipWithoutOpenCl.class)
class RegisterVariantGeometryOnTheFlyTest extends GeometryOnTheFlyConformance {

    @Override
    protected Backend backend() {
        return RegisterVariantBackend.get();
    }

    @Override
    protected boolean computesOnTheFly() {
        return true;
    }

    @Test
    void everyDegreeRunsTheForcedKernel() {
        for (int n : new int[] {1, 6, 7, 8}) {
            String plan = SharedVariantGeometryOnTheFlyTest.onTheFlyPlan(backend(), n);
            assertTrue(plan.contains("registers, columns (geometric factors on the fly)"), "N = " + n + ": " + plan);
        }
    }
}
