package io.lobatto.bench;

import static org.jocl.CL.*;

import java.util.ArrayList;
import java.util.List;

import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_context;
import org.jocl.cl_device_id;
import org.jocl.cl_kernel;
import org.jocl.cl_program;

/**
 * Builds an OpenCL C program with the vendor's compiler options (e.g. NVIDIA's {@code -cl-nv-verbose},
 * which makes the build log list each kernel's registers and spill stores) and reports the build log
 * and, for each kernel, the work-group size limit, private and local memory that the driver reports.
 * Used on the device program Aparapi generates, to see what one kernel holding every operation costs.
 */
final class OpenClBuildReport {

    private OpenClBuildReport() {
    }

    /** The report lines, or a single line saying why there is none. */
    static List<String> build(String deviceName, String source, String options, java.nio.file.Path binaryOut) {
        List<String> out = new ArrayList<>();
        RawOpenClCopy.Found f = RawOpenClCopy.find(deviceName);
        if (f == null) {
            out.add("no OpenCL device matching " + deviceName);
            return out;
        }
        out.add("device: " + f.name() + ", driver " + f.driver() + ", options '" + options + "'");
        cl_device_id[] devices = {f.device()};
        cl_context ctx = f.context();
        cl_program prog = clCreateProgramWithSource(ctx, 1, new String[] {source}, null, null);
        try {
            try {
                clBuildProgram(prog, 1, devices, options, null, null);
            } catch (RuntimeException e) {
                out.add("build failed: " + e.getMessage());
            }
            out.add("build log:");
            out.add(buildLog(prog, f.device()));
            if (binaryOut != null) {
                java.nio.file.Files.write(binaryOut, io.lobatto.backend.aparapi.runtime.ProgramCache.binary(prog));
                out.add("program binary (PTX on NVIDIA) written to " + binaryOut);
            }
            int[] nk = new int[1];
            clCreateKernelsInProgram(prog, 0, null, nk);
            cl_kernel[] ks = new cl_kernel[nk[0]];
            clCreateKernelsInProgram(prog, ks.length, ks, null);
            for (cl_kernel k : ks) {
                long[] v = new long[1];
                byte[] name = new byte[256];
                long[] len = new long[1];
                clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, name.length, Pointer.to(name), len);
                StringBuilder sb = new StringBuilder("kernel " + new String(name, 0, (int) Math.max(0, len[0] - 1)) + ":");
                clGetKernelWorkGroupInfo(k, f.device(), CL_KERNEL_WORK_GROUP_SIZE, Sizeof.size_t, Pointer.to(v), null);
                sb.append(" work-group size ").append(v[0]);
                clGetKernelWorkGroupInfo(k, f.device(), CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, Sizeof.size_t, Pointer.to(v), null);
                sb.append(", multiple ").append(v[0]);
                clGetKernelWorkGroupInfo(k, f.device(), CL_KERNEL_PRIVATE_MEM_SIZE, Sizeof.cl_ulong, Pointer.to(v), null);
                sb.append(", private ").append(v[0]).append(" B");
                clGetKernelWorkGroupInfo(k, f.device(), CL_KERNEL_LOCAL_MEM_SIZE, Sizeof.cl_ulong, Pointer.to(v), null);
                sb.append(", local ").append(v[0]).append(" B");
                out.add(sb.toString());
                clReleaseKernel(k);
            }
        } catch (java.io.IOException e) {
            out.add("could not write the binary: " + e);
        } finally {
            clReleaseProgram(prog);
            io.lobatto.backend.aparapi.runtime.ClContext.releaseContext(ctx);
        }
        return out;
    }

    static String buildLog(cl_program prog, cl_device_id device) {
        long[] size = new long[1];
        clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, 0, null, size);
        byte[] log = new byte[(int) size[0]];
        clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, log.length, Pointer.to(log), null);
        return new String(log, 0, Math.max(0, log.length - 1)).strip();
    }
}
