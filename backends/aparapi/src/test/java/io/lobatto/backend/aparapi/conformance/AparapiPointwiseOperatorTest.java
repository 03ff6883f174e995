package io.lobatto.backend.aparapi.conformance;

import io.lobatto.conformance.PointwiseOperatorConformance;
import io.lobatto.core.backend.Backend;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/** Runs {@link PointwiseOperatorConformance} on the Aparapi (OpenCL) backend. */
@AddLifecycleHook(SkipWithoutOpenCl.class)
class AparapiPointwiseOperatorTest extends PointwiseOperatorConformance {

    @Override
    protected Backend backend() {
        return AparapiFixture.backend();
    }
}
