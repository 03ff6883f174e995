package io.lobatto.backend.aparapi.runtime;

import static org.jocl.CL.CL_DRIVER_VERSION;
import static org.jocl.CL.CL_DEVICE_GLOBAL_MEM_SIZE;
import static org.jocl.CL.CL_DEVICE_LOCAL_MEM_SIZE;
import static org.jocl.CL.CL_DEVICE_MAX_COMPUTE_UNITS;
import static org.jocl.CL.CL_DEVICE_MAX_MEM_ALLOC_SIZE;
import static org.jocl.CL.CL_DEVICE_MAX_WORK_GROUP_SIZE;
import static org.jocl.CL.CL_DEVICE_NAME;
import static org.jocl.CL.CL_DEVICE_TYPE;
import static org.jocl.CL.CL_DEVICE_TYPE_ACCELERATOR;
import static org.jocl.CL.CL_DEVICE_TYPE_ALL;
import static org.jocl.CL.CL_DEVICE_TYPE_CPU;
import static org.jocl.CL.CL_DEVICE_TYPE_GPU;
import static org.jocl.CL.CL_DEVICE_VENDOR;
import static org.jocl.CL.CL_PLATFORM_NAME;
import static org.jocl.CL.CL_PLATFORM_VENDOR;
import static org.jocl.CL.clGetDeviceIDs;
import static org.jocl.CL.clGetDeviceInfo;
import static org.jocl.CL.clGetPlatformIDs;
import static org.jocl.CL.clGetPlatformInfo;

import io.lobatto.core.backend.DeviceInfo;
import io.lobatto.core.backend.JvmSignals;
import org.jocl.CL;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_device_id;
import org.jocl.cl_platform_id;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * One OpenCL device as JOCL reports it: the values of {@code CL_DEVICE_*} that the backend plans with
 * (local memory, largest allocation, largest work-group) and that key the program cache (name, driver).
 * Immutable.
 */
public final class ClDevice {

    /** Device type, in the order the backend prefers them. */
    public enum Type { GPU, ACCELERATOR, CPU, OTHER }

    final cl_platform_id platform;
    final cl_device_id id;
    private final String name;
    private final String vendor;
    private final String platformName;
    private final String platformVendor;
    private final String driverVersion;
    private final Type type;
    private final int computeUnits;
    private final long globalMemBytes;
    private final long maxAllocBytes;
    private final long localMemBytes;
    private final int maxWorkGroupSize;

    private ClDevice(cl_platform_id platform, cl_device_id id) {
        this.platform = platform;
        this.id = id;
        this.name = deviceString(id, CL_DEVICE_NAME);
        this.vendor = deviceString(id, CL_DEVICE_VENDOR);
        this.driverVersion = deviceString(id, CL_DRIVER_VERSION);
        this.platformName = platformString(platform, CL_PLATFORM_NAME);
        this.platformVendor = platformString(platform, CL_PLATFORM_VENDOR);
        long t = deviceLong(id, CL_DEVICE_TYPE);
        this.type = (t & CL_DEVICE_TYPE_GPU) != 0 ? Type.GPU
                : (t & CL_DEVICE_TYPE_ACCELERATOR) != 0 ? Type.ACCELERATOR
                : (t & CL_DEVICE_TYPE_CPU) != 0 ? Type.CPU : Type.OTHER;
        this.computeUnits = (int) deviceInt(id, CL_DEVICE_MAX_COMPUTE_UNITS);
        this.globalMemBytes = deviceLong(id, CL_DEVICE_GLOBAL_MEM_SIZE);
        this.maxAllocBytes = deviceLong(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
        this.localMemBytes = deviceLong(id, CL_DEVICE_LOCAL_MEM_SIZE);
        this.maxWorkGroupSize = (int) deviceSize(id, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    }

    /**
     * Every OpenCL device of every platform, GPUs first, then accelerators, then CPUs; empty (never an
     * exception) when no OpenCL library or platform can be loaded. Loads JOCL's native library and the
     * OpenCL ICD loader, so call it only when an OpenCL backend is asked for or probed. PoCL's devices are
     * left out, without asking PoCL for them, while {@link JvmSignals#openClUnsafeReason()} says this JVM
     * would not survive PoCL (no {@code libjsig.so} preloaded, so PoCL's LLVM would replace the JVM's signal handlers).
     */
    public static List<ClDevice> list() {
        List<ClDevice> all = new ArrayList<>();
        try {
            CL.setExceptionsEnabled(true);
            int[] count = new int[1];
            clGetPlatformIDs(0, null, count);
            cl_platform_id[] platforms = new cl_platform_id[count[0]];
            clGetPlatformIDs(platforms.length, platforms, null);
            boolean poclUnsafe = JvmSignals.openClUnsafeReason() != null;
            for (cl_platform_id p : platforms) {
                if (poclUnsafe && isPocl(p)) {
                    continue;
                }
                int[] n = new int[1];
                try {
                    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, null, n);
                } catch (RuntimeException noDevice) {
                    continue;
                }
                cl_device_id[] ids = new cl_device_id[n[0]];
                clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, ids.length, ids, null);
                for (cl_device_id d : ids) {
                    all.add(new ClDevice(p, d));
                }
            }
        } catch (Throwable noOpenCl) {
            return List.of();
        }
        all.sort(Comparator.comparing(ClDevice::type));
        return List.copyOf(all);
    }

