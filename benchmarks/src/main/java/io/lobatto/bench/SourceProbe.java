package io.lobatto.bench;

import io.lobatto.backend.aparapi.KernelBuilds;
import io.lobatto.backend.aparapi.runtime.KernelSource;
import io.lobatto.backend.aparapi.runtime.ProgramCache;
import io.lobatto.core.backend.ElementKernel;
import org.jocl.CL;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_command_queue;
import org.jocl.cl_context;
import org.jocl.cl_device_id;
import org.jocl.cl_kernel;
import org.jocl.cl_mem;
import org.jocl.cl_program;
import org.jocl.cl_queue_properties;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.jocl.CL.*;

/**
 * One BP3.5 element kernel in several source variants, each built with raw OpenCL and timed alone (no gather, no
 * scatter), in alternated rounds within one process: registers and spills from the build log ({@code -cl-nv-verbose} on
 * NVIDIA), the PTX, and the best and median microseconds per launch over E elements of about {@code dofs} DOFs, with y
 * checked against the first variant's. A variant is a '+'-joined list of: {@code base} (the backend's source as it
 * stands, its unroll table included); {@code uN} (the loops over m under {@code #pragma unroll N}, the backend's own
 * {@code -Dlobatto.aparapi.contractionUnroll=N} source; {@code ucompiler} the compiler's choice, {@code utable} the
 * table's); {@code static} (the local memory as a kernel-scope array instead of the {@code __local} argument);
 * {@code nc} (the read-only buffers {@code const restrict}, for the read-only data path); bounds that give wrong y on
 * purpose: {@code nofactors} (the geometric factors from their index, no loads), {@code nou} (u from its index and the
 * ids the identity, no loads), {@code nobar} (no local barriers). Every buffer holds
 * pseudo-random values (the vertices too: the Jacobians mean nothing, the arithmetic is the same) and the ids are the
 * identity (no masked node; x_G read in order). A variant tells what a source change could give before the backend
 * carries it; only {@code op} and {@code bp} say what it gives the operator.
 */
final class SourceProbe {

    private SourceProbe() {
    }

    /** One kernel to vary: its name, degree, factors (stored or on the fly) and input mode. */
    private record Base(String name, int degree, boolean onTheFly, int mode) {
    }

    /** A build of a {@link Base}: its source, its group, elements per group, local bytes and P^3. */
    private record Built(KernelSource source, int group, int perGroup, long localBytes, int p3) {
    }

    private static final Pattern REGISTERS = Pattern.compile("Used (\\d+) registers");
    private static final Pattern SPILLS = Pattern.compile("(\\d+) bytes spill stores");

    static int run(String deviceName, List<Integer> stored, List<Integer> onTheFly, List<String> variants, int mode, long dofs,
                   int reps, int rounds, Path out, PrintStream log) throws IOException {
        RawOpenClCopy.Found f = RawOpenClCopy.find(deviceName);
        if (f == null) {
            log.println("source-probe: no OpenCL " + (deviceName == null ? "GPU" : "device matching " + deviceName));
            return 2;
        }
        Files.createDirectories(out);
        boolean nvidia = f.name().contains("NVIDIA");
        log.println("device: " + f.name() + ", driver " + f.driver() + "; mode " + mode + ", " + dofs + " DOFs, " + reps
                + " launches x " + rounds + " rounds");
        cl_context ctx = f.context();
        cl_command_queue q = null;
        try {
            q = clCreateCommandQueueWithProperties(ctx, f.device(), new cl_queue_properties(), null);
            List<Base> bases = new ArrayList<>();
            stored.forEach(n -> bases.add(new Base("stored-N" + n, n, false, mode)));
            onTheFly.forEach(n -> bases.add(new Base("onthefly-N" + n, n, true, mode)));
            for (Base base : bases) {
                probe(ctx, q, f, nvidia, base, variants, dofs, reps, rounds, out, log);
            }
        } finally {
            if (q != null) {
                clReleaseCommandQueue(q);
            }
            io.lobatto.backend.aparapi.runtime.ClContext.releaseContext(ctx);
        }
        return 0;
    }

