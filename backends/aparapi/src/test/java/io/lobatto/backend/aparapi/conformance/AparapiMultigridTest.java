package io.lobatto.backend.aparapi.conformance;

import io.lobatto.conformance.MultigridConformance;
import io.lobatto.core.backend.Backend;
import org.junit.jupiter.api.extension.ExtendWith;

/** Runs {@link MultigridConformance} on the Aparapi (OpenCL) backend; transfers are compared with the Java reference. */
@ExtendWith(SkipWithoutOpenCl.class)
class AparapiMultigridTest extends MultigridConformance {

    @Override
    protected Backend backend() {
        return AparapiFixture.backend();
    }
}
