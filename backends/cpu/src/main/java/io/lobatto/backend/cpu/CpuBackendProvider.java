package io.lobatto.backend.cpu;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.BackendProvider;

/**
 * Registers the Java CPU backend with {@link io.lobatto.core.backend.Backends} (name "cpu",
 * priority 10: always available, the fallback behind any OpenCL backend). Pure Java: probing and creating
 * it load no native code.
 */
public final class CpuBackendProvider implements BackendProvider {

    /** Priority of the Java backend: below Aparapi on a GPU (100) or on a CPU OpenCL device (50). */
    public static final int PRIORITY = 10;

    @Override
    public String name() {
        return CpuBackend.NAME;
    }

    @Override
    public boolean loadsNativeCode() {
        return false;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public String unavailableReason() {
        return null;
    }

    /** A backend with one thread per available processor. */
    @Override
    public Backend create() {
        return new CpuBackend();
    }
}
