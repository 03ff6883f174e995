package io.lobatto.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;

/**
 * The streaming tests of the streaming paper: BS1 copy (16 bytes per entry), BS2 AXPY (24), BS3 norm (8),
 * BS4 dot (16), BS5 fused CG update (48: reads p, Ap, x, r, writes x, r) over sizes from about 1 KB per
 * vector up to {@code maxBytes} moved, each fitted with T(B) = T0 + B/Wmax over the sizes where that
 * model applies ({@link ModelFit#fitStreaming}); and BS6 gather (12 N_L + 12 N_G bytes) and BS7 scatter
 * (12 N_L + 8 N_G bytes) on K x K x K box meshes for N = 1..7 (or the degrees asked for), on the aparapi backend for
 * each kind of gather/scatter kernels asked for ({@link Options}). Every ratio is to the {@link Reference}: a copy is
 * measured after each test and after each kind of BS6/BS7, and the run rescales the ratios to the best copy.
 *
 * <p>Timed as streamParanumal times them: BS1 and BS2 return nothing, so a sample is many launches
 * followed by one {@link Backend#synchronize()}, divided by the count (what a backend that enqueues
 * without waiting costs per launch), and so are BS6 and BS7; BS3-BS5 return a scalar to the host, so a sample is one
 * call.
 * On an OpenCL device the same run times the raw-JOCL equivalents ({@link RawOpenClStreams}: copy,
 * axpby, and a dot standing for BS3 and BS4) the same way, and every row and fit carries the raw figure
 * and the ratio to it.
 */
public final class StreamingSuite {

    /** Largest working set of one test (all its vectors), bytes: 1 GiB. */
    static final long MAX_WORKING_SET = 1L << 30;
    /** Pipelined launches per sample of BS1/BS2: enough for about 10 ms, 10 to 1000. */
    static final double PIPELINE_TARGET_S = 10e-3;
    /**
     * Samples per size of BS3-BS5 (and of raw JOCL's dot beside them) at least: a sample is one call of 15-30 us at the
     * launch-bound sizes, where 6 samples let one slow call move the median and the fit's T0 by microseconds.
     */
    static final int PER_CALL_MIN_REPS = 25;
    /** Vectors of at most this many bytes each give the small-size median, a T0 that needs no fit: 64 KiB. */
    static final long SMALL_BYTES = 1L << 16;
    /** Warm-up of each operation before its sweep, seconds. */
    static final double WARM_UP_S = 0.5;

    private StreamingSuite() {
    }

    /**
     * What the bs suite runs: {@code tests} among BS1..BS7 (BS6 and BS7 together), the degrees of BS6/BS7, and the
     * aparapi backend's gather/scatter kinds to measure them with (empty: the backend's default kind only).
     */
    public record Options(java.util.Set<String> tests, List<Integer> gsDegrees, List<String> gsKinds) {

        /** Everything: BS1..BS7, N = 1..7, the default kind. */
        public static final Options ALL = new Options(java.util.Set.of("BS1", "BS2", "BS3", "BS4", "BS5", "BS6", "BS7"),
                List.of(1, 2, 3, 4, 5, 6, 7), List.of());

        /** Checked options: test names BS1..BS7 (any case), kinds blocks or rows; the errors name the value. */
        public static Options of(List<String> tests, List<Integer> gsDegrees, List<String> gsKinds) {
            java.util.Set<String> t = new java.util.LinkedHashSet<>();
            for (String name : tests) {
                String u = name.strip().toUpperCase(Locale.ROOT);
                if (!u.matches("BS[1-7]")) {
                    throw new IllegalArgumentException("--tests " + String.join(",", tests) + ": '" + name + "' is not one of BS1..BS7");
                }
                t.add(u);
            }
            List<String> k = new ArrayList<>();
            for (String kind : gsKinds) {
                String v = kind.strip().toLowerCase(Locale.ROOT);
                if (!v.equals("blocks") && !v.equals("rows") && !v.equals("tiles")) {
                    throw new IllegalArgumentException("--gs-kinds " + String.join(",", gsKinds) + ": '" + kind
                            + "' is not blocks, rows or tiles");
                }
                if (!k.contains(v)) {
                    k.add(v);
                }
            }
            return new Options(java.util.Set.copyOf(t), List.copyOf(gsDegrees), List.copyOf(k));
        }

