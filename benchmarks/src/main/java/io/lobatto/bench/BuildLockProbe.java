package io.lobatto.bench;

import static org.jocl.CL.CL_MEM_READ_WRITE;
import static org.jocl.CL.CL_TRUE;
import static org.jocl.CL.clBuildProgram;
import static org.jocl.CL.clCreateBuffer;
import static org.jocl.CL.clCreateCommandQueue;
import static org.jocl.CL.clCreateProgramWithSource;
import static org.jocl.CL.clEnqueueWriteBuffer;
import static org.jocl.CL.clReleaseCommandQueue;
import static org.jocl.CL.clReleaseContext;
import static org.jocl.CL.clReleaseMemObject;
import static org.jocl.CL.clReleaseProgram;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.jocl.Pointer;
import org.jocl.cl_command_queue;
import org.jocl.cl_context;
import org.jocl.cl_mem;
import org.jocl.cl_program;

/**
 * A diagnostic of the cold start (issue 25): do small blocking writes on one context's queue wait while other threads
 * build programs, and does building in a second context on the same device free them? For each mode it builds
 * {@code builds} distinct synthetic programs (a long unrolled chain, so that each takes a while to compile) on as many
 * threads, while the main thread writes 64 bytes to a buffer of the first context in a loop, and prints the builds'
 * span and the writes' count, median and largest latency. Modes: {@code none} (no builds: the writes' own latency),
 * {@code same} (the programs built in the writes' context), {@code other} (in a second context of the same device).
 * Run with the driver's cache off (CUDA_CACHE_DISABLE=1 on NVIDIA), or every build after the first is a cache hit.
 *
 * <p>Usage: {@code java -cp lobatto-bench.jar io.lobatto.bench.BuildLockProbe [builds] [statements] [device name part]}.
 */
public final class BuildLockProbe {

    private BuildLockProbe() {
    }

    public static void main(String[] args) throws Exception {
        int builds = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        int statements = args.length > 1 ? Integer.parseInt(args[1]) : 3000;
        RawOpenClCopy.Found found = RawOpenClCopy.find(args.length > 2 ? args[2] : null);
        if (found == null) {
            System.exit(2);
        }
        System.out.println("device: " + found.name() + ", " + found.driver() + "; builds " + builds + ", statements "
                + statements);
        cl_context a = found.context();
        cl_context b = found.context();
        @SuppressWarnings("deprecation")   // clCreateCommandQueue: the OpenCL 1.2 call, as ClContext makes its queue
        cl_command_queue q = clCreateCommandQueue(a, found.device(), 0, null);
        cl_mem buf = clCreateBuffer(a, CL_MEM_READ_WRITE, 64, null, null);
        int salt = (int) (System.nanoTime() & 0xffff);
        try {
            for (String mode : new String[] {"none", "same", "other", "same", "other"}) {
                probe(mode, mode.equals("other") ? b : a, found, q, buf, builds, statements, salt++);
            }
        } finally {
            clReleaseMemObject(buf);
            clReleaseCommandQueue(q);
            clReleaseContext(a);
            clReleaseContext(b);
        }
    }

    private static void probe(String mode, cl_context buildContext, RawOpenClCopy.Found found, cl_command_queue q,
                              cl_mem buf, int builds, int statements, int salt) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, builds));
        List<Future<long[]>> done = new ArrayList<>();
        long t0 = System.nanoTime();
        if (!mode.equals("none")) {
            for (int i = 0; i < builds; i++) {
                String src = source(statements, salt * 1000 + i);
                done.add(pool.submit(() -> {
                    long s = System.nanoTime();
                    cl_program p = clCreateProgramWithSource(buildContext, 1, new String[] {src}, null, null);
                    clBuildProgram(p, 1, new org.jocl.cl_device_id[] {found.device()}, "", null, null);
                    clReleaseProgram(p);
                    return new long[] {s, System.nanoTime()};
                }));
            }
        }
        double[] lat = new double[100000];
        int n = 0;
        double[] data = new double[8];
        long until = mode.equals("none") ? t0 + 500_000_000L : Long.MAX_VALUE;
        while (n < lat.length) {
            long s = System.nanoTime();
            clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, 64, Pointer.to(data), 0, null, null);
            lat[n++] = (System.nanoTime() - s) * 1e-6;
            if (System.nanoTime() > until || (!done.isEmpty() && done.stream().allMatch(Future::isDone))) {
                break;
            }
        }
        long end = t0;
        for (Future<long[]> f : done) {
            end = Math.max(end, f.get()[1]);
        }
        pool.shutdown();
        double[] l = Arrays.copyOf(lat, n);
        Arrays.sort(l);
        double sum = 0;
        for (double x : l) {
            sum += x;
        }
        System.out.printf(Locale.ROOT, "%-6s builds' span %7.3f s; writes %6d, median %8.3f ms, max %8.3f ms, in writes %7.3f s%n",
                mode, (end - t0) * 1e-9, n, l[n / 2], l[n - 1], sum * 1e-3);
    }

    /** A kernel of {@code statements} dependent multiply-adds (unrolled), distinct by {@code salt}. */
    private static String source(int statements, int salt) {
        StringBuilder sb = new StringBuilder();
        sb.append("__kernel void k(__global double *y, const double a) {\n  double x = y[get_global_id(0)] + ")
                .append(salt).append(".0;\n");
        for (int i = 0; i < statements; i++) {
            sb.append("  x = x * a + ").append(i % 7 + 1).append(".0 / (x + ").append(i % 5 + 2).append(".0);\n");
        }
        sb.append("  y[get_global_id(0)] = x;\n}\n");
        return sb.toString();
    }
}
