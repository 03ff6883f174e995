package io.lobatto.backend.aparapi.conformance;

import io.lobatto.conformance.FusedOperationsConformance;
import io.lobatto.core.backend.Backend;
import org.junit.jupiter.api.extension.ExtendWith;

/** Runs {@link FusedOperationsConformance} on the Aparapi (OpenCL) backend. */
@ExtendWith(SkipWithoutOpenCl.class)
class AparapiFusedOperationsTest extends FusedOperationsConformance {

    @Override
    protected Backend backend() {
        return AparapiFixture.backend();
    }
}
