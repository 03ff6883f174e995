package io.lobatto.backend.aparapi.conformance;

import io.lobatto.conformance.SolverConformance;
import io.lobatto.core.backend.Backend;
import org.junit.jupiter.api.extension.ExtendWith;

/** Runs {@link SolverConformance} on the Aparapi (OpenCL) backend; results are compared with the Java reference. */
@ExtendWith(SkipWithoutOpenCl.class)
class AparapiSolverTest extends SolverConformance {

    @Override
    protected Backend backend() {
        return AparapiFixture.backend();
    }
}
