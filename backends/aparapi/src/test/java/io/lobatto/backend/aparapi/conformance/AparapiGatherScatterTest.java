package io.lobatto.backend.aparapi.conformance;

import io.lobatto.conformance.GatherScatterConformance;
import io.lobatto.core.backend.Backend;
import org.junit.jupiter.api.extension.ExtendWith;

/** Runs {@link GatherScatterConformance} on the Aparapi (OpenCL) backend; results are compared with the Java reference. */
@ExtendWith(SkipWithoutOpenCl.class)
class AparapiGatherScatterTest extends GatherScatterConformance {

    @Override
    protected Backend backend() {
        return AparapiFixture.backend();
    }
}
