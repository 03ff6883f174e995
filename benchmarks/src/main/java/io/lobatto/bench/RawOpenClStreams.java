package io.lobatto.bench;

import static org.jocl.CL.*;

import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_command_queue;
import org.jocl.cl_context;
import org.jocl.cl_kernel;
import org.jocl.cl_mem;
import org.jocl.cl_program;

/**
 * The measuring reference of the streaming suite: BS1 copy, BS2 axpby and a dot product written by
 * hand in OpenCL C and launched through JOCL (no Aparapi, no Lobatto backend) on the backend's OpenCL
 * device, timed as the suite times the backend: copy and axpby as {@code launches} enqueues, one
 * clFinish, divided; the dot per call, a launch plus the blocking read of its per-group partials summed
 * on the host. Not library code: it exists only to say how far the backend is from the same operation
 * done directly. One context and one in-order queue; {@link #close()} releases them.
 */
final class RawOpenClStreams implements AutoCloseable {

    private static final int GROUP = 256;
    private static final int MAX_GROUPS = 1024;
    private static final String SOURCE = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
            + "__kernel void bs1(const int n, __global const double *a, __global double *b) {\n"
            + "  int i = get_global_id(0);\n  if (i < n) b[i] = a[i];\n}\n"
            + "__kernel void bs2(const int n, const double alpha, __global const double *x, const double beta,"
            + " __global double *y) {\n"
            + "  int i = get_global_id(0);\n  if (i < n) y[i] = alpha * x[i] + beta * y[i];\n}\n"
            + "__kernel void partialdot(const int n, __global const double *x, __global const double *y,"
            + " __global double *partials) {\n"
            + "  __local double s[" + GROUP + "];\n"
            + "  int t = get_local_id(0);\n  double acc = 0;\n"
            + "  for (int i = get_global_id(0); i < n; i += get_global_size(0)) acc += x[i] * y[i];\n"
            + "  s[t] = acc;\n  barrier(CLK_LOCAL_MEM_FENCE);\n"
            + "  for (int k = " + GROUP / 2 + "; k > 0; k >>= 1) {\n"
            + "    if (t < k) s[t] += s[t + k];\n    barrier(CLK_LOCAL_MEM_FENCE);\n  }\n"
            + "  if (t == 0) partials[get_group_id(0)] = s[0];\n}\n";

    /** The raw operations, by the streaming test they stand for. */
    enum Op { COPY, AXPBY, NORM, DOT }

    private final String device;
    private final cl_context ctx;
    private final cl_command_queue queue;
    private final cl_program program;
    private final cl_kernel copy;
    private final cl_kernel axpby;
    private final cl_kernel dot;

    private RawOpenClStreams(RawOpenClCopy.Found f) {
        this.device = f.name();
        this.ctx = f.context();
        @SuppressWarnings("deprecation")
        cl_command_queue q = clCreateCommandQueue(ctx, f.device(), 0, null);
        this.queue = q;
        this.program = clCreateProgramWithSource(ctx, 1, new String[] {SOURCE}, null, null);
        clBuildProgram(program, 0, null, null, null, null);
        this.copy = clCreateKernel(program, "bs1", null);
        this.axpby = clCreateKernel(program, "bs2", null);
        this.dot = clCreateKernel(program, "partialdot", null);
    }

    /** The raw reference on the OpenCL device named {@code deviceName}; null with the reason on stderr when there is none. */
    static RawOpenClStreams open(String deviceName) {
        try {
            RawOpenClCopy.Found f = RawOpenClCopy.find(deviceName);
            return f == null ? null : new RawOpenClStreams(f);
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            System.err.println("raw OpenCL streams unavailable: " + e);
            return null;
        }
    }

    String device() {
        return device;
    }