    private static boolean isPocl(cl_platform_id p) {
        String id = (platformString(p, CL_PLATFORM_NAME) + " " + platformString(p, CL_PLATFORM_VENDOR)).toLowerCase(java.util.Locale.ROOT);
        return id.contains("portable computing language") || id.contains("pocl");
    }

    /** {@code CL_DEVICE_NAME}. */
    public String name() {
        return name;
    }

    /** {@code CL_DEVICE_VENDOR}. */
    public String vendor() {
        return vendor;
    }

    /** {@code CL_PLATFORM_NAME}. */
    public String platformName() {
        return platformName;
    }

    /** {@code CL_DEVICE_DRIVER_VERSION}. */
    public String driverVersion() {
        return driverVersion;
    }

    /** GPU, accelerator, CPU. */
    public Type type() {
        return type;
    }

    /** {@code CL_DEVICE_GLOBAL_MEM_SIZE} in bytes. */
    public long globalMemBytes() {
        return globalMemBytes;
    }

    /** {@code CL_DEVICE_MAX_MEM_ALLOC_SIZE}: the largest single buffer, in bytes. */
    public long maxAllocBytes() {
        return maxAllocBytes;
    }

    /** {@code CL_DEVICE_LOCAL_MEM_SIZE} in bytes. */
    public long localMemBytes() {
        return localMemBytes;
    }

    /** {@code CL_DEVICE_MAX_WORK_GROUP_SIZE}. */
    public int maxWorkGroupSize() {
        return maxWorkGroupSize;
    }

    /** What {@link io.lobatto.core.backend.Backend#device()} reports. */
    public DeviceInfo info() {
        return new DeviceInfo(name, vendor.isEmpty() ? platformVendor : vendor, type.name(), computeUnits,
                globalMemBytes, platformName);
    }

    /** Name, platform and driver: what the program cache keys binaries by. */
    String cacheIdentity() {
        return name + "|" + vendor + "|" + platformName + "|" + driverVersion;
    }

    @Override
    public String toString() {
        return name + " (" + type + ", " + platformName + ", driver " + driverVersion + ")";
    }

    private static String deviceString(cl_device_id d, int param) {
        long[] size = new long[1];
        clGetDeviceInfo(d, param, 0, null, size);
        byte[] buffer = new byte[(int) size[0]];
        clGetDeviceInfo(d, param, buffer.length, Pointer.to(buffer), null);
        return cString(buffer);
    }

    private static String platformString(cl_platform_id p, int param) {
        long[] size = new long[1];
        clGetPlatformInfo(p, param, 0, null, size);
        byte[] buffer = new byte[(int) size[0]];
        clGetPlatformInfo(p, param, buffer.length, Pointer.to(buffer), null);
        return cString(buffer);
    }

    static String cString(byte[] bytes) {
        int n = 0;
        while (n < bytes.length && bytes[n] != 0) {
            n++;
        }
        return new String(bytes, 0, n, StandardCharsets.UTF_8).trim();
    }

    private static long deviceLong(cl_device_id d, int param) {
        long[] v = new long[1];
        clGetDeviceInfo(d, param, Sizeof.cl_ulong, Pointer.to(v), null);
        return v[0];
    }

    private static long deviceInt(cl_device_id d, int param) {
        int[] v = new int[1];
        clGetDeviceInfo(d, param, Sizeof.cl_uint, Pointer.to(v), null);
        return v[0];
    }

    private static long deviceSize(cl_device_id d, int param) {
        long[] v = new long[1];
        clGetDeviceInfo(d, param, Sizeof.size_t, Pointer.to(v), null);
        return v[0];
    }
}
