package io.lobatto.backend.aparapi;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.BackendProvider;
import io.lobatto.core.backend.JvmSignals;

import io.lobatto.backend.aparapi.runtime.ClDevice;

import java.util.List;

/**
 * Registers the Aparapi backend with {@link io.lobatto.core.backend.Backends}: priority 100 when an
 * OpenCL GPU exists, 50 when only a CPU (or other) OpenCL device exists, -1 without OpenCL. PoCL's
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

    @Override
    public int priority() {
        List<ClDevice> all = OpenClDevices.list();
        if (all.isEmpty()) {
            return -1;
        }
        for (ClDevice d : all) {
            if (d.type() == ClDevice.Type.GPU) {
                return 100;
            }
        }
        return 50;
    }

    @Override
    public String unavailableReason() {
        if (!OpenClDevices.list().isEmpty()) {
            return null;
        }
        String unsafe = JvmSignals.openClUnsafeReason();
        return unsafe != null ? unsafe : "no OpenCL device found (no OpenCL ICD loader or driver could be loaded)";
    }

    @Override
    public Backend create() {
        return new AparapiBackend();
    }
}
