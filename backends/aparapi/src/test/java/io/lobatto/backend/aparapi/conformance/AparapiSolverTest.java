package io.lobatto.backend.aparapi.conformance;

import io.lobatto.conformance.SolverConformance;
import io.lobatto.core.backend.Backend;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/** Runs {@link SolverConformance} on the Aparapi (OpenCL) backend; results are compared with the Java reference. */
@AddLifecycleHook(SkipWithoutOpenCl.class)
class AparapiSolverTest extends SolverConformance {

    @Override
    protected Backend backend() {
        return AparapiFixture.backend();
    }
}
