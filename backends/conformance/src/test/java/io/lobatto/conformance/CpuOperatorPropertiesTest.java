package io.lobatto.conformance;

import io.lobatto.core.backend.Backend;

/** Runs {@link OperatorProperties} on the Java CPU backend (the reference). */
class CpuOperatorPropertiesTest extends OperatorProperties {

    @Override
    protected Backend backend() {
        return BackendFixture.reference();
    }
}
