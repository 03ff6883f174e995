package io.lobatto.backend.aparapi;

import com.aparapi.device.Device;
import com.aparapi.device.OpenCLDevice;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.BackendProvider;

import java.util.List;

/**
 * Registers the Aparapi backend with {@link io.lobatto.core.backend.Backends}: priority 100 when an
 * OpenCL GPU exists, 50 when only a CPU (or other) OpenCL device exists, -1 without OpenCL.
 */
public final class AparapiBackendProvider implements BackendProvider {

    @Override
    public String name() {
        return AparapiBackend.NAME;
    }

    @Override
    public int priority() {
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
        return OpenClDevices.list().isEmpty()
                ? "no OpenCL device found (no OpenCL ICD loader/driver, or Aparapi's native library failed to load)"
                : null;
    }

    @Override
    public Backend create() {
        return new AparapiBackend();
    }
}