        boolean gatherScatter() {
            return tests.contains("BS6") || tests.contains("BS7");
        }
    }

    private record Test(String name, int bytesPerEntry, int vectors, boolean pipelined, RawOpenClStreams.Op raw) {
    }

    private static final Test[] TESTS = {
        new Test("BS1 copy", 16, 2, true, RawOpenClStreams.Op.COPY),
        new Test("BS2 axpby", 24, 2, true, RawOpenClStreams.Op.AXPBY),
        new Test("BS3 norm", 8, 1, false, RawOpenClStreams.Op.NORM),
        new Test("BS4 dot", 16, 2, false, RawOpenClStreams.Op.DOT),
        new Test("BS5 cg-update", 48, 4, false, null),
    };

    /**
     * Runs the suite; every row carries its bandwidth over the reference's first copy (rescaled to the best by the run),
     * and a reference copy is measured after each test; {@code cacheBytes} is the last-level cache the fits step over.
     * Returns the fit of BS1 (check {@link ModelFit#ok()} before using it), null when BS1 was not run.
     */
    public static ModelFit run(Backend be, long maxBytes, int reps, long gsLocalNodes, long cacheBytes, Reference ref,
                               Report report, Options options) {
        var out = report.out();
        boolean aparapi = be instanceof io.lobatto.backend.aparapi.AparapiBackend;
        if (!options.gsKinds().isEmpty() && !aparapi) {
            throw new IllegalArgumentException("--gs-kinds " + String.join(",", options.gsKinds()) + " needs the aparapi backend, not "
                    + be.name());
        }
        double reference = ref.first();
        report.meta("tests", new ArrayList<>(new java.util.TreeSet<>(options.tests())));
        report.meta("fitCacheBytes", cacheBytes);
        report.meta("fitMinR2", ModelFit.MIN_R2);
        if (aparapi) {       // the A/B switch of BS3-BS5's kernels (dedicated or general), as the backend reads it
            report.meta("reductionKernels", System.getProperty("lobatto.aparapi.reductionKernels", "dedicated"));
        }
        RawOpenClStreams raw = null;
        if (be.device().platform().startsWith("Java")) {
            report.meta("raw", "none: the backend runs on no OpenCL device");
        } else {
            raw = RawOpenClStreams.open(be.device().name());
            report.meta("raw", raw == null ? "none: no OpenCL device named " + be.device().name() + " (see stderr)"
                    : "raw JOCL on " + raw.device());
        }
        ModelFit bs1 = null;
        try {
            out.printf(Locale.ROOT, "%-14s %12s %12s %8s %12s %10s %12s %9s%n", "test", "entries", "bytes", "launches",
                    "median[us]", "GB/s", "raw[us]", "t/raw");
            List<Test> chosen = java.util.Arrays.stream(TESTS).filter(t -> options.tests().contains(t.name().substring(0, 3))).toList();
            SweepProgress sweep = SweepProgress.start("bs", chosen.size());
            for (Test t : chosen) {
                sweep.next(t.name());
                ModelFit f = runTest(be, t, maxBytes, reps, cacheBytes, reference, raw, report);
                if (t.name().startsWith("BS1")) {
                    bs1 = f;
                }
                ref.measure("after " + t.name());
            }
        } finally {
            if (raw != null) {
                raw.close();
            }
        }
        if (options.gatherScatter()) {
            List<String> kinds = options.gsKinds().isEmpty() ? java.util.Collections.singletonList(null) : options.gsKinds();
            SweepProgress sweep = SweepProgress.start("bs", kinds.size());
            Map<Integer, ScatterOperator> built = new java.util.HashMap<>();
            for (String kind : kinds) {
                sweep.next("BS6/BS7 gather and scatter, N = " + options.gsDegrees() + (kind == null ? "" : ", " + kind + " kernels"));
                gatherScatter(be, reps, gsLocalNodes, options.gsDegrees(), kind, reference, report, built);
                ref.measure("after BS6/BS7" + (kind == null ? "" : " " + kind));
            }
        }
        return bs1;
    }

