package io.lobatto.backend.aparapi.conformance;

import org.junit.jupiter.api.Assumptions;

import io.lobatto.conformance.BackendFixture;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.BackendProvider;
import io.lobatto.core.backend.Backends;

/**
 * The shared Aparapi backend for the conformance suites. Without an OpenCL device the suites are
 * skipped, unless {@code LOBATTO_REQUIRE_OPENCL=1} (as CI sets it), in which case they fail.
 */
public final class AparapiFixture {

    private AparapiFixture() {
    }

    public static boolean required() {
        return "1".equals(System.getenv("LOBATTO_REQUIRE_OPENCL")) || Boolean.getBoolean("lobatto.requireOpenCL");
    }

    public static Backend backend() {
        BackendProvider provider = Backends.providers().stream().filter(p -> p.name().equals("aparapi")).findFirst()
                .orElseThrow(() -> new AssertionError("the aparapi provider is not registered"));
        // any OpenCL device, a CPU one (PoCL) included: Backends.best() passes those over, a named backend does not
        if (io.lobatto.backend.aparapi.OpenClDevices.list().isEmpty()) {
            String why = "no OpenCL device for the Aparapi backend: " + provider.unavailableReason();
            if (required()) {
                throw new AssertionError(why + " (LOBATTO_REQUIRE_OPENCL=1)");
            }
            Assumptions.abort(why);
        }
        return BackendFixture.shared("aparapi");
    }
}
