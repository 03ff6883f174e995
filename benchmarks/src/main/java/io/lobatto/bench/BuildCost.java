package io.lobatto.bench;

import static org.jocl.CL.CL_PROGRAM_BINARIES;
import static org.jocl.CL.CL_PROGRAM_BINARY_SIZES;
import static org.jocl.CL.clBuildProgram;
import static org.jocl.CL.clCreateProgramWithBinary;
import static org.jocl.CL.clCreateProgramWithSource;
import static org.jocl.CL.clGetProgramInfo;
import static org.jocl.CL.clReleaseProgram;

import io.lobatto.backend.aparapi.runtime.KernelSource;
import io.lobatto.backend.aparapi.runtime.ProgramBundle;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_context;
import org.jocl.cl_device_id;
import org.jocl.cl_program;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * What compiling a job's kernels costs on one OpenCL device, and how it depends on how they are grouped into programs:
 * the sources (the {@code .cl} files {@code -Dlobatto.opencl.sourceDir} writes) built as one program each on 1, 4 and 8
 * threads, as {@link ProgramBundle}s (all in one, or in a few bundles on as many threads), and again from the binaries the
 * one-program-each build returned (on NVIDIA PTX, so that part is the PTX-to-machine-code step alone). Every build gets a
 * source of its own (a distinct {@code #define} in front), so no driver cache can serve one build from another; run it
 * with the driver's own cache off ({@code CUDA_CACHE_DISABLE=1} on NVIDIA).
 */
final class BuildCost {

    private BuildCost() {
    }

    private record Part(String label, String source) {
    }

    private static final AtomicInteger TAG = new AtomicInteger();
    /** The build options of every build. */
    private static volatile String options = "";

    /** Runs the comparisons on the sources in {@code dir} and prints a line per configuration. */
    static int run(Path dir, String deviceName, String options, int[] threadCounts, int[] bundleCounts, boolean binaries,
                   PrintStream out) throws Exception {
        List<Part> parts = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".cl")).sorted().toList()) {
                parts.add(new Part(p.getFileName().toString(), Files.readString(p)));
            }
        }
        if (parts.isEmpty()) {
            out.println("build-cost: no .cl files in " + dir);
            return 2;
        }
        RawOpenClCopy.Found f = RawOpenClCopy.find(deviceName);
        if (f == null) {
            out.println("build-cost: no OpenCL device matching " + deviceName);
            return 2;
        }
        cl_context ctx = f.context();
        cl_device_id dev = f.device();
        long chars = parts.stream().mapToLong(p -> p.source().length()).sum();
        out.printf("build-cost: %d sources (%d characters) from %s on %s, driver %s, options '%s', CUDA_CACHE_DISABLE=%s%n",
                parts.size(), chars, dir, f.name(), f.driver(), options, System.getenv("CUDA_CACHE_DISABLE"));
        BuildCost.options = options;
        try {
            build(ctx, dev, tagged("__kernel void warm(__global double *a) { a[get_global_id(0)] = 1.0; }\n"));
            out.println("configuration                              programs threads   wall[ms]  summed[ms]");
            List<byte[]> bins = new ArrayList<>();
            long[] each = separate(ctx, dev, parts, 1, bins, out, "one program per kernel");
            for (int t : threadCounts) {
                if (t > 1) {
                    separate(ctx, dev, parts, t, null, out, "one program per kernel");
                }
            }
            if (parts.stream().allMatch(p -> p.source().contains("void run("))) {
                for (int b : bundleCounts) {
                    bundled(ctx, dev, parts, Math.min(b, parts.size()), out);
                }
            } else {
                out.println("(no bundles of these: some sources are bundles already)");
            }
            long[] fromBinary = binaries ? fromBinaries(ctx, dev, bins, out) : null;
            out.println("every build, slowest first, one program per kernel on 1 thread (from its binary: the PTX-to-machine-code"
                    + " step on NVIDIA):");
            out.println("   source[ms]  binary[ms]    chars  binary[bytes]  kernel");
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < parts.size(); i++) {
                order.add(i);
            }
            order.sort(Comparator.comparingLong((Integer i) -> -each[i]));
            for (int i : order) {
                out.printf("  %10.1f  %10s  %7d  %13d  %s%n", each[i] * 1e-6,
                        fromBinary == null ? "-" : String.format("%.1f", fromBinary[i] * 1e-6), parts.get(i).source().length(),
                        bins.isEmpty() ? 0 : bins.get(i).length, parts.get(i).label());
            }
        } finally {
            io.lobatto.backend.aparapi.runtime.ClContext.releaseContext(ctx);
        }
        return 0;
    }

    /** {@code source} with a distinct macro in front, so that it is a source no build has seen. */
    private static String tagged(String source) {
        return "#define LB_BUILD_COST_" + TAG.incrementAndGet() + " 1\n" + source;
    }

    /** Builds one program; returns its nanoseconds; puts its binary in {@code binary[0]} when asked. */
    private static long build(cl_context ctx, cl_device_id dev, String source, byte[]... binary) {
        long t0 = System.nanoTime();
        cl_program p = clCreateProgramWithSource(ctx, 1, new String[] {source}, new long[] {source.length()}, null);
        clBuildProgram(p, 1, new cl_device_id[] {dev}, options, null, null);
        long t = System.nanoTime() - t0;
        if (binary.length > 0) {
            long[] size = new long[1];
            clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, Sizeof.size_t, Pointer.to(size), null);
            byte[] b = new byte[(int) size[0]];
            clGetProgramInfo(p, CL_PROGRAM_BINARIES, Sizeof.POINTER, Pointer.to(new Pointer[] {Pointer.to(b)}), null);
            binary[0] = b;
        }
        clReleaseProgram(p);
        return t;
    }

    private static long[] separate(cl_context ctx, cl_device_id dev, List<Part> parts, int threads, List<byte[]> binaries,
                                   PrintStream out, String name) throws Exception {
        long[] each = new long[parts.size()];
        byte[][] bins = new byte[parts.size()][];
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long t0 = System.nanoTime();
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < parts.size(); i++) {
                int k = i;
                fs.add(pool.submit(() -> {
                    byte[][] b = new byte[1][];
                    each[k] = binaries != null ? build(ctx, dev, tagged(parts.get(k).source()), b)
                            : build(ctx, dev, tagged(parts.get(k).source()));
                    bins[k] = b[0];
                }));
            }
            for (Future<?> x : fs) {
                x.get();
            }
        } finally {
            pool.shutdown();
        }
        long wall = System.nanoTime() - t0;
        if (binaries != null) {
            binaries.addAll(List.of(bins));
        }
        long summed = 0;
        for (long e : each) {
            summed += e;
        }
        out.printf("%-42s %8d %7d %10.1f %11.1f%n", name, parts.size(), threads, wall * 1e-6, summed * 1e-6);
        return each;
    }

    private static void bundled(cl_context ctx, cl_device_id dev, List<Part> parts, int bundles, PrintStream out) throws Exception {
        // parts dealt to the bundles in turn, largest first, so that the bundles are about equal in characters
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.comparingInt((Integer i) -> -parts.get(i).source().length()));
        List<List<KernelSource>> groups = new ArrayList<>();
        long[] size = new long[bundles];
        for (int b = 0; b < bundles; b++) {
            groups.add(new ArrayList<>());
        }
        for (int i : order) {
            int smallest = 0;
            for (int b = 1; b < bundles; b++) {
                if (size[b] < size[smallest]) {
                    smallest = b;
                }
            }
            groups.get(smallest).add(new KernelSource(parts.get(i).label(), parts.get(i).source(), List.of()));
            size[smallest] += parts.get(i).source().length();
        }
        long[] each = new long[bundles];
        ExecutorService pool = Executors.newFixedThreadPool(bundles);
        long t0 = System.nanoTime();
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int b = 0; b < bundles; b++) {
                int k = b;
                fs.add(pool.submit(() -> {
                    each[k] = build(ctx, dev, tagged(ProgramBundle.of(groups.get(k)).source()));
                }));
            }
            for (Future<?> x : fs) {
                x.get();
            }
        } finally {
            pool.shutdown();
        }
        long wall = System.nanoTime() - t0;
        long summed = 0;
        for (long e : each) {
            summed += e;
        }
        out.printf("%-42s %8d %7d %10.1f %11.1f%n", "bundles of about " + parts.size() / bundles + " kernels", bundles, bundles,
                wall * 1e-6, summed * 1e-6);
    }

    /** Builds every binary again, one after the other; returns each build's nanoseconds. */
    private static long[] fromBinaries(cl_context ctx, cl_device_id dev, List<byte[]> binaries, PrintStream out) {
        long[] each = new long[binaries.size()];
        long t0 = System.nanoTime();
        for (int i = 0; i < binaries.size(); i++) {
            byte[] b = binaries.get(i);
            long t1 = System.nanoTime();
            int[] status = new int[1];
            cl_program p = clCreateProgramWithBinary(ctx, 1, new cl_device_id[] {dev}, new long[] {b.length}, new byte[][] {b},
                    status, null);
            clBuildProgram(p, 1, new cl_device_id[] {dev}, options, null, null);
            clReleaseProgram(p);
            each[i] = System.nanoTime() - t1;
        }
        long wall = System.nanoTime() - t0;
        out.printf("%-42s %8d %7d %10.1f %11.1f%n", "from the binaries above (PTX on NVIDIA)", binaries.size(), 1, wall * 1e-6,
                wall * 1e-6);
        return each;
    }
}
