package io.lobatto.backend.aparapi.conformance;

import io.lobatto.conformance.GatherScatterConformance;
import io.lobatto.core.backend.Backend;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/** Runs {@link GatherScatterConformance} on the Aparapi (OpenCL) backend; results are compared with the Java reference. */
@AddLifecycleHook(SkipWithoutOpenCl.class)
class AparapiGatherScatterTest extends GatherScatterConformance {

    @Override
    protected Backend backend() {
        return AparapiFixture.backend();
    }
}
