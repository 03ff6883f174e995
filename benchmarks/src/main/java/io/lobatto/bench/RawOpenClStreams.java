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

    /**
     * Times the backend's own reduction kernel ({@code source}: the OpenCL C the backend built for dot or the CG update,
     * with its argument list and work-group {@code group}) launched through raw JOCL as {@link #measure} times its dot:
     * one launch plus the blocking read of its partials summed on the host, arguments set once. The time the backend
     * takes beyond this is its host path (Java, checks, the runtime); this beyond raw's dot is the kernel and its
     * arguments. {@code op}: {@link Op#NORM} (x = p, one vector), {@link Op#DOT} (x, p), null: the CG update (p, Ap, x, r).
     * The arguments are bound by name, for the general kernel ({@code ReductionKernel}: the unused ones to an 8-byte
     * buffer, its local tree two doubles per work-item) and for the dedicated ones ({@code DotKernel}: x, y;
     * {@code CgUpdateKernel}: p, ap, x, r; one double per work-item), as the backend binds them.
     */
    Timing.Samples measureKernel(io.lobatto.backend.aparapi.runtime.KernelSource source, int group, Op op, int n,
                                 int warmup, int reps) {
        boolean cg = op == null;
        long bytes = (long) n * Sizeof.cl_double;
        int groups = (int) Math.min(MAX_GROUPS, (n + group - 1L) / group);
        cl_kernel k = built.get(source.source());
        if (k == null) {
            cl_program prog = clCreateProgramWithSource(ctx, 1, new String[] {source.source()}, null, null);
            programs.add(prog);
            clBuildProgram(prog, 0, null, source.options(), null, null);
            k = clCreateKernel(prog, io.lobatto.backend.aparapi.runtime.KernelSource.ENTRY, null);
            built.put(source.source(), k);
        }
        cl_mem[] v = new cl_mem[4];
        cl_mem unused = null;
        cl_mem partials = null;
        try {
            for (int i = 0; i < v.length; i++) {
                v[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, null, null);
                clEnqueueFillBuffer(queue, v[i], Pointer.to(new double[] {1.0 / (i + 1)}), Sizeof.cl_double, 0, bytes, 0, null, null);
            }
            unused = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 8, null, null);
            partials = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 2L * groups * Sizeof.cl_double, null, null);
            clFinish(queue);
            java.util.List<io.lobatto.backend.aparapi.runtime.KernelSource.Arg> args = source.args();
            // the general kernel's tree holds the PCG update's two sums (it has d), a dedicated kernel's one
            long localBytes = (args.stream().anyMatch(a -> a.name().equals("d")) ? 16L : 8L) * group;
            for (int i = 0; i < args.size(); i++) {
                String name = args.get(i).name();
                cl_mem m = switch (name) {
                    case "x" -> cg ? v[2] : v[0];
                    case "p" -> cg || op == Op.NORM ? v[0] : v[1];
                    case "y" -> op == Op.NORM ? v[0] : v[1];      // DotKernel's y is the general kernel's p
                    case "ap" -> cg ? v[1] : unused;
                    case "r" -> cg ? v[3] : unused;
                    case "z", "d" -> unused;
                    case "partials" -> partials;
                    default -> null;
                };
                if (m != null) {
                    clSetKernelArg(k, i, Sizeof.cl_mem, Pointer.to(m));
                } else {
                    switch (name) {
                        case "n" -> clSetKernelArg(k, i, Sizeof.cl_int, Pointer.to(new int[] {n}));
                        case "skipLo", "skipHi", "passid" -> clSetKernelArg(k, i, Sizeof.cl_int, Pointer.to(new int[] {0}));
                        case "alpha" -> clSetKernelArg(k, i, Sizeof.cl_double, Pointer.to(new double[] {cg ? 1e-9 : 0}));
                        case "lds" -> clSetKernelArg(k, i, localBytes, null);
                        default -> throw new IllegalArgumentException("kernel '" + source.label() + "': argument '" + name
                                + "' is not one of the reduction kernel's");
                    }
                }
            }
            long[] global = {(long) groups * group};
            long[] local = {group};
            double[] host = new double[groups];
            double[] sink = new double[1];
            cl_kernel kk = k;
            cl_mem pp = partials;
            return Timing.measure(warmup, reps, 1, i -> {
                clEnqueueNDRangeKernel(queue, kk, 1, null, global, local, 0, null, null);
                clEnqueueReadBuffer(queue, pp, CL_TRUE, 0, (long) groups * Sizeof.cl_double, Pointer.to(host), 0, null, null);
                double s = 0;
                for (double h : host) {
                    s += h;
                }
                sink[0] += s;
            }, () -> clFinish(queue));
        } finally {
            for (cl_mem m : v) {
                if (m != null) {
                    clReleaseMemObject(m);
                }
            }
            if (unused != null) {
                clReleaseMemObject(unused);
            }
            if (partials != null) {
                clReleaseMemObject(partials);
            }
        }
    }

    /** The backend's kernels built here ({@link #measureKernel}), by source text, and their programs. */
    private final java.util.Map<String, cl_kernel> built = new java.util.HashMap<>();
    private final java.util.List<cl_program> programs = new java.util.ArrayList<>();

    @Override
    public void close() {
        clReleaseKernel(copy);
        clReleaseKernel(axpby);
        clReleaseKernel(dot);
        clReleaseProgram(program);
        built.values().forEach(org.jocl.CL::clReleaseKernel);
        programs.forEach(org.jocl.CL::clReleaseProgram);
        clReleaseCommandQueue(queue);
        io.lobatto.backend.aparapi.runtime.ClContext.releaseContext(ctx);
    }
}
