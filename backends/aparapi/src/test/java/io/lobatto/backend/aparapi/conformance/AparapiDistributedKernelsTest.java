package io.lobatto.backend.aparapi.conformance;

import io.lobatto.conformance.DistributedKernelsConformance;
import io.lobatto.core.backend.Backend;
import org.junit.jupiter.api.extension.ExtendWith;

/** Runs {@link DistributedKernelsConformance} on the Aparapi (OpenCL) backend. */
@ExtendWith(SkipWithoutOpenCl.class)
class AparapiDistributedKernelsTest extends DistributedKernelsConformance {

    @Override
    protected Backend backend() {
        return AparapiFixture.backend();
    }
}
