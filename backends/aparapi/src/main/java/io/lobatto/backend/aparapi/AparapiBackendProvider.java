package io.lobatto.backend.aparapi;

import com.aparapi.device.Device;
import com.aparapi.device.OpenCLDevice;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.BackendProvider;
import io.lobatto.core.backend.JvmSignals;

import java.util.List;

/**
 * Registers the Aparapi backend with {@link io.lobatto.core.backend.Backends}: priority 100 when an
 * OpenCL GPU exists, 50 when only a CPU (or other) OpenCL device exists, -1 without OpenCL, and -1
 * without loading OpenCL when PoCL is installed and the JVM runs without {@code libjsig.so}
 * ({@link JvmSignals#openClUnsafeReason()}). Only {@link #priority()}, {@link #unavailableReason()} and
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
        if (JvmSignals.openClUnsafeReason() != null) {
            return -1;
        }
        List<OpenCLDevice> all = OpenClDevices.list();
        if (all.isEmpty()) {
            return -1;
        }
        for (OpenCLDevice d : all) {
            if (d.getType() == Device.TYPE.GPU) {
                return 100;
            }
        }
        return 50;
    }

    @Override
    public String unavailableReason() {
        String unsafe = JvmSignals.openClUnsafeReason();
        if (unsafe != null) {
            return unsafe;
        }
        return OpenClDevices.list().isEmpty()
                ? "no OpenCL device found (no OpenCL ICD loader/driver, or Aparapi's native library failed to load)"
                : null;
    }

    @Override
    public Backend create() {
        return new AparapiBackend();
    }
}
