package io.lobatto.backend.aparapi.conformance;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.backend.aparapi.AparapiBackend;
import io.lobatto.conformance.GeometryOnTheFlyConformance;
import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.Backend;
import io.lobatto.operators.BoundElementOperator;
import io.lobatto.operators.StiffnessBp35;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs {@link GeometryOnTheFlyConformance} on the Aparapi (OpenCL) backend with the kernel its table picks per degree:
 * the register columns ({@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearKernel}) at N = 1..5, the
 * shared-memory layout ({@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearSharedKernel}) from N = 6;
 * {@code SharedVariantGeometryOnTheFlyTest} and {@code RegisterVariantGeometryOnTheFlyTest} run each at every degree.
 */
@ExtendWith(SkipWithoutOpenCl.class)
class AparapiGeometryOnTheFlyTest extends GeometryOnTheFlyConformance {

    @Override
    protected Backend backend() {
        return AparapiFixture.backend();
    }

    @Override
    protected boolean computesOnTheFly() {
        return true;
    }

    @Test
    void theTablePicksRegistersAtFourPointsAtFiveToNineAndSharedAtTen() {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getProperty("lobatto.aparapi.onTheFlyVariant") == null,
                "the on-the-fly variant is forced");
        for (int n : new int[] {4, 5, 7, 9, 10}) {
            var mesh = TestProblems.perturbedBox(2, 2, 2, n, 0.2, 5L);
            try (BoundElementOperator b = StiffnessBp35.on(mesh, 1).withGeometryOnTheFly().bind(backend())) {
                String plan = ((AparapiBackend) backend()).plan(b.data());
                String want = n == 4 ? "registers, columns (geometric factors on the fly)"
                        : n <= 9 ? "points, 3D (geometric factors on the fly)"
                        : "shared, 2D columns (geometric factors on the fly)";
                assertTrue(plan.contains(want), "N = " + n + ": " + plan);
            }
        }
    }
}
