package io.lobatto.backend.aparapi;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.BackendProvider;

import io.lobatto.backend.aparapi.runtime.ClDevice;

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
        return OpenClDevices.list().isEmpty()
                ? "no OpenCL device found (no OpenCL ICD loader or driver could be loaded)"
                : null;
    }

    @Override
    public Backend create() {
        return new AparapiBackend();
    }
}
