package io.lobatto.backend.aparapi.conformance;

import io.lobatto.conformance.StreamingConformance;
import io.lobatto.core.backend.Backend;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/** Runs {@link StreamingConformance} on the Aparapi (OpenCL) backend; results are compared with the Java reference. */
@AddLifecycleHook(SkipWithoutOpenCl.class)
class AparapiStreamingTest extends StreamingConformance {

    @Override
    protected Backend backend() {
        return AparapiFixture.backend();
    }
}
