package io.lobatto.conformance;

import io.lobatto.core.backend.Backend;

/** Runs {@link SolverConformance} on the Java CPU backend (the reference). */
class CpuSolverTest extends SolverConformance {

    @Override
    protected Backend backend() {
        return BackendFixture.reference();
    }
}
