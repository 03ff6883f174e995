package io.lobatto.conformance;

import io.lobatto.core.backend.Backend;

/** Runs {@link PointwiseOperatorConformance} on the Java CPU backend (the reference). */
class CpuPointwiseOperatorTest extends PointwiseOperatorConformance {

    @Override
    protected Backend backend() {
        return BackendFixture.reference();
    }
}
