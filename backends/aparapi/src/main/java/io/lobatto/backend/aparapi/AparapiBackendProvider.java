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

    /**
     * The devices of the kind the backend picks by default (the first of {@link OpenClDevices#list()}: GPUs when there
     * are any), or 1 when a device is selected by {@code LOBATTO_OPENCL_DEVICE}; 0 without OpenCL.
     */
    @Override
    public int deviceCount() {
        if (OpenClDevices.configuredSelector() != null) {
            return 1;
        }
        List<ClDevice> all = OpenClDevices.list();
        if (all.isEmpty()) {
            return 0;
        }
        ClDevice.Type first = all.get(0).type();
        return (int) all.stream().filter(d -> d.type() == first).count();
    }

    /** The backend on device {@code device} of those {@link #deviceCount()} counts (the configured one for 0 when set). */
    @Override
    public Backend create(int device) {
        if (OpenClDevices.configuredSelector() != null || device == 0) {
            if (device != 0) {
                throw new IllegalArgumentException("aparapi: device " + device + " asked for, but LOBATTO_OPENCL_DEVICE selects one");
            }
            return new AparapiBackend();
        }
        int count = deviceCount();
        if (device < 0 || device >= count) {
            throw new IllegalArgumentException("aparapi: device " + device + " out of range [0, " + count + ")");
        }
        return new AparapiBackend(OpenClDevices.list().get(device));
    }
}
