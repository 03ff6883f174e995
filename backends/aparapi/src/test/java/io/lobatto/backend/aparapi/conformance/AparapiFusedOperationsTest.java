package io.lobatto.backend.aparapi.conformance;

import io.lobatto.conformance.FusedOperationsConformance;
import io.lobatto.core.backend.Backend;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/** Runs {@link FusedOperationsConformance} on the Aparapi (OpenCL) backend. */
@AddLifecycleHook(SkipWithoutOpenCl.class)
class AparapiFusedOperationsTest extends FusedOperationsConformance {

    @Override
    protected Backend backend() {
        return AparapiFixture.backend();
    }
}
