package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.conformance.SkipWithoutOpenCl;
import io.lobatto.conformance.DistributedKernelsConformance;
import io.lobatto.core.backend.Backend;
import org.junit.jupiter.api.extension.ExtendWith;

/** Runs {@link DistributedKernelsConformance} (element ranges of the fused operator) with the shared-memory element kernels. */
@ExtendWith(SkipWithoutOpenCl.class)
class SharedVariantDistributedKernelsTest extends DistributedKernelsConformance {

    @Override
    protected Backend backend() {
        return SharedVariantBackend.get();
    }
}