    /**
     * Times {@code op} on vectors of {@code n} doubles: {@code reps} samples after {@code warmup} calls; a
     * sample of copy/axpby is {@code launches} pipelined enqueues and one clFinish, divided by
     * {@code launches}; a dot or norm sample is one launch plus the read of its partials.
     */
    Timing.Samples measure(Op op, int n, int warmup, int reps, int launches) {
        long bytes = (long) n * Sizeof.cl_double;
        cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, null, null);
        cl_mem b = op == Op.NORM ? a : clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, null, null);
        int groups = (int) Math.min(MAX_GROUPS, (n + GROUP - 1L) / GROUP);
        cl_mem partials = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (long) groups * Sizeof.cl_double, null, null);
        try {
            double[] one = {1.0};
            clEnqueueFillBuffer(queue, a, Pointer.to(one), Sizeof.cl_double, 0, bytes, 0, null, null);
            if (b != a) {
                clEnqueueFillBuffer(queue, b, Pointer.to(new double[] {0.5}), Sizeof.cl_double, 0, bytes, 0, null, null);
            }
            clFinish(queue);
            long[] local = {GROUP};
            long[] global;
            cl_kernel k;
            switch (op) {
                case COPY -> {
                    k = copy;
                    clSetKernelArg(k, 0, Sizeof.cl_int, Pointer.to(new int[] {n}));
                    clSetKernelArg(k, 1, Sizeof.cl_mem, Pointer.to(a));
                    clSetKernelArg(k, 2, Sizeof.cl_mem, Pointer.to(b));
                    global = new long[] {(n + GROUP - 1L) / GROUP * GROUP};
                }
                case AXPBY -> {
                    k = axpby;
                    clSetKernelArg(k, 0, Sizeof.cl_int, Pointer.to(new int[] {n}));
                    clSetKernelArg(k, 1, Sizeof.cl_double, Pointer.to(new double[] {1e-3}));
                    clSetKernelArg(k, 2, Sizeof.cl_mem, Pointer.to(a));
                    clSetKernelArg(k, 3, Sizeof.cl_double, Pointer.to(new double[] {1.0}));
                    clSetKernelArg(k, 4, Sizeof.cl_mem, Pointer.to(b));
                    global = new long[] {(n + GROUP - 1L) / GROUP * GROUP};
                }
                default -> {
                    k = dot;
                    clSetKernelArg(k, 0, Sizeof.cl_int, Pointer.to(new int[] {n}));
                    clSetKernelArg(k, 1, Sizeof.cl_mem, Pointer.to(a));
                    clSetKernelArg(k, 2, Sizeof.cl_mem, Pointer.to(b));
                    clSetKernelArg(k, 3, Sizeof.cl_mem, Pointer.to(partials));
                    global = new long[] {(long) groups * GROUP};
                }
            }
            double[] host = new double[groups];
            double[] sink = new double[1];
            boolean reduce = op == Op.NORM || op == Op.DOT;
            java.util.function.IntConsumer call = reduce
                    ? i -> {
                        clEnqueueNDRangeKernel(queue, k, 1, null, global, local, 0, null, null);
                        clEnqueueReadBuffer(queue, partials, CL_TRUE, 0, (long) groups * Sizeof.cl_double, Pointer.to(host), 0, null, null);
                        double s = 0;
                        for (double p : host) {
                            s += p;
                        }
                        sink[0] += s;
                    }
                    : i -> clEnqueueNDRangeKernel(queue, k, 1, null, global, local, 0, null, null);
            return Timing.measure(warmup, reps, reduce ? 1 : launches, call, () -> clFinish(queue));
        } finally {
            clReleaseMemObject(partials);
            if (b != a) {
                clReleaseMemObject(b);
            }
            clReleaseMemObject(a);
        }
    }

    @Override
    public void close() {
        clReleaseKernel(copy);
        clReleaseKernel(axpby);
        clReleaseKernel(dot);
        clReleaseProgram(program);
        clReleaseCommandQueue(queue);
        io.lobatto.backend.aparapi.runtime.ClContext.releaseContext(ctx);
    }
}
