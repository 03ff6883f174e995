package io.lobatto.backend.aparapi.conformance;

import io.lobatto.conformance.GeometryOnTheFlyConformance;
import io.lobatto.core.backend.Backend;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs {@link GeometryOnTheFlyConformance} on the Aparapi (OpenCL) backend: its BP3.5 kernel computes the factors from
 * the element vertices ({@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearKernel}).
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
}
