package io.lobatto.backend.aparapi.conformance;

import io.lobatto.conformance.OperatorProperties;
import io.lobatto.core.backend.Backend;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/** Runs {@link OperatorProperties} on the Aparapi (OpenCL) backend; results are compared with the Java reference. */
@AddLifecycleHook(SkipWithoutOpenCl.class)
class AparapiOperatorPropertiesTest extends OperatorProperties {

    @Override
    protected Backend backend() {
        return AparapiFixture.backend();
    }
}
