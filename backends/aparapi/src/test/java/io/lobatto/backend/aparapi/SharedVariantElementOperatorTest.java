package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.conformance.SkipWithoutOpenCl;
import io.lobatto.conformance.ElementOperatorConformance;
import io.lobatto.core.backend.Backend;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs {@link ElementOperatorConformance} with every element kernel in the shared-memory variant
 * ({@link ElementVariant#SHARED}), which the measured table no longer picks for BP1.0 and BP3.5 but which
 * stays the fallback; the conformance tests in {@code conformance/} run the table's choice.
 */
@ExtendWith(SkipWithoutOpenCl.class)
class SharedVariantElementOperatorTest extends ElementOperatorConformance {

    @Override
    protected Backend backend() {
        return SharedVariantBackend.get();
    }
}