    private static ModelFit runTest(Backend be, Test t, long maxBytes, int reps, long cacheBytes, double reference,
                                    RawOpenClStreams raw, Report report) {
        var out = report.out();
        List<Double> bytes = new ArrayList<>();
        List<Double> working = new ArrayList<>();
        List<Double> secs = new ArrayList<>();
        List<Double> rawSecs = new ArrayList<>();
        List<Map<String, Object>> rows = new ArrayList<>();
        warmUp(be, t, raw);
        int samples = t.pipelined() ? reps : Math.max(reps, PER_CALL_MIN_REPS);
        List<Double> small = new ArrayList<>();
        List<Double> rawSmall = new ArrayList<>();
        List<Double> rawKernelSmall = new ArrayList<>();
        String ownKernel = null;
        for (long n = 128; n * t.bytesPerEntry() <= maxBytes && n * 8 * t.vectors() <= MAX_WORKING_SET; n *= 2) {
            int len = (int) n;
            Timing.Samples s;
            int launches = 1;
            try (DeviceVector a = be.allocate(len); DeviceVector b = be.allocate(len); DeviceVector c = be.allocate(len);
                 DeviceVector d = be.allocate(len)) {
                be.fill(a, 1);
                be.fill(b, 2);
                be.fill(c, 0.5);
                be.fill(d, 0.25);
                Runnable op = switch (t.name().substring(0, 3)) {
                    case "BS1" -> () -> be.copy(a, b);
                    case "BS2" -> () -> be.axpby(1e-3, a, 1.0, b);
                    case "BS3" -> () -> be.norm2(a);
                    case "BS4" -> () -> be.dot(a, b);
                    default -> () -> be.cgUpdate(1e-9, a, b, c, d);
                };
                if (t.pipelined()) {
                    Timing.Samples pilot = Timing.measure(be, 3, 1, 10, op);
                    launches = Math.max(10, Timing.innerFor(pilot.median(), PIPELINE_TARGET_S));
                }
                s = Timing.measure(be, 3, samples, launches, op);
            }
            double b = (double) t.bytesPerEntry() * n;
            bytes.add(b);
            working.add(8.0 * t.vectors() * n);
            secs.add(s.median());
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("test", t.name());
            row.put("entries", n);
            row.put("bytes", b);
            row.put("working_set_bytes", 8.0 * t.vectors() * n);
            row.put("timing", t.pipelined() ? "pipelined: launches per sample, one synchronize, divided" : "per call");
            row.put("launches_per_sample", launches);
            row.put("median_s", s.median());
            row.put("min_s", s.min());
            row.put("max_s", s.max());
            row.put("bandwidth_GBs", b / s.median() * 1e-9);
            row.put("ratio_to_reference", b / s.median() / reference);
            row.put("samples_s", s.seconds());
            double rawMedian = Double.NaN;
            if (raw != null && t.raw() != null) {
                Timing.Samples r = raw.measure(t.raw(), len, 3, samples, launches);
                rawMedian = r.median();
                if (8 * n <= SMALL_BYTES) {
                    rawSmall.add(rawMedian);
                }
                row.put("raw_median_s", rawMedian);
                row.put("raw_bandwidth_GBs", b / rawMedian * 1e-9);
                row.put("time_over_raw", s.median() / rawMedian);
                row.put("raw_samples_s", r.seconds());
                String k = rawKernel(be, t, raw, len, samples, row, 8 * n <= SMALL_BYTES ? rawKernelSmall : null);
                ownKernel = k != null ? k : ownKernel;
            } else {
                row.put("raw", raw == null ? report.meta("raw") : "none: no raw equivalent of " + t.name());
                if (raw != null) {
                    String k = rawKernel(be, t, raw, len, samples, row, 8 * n <= SMALL_BYTES ? rawKernelSmall : null);
                    ownKernel = k != null ? k : ownKernel;
                }
            }
            rawSecs.add(rawMedian);
            if (8 * n <= SMALL_BYTES) {
                small.add(s.median());
            }
            rows.add(row);
            report.row(row);
            out.printf(Locale.ROOT, "%-14s %12d %12.0f %8d %12.2f %10.2f %12.2f %9.2f%n", t.name(), n, b, launches,
                    s.median() * 1e6, b / s.median() * 1e-9, rawMedian * 1e6, s.median() / rawMedian);
        }
        double[] bx = toArray(bytes);
        double[] ws = toArray(working);
        ModelFit fit = ModelFit.fitStreaming(bx, ws, toArray(secs), cacheBytes);
        for (int i = 0; i < rows.size(); i++) {
            rows.get(i).put("in_fit", fit.used()[i]);
        }
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("test", t.name());
        row.put("fit", true);
        putFit(row, "", fit, reference);
        ModelFit all = ModelFit.fit(bx, toArray(secs));
        row.put("ols_all_sizes", Map.of("T0_us", all.t0Seconds() * 1e6, "Wmax_GBs", all.wmax() * 1e-9, "r2", all.r2()));
        String rawNote = "";
        if (!rawSecs.isEmpty() && !rawSecs.get(0).isNaN()) {
            ModelFit rf = ModelFit.fitStreaming(bx, ws, toArray(rawSecs), cacheBytes);
            putFit(row, "raw_", rf, reference);
            row.put("T0_over_raw", fit.t0Seconds() / rf.t0Seconds());
            row.put("Wmax_over_raw", fit.wmax() / rf.wmax());
            row.put("ratios_ok", fit.ok() && rf.ok());
            rawNote = rf.ok()
                    ? String.format(Locale.ROOT, "; raw JOCL: T0 = %.2f us, Wmax = %.1f GB/s; T0/raw %.2f, Wmax/raw %.3f",
                            rf.t0Seconds() * 1e6, rf.wmax() * 1e-9, fit.t0Seconds() / rf.t0Seconds(), fit.wmax() / rf.wmax())
                    : "; raw JOCL fit rejected (" + rf.problem() + ")";
        }
        double smallMedian = median(small);
        double rawSmallMedian = median(rawSmall);
        row.put("small_sizes_median_us", smallMedian * 1e6);
        row.put("small_sizes", small.size());
        if (!rawSmall.isEmpty()) {
            row.put("raw_small_sizes_median_us", rawSmallMedian * 1e6);
        }
        double rawKernelMedian = median(rawKernelSmall);
        if (!rawKernelSmall.isEmpty()) {
            row.put("raw_backend_kernel_small_sizes_median_us", rawKernelMedian * 1e6);
        }
        out.printf(Locale.ROOT, "%-14s median over the %d sizes of at most %d bytes per vector: %.2f us%s%s (%d samples per size)%n",
                t.name(), small.size(), SMALL_BYTES, smallMedian * 1e6,
                rawSmall.isEmpty() ? "" : String.format(Locale.ROOT, ", raw JOCL %.2f us", rawSmallMedian * 1e6),
                rawKernelSmall.isEmpty() ? "" : String.format(Locale.ROOT, ", the backend's kernel (%s) through raw JOCL %.2f us",
                        ownKernel, rawKernelMedian * 1e6), samples);
        report.row(row);
        if (fit.ok()) {
            out.printf(Locale.ROOT, "%-14s fit over %d sizes: T0 = %.2f us, Wmax = %.1f GB/s (%.3f of the reference), "
                    + "B0.8 = %.3g bytes (R^2 %.4f)%s%n", t.name(), fit.points(), fit.t0Seconds() * 1e6, fit.wmax() * 1e-9,
                    fit.wmax() / reference, fit.b08(), fit.r2(), rawNote);
        } else {
            out.printf(Locale.ROOT, "%-14s fit rejected, no T0/Wmax result: %s (over %d sizes)%n", t.name(), fit.problem(),
                    fit.points());
        }
        return fit;
    }

