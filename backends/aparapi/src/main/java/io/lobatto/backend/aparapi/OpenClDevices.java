package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.runtime.ClDevice;
import io.lobatto.core.backend.BackendException;
import io.lobatto.core.backend.DeviceInfo;

import java.util.List;
import java.util.Locale;

/**
 * The OpenCL devices JOCL sees, GPUs first, then accelerators, then CPUs, and the selection rule of
 * the backend: {@code LOBATTO_OPENCL_DEVICE} (environment) or {@code lobatto.opencl.device} (system
 * property, wins) holding an index into {@link #list()} or a case-insensitive substring of the device or
 * platform name; without either the first device of the list.
 */
public final class OpenClDevices {

    /** Environment variable that selects the OpenCL device by index or name substring. */
    public static final String ENV = "LOBATTO_OPENCL_DEVICE";
    /** System property that selects the OpenCL device (wins over {@link #ENV}). */
    public static final String PROPERTY = "lobatto.opencl.device";

    private OpenClDevices() {
    }

    /** All OpenCL devices, GPUs first; empty (never an exception) when OpenCL cannot be loaded. */
    public static List<ClDevice> list() {
        return ClDevice.list();
    }

    /** The selector from the system property or environment, or null. */
    public static String configuredSelector() {
        String s = System.getProperty(PROPERTY);
        if (s == null || s.isBlank()) {
            s = System.getenv(ENV);
        }
        return s == null || s.isBlank() ? null : s.trim();
    }

    /** Selects a device by index or name substring (null: the first, a GPU when there is one). */
    public static ClDevice select(String selector) {
        List<ClDevice> all = list();
        if (all.isEmpty()) {
            String unsafe = io.lobatto.core.backend.JvmSignals.openClUnsafeReason();
            throw new BackendException(unsafe != null ? "aparapi: no usable OpenCL device: " + unsafe
                    : "aparapi: no OpenCL device found (is an OpenCL ICD such as pocl-opencl-icd or the NVIDIA driver installed?)");
        }
        if (selector == null || selector.isBlank()) {
            return all.get(0);
        }
        String s = selector.trim();
        if (s.matches("\\d+")) {
            int index = Integer.parseInt(s);
            if (index >= all.size()) {
                throw new BackendException("aparapi: OpenCL device index " + index + " out of range; devices: " + describe(all));
            }
            return all.get(index);
        }
        String needle = s.toLowerCase(Locale.ROOT);
        for (ClDevice d : all) {
            String hay = (d.name() + " " + d.platformName() + " " + d.type()).toLowerCase(Locale.ROOT);
            if (hay.contains(needle)) {
                return d;
            }
        }
        throw new BackendException("aparapi: no OpenCL device matches '" + s + "'; devices: " + describe(all));
    }

    /** What {@link io.lobatto.core.backend.Backend#device()} reports for {@code d}. */
    public static DeviceInfo info(ClDevice d) {
        return d.info();
    }

    static String describe(List<ClDevice> all) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < all.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(i).append(": ").append(all.get(i).name())
                    .append(" (").append(all.get(i).type()).append(")");
        }
        return b.append("]").toString();
    }
}
