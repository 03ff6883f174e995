package io.lobatto.backend.aparapi.conformance;

import io.lobatto.core.backend.BackendProvider;
import io.lobatto.core.backend.Backends;
import net.jqwik.api.lifecycle.LifecycleContext;
import net.jqwik.api.lifecycle.SkipExecutionHook;

/**
 * jqwik hook: skips the properties of a suite when there is no OpenCL device, unless
 * {@code LOBATTO_REQUIRE_OPENCL=1}, in which case they run and fail (JUnit tests use
 * {@link AparapiFixture} directly).
 */
public final class SkipWithoutOpenCl implements SkipExecutionHook {

    @Override
    public SkipResult shouldBeSkipped(LifecycleContext context) {
        if (AparapiFixture.required()) {
            return SkipResult.doNotSkip();
        }
        BackendProvider p = Backends.providers().stream().filter(x -> x.name().equals("aparapi")).findFirst().orElse(null);
        if (p == null || io.lobatto.backend.aparapi.OpenClDevices.list().isEmpty()) {
            return SkipResult.skip("no OpenCL device for the Aparapi backend" + (p == null ? "" : ": " + p.unavailableReason()));
        }
        return SkipResult.doNotSkip();
    }
}