    /**
     * Runs the test's operation (backend and raw) at 4096 entries for {@link #WARM_UP_S} before its sweep: the
     * host code of a launch (backend, Aparapi, JOCL) is interpreted until the JIT compiles it, and three
     * warm-up calls per size do not cover that. Without it the first, launch-bound sizes of the first test
     * measure the compiler (the stored H100 BS1 run at 23a8a01: 60-82 us at 2-64 KB against 42-47 us at
     * 128 KB-2 MB, time falling as the bytes grow), which no T0 + B/Wmax fits.
     */
    private static void warmUp(Backend be, Test t, RawOpenClStreams raw) {
        int n = 4096;
        try (DeviceVector a = be.allocate(n); DeviceVector b = be.allocate(n); DeviceVector c = be.allocate(n);
             DeviceVector d = be.allocate(n)) {
            be.fill(a, 1);
            be.fill(b, 2);
            be.fill(c, 0.5);
            be.fill(d, 0.25);
            long end = System.nanoTime() + (long) (WARM_UP_S * 1e9);
            for (int i = 0; i < 100_000 && System.nanoTime() < end; i++) {
                switch (t.name().substring(0, 3)) {
                    case "BS1" -> be.copy(a, b);
                    case "BS2" -> be.axpby(1e-3, a, 1.0, b);
                    case "BS3" -> be.norm2(a);
                    case "BS4" -> be.dot(a, b);
                    default -> be.cgUpdate(1e-9, a, b, c, d);
                }
                if (i % 64 == 63) {
                    be.synchronize();
                }
            }
            be.synchronize();
        }
        if (raw != null && t.raw() != null) {
            long end = System.nanoTime() + (long) (WARM_UP_S * 1e9);
            while (System.nanoTime() < end) {
                raw.measure(t.raw(), n, 0, 1, 64);
            }
        }
    }

