package io.lobatto.conformance;

import io.lobatto.core.backend.Backend;

/** Runs {@link FusedOperationsConformance} on the Java CPU backend (the reference). */
class CpuFusedOperationsTest extends FusedOperationsConformance {

    @Override
    protected Backend backend() {
        return BackendFixture.reference();
    }
}
