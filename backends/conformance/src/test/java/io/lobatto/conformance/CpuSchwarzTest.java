package io.lobatto.conformance;

import io.lobatto.core.backend.Backend;

/** Runs {@link SchwarzConformance} on the Java CPU backend (the reference). */
class CpuSchwarzTest extends SchwarzConformance {

    @Override
    protected Backend backend() {
        return BackendFixture.reference();
    }
}
