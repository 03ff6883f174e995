package io.lobatto.conformance;

import io.lobatto.core.backend.Backend;

/** Runs {@link ElementOperatorConformance} on the Java CPU backend (the reference). */
class CpuElementOperatorTest extends ElementOperatorConformance {

    @Override
    protected Backend backend() {
        return BackendFixture.reference();
    }
}
