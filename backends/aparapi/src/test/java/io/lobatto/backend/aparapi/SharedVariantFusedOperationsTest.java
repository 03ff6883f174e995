package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.conformance.SkipWithoutOpenCl;
import io.lobatto.conformance.FusedOperationsConformance;
import io.lobatto.core.backend.Backend;
import org.junit.jupiter.api.extension.ExtendWith;

/** Runs {@link FusedOperationsConformance} (hipBone's fused operator among them) with the shared-memory element kernels. */
@ExtendWith(SkipWithoutOpenCl.class)
class SharedVariantFusedOperationsTest extends FusedOperationsConformance {

    @Override
    protected Backend backend() {
        return SharedVariantBackend.get();
    }
}
