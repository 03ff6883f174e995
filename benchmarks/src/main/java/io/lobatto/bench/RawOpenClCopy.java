package io.lobatto.bench;

import static org.jocl.CL.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.jocl.CL;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_command_queue;
import org.jocl.cl_context;
import org.jocl.cl_device_id;
import org.jocl.cl_kernel;
import org.jocl.cl_mem;
import org.jocl.cl_platform_id;
import org.jocl.cl_program;

/**
 * The reference bandwidth: a hand-written OpenCL C copy kernel {@code b[i] = a[i]} launched through
 * JOCL (no Aparapi) on the OpenCL device whose name matches the backend's, timed like the suites
 * (wall clock around {@link #LAUNCHES_PER_SAMPLE} launches and one clFinish, divided, so the launch cost is a small part
 * of a large copy). Bandwidth counts read + write: 16 bytes per copied double. {@link Reference} takes the best of
 * several such copies.
 */
public final class RawOpenClCopy {

    private static final String SOURCE = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
            + "__kernel void copy(__global const double *a, __global double *b, const int n) {\n"
            + "  int i = get_global_id(0);\n  if (i < n) b[i] = a[i];\n}\n";

    /** Back-to-back launches per timed sample of {@link #measure}. */
    static final int LAUNCHES_PER_SAMPLE = 4;

    /**
     * A measured copy: device name, driver version, doubles copied, seconds per copy of each sample, their median and
     * its bandwidth (bytes/s).
     */
    public record Result(String device, String driver, long doubles, double[] samples, double medianSeconds, double bandwidth) {
    }

    private RawOpenClCopy() {
    }

    /**
     * Copies {@code doubles} doubles {@code reps} times on the first OpenCL device whose name contains
     * {@code deviceName} (any GPU when null). Returns null, with the reason on stderr, when there is no
     * OpenCL or no such device.
     */
    public static Result measure(String deviceName, long doubles, int reps) {
        try {
            Found f = find(deviceName);
            if (f == null) {
                return null;
            }
            cl_device_id device = f.device();
            String found = f.name();
            String driver = f.driver();
            cl_context ctx = f.context();
            @SuppressWarnings("deprecation")
            cl_command_queue q = clCreateCommandQueue(ctx, device, 0, null);
            cl_program prog = clCreateProgramWithSource(ctx, 1, new String[] {SOURCE}, null, null);
            clBuildProgram(prog, 0, null, null, null, null);
            cl_kernel k = clCreateKernel(prog, "copy", null);
            long bytes = doubles * Sizeof.cl_double;
            cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, null, null);
            cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, null, null);
            clSetKernelArg(k, 0, Sizeof.cl_mem, Pointer.to(a));
            clSetKernelArg(k, 1, Sizeof.cl_mem, Pointer.to(b));
            clSetKernelArg(k, 2, Sizeof.cl_int, Pointer.to(new int[] {(int) doubles}));
            long local = 256;
            long global = (doubles + local - 1) / local * local;
            for (int i = 0; i < 3; i++) {
                clEnqueueNDRangeKernel(q, k, 1, null, new long[] {global}, new long[] {local}, 0, null, null);
            }
            clFinish(q);
            double[] s = new double[reps];
            for (int r = 0; r < reps; r++) {
                long t0 = System.nanoTime();
                for (int i = 0; i < LAUNCHES_PER_SAMPLE; i++) {
                    clEnqueueNDRangeKernel(q, k, 1, null, new long[] {global}, new long[] {local}, 0, null, null);
                }
                clFinish(q);
                s[r] = (System.nanoTime() - t0) * 1e-9 / LAUNCHES_PER_SAMPLE;
            }
            clReleaseMemObject(a);
            clReleaseMemObject(b);
            clReleaseKernel(k);
            clReleaseProgram(prog);
            clReleaseCommandQueue(q);
            io.lobatto.backend.aparapi.runtime.ClContext.releaseContext(ctx);
            double median = new Timing.Samples(s).median();
            return new Result(found, driver, doubles, s, median, 16.0 * doubles / median);
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            System.err.println("raw OpenCL copy unavailable: " + e);
            return null;
        }
    }

    /** An OpenCL device found by name: its platform, id, name and "driver (OpenCL version)". */
    record Found(cl_platform_id platform, cl_device_id device, String name, String driver) {

        /** A new OpenCL context on this device alone (the caller releases it). */
        cl_context context() {
            return io.lobatto.backend.aparapi.runtime.ClContext.createContext(platform, device);
        }
    }

    /**
     * The first OpenCL device whose name contains {@code deviceName} (any GPU when null); null, with the
     * devices seen on stderr, when there is none.
     */
    static Found find(String deviceName) {
        CL.setExceptionsEnabled(true);
        int[] np = new int[1];
        clGetPlatformIDs(0, null, np);
        cl_platform_id[] platforms = new cl_platform_id[np[0]];
        clGetPlatformIDs(platforms.length, platforms, null);
        List<String> seen = new ArrayList<>();
        for (cl_platform_id p : platforms) {
            int[] nd = new int[1];
            clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, null, nd);
            cl_device_id[] ds = new cl_device_id[nd[0]];
            clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, ds.length, ds, null);
            for (cl_device_id d : ds) {
                String name = string(d, CL_DEVICE_NAME);
                seen.add(name);
                if (deviceName == null ? isGpu(d) : name.contains(deviceName)) {
                    return new Found(p, d, name, string(d, CL_DRIVER_VERSION) + " (" + string(d, CL_DEVICE_VERSION) + ")");
                }
            }
        }
        System.err.println("OpenCL: no device matching '" + deviceName + "' among " + seen);
        return null;
    }

    /** Plain Java array copy bandwidth (the CPU backend's reference), read + write. */
    public static Result javaCopy(long doubles, int reps) {
        double[] a = new double[(int) doubles];
        double[] b = new double[(int) doubles];
        java.util.Arrays.fill(a, 1.0);
        for (int i = 0; i < 3; i++) {
            System.arraycopy(a, 0, b, 0, a.length);
        }
        double[] s = new double[reps];
        for (int r = 0; r < reps; r++) {
            long t0 = System.nanoTime();
            System.arraycopy(a, 0, b, 0, a.length);
            s[r] = (System.nanoTime() - t0) * 1e-9;
        }
        double median = new Timing.Samples(s).median();
        return new Result(String.format(Locale.ROOT, "Java System.arraycopy (%s)", System.getProperty("java.vm.name")),
                System.getProperty("java.version"), doubles, s, median, 16.0 * doubles / median);
    }

    private static boolean isGpu(cl_device_id d) {
        long[] type = new long[1];
        clGetDeviceInfo(d, CL_DEVICE_TYPE, Sizeof.cl_long, Pointer.to(type), null);
        return (type[0] & CL_DEVICE_TYPE_GPU) != 0;
    }

    private static String string(cl_device_id d, int param) {
        long[] size = new long[1];
        clGetDeviceInfo(d, param, 0, null, size);
        byte[] buf = new byte[(int) size[0]];
        clGetDeviceInfo(d, param, buf.length, Pointer.to(buf), null);
        return new String(buf, 0, Math.max(0, buf.length - 1)).trim();
    }
}
