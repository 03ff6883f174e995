package io.lobatto.conformance;

import io.lobatto.core.backend.Backend;

/** Runs {@link MultigridConformance} on the Java CPU backend (the reference). */
class CpuMultigridTest extends MultigridConformance {

    @Override
    protected Backend backend() {
        return BackendFixture.reference();
    }
}