    /** The Java kernel class a source was translated from (its simple name), in the source's first comment. */
    private static final java.util.regex.Pattern KERNEL_CLASS = java.util.regex.Pattern.compile("translated from [\\w.]*?(\\w+) by");

    /**
     * At the launch-bound sizes ({@code into} not null) of BS3-BS5 on the aparapi backend: the backend's own reduction
     * kernel (the source it built for this size's group) timed through raw JOCL ({@link RawOpenClStreams#measureKernel}),
     * into the row and {@code into}; so the backend's time splits into its kernel (this, against raw's dot) and its host
     * path (the backend's time against this). Returns the kernel's class and its number of arguments, e.g.
     * "DotKernel, 6 arguments" ({@code -Dlobatto.aparapi.reductionKernels} picks it), or null when none was timed.
     */

    private static String rawKernel(Backend be, Test t, RawOpenClStreams raw, int n, int samples, Map<String, Object> row,
                                    List<Double> into) {
        if (into == null || t.pipelined() || !(be instanceof io.lobatto.backend.aparapi.AparapiBackend ab)) {
            return null;
        }
        boolean cg = t.name().startsWith("BS5");
        String label = cg ? "cgUpdate" : "dot";
        int group = ab.reductionGroupSize(n);
        String define = "#define LB_GROUP (" + group + ")";
        io.lobatto.backend.aparapi.runtime.KernelSource source = null;
        for (var k : ab.builtSources()) {
            if (k.label().equals(label) && k.source().contains(define)) {
                source = k;
            }
        }
        if (source == null) {
            row.put("raw_backend_kernel", "none: the backend built no '" + label + "' kernel of group " + group);
            return null;
        }
        Timing.Samples r = raw.measureKernel(source, group, t.raw(), n, 3, samples);
        java.util.regex.Matcher from = KERNEL_CLASS.matcher(source.source());
        String family = from.find() ? from.group(1) : "?";
        row.put("raw_backend_kernel_median_s", r.median());
        row.put("raw_backend_kernel_group", group);
        row.put("raw_backend_kernel_class", family);
        row.put("raw_backend_kernel_arguments", source.args().size());
        into.add(r.median());
        return family + ", " + source.args().size() + " arguments";
    }

