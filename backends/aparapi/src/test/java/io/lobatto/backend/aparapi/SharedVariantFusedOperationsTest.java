package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.conformance.SkipWithoutOpenCl;
import io.lobatto.conformance.FusedOperationsConformance;
import io.lobatto.core.backend.Backend;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/** Runs {@link FusedOperationsConformance} (hipBone's fused operator among them) with the shared-memory element kernels. */
@AddLifecycleHook(SkipWithoutOpenCl.class)
class SharedVariantFusedOperationsTest extends FusedOperationsConformance {

    @Override
    protected Backend backend() {
        return SharedVariantBackend.get();
    }
}
