package io.lobatto.backend.aparapi.conformance;

import io.lobatto.conformance.StreamingConformance;
import io.lobatto.core.backend.Backend;
import org.junit.jupiter.api.extension.ExtendWith;

/** Runs {@link StreamingConformance} on the Aparapi (OpenCL) backend; results are compared with the Java reference. */
@ExtendWith(SkipWithoutOpenCl.class)
class AparapiStreamingTest extends StreamingConformance {

    @Override
    protected Backend backend() {
        return AparapiFixture.backend();
    }
}
