package io.lobatto.backend.aparapi.conformance;

import io.lobatto.conformance.OperatorProperties;
import io.lobatto.core.backend.Backend;
import org.junit.jupiter.api.extension.ExtendWith;

/** Runs {@link OperatorProperties} on the Aparapi (OpenCL) backend; results are compared with the Java reference. */
@ExtendWith(SkipWithoutOpenCl.class)
class AparapiOperatorPropertiesTest extends OperatorProperties {

    @Override
    protected Backend backend() {
        return AparapiFixture.backend();
    }
}
