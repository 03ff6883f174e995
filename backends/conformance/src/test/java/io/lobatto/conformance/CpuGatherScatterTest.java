package io.lobatto.conformance;

import io.lobatto.core.backend.Backend;

/** Runs {@link GatherScatterConformance} on the Java CPU backend (the reference). */
class CpuGatherScatterTest extends GatherScatterConformance {

    @Override
    protected Backend backend() {
        return BackendFixture.reference();
    }
}
