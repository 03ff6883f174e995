package io.lobatto.conformance;

import io.lobatto.core.backend.Backend;

/** Runs {@link DistributedKernelsConformance} on the Java CPU backend (the reference). */
class CpuDistributedKernelsTest extends DistributedKernelsConformance {

    @Override
    protected Backend backend() {
        return BackendFixture.reference();
    }
}
