package io.lobatto.core.backend;

/**
 * What a backend runs on, as reported by the backend itself (for an OpenCL backend: the values of
 * {@code CL_DEVICE_NAME}, {@code CL_DEVICE_VENDOR}, {@code CL_DEVICE_MAX_COMPUTE_UNITS},
 * {@code CL_DEVICE_GLOBAL_MEM_SIZE}).
 *
 * @param name          device name, e.g. "NVIDIA H100 80GB HBM3" or "Java (16 threads)"
 * @param vendor        device vendor
 * @param type          "GPU", "CPU" or "ACCELERATOR"
 * @param computeUnits  compute units (OpenCL) or threads (Java)
 * @param memoryBytes   global memory in bytes (0 when unknown)
 * @param platform      OpenCL platform or runtime name, e.g. "NVIDIA CUDA", "Portable Computing Language"
 */
public record DeviceInfo(String name, String vendor, String type, int computeUnits, long memoryBytes,
                         String platform) {

    /** True when the device is a GPU. */
    public boolean isGpu() {
        return "GPU".equalsIgnoreCase(type);
    }

    @Override
    public String toString() {
        return String.format("%s [%s, %s, %d compute units, %.1f GiB global memory, %s]", name, vendor, type, computeUnits,
                memoryBytes / (1024.0 * 1024 * 1024), platform);
    }
}
