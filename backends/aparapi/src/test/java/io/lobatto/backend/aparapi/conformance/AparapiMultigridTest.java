package io.lobatto.backend.aparapi.conformance;

import io.lobatto.conformance.MultigridConformance;
import io.lobatto.core.backend.Backend;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/** Runs {@link MultigridConformance} on the Aparapi (OpenCL) backend; transfers are compared with the Java reference. */
@AddLifecycleHook(SkipWithoutOpenCl.class)
class AparapiMultigridTest extends MultigridConformance {

    @Override
    protected Backend backend() {
        return AparapiFixture.backend();
    }
}
