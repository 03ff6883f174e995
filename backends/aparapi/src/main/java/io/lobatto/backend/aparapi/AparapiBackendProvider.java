package io.lobatto.backend.aparapi;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.BackendProvider;
import io.lobatto.core.backend.JvmSignals;

import io.lobatto.backend.aparapi.runtime.ClDevice;

import java.util.List;

/**
 * Registers the Aparapi backend with {@link io.lobatto.core.backend.Backends}: priority 100 when an
 * OpenCL GPU (or accelerator) exists, else -1, so that {@code Backends.best()} takes the Java backend on
 * a machine whose only OpenCL device is a CPU (PoCL: for CI and kernel tests, slower than the Java
 * backend); naming the backend still creates it there. PoCL's
 * devices are left out when the JVM runs without {@code libjsig.so} ({@link JvmSignals#openClUnsafeReason()},
 * see {@link io.lobatto.backend.aparapi.runtime.ClDevice#list()}), so a GPU next to PoCL stays usable. Only {@link #priority()}, {@link #unavailableReason()} and
 * {@link #create()} touch OpenCL; {@link io.lobatto.core.backend.Backends} calls them only when this backend
 * is named or the best one is probed.
 */
public final class AparapiBackendProvider implements BackendProvider {

    @Override
    public String name() {
        return AparapiBackend.NAME;
    }

    @Override
    public boolean loadsNativeCode() {
        return true;
    }

    /** 100 when an OpenCL GPU or accelerator exists; -1 otherwise (a CPU OpenCL device only by name). */
    @Override
    public int priority() {
        for (ClDevice d : OpenClDevices.list()) {
            if (d.type() == ClDevice.Type.GPU || d.type() == ClDevice.Type.ACCELERATOR) {
                return 100;
            }
        }
        return -1;
    }

    @Override
    public String unavailableReason() {
        List<ClDevice> all = OpenClDevices.list();
        if (!all.isEmpty()) {
            return all.stream().anyMatch(d -> d.type() == ClDevice.Type.GPU || d.type() == ClDevice.Type.ACCELERATOR) ? null
                    : "only a CPU OpenCL device (" + all.get(0).name() + "), which is for CI and kernel tests, not speed: "
                    + "name the backend (LOBATTO_BACKEND=aparapi) to use it";
        }
        String unsafe = JvmSignals.openClUnsafeReason();
        return unsafe != null ? unsafe : "no OpenCL device found (no OpenCL ICD loader or driver could be loaded)";
    }

    @Override
    public Backend create() {
        return new AparapiBackend();
    }
}