    /** The median of the values (NaN for none). */
    static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        double[] v = toArray(values);
        java.util.Arrays.sort(v);
        int m = v.length / 2;
        return v.length % 2 == 1 ? v[m] : 0.5 * (v[m - 1] + v[m]);
    }

    private static void putFit(Map<String, Object> row, String prefix, ModelFit fit, double reference) {
        row.put(prefix + "fit_ok", fit.ok());
        if (!fit.ok()) {
            row.put(prefix + "fit_problem", fit.problem());
        }
        row.put(prefix + "r2", fit.r2());
        row.put(prefix + "fit_sizes", fit.points());
        row.put(prefix + "T0_us", fit.t0Seconds() * 1e6);
        row.put(prefix + "Wmax_GBs", fit.wmax() * 1e-9);
        row.put(prefix + "B08_bytes", fit.b08());
        row.put(prefix + "Wmax_over_reference", fit.wmax() / reference);
    }

    private static double[] toArray(List<Double> l) {
        return l.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /**
     * BS6 and BS7 at each degree of {@code degrees} on a box of about {@code localNodes} local nodes, pipelined as BS1
     * (launches per sample for about {@link #PIPELINE_TARGET_S}, one synchronize); on the aparapi backend with Z
     * uploaded under {@code kind} ({@code -Dlobatto.aparapi.gatherScatter}) unless it is null. Each row also checks its
     * operation on random vectors against the host's {@link ScatterOperator} bit for bit ({@code host_mismatches}; an
     * error line when any entry differs). {@code built} keeps the box's Z per degree for the next kind.
     */
    static void gatherScatter(Backend be, int reps, long localNodes, List<Integer> degrees, String kind, double reference,
                              Report report, Map<Integer, ScatterOperator> built) {
        var out = report.out();
        out.printf(Locale.ROOT, "%-11s %-7s %3s %4s %12s %12s %8s %12s %10s %8s %6s%n", "test", "kind", "N", "K", "N_L", "N_G",
                "launches", "median[us]", "GB/s", "ratio", "host");
        for (int n : degrees) {
            int np = (n + 1) * (n + 1) * (n + 1);
            int k = Math.max(1, (int) Math.round(Math.cbrt((double) localNodes / np)));
            ScatterOperator z = built.computeIfAbsent(n, d -> ScatterOperator.of(
                    SpectralElementMesh.of(HexMesh.box(k, k, k, 0, 1, 0, 1, 0, 1), d), null));
            try (DeviceScatter dz = upload(be, z, kind); DeviceVector xl = be.allocate(z.localSize());
                 DeviceVector xg = be.allocate(z.globalSize())) {
                be.fill(xl, 1);
                be.fill(xg, 1);
                double nl = z.localSize(), ng = z.globalSize();
                Runnable gather = () -> be.gather(dz, xl, xg);
                Runnable scatter = () -> be.scatter(dz, xg, xl);
                int gl = Math.max(10, Timing.innerFor(Timing.measure(be, 3, 1, 10, gather).median(), PIPELINE_TARGET_S));
                Timing.Samples g = Timing.measure(be, 3, reps, gl, gather);
                int sl = Math.max(10, Timing.innerFor(Timing.measure(be, 3, 1, 10, scatter).median(), PIPELINE_TARGET_S));
                Timing.Samples s = Timing.measure(be, 3, reps, sl, scatter);
                long[] mismatches = checkAgainstHost(be, z, dz);
                for (int t = 0; t < 2; t++) {
                    Timing.Samples ss = t == 0 ? g : s;
                    int launches = t == 0 ? gl : sl;
                    double bytes = t == 0 ? 12 * nl + 12 * ng : 12 * nl + 8 * ng;
                    String name = t == 0 ? "BS6 gather" : "BS7 scatter";
                    Map<String, Object> row = new LinkedHashMap<>();
                    row.put("test", name);
                    if (kind != null) {
                        row.put("kind", kind);
                    }
                    row.put("N", n);
                    row.put("K", k);
                    row.put("N_L", (long) nl);
                    row.put("N_G", (long) ng);
                    row.put("bytes", bytes);
                    row.put("timing", "pipelined: launches per sample, one synchronize, divided");
                    row.put("launches_per_sample", launches);
                    row.put("median_s", ss.median());
                    row.put("min_s", ss.min());
                    row.put("max_s", ss.max());
                    row.put("bandwidth_GBs", bytes / ss.median() * 1e-9);
                    row.put("ratio_to_reference", bytes / ss.median() / reference);
                    row.put("samples_s", ss.seconds());
                    row.put("host_check", "random x, bit for bit against the host ScatterOperator");
                    row.put("host_mismatches", mismatches[t]);
                    report.row(row);
                    out.printf(Locale.ROOT, "%-11s %-7s %3d %4d %12d %12d %8d %12.2f %10.2f %8.3f %6s%n", name, kind == null ? "-" : kind,
                            n, k, (long) nl, (long) ng, launches, ss.median() * 1e6, bytes / ss.median() * 1e-9,
                            bytes / ss.median() / reference, mismatches[t] == 0 ? "same" : "DIFF");
                    if (mismatches[t] != 0) {
                        out.printf(Locale.ROOT, "error: %s %s N = %d: %d of %d entries differ from the host's%n", name,
                                kind == null ? "" : kind, n, mismatches[t], t == 0 ? (long) ng : (long) nl);
                    }
                }
            }
        }
    }

    /** Z on {@code be}, uploaded with {@code -Dlobatto.aparapi.gatherScatter=kind} when {@code kind} is not null. */
    private static DeviceScatter upload(Backend be, ScatterOperator z, String kind) {
        String property = io.lobatto.backend.aparapi.AparapiBackend.GATHER_SCATTER_PROPERTY;
        String before = System.getProperty(property);
        if (kind != null) {
            System.setProperty(property, kind);
        }
        try {
            return be.uploadScatter(z.scatterIds(), z.gatherStarts(), z.gatherIds(), z.blockStarts(), z.inverseDegree(),
                    z.globalSize());
        } finally {
            if (before == null) {
                System.clearProperty(property);
            } else {
                System.setProperty(property, before);
            }
        }
    }

    /**
     * The gather and the scatter of {@code dz} on random x_L and x_G against the host's ({@link ScatterOperator#gather},
     * {@link ScatterOperator#scatter}, the same summation order): the entries whose bits differ, {gather, scatter}.
     */
    static long[] checkAgainstHost(Backend be, ScatterOperator z, DeviceScatter dz) {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(26);
        double[] xl = new double[z.localSize()];
        double[] xg = new double[z.globalSize()];
        for (int i = 0; i < xl.length; i++) {
            xl[i] = rnd.nextDouble(-1, 1);
        }
        for (int i = 0; i < xg.length; i++) {
            xg[i] = rnd.nextDouble(-1, 1);
        }
        double[] wantG = new double[xg.length];
        double[] wantL = new double[xl.length];
        z.gather(xl, wantG);
        z.scatter(xg, wantL);
        double[] gotG;
        double[] gotL;
        try (DeviceVector dl = be.upload(xl); DeviceVector dg = be.upload(xg); DeviceVector yl = be.allocate(xl.length);
             DeviceVector yg = be.allocate(xg.length)) {
            be.gather(dz, dl, yg);
            be.scatter(dz, dg, yl);
            gotG = be.download(yg);
            gotL = be.download(yl);
        }
        return new long[] {differ(wantG, gotG), differ(wantL, gotL)};
    }

    private static long differ(double[] a, double[] b) {
        long d = 0;
        for (int i = 0; i < a.length; i++) {
            if (Double.doubleToRawLongBits(a[i]) != Double.doubleToRawLongBits(b[i])) {
                d++;
            }
        }
        return d;
    }
}
