package io.lobatto.backend.aparapi.conformance;

import io.lobatto.conformance.PointwiseOperatorConformance;
import io.lobatto.core.backend.Backend;
import org.junit.jupiter.api.extension.ExtendWith;

/** Runs {@link PointwiseOperatorConformance} on the Aparapi (OpenCL) backend. */
@ExtendWith(SkipWithoutOpenCl.class)
class AparapiPointwiseOperatorTest extends PointwiseOperatorConformance {

    @Override
    protected Backend backend() {
        return AparapiFixture.backend();
    }
}
