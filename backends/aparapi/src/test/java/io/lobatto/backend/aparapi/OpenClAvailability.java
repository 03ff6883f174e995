package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Assumptions;

/**
 * Tests need a real OpenCL device: they skip when there is none, unless {@code LOBATTO_REQUIRE_OPENCL=1},
 * in which case they fail (CI runs them on PoCL).
 */
final class OpenClAvailability {

    private static AparapiBackend shared;

    private OpenClAvailability() {
    }

    /** False when there is no OpenCL device and none is required (fails when one is required). */
    static boolean available() {
        if (OpenClDevices.list().isEmpty()) {
            if ("1".equals(System.getenv("LOBATTO_REQUIRE_OPENCL"))) {
                fail("LOBATTO_REQUIRE_OPENCL=1 but no OpenCL device was found (install pocl-opencl-icd)");
            }
            return false;
        }
        return true;
    }

    static synchronized AparapiBackend backend() {
        if (shared == null) {
            if (OpenClDevices.list().isEmpty()) {
                if ("1".equals(System.getenv("LOBATTO_REQUIRE_OPENCL"))) {
                    fail("LOBATTO_REQUIRE_OPENCL=1 but no OpenCL device was found (install pocl-opencl-icd)");
                }
                Assumptions.abort("no OpenCL device (set LOBATTO_REQUIRE_OPENCL=1 to fail instead)");
            }
            shared = new AparapiBackend();
        }
        return shared;
    }
}
