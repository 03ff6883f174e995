package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.conformance.SkipWithoutOpenCl;
import io.lobatto.conformance.ElementOperatorConformance;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.ElementKernel;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs {@link ElementOperatorConformance} on BP3.0 and BP3.5 with the pipelined kernels ({@link ElementVariant#PIPELINED})
 * on the device's whole local memory (PoCL's: more elements per group than on a 48 KiB GPU, two pairs of flux layers at
 * every N): the dense references, a partly masked assembled operator with its diagonal, the fused operator against the steps,
 * and the Java backend, N = 1..8.
 */
@ExtendWith(SkipWithoutOpenCl.class)
class PipelinedVariantElementOperatorTest extends ElementOperatorConformance {

    @Override
    protected Backend backend() {
        return PipelinedVariantBackend.get();
    }

    @Override
    protected boolean covers(ElementKernel kernel) {
        return kernel != ElementKernel.MASS_BP10;
    }
}