    private static void probe(cl_context ctx, cl_command_queue q, RawOpenClCopy.Found f, boolean nvidia, Base base,
                              List<String> variants, long dofs, int reps, int rounds, Path out, PrintStream log)
            throws IOException {
        Built first = build(base, "table", f.name());
        int n1 = base.degree;
        int elems = (int) Math.max(first.perGroup, dofs / ((long) n1 * n1 * n1));
        elems -= elems % first.perGroup;
        long n = (long) elems * first.p3;
        long doubles = Math.max(n, 24L * elems);      // the on-the-fly kernels' vertices: 24 per element
        Map<String, cl_mem> buffers = new HashMap<>();
        double[] fill = new double[Math.toIntExact(doubles)];
        Random r = new Random(1);
        for (int i = 0; i < fill.length; i++) {
            fill[i] = 0.5 + r.nextDouble();
        }
        int[] ids = new int[fill.length];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = i;
        }
        List<String> names = new ArrayList<>();
        List<cl_kernel> kernels = new ArrayList<>();
        List<cl_program> programs = new ArrayList<>();
        List<String> info = new ArrayList<>();
        Built built = first;
        try {
            for (String v : variants) {
                String unroll = "table";
                for (String part : v.split("\\+")) {
                    if (part.startsWith("u")) {
                        unroll = part.substring(1);
                    }
                }
                built = build(base, unroll, f.name());
                String src = transform(built.source.source(), v, built.localBytes);
                long local = v.contains("static") ? 8 : built.localBytes;
                cl_program prog = clCreateProgramWithSource(ctx, 1, new String[] {src}, null, null);
                programs.add(prog);
                try {
                    clBuildProgram(prog, 1, new cl_device_id[] {f.device()}, nvidia ? "-cl-nv-verbose" : "-w", null, null);
                } catch (RuntimeException e) {
                    log.println(base.name + " " + v + ": the build failed: " + OpenClBuildReport.buildLog(prog, f.device()));
                    continue;
                }
                String buildLog = OpenClBuildReport.buildLog(prog, f.device());
                byte[] binary = ProgramCache.binary(prog);
                Files.writeString(out.resolve(base.name + "-" + v + ".cl"), src);
                Files.write(out.resolve(base.name + "-" + v + (nvidia ? ".ptx" : ".bin")), binary);
                info.add(String.format(Locale.ROOT, "registers %3s spills %3s", first(REGISTERS, buildLog), first(SPILLS, buildLog)));
                cl_kernel k = clCreateKernel(prog, KernelSource.ENTRY, null);
                kernels.add(k);
                names.add(v);
                List<KernelSource.Arg> args = built.source.args();
                for (int i = 0; i < args.size(); i++) {
                    KernelSource.Arg arg = args.get(i);
                    switch (arg.kind()) {
                        case GLOBAL_BUFFER -> {
                            cl_mem mem = buffers.computeIfAbsent(arg.name(), nm -> nm.equals("ids")
                                    ? clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4L * n, Pointer.to(ids), null)
                                    : clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 8L * doubles, Pointer.to(fill), null));
                            clSetKernelArg(k, i, Sizeof.cl_mem, Pointer.to(mem));
                        }
                        case LOCAL_BUFFER -> clSetKernelArg(k, i, local, null);
                        case INT -> clSetKernelArg(k, i, Sizeof.cl_int, Pointer.to(new int[] {arg.name().equals("elems") ? elems : 0}));
                        case LONG -> clSetKernelArg(k, i, Sizeof.cl_long, Pointer.to(new long[] {0}));
                        case DOUBLE -> clSetKernelArg(k, i, Sizeof.cl_double, Pointer.to(new double[] {0}));
                        case FLOAT -> clSetKernelArg(k, i, Sizeof.cl_float, Pointer.to(new float[] {0}));
                    }
                }
            }
            long[] gws = {(long) (elems / built.perGroup) * built.group};
            long[] lws = {built.group};
            double[][] times = new double[kernels.size()][rounds];
            String[] checks = new String[kernels.size()];
            double[] zero = new double[Math.toIntExact(n)];
            double[] reference = null;
            cl_mem y = buffers.get("y");
            for (int round = 0; round < rounds; round++) {
                for (int j = 0; j < kernels.size(); j++) {
                    if (round == 0 && y != null) {
                        clEnqueueWriteBuffer(q, y, CL_TRUE, 0, 8L * n, Pointer.to(zero), 0, null, null);
                    }
                    for (int i = 0; i < 3; i++) {
                        clEnqueueNDRangeKernel(q, kernels.get(j), 1, null, gws, lws, 0, null, null);
                    }
                    clFinish(q);
                    long t0 = System.nanoTime();
                    for (int i = 0; i < reps; i++) {
                        clEnqueueNDRangeKernel(q, kernels.get(j), 1, null, gws, lws, 0, null, null);
                    }
                    clFinish(q);
                    times[j][round] = (System.nanoTime() - t0) / 1e3 / reps;
                    if (round == 0 && y != null) {
                        double[] got = new double[(int) Math.min(n, 1 << 20)];
                        clEnqueueReadBuffer(q, y, CL_TRUE, 0, 8L * got.length, Pointer.to(got), 0, null, null);
                        if (reference == null) {
                            reference = got;
                            checks[j] = "reference";
                        } else {
                            double d = 0;
                            double s = 0;
                            for (int i = 0; i < got.length; i++) {
                                d = Math.max(d, Math.abs(got[i] - reference[i]));
                                s = Math.max(s, Math.abs(reference[i]));
                            }
                            checks[j] = String.format(Locale.ROOT, "y within %.1e of %.1e", d, s);
                        }
                    }
                }
            }
            for (int j = 0; j < kernels.size(); j++) {
                double[] t = times[j].clone();
                Arrays.sort(t);
                log.printf(Locale.ROOT, "%-12s %-18s %s  best %8.1f us  median %8.1f us  %6.2f G points/s  E %d  %s%n",
                        base.name, names.get(j), info.get(j), t[0], t[t.length / 2], n / t[0] / 1e3, elems, checks[j]);
            }
        } finally {
            kernels.forEach(CL::clReleaseKernel);
            programs.forEach(CL::clReleaseProgram);
            buffers.values().forEach(CL::clReleaseMemObject);
        }
    }

    /** The backend's build of {@code base} with its contraction loops at {@code unroll} (the property, set meanwhile). */
    private static Built build(Base base, String unroll, String device) {
        String key = "lobatto.aparapi.contractionUnroll";
        String before = System.getProperty(key);
        System.setProperty(key, unroll);
        try {
            if (!base.onTheFly) {
                KernelBuilds.Build b = KernelBuilds.elementKernels(ElementKernel.STIFFNESS_BP35, device, 1024, 49152, base.degree,
                        s -> 256).get(base.mode);
                String s = b.source().source();
                int p = define(s, "LB_PTS");
                // a group takes its elements per group times the elements per slot in turn (ElementPlan.sweep)
                int perGroup = define(s, "LB_ELEMS_PER_GROUP") * Math.max(1, defineOr(s, "LB_SWEEP", 0));
                return new Built(b.source(), b.groupSize(), perGroup, b.localBytes(), p * p * p);
            }
            // the label may name the elements per slot between the variant and the form
            for (KernelSource s : KernelInfoSources.generated(device, base.degree, "BP3.5")) {
                String label = s.label();
                boolean form = base.mode == 0 ? !label.contains("assembled") && !label.contains("one kernel")
                        : label.endsWith(", assembled)");
                if (label.contains("(factors on the fly, points") && form) {
                    String src = s.source();
                    int p = define(src, "LB_NQ");
                    int per = define(src, "LB_ELEMS_PER_GROUP");
                    long local = 8L * (define(src, "LB_LDS_MAT") + (long) p * define(src, "LB_D_STRIDE") + 2L * p);
                    return new Built(s, define(src, "LB_THREADS_PER_ELEM") * per, per * Math.max(1, defineOr(src, "LB_SWEEP", 0)),
                            local, p * p * p);
                }
            }
            throw new IllegalStateException("no BP3.5 N=" + base.degree + " points kernel with the factors on the fly (mode "
                    + base.mode + ") was built");
        } finally {
            if (before == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, before);
            }
        }
    }

    /** {@code source} with the variant's text edits ({@code static}, {@code nc}; the unrolling is the backend's). */
    static String transform(String source, String variant, long localBytes) {
        String s = source;
        for (String part : variant.split("\\+")) {
            if (part.equals("static")) {
                s = s.replace("this->lds = lds;", "__local double lds_s[" + (localBytes / 8) + "];\n   this->lds = lds_s;");
            } else if (part.equals("nc")) {
                for (String nm : List.of("G00", "G01", "G02", "G11", "G12", "G22", "wJ", "matD", "matI", "x", "w", "verts", "gll")) {
                    s = s.replaceAll("__global double \\*" + nm + "([;,])", "__global const double * restrict " + nm + "$1");
                }
                s = s.replaceAll("__global int \\*ids([;,])", "__global const int * restrict ids$1");
            } else if (part.equals("nofactors")) {
                for (String nm : List.of("G00", "G01", "G02", "G11", "G12", "G22", "wJ")) {
                    s = replaceReads(s, nm, idx -> "(0.5 + (double)((" + idx + ") & 7))");
                }
            } else if (part.equals("nou")) {
                s = replaceReads(s, "x", idx -> "(0.25 + (double)((" + idx + ") & 7))");
                s = replaceReads(s, "ids", idx -> "(" + idx + ")");
            } else if (part.equals("nobar")) {
                s = s.replace("barrier(CLK_LOCAL_MEM_FENCE);", "");
            } else if (!part.equals("base") && !part.startsWith("u")) {
                throw new IllegalArgumentException("source-probe: variant part '" + part + "' is not one of base, uN, ucompiler,"
                        + " static, nc, nofactors, nou, nobar");
            }
        }
        return s;
    }

    /**
     * {@code source} with every read {@code this->name[index]} (not a write: no {@code =} after it) replaced by
     * {@code value.apply(index)}: the bounds experiments' synthetic operands, which keep the arithmetic but not the loads.
     */
    static String replaceReads(String source, String name, java.util.function.UnaryOperator<String> value) {
        String open = "this->" + name + "[";
        StringBuilder out = new StringBuilder();
        int from = 0;
        for (int at = source.indexOf(open); at >= 0; at = source.indexOf(open, from)) {
            int depth = 1;
            int i = at + open.length();
            while (depth > 0) {
                char c = source.charAt(i++);
                depth += c == '[' ? 1 : c == ']' ? -1 : 0;
            }
            int next = i;
            while (next < source.length() && source.charAt(next) == ' ') {
                next++;
            }
            boolean write = next + 1 < source.length() && source.charAt(next) == '=' && source.charAt(next + 1) != '=';
            out.append(source, from, at);
            out.append(write ? source.substring(at, i) : value.apply(source.substring(at + open.length(), i - 1)));
            from = i;
        }
        return out.append(source.substring(from)).toString();
    }

    /** {@link #define}, or {@code fallback} where the kernel has no such constant (the register columns have no sweep). */
    private static int defineOr(String source, String name, int fallback) {
        return source.contains("#define " + name + " (") ? define(source, name) : fallback;
    }

    private static int define(String source, String name) {
        Matcher m = Pattern.compile("#define " + name + " \\((-?\\d+)\\)").matcher(source);
        if (!m.find()) {
            throw new IllegalStateException("source-probe: the kernel defines no " + name);
        }
        return Integer.parseInt(m.group(1));
    }

    private static String first(Pattern p, String text) {
        Matcher m = p.matcher(text);
        return m.find() ? m.group(1) : "?";
    }
}
