package io.lobatto.conformance;

import io.lobatto.core.backend.Backend;

/** Runs {@link StreamingConformance} on the Java CPU backend (the reference). */
class CpuStreamingTest extends StreamingConformance {

    @Override
    protected Backend backend() {
        return BackendFixture.reference();
    }
}
