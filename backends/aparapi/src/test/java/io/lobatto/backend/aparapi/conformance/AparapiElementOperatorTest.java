package io.lobatto.backend.aparapi.conformance;

import io.lobatto.conformance.ElementOperatorConformance;
import io.lobatto.core.backend.Backend;
import org.junit.jupiter.api.extension.ExtendWith;

/** Runs {@link ElementOperatorConformance} on the Aparapi (OpenCL) backend; results are compared with the Java reference. */
@ExtendWith(SkipWithoutOpenCl.class)
class AparapiElementOperatorTest extends ElementOperatorConformance {

    @Override
    protected Backend backend() {
        return AparapiFixture.backend();
    }
}
