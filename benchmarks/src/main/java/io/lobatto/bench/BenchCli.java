package io.lobatto.bench;

import io.lobatto.examples.CliErrors;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import io.lobatto.backend.aparapi.AparapiBackend;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.Backends;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code lobatto-bench}: the benchmark suites (bs, bk, bp, nekbone, op, all) on any backend, writing JSON
 * and CSV next to a terminal table, and {@code plot} to render PNG plots from the JSON. Every suite
 * measures the reference bandwidth first (a raw OpenCL C copy through JOCL on the backend's OpenCL
 * device, or a Java array copy for the CPU backend) and reports ratios to it.
 */
@Command(name = "lobatto-bench", mixinStandardHelpOptions = true, versionProvider = BenchCli.Version.class,
        description = "Lobatto benchmarks: BS1-BS7, BK1/BK3/BK5, BP solves, NekBone, operator apply, launch-cost attribution.",
        subcommands = {BenchCli.Bs.class, BenchCli.Bk.class, BenchCli.Bp.class, BenchCli.Nekbone.class, BenchCli.Op.class, BenchCli.All.class, BenchCli.Launch.class, BenchCli.Solve.class, BenchCli.BuildCostCommand.class, BenchCli.SourceProbeCommand.class,
            BenchCli.Plot.class, BenchCli.KernelInfo.class, CommandLine.HelpCommand.class})
public final class BenchCli implements Runnable {

    @Option(names = CliErrors.STACKTRACE_OPTION, scope = CommandLine.ScopeType.INHERIT,
            description = "on an error, print the stack trace too (so does LOBATTO_DEBUG=1)")
    boolean stacktrace;

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    /** The program's command line with its one-line error handling ({@code lobatto-bench: error: ...}, exit code 1). */
    public static CommandLine commandLine() {
        return CliErrors.install(new CommandLine(new BenchCli()), "lobatto-bench");
    }

    public static int run(String... args) {
        CommandLine cl = commandLine();
        try {
            return cl.execute(args);
        } catch (Error e) { // OutOfMemoryError and the like pass picocli's handlers
            return CliErrors.reportUncaught("lobatto-bench", e, cl.getErr(), args);
        }
    }

    public static void main(String[] args) {
        SweepProgress.installOnTerminal();
        // the suites measure optimised kernels: no quick-first builds unless asked for (the cold-start runbooks ask)
        if (System.getProperty(io.lobatto.backend.aparapi.runtime.ProgramCache.QUICK_FIRST_PROPERTY) == null) {
            System.setProperty(io.lobatto.backend.aparapi.runtime.ProgramCache.QUICK_FIRST_PROPERTY, "false");
        }
        System.exit(run(args));
    }

    /** {@code --version}: the project version from the jar (manifest, else Maven's pom.properties). */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = BenchCli.class.getPackage() == null ? null : BenchCli.class.getPackage().getImplementationVersion();
            if (v == null || v.isBlank()) {
                try (java.io.InputStream in = BenchCli.class.getResourceAsStream("/META-INF/maven/io.lobatto/lobatto-benchmarks/pom.properties")) {
                    if (in != null) {
                        java.util.Properties p = new java.util.Properties();
                        p.load(in);
                        v = p.getProperty("version");
                    }
                } catch (java.io.IOException ignored) {
                    // no version then
                }
            }
            return new String[] {"lobatto-bench " + (v == null || v.isBlank() ? "(version unknown: not run from a built jar)" : v)};
        }
    }

    /** The N range in help texts. */
    static final String DEGREE_RANGE = "1.." + io.lobatto.backend.aparapi.AparapiBackend.MAX_DEGREE + " on the aparapi backend, 1.."
            + io.lobatto.core.basis.Basis1D.MAX_DEGREE + " on the cpu backend";

    /** Options shared by the suites. */
    static final class Common {
        @Option(names = {"-b", "--backend"}, defaultValue = "best", description = "best, cpu or aparapi. Default: ${DEFAULT-VALUE}")
        String backend;
        @Option(names = {"-o", "--out"}, defaultValue = "bench-results", description = "output folder. Default: ${DEFAULT-VALUE}")
        Path out;
        @Option(names = "--commit", defaultValue = "unknown", description = "git commit recorded in the results")
        String commit;
        @Option(names = "--reps", defaultValue = "10", description = "timed repetitions per point. Default: ${DEFAULT-VALUE}")
        int reps;
        @Option(names = "--max-bytes", defaultValue = "268435456", description = "BS1-BS5: largest bytes moved. Default: ${DEFAULT-VALUE}")
        long maxBytes;
        @Option(names = "--cache-bytes", defaultValue = "67108864", description = "BS1-BS5: the last-level cache the "
                + "T0/Wmax fit steps over (sizes whose vectors fit twice in it and are not launch-bound are left out of the "
                + "fit; 0: none). Default: ${DEFAULT-VALUE} (above the 50 MB L2 of an H100/H200)")
        long cacheBytes;
        @Option(names = "--gs-nodes", defaultValue = "2000000", description = "BS6/BS7: local nodes of the meshes. Default: ${DEFAULT-VALUE}")
        long gsNodes;
        @Option(names = "--dofs", defaultValue = "2000000", description = "bk/bp/nekbone: DOFs per point. Default: ${DEFAULT-VALUE}")
        long dofs;
        @Option(names = "--n-min", defaultValue = "1", description = "smallest N (" + DEGREE_RANGE + "). Default: ${DEFAULT-VALUE}")
        int nMin;
        @Option(names = "--n-max", defaultValue = "15", description = "largest N (" + DEGREE_RANGE + "). Default: ${DEFAULT-VALUE}")
        int nMax;
        @Option(names = "--n-step", defaultValue = "1", description = "bp/nekbone: step between degrees. Default: ${DEFAULT-VALUE}")
        int nStep;
        @Option(names = "--time-limit", defaultValue = "0", description = "seconds after the JVM's start by which a sweep "
                + "stops starting points that would probably not end in time (the longest point so far); the JSON then says "
                + "\"cut\": true with the last completed row. 0: no limit. Default: ${DEFAULT-VALUE}")
        double timeLimit;
        @Option(names = "--iterations", defaultValue = "50", description = "bp: CG iterations. Default: ${DEFAULT-VALUE}")
        int iterations;
        @Option(names = "--tests", split = ",", defaultValue = "BS1,BS2,BS3,BS4,BS5,BS6,BS7", description = "bs: which "
                + "streaming tests (BS6 and BS7 are measured together). Default: ${DEFAULT-VALUE}")
        List<String> tests;
        @Option(names = "--gs-degrees", defaultValue = "1..7", description = "bs: the degrees N of BS6/BS7: one (7), a range (1..7) "
                + "or a list (1,3,7). Default: ${DEFAULT-VALUE}")
        String gsDegrees;
        @Option(names = "--gs-kinds", split = ",", description = "bs, aparapi backend: the kinds of gather/scatter kernels BS6/BS7 "
                + "measure, one row each: blocks, rows, tiles (-D" + io.lobatto.backend.aparapi.AparapiBackend.GATHER_SCATTER_PROPERTY
                + " per Z). Default: the backend's own")
        List<String> gsKinds;
        @Option(names = "--reference-bytes", defaultValue = "0", description = "bytes per vector of each reference copy; 0: "
                + "1 GiB on a GPU (at most a quarter of its memory), else min(--max-bytes / 16, 2^27) doubles. Default: ${DEFAULT-VALUE}")
        long referenceBytes;
        @Option(names = "--reference-copies", defaultValue = "5", description = "reference copies at least: one before the "
                + "suite, one between its parts (bs), more after it until there are this many; every ratio is against the best, "
                + "and a ratio above " + Reference.FLAG_ABOVE + " is flagged. Default: ${DEFAULT-VALUE}")
        int referenceCopies;

        Backend create() {
            check();
            Backend be = "best".equalsIgnoreCase(backend) ? Backends.best() : Backends.create(backend);
            int limit = be instanceof io.lobatto.backend.aparapi.AparapiBackend ? io.lobatto.backend.aparapi.AparapiBackend.MAX_DEGREE
                    : io.lobatto.core.basis.Basis1D.MAX_DEGREE;
            if (nMax > limit) {
                be.close();
                throw new IllegalArgumentException("--n-max " + nMax + " is above the " + be.name() + " backend's limit N <= " + limit
                        + ": use --n-max " + limit + " or less");
            }
            return be;
        }

        /** The bs suite's choices of tests, BS6/BS7 degrees and gather/scatter kinds, checked. */
        StreamingSuite.Options streaming() {
            return StreamingSuite.Options.of(tests, DegreeList.parse(gsDegrees, "--gs-degrees", io.lobatto.backend.aparapi.AparapiBackend.MAX_DEGREE),
                    gsKinds == null ? List.of() : gsKinds);
        }

        /** The options that need no backend, checked before any work. */
        void check() {
            if (nMin < 1 || nMin > nMax || nMax > io.lobatto.core.basis.Basis1D.MAX_DEGREE) {
                throw new IllegalArgumentException("--n-min " + nMin + " --n-max " + nMax + ": need 1 <= n-min <= n-max, N in " + DEGREE_RANGE);
            }
            if (nStep < 1 || reps < 1 || iterations < 1) {
                throw new IllegalArgumentException("--n-step, --reps and --iterations must be >= 1, got " + nStep + ", " + reps + " and " + iterations);
            }
            if (maxBytes < 1024 || dofs < 1 || gsNodes < 1 || cacheBytes < 0) {
                throw new IllegalArgumentException("--max-bytes must be >= 1024, --dofs and --gs-nodes >= 1, --cache-bytes >= 0");
            }
            if (referenceBytes != 0 && (referenceBytes < 8 || referenceBytes / 8 > Integer.MAX_VALUE - 8)) {
                throw new IllegalArgumentException("--reference-bytes " + referenceBytes + ": need 0 (automatic) or 8.."
                        + 8L * (Integer.MAX_VALUE - 8));
            }
            streaming();
            if (referenceCopies < 1 || referenceCopies > 100) {
                throw new IllegalArgumentException("--reference-copies " + referenceCopies + ": need 1..100");
            }
        }

        /**
         * The reference of a run with its first copy measured ("before"): raw OpenCL copies, else Java copies, of
         * {@link #referenceDoubles} doubles. {@link Reference#finish} completes it after the suite.
         */
        Reference reference(Backend be, Report report) {
            Reference ref = new Reference(be, referenceDoubles(be), reps, report.out());
            ref.measure("before");
            report.meta("referenceBandwidth_GBs", ref.first() * 1e-9);
            return ref;
        }

        /** Doubles per vector of a reference copy: --reference-bytes / 8, else 1 GiB on a GPU, else the old bound. */
        long referenceDoubles(Backend be) {
            if (referenceBytes > 0) {
                return referenceBytes / 8;
            }
            if (be.device().isGpu()) {
                long quarter = be.device().memoryBytes() / 4 / 8;
                return Math.max(1 << 16, Math.min(1L << 27, quarter));
            }
            return Math.max(1 << 16, Math.min(maxBytes / 16, 1L << 27));
        }

        Report report(String suite, Backend be) {
            Report report = new Report(suite, be, commit, System.out);
            System.out.println("lobatto-bench " + suite + ": " + Backends.describe(be));
            return report;
        }

        void write(Report report, String suite, Backend be) throws Exception {
            Path prefix = out.resolve(suite + "-" + be.name());
            report.write(prefix);
            System.out.println("wrote " + prefix + ".json and .csv");
        }
    }

    /**
     * One suite: what it measures, given the backend, its report and the reference (its first copy measured; null for
     * suites without one). A suite computes its ratios against {@link Reference#first()}; the run rescales them to the
     * best copy afterwards.
     */
    interface Suite {
        void run(Common c, Backend be, Report report, Reference reference);
    }

    static final Suite BS = (c, be, r, ref) -> {
        ModelFit bs1 = StreamingSuite.run(be, c.maxBytes, c.reps, c.gsNodes, c.cacheBytes, ref, r, c.streaming());
        if (bs1 == null) {
            return;
        }
        r.meta("BS1_fit_ok", bs1.ok());
        if (bs1.ok()) {
            r.meta("BS1_Wmax_GBs", bs1.wmax() * 1e-9);
            r.meta("BS1_Wmax_over_reference", bs1.wmax() / ref.first());
        } else {
            r.meta("BS1_fit_problem", bs1.problem());
        }
    };
    static final Suite OP = (c, be, r, ref) -> OpSuite.run(be, c.nMin, c.nMax, c.dofs, c.reps, r);
    static final Suite BK = (c, be, r, ref) -> KernelSuite.run(be, c.nMin, c.nMax, c.dofs, c.reps, ref.first(), r);
    static final Suite BP = (c, be, r, ref) ->
            SolveSuite.bp(be, c.nMin, c.nMax, c.nStep, c.dofs, c.iterations, Math.max(1, c.reps / 3), ref.first(), r);

    /** Runs {@code suite} on a new backend with its own reference measurement and writes its results. */
    static int runOne(Common c, String name, Suite suite) throws Exception {
        return runOne(c, name, suite, true);
    }

    /**
     * As {@link #runOne(Common, String, Suite)}; without {@code reference} the suite gets null as its reference. With it, the
     * reference is measured before the suite and completed after it ({@link Reference#finish}), also when the suite was cut.
     */
    static int runOne(Common c, String name, Suite suite, boolean reference) throws Exception {
        SweepProgress.timeLimit(c.timeLimit);
        long t0 = System.nanoTime();
        try (Backend be = c.create()) {
            Report r = c.report(name, be);
            if (c.timeLimit > 0) {
                r.meta("time_limit_s", c.timeLimit);
            }
            r.checkpoint(c.out.resolve(name + "-" + be.name()));
            Reference ref = reference ? c.reference(be, r) : null;
            try {
                suite.run(c, be, r, ref);
            } catch (SweepProgress.Cut cut) {
                r.cut(cut.getMessage());
                System.out.println("cut: " + cut.getMessage());
            }
            if (ref != null) {
                ref.finish(r, c.referenceCopies);
            }
            r.meta("elapsed_s", Math.round((System.nanoTime() - t0) * 1e-8) / 10.0);
            c.write(r, name, be);
        }
        System.out.printf(java.util.Locale.ROOT, "lobatto-bench %s: %.1f s%n", name, (System.nanoTime() - t0) * 1e-9);
        return 0;
    }

    @Command(name = "bs", mixinStandardHelpOptions = true, versionProvider = BenchCli.Version.class,
            description = "BS1-BS7 streaming tests with the T(B) = T0 + B/Wmax fit")
    static final class Bs implements Callable<Integer> {
        @Mixin
        Common c = new Common();

        @Override
        public Integer call() throws Exception {
            return runOne(c, "bs", BS);
        }
    }

    @Command(name = "bk", mixinStandardHelpOptions = true, versionProvider = BenchCli.Version.class,
            description = "BK1/BK3/BK5 element operators against the empirical roofline; with --kernels also the general "
            + "user-operator path (BK1/BK3/BK5-general, their time over the specialised kernel's) and the 3-component BK2/BK4/BK6")
    static final class Bk implements Callable<Integer> {
        @Mixin
        Common c = new Common();
        @Option(names = "--kernels", split = ",", defaultValue = "BK1,BK3,BK5",
                description = "which: BK1, BK3, BK5 (specialised), BK1-general, BK3-general, BK5-general (pointwise functions "
                + "with the same math), BK2, BK4, BK6 (3 components), or all; any case. Default: ${DEFAULT-VALUE}")
        List<String> kernels;

        @Override
        public Integer call() throws Exception {
            List<String> selected = PointwiseKernel.select(kernels, KernelSuite.ALL, "--kernels");
            return runOne(c, "bk", (cc, be, r, ref) -> KernelSuite.run(be, cc.nMin, cc.nMax, cc.dofs, cc.reps, ref.first(), r, selected));
        }
    }

    @Command(name = "bp", mixinStandardHelpOptions = true, versionProvider = BenchCli.Version.class,
            description = "BP1/BP3/BP5 CG solves (fixed iterations): DOF x iterations / s; with --problems also BP5 through the "
            + "general user-operator path and the 3-component BP2/BP4/BP6")
    static final class Bp implements Callable<Integer> {
        @Mixin
        Common c = new Common();
        @Option(names = "--problems", split = ",", defaultValue = "BP1,BP3,BP5",
                description = "which: BP1, BP3, BP5 (specialised operators), BP5-general (the assembled pointwise operator), "
                + "BP2, BP4, BP6 (3 components), or all; any case. Default: ${DEFAULT-VALUE}")
        List<String> problems;

        @Option(names = "--geometry", split = ",", defaultValue = "stored", converter = StorageConverter.class,
                description = "BP5's geometric factors: stored, onthefly (computed from the element vertices; trilinear "
                + "meshes; the backend's kernel), onthefly:registers, onthefly:shared or onthefly:points (the Aparapi kernel forced), or "
                + "several (e.g. stored,onthefly:registers,onthefly:shared: one row each, on the same mesh). "
                + "Default: ${DEFAULT-VALUE}")
        List<GeometryChoice> geometry;

        @Override
        public Integer call() throws Exception {
            List<String> selected = PointwiseKernel.select(problems, SolveSuite.ALL, "--problems");
            return runOne(c, "bp", (cc, be, r, ref) -> SolveSuite.bp(be, cc.nMin, cc.nMax, cc.nStep, cc.dofs, cc.iterations,
                    Math.max(1, cc.reps / 3), ref.first(), r, selected, geometry));
        }
    }

    @Command(name = "nekbone", mixinStandardHelpOptions = true, versionProvider = BenchCli.Version.class,
            description = "NekBone: 100 CG iterations, FOM (GFLOPS) and throughput")
    static final class Nekbone implements Callable<Integer> {
        @Mixin
        Common c = new Common();
        @Option(names = "--lambda", defaultValue = "0.1", description = "identity shift. Default: ${DEFAULT-VALUE}")
        double lambda;

        @Override
        public Integer call() throws Exception {
            return runOne(c, "nekbone", nekbone(lambda));
        }
    }

    static Suite nekbone(double lambda) {
        return (c, be, r, ref) -> SolveSuite.nekbone(be, c.nMin, c.nMax, c.nStep, c.dofs, Math.max(1, c.reps / 3), lambda, ref.first(), r);
    }

    @Command(name = "op", mixinStandardHelpOptions = true, versionProvider = BenchCli.Version.class,
            description = "assembled operator apply y_G = A x_G (BP1, BP3, BP5; box, no mask) as libCEED "
            + "times it, and CG's call (updateApplyDot), after a warm-up until the time settles: GDOF/s = N_G / seconds per "
            + "call, median of --reps samples with their spread")
    static final class Op implements Callable<Integer> {
        @Mixin
        Common c = new Common();
        @Option(names = "--problems", split = ",", defaultValue = "BP1,BP3,BP5",
                description = "which: BP1, BP3, BP5, or all; any case. Default: ${DEFAULT-VALUE}")
        List<String> problems;
        @Option(names = "--geometry", split = ",", defaultValue = "stored", converter = StorageConverter.class,
                description = "BP5's geometric factors: stored, onthefly (computed from the element vertices; trilinear "
                + "meshes; the backend's kernel), onthefly:registers, onthefly:shared or onthefly:points (the Aparapi kernel forced), or "
                + "several (e.g. stored,onthefly:registers,onthefly:shared: one row each, on the same mesh). "
                + "Default: ${DEFAULT-VALUE}")
        List<GeometryChoice> geometry;
        @Option(names = "--element-variants", split = ",", description = "aparapi backend: run every point once per element-kernel "
                + "variant (table, shared, registers, pipelined, points: -Dlobatto.aparapi.elementVariant for that point), one after the "
                + "other on the same mesh. Default: the JVM's setting only")
        List<String> variants;
        @Option(names = "--operator-forms", split = ",", description = "aparapi backend: run every point once per form of "
                + "the assembled operator's apply (off: the element kernel and the gather; ptx or cas: one element kernel "
                + "adding into y_G atomically, -Dlobatto.aparapi.atomicOperator for that point), one after the other on the "
                + "same mesh; each atomic row checks its y_G against the off form's. Default: the JVM's setting only")
        List<String> forms;

        @Override
        public Integer call() throws Exception {
            List<String> selected = PointwiseKernel.select(problems, List.of("BP1", "BP3", "BP5"), "--problems");
            List<String> fs = forms == null ? List.of() : forms.stream().map(v -> v.trim().toLowerCase(Locale.ROOT)).toList();
            for (String f : fs) {
                if (!List.of("off", "ptx", "cas").contains(f)) {
                    throw new IllegalArgumentException("--operator-forms has '" + f + "'; expected off, ptx or cas");
                }
            }
            List<String> vs = variants == null ? List.of() : variants.stream().map(v -> v.trim().toLowerCase(Locale.ROOT)).toList();
            for (String v : vs) {
                if (!List.of("table", "shared", "registers", "pipelined", "points").contains(v)) {
                    throw new IllegalArgumentException("--element-variants has '" + v + "'; expected table, shared, registers, pipelined or points");
                }
            }
            return runOne(c, "op", (cc, be, r, ref) -> OpSuite.run(be, cc.nMin, cc.nMax, cc.dofs, cc.reps, r, selected,
                    geometry, vs, fs));
        }
    }

    /** --geometry values: stored, onthefly, onthefly:registers, onthefly:shared or onthefly:points ({@link GeometryChoice#parse}). */
    static final class StorageConverter implements CommandLine.ITypeConverter<GeometryChoice> {
        @Override
        public GeometryChoice convert(String value) {
            return GeometryChoice.parse(value);
        }
    }

    @Command(name = "solve", mixinStandardHelpOptions = true, versionProvider = BenchCli.Version.class,
            description = "time to solution of the main job's Poisson problem (manufactured solution, tolerance 1e-10) with "
            + "p-multigrid against Jacobi PCG over N, on the deformed cube and Kershaw's cube: iterations, setup, solve, "
            + "setup share, errors, speedup")
    static final class Solve implements Callable<Integer> {
        @Mixin
        Common c = new Common();
        @Option(names = {"-e", "--elements"}, split = ",", defaultValue = "6",
                description = "elements per direction K of the K^3 cubes, one or more. Default: ${DEFAULT-VALUE}")
        int[] ks;
        @Option(names = "--meshes", split = ",", defaultValue = "deformed,kershaw",
                description = "deformed (the main job's smooth deformation 0.05) and/or kershaw (K a multiple of 6). "
                        + "Default: ${DEFAULT-VALUE}")
        List<PoissonSolveSuite.MeshKind> meshes;
        @Option(names = "--pcs", split = ",", defaultValue = "jacobi,pmg",
                description = "preconditioners: jacobi, pmg, none (jacobi first gives the speedups). Default: ${DEFAULT-VALUE}")
        List<io.lobatto.examples.PoissonProblem.Preconditioning> pcs;
        @Option(names = "--operator", defaultValue = "BP35", description = "BP35 or BP30. Default: ${DEFAULT-VALUE}")
        io.lobatto.examples.PoissonProblem.Operator operator;
        @Option(names = "--lambda", defaultValue = "0", description = "screening λ >= 0. Default: ${DEFAULT-VALUE}")
        double lambda;
        @Option(names = "--tol", defaultValue = "1e-10", description = "relative residual tolerance. Default: ${DEFAULT-VALUE}")
        double tol;
        @Option(names = "--max-it", defaultValue = "20000", description = "maximum CG iterations. Default: ${DEFAULT-VALUE}")
        int maxIt;
        @Option(names = "--smoother-order", defaultValue = "3", description = "p-multigrid Chebyshev order. Default: ${DEFAULT-VALUE}")
        int order;
        @Option(names = "--kershaw", defaultValue = "0.3", description = "Kershaw's epsilon. Default: ${DEFAULT-VALUE}")
        double kershaw;
        @Option(names = "--smoothers", split = ",", defaultValue = "cheb-jacobi", converter = SmootherConverter.class,
                description = "p-multigrid smoothers, one pmg row each: cheb|cheb4|cheb4opt - jacobi|asm|ras, e.g. "
                        + "cheb-jacobi,cheb4opt-ras. Default: ${DEFAULT-VALUE}")
        List<io.lobatto.solvers.Smoother> smoothers;
        @Option(names = "--kershaw-sweep", description = "the Kershaw sweep of the p-multigrid page: Kershaw's cube only, epsilon 0.3 and 1.0, "
                + "N = 3..10 (unless --n-min/--n-max are given), p-multigrid with cheb-jacobi, cheb4opt-jacobi, cheb4opt-asm, "
                + "cheb-ras and cheb4opt-ras (unless --smoothers is given). Long: hours on 2 cores at K = 12")
        boolean kershawSweep;
        @Option(names = "--solve-reps", defaultValue = "1", description = "rounds per point, preconditioners interleaved; "
                + "the fastest time to solution of each is reported. Default: ${DEFAULT-VALUE}")
        int solveReps;

        @Override
        public Integer call() throws Exception {
            for (int k : ks) {
                if (k < 1) {
                    throw new IllegalArgumentException("--elements must be >= 1, got " + k);
                }
            }
            double[] epsilons = {kershaw};
            if (kershawSweep) {
                meshes = List.of(PoissonSolveSuite.MeshKind.KERSHAW);
                epsilons = new double[] {0.3, 1.0};
                pcs = List.of(io.lobatto.examples.PoissonProblem.Preconditioning.PMG);
                if (smoothers.equals(List.of(io.lobatto.solvers.Smoother.CHEBYSHEV_JACOBI))) {
                    smoothers = java.util.stream.Stream.of("cheb-jacobi", "cheb4opt-jacobi", "cheb4opt-asm", "cheb-ras", "cheb4opt-ras")
                            .map(io.lobatto.solvers.Smoother::parse).toList();
                }
                if (!nGiven()) {
                    c.nMin = 3;
                    c.nMax = 10;
                }
            }
            if (meshes.contains(PoissonSolveSuite.MeshKind.KERSHAW)) {
                for (int k : ks) {
                    io.lobatto.core.mesh.NodeMap.requireKershawElements("--meshes kershaw: -e", k, k, k);
                }
            }
            if (!(kershaw > 0 && kershaw <= 1)) {
                throw new IllegalArgumentException("--kershaw must be in (0, 1], got " + kershaw);
            }
            if (order < 1 || order > 10) {
                throw new IllegalArgumentException("--smoother-order must be in 1..10, got " + order);
            }
            if (solveReps < 1) {
                throw new IllegalArgumentException("--solve-reps must be >= 1, got " + solveReps);
            }
            io.lobatto.examples.PoissonProblem.requireWellPosed(io.lobatto.core.mesh.HexMesh.box(1, 1, 1, 0, 1, 0, 1, 0, 1), lambda);
            final double[] eps = epsilons;
            final List<io.lobatto.examples.PoissonProblem.Preconditioning> chosen = pcs;
            final List<PoissonSolveSuite.MeshKind> kinds = meshes;
            if (c.nMin >= 1 && c.nMin <= io.lobatto.core.basis.Basis1D.MAX_DEGREE) {
                // as the CLI: the host setup's loops compile while the device opens (and the Schwarz setup's, if a smoother has it)
                io.lobatto.solvers.SetupWarmup.start(c.nMin, smoothers.stream().anyMatch(s -> s.relaxation().isSchwarz()));
            }
            return runOne(c, "solve", (cc, be, r, ref) -> PoissonSolveSuite.run(be, cc.nMin, cc.nMax, cc.nStep, ks, kinds, chosen,
                    smoothers, operator, lambda, tol, maxIt, order, eps, solveReps, r), false);
        }

        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        /** Whether --n-min or --n-max was given on the command line. */
        private boolean nGiven() {
            picocli.CommandLine.ParseResult pr = spec.commandLine().getParseResult();
            return pr.hasMatchedOption("--n-min") || pr.hasMatchedOption("--n-max");
        }

        /** Parses a smoother name with {@link io.lobatto.solvers.Smoother#parse}. */
        static final class SmootherConverter implements picocli.CommandLine.ITypeConverter<io.lobatto.solvers.Smoother> {
            @Override
            public io.lobatto.solvers.Smoother convert(String value) {
                return io.lobatto.solvers.Smoother.parse(value);
            }
        }
    }

    @Command(name = "launch", mixinStandardHelpOptions = true, versionProvider = BenchCli.Version.class,
            description = "where the per-launch cost T0 goes: one trivial kernel launched raw through "
            + "JOCL and through Aparapi (argument count, event wait, multi-pass); needs the aparapi backend")
    static final class Launch implements Callable<Integer> {
        @Mixin
        Common c = new Common();

        @Override
        public Integer call() throws Exception {
            return runOne(c, "launch", (cc, be, r, ref) -> LaunchSuite.run(be, cc.reps, r), false);
        }
    }

    @Command(name = "all", mixinStandardHelpOptions = true, versionProvider = BenchCli.Version.class,
            description = "bs, bk, bp, nekbone and op in one run, sharing one reference (a copy before the run and after each "
            + "suite; each suite's ratios against the best copy so far, the last suite's against the best of --reference-copies)")
    static final class All implements Callable<Integer> {
        @Mixin
        Common c = new Common();
        @Option(names = "--quick", description = "a small preset for a first look (under 2 minutes with -b cpu on 2 cores): --reps 3 "
                + "--max-bytes 33554432 --cache-bytes 4194304 --gs-nodes 200000 --dofs 100000 --n-max 8 --n-step 1 "
                + "--iterations 20; options given explicitly win")
        boolean quick;
        @picocli.CommandLine.Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            if (quick) {
                Quick.apply(c, spec.commandLine().getParseResult());
            }
            try (Backend be = c.create()) {
                Reference ref = null;
                String[] names = {"bs", "bk", "bp", "nekbone", "op"};
                Suite[] suites = {BS, BK, BP, nekbone(0.1), OP};
                for (int i = 0; i < names.length; i++) {
                    Report r = c.report(names[i], be);
                    if (ref == null) {
                        ref = c.reference(be, r);
                    }
                    suites[i].run(c, be, r, ref);
                    ref.measure("after " + names[i]);
                    ref.finish(r, names[i].equals(names[names.length - 1]) ? c.referenceCopies : 1);
                    c.write(r, names[i], be);
                }
            }
            return 0;
        }
    }

    @Command(name = "build-cost", mixinStandardHelpOptions = true, versionProvider = BenchCli.Version.class,
            description = "what compiling a job's kernels costs on an OpenCL device: the .cl files that "
            + "-Dlobatto.opencl.sourceDir=DIR wrote during the job, built as one program each on 1, 4 and 8 threads, as bundles "
            + "of several kernels per program, and from their binaries; run with CUDA_CACHE_DISABLE=1 on NVIDIA")
    static final class BuildCostCommand implements Callable<Integer> {
        @Parameters(index = "0", description = "the directory of .cl files")
        Path sources;
        @Option(names = "--device", description = "OpenCL device name substring. Default: the first GPU")
        String device;
        @Option(names = "--bundles", split = ",", defaultValue = "1,4,8", description = "numbers of bundles to try. Default: ${DEFAULT-VALUE}")
        int[] bundles;
        @Option(names = "--threads", split = ",", defaultValue = "1,4,8", description = "build threads of the one-program-per-kernel "
                + "builds (1 always runs). Default: ${DEFAULT-VALUE}")
        int[] threads;
        @Option(names = "--options", defaultValue = "", description = "OpenCL build options of every build. Default: none")
        String options;
        @Option(names = "--no-binaries", description = "skip the builds from the binaries")
        boolean noBinaries;

        @Override
        public Integer call() throws Exception {
            return BuildCost.run(sources, device, options, threads, bundles, !noBinaries, System.out);
        }
    }

    @Command(name = "source-probe", mixinStandardHelpOptions = true, versionProvider = BenchCli.Version.class,
            description = "BP3.5 element kernels in source variants, each built with raw OpenCL and timed alone (no gather or "
            + "scatter) in alternated rounds: registers and spills from the build log, the PTX in -o, best and median "
            + "microseconds per launch, y checked against the first variant. Variants: '+'-joined base, uN (the contraction "
            + "loops under #pragma unroll N, as -Dlobatto.aparapi.contractionUnroll=N builds them; ucompiler), static (local "
            + "memory as a kernel-scope array), nc (read-only buffers const restrict); bounds with a wrong y on purpose: "
            + "nofactors (the factors from their index, not loaded), nou (u from its index, the ids the identity), nobar (no "
            + "local barriers). Says what a source change could give; op and bp say what it gives the operator.")
    static final class SourceProbeCommand implements Callable<Integer> {
        @Option(names = "--device", description = "OpenCL device name substring. Default: the first GPU")
        String device;
        @Option(names = "--stored", split = ",", defaultValue = "7", description = "degrees N of the stored-factor kernel. "
                + "Default: ${DEFAULT-VALUE}")
        List<Integer> stored;
        @Option(names = "--onthefly", split = ",", description = "degrees N of the on-the-fly points kernel (built by the "
                + "backend on the device). Default: none")
        List<Integer> onTheFly;
        @Option(names = "--variants", split = ",", defaultValue = "base,u1,u2", description = "Default: ${DEFAULT-VALUE}")
        List<String> variants;
        @Option(names = "--mode", defaultValue = "1", description = "0: x_L in, 1: x_G read through the scatter ids (identity "
                + "here), as op runs it. Default: ${DEFAULT-VALUE}")
        int mode;
        @Option(names = "--dofs", defaultValue = "8000000", description = "Default: ${DEFAULT-VALUE}")
        long dofs;
        @Option(names = "--reps", defaultValue = "30", description = "launches per timing. Default: ${DEFAULT-VALUE}")
        int reps;
        @Option(names = "--rounds", defaultValue = "4", description = "alternated rounds over the variants. Default: ${DEFAULT-VALUE}")
        int rounds;
        @Option(names = {"-o", "--out"}, defaultValue = "bench-results/source-probe", description = "Default: ${DEFAULT-VALUE}")
        Path out;

        @Override
        public Integer call() throws Exception {
            CommandLine cl = new CommandLine(this);
            if (mode < 0 || mode > 1) {
                throw new CommandLine.ParameterException(cl, "--mode " + mode + " is not 0 or 1");
            }
            if (reps < 1 || rounds < 1) {
                throw new CommandLine.ParameterException(cl, "--reps " + reps + " and --rounds " + rounds + " must be at least 1");
            }
            for (int n : onTheFly == null ? stored : java.util.stream.Stream.concat(stored.stream(), onTheFly.stream()).toList()) {
                if (n < 1 || n > AparapiBackend.MAX_DEGREE) {
                    throw new CommandLine.ParameterException(cl, "degree " + n + " is out of range 1.." + AparapiBackend.MAX_DEGREE);
                }
            }
            return SourceProbe.run(device, stored, onTheFly == null ? List.of() : onTheFly, variants, mode, dofs, reps, rounds,
                    out, System.out);
        }
    }

    @Command(name = "kernel-info", mixinStandardHelpOptions = true, versionProvider = BenchCli.Version.class,
            description = {"build the kernels the aparapi backend generates for a BP5 solve with vendor options and print the build "
            + "log (registers, spills with -cl-nv-verbose) and the driver's per-kernel limits; with -o also a table in "
            + "<out>/kernel-info-nvidia.json and .csv (NVIDIA's build log).",
                "With --target amd-gfx90a or amd-gfx940: no GPU needed; every kernel the backend would build on that AMD GPU "
            + "(its work-groups and local memory) compiled offline by clang (apt-get install clang-15 rocm-device-libs), "
            + "with VGPRs, SGPRs, spills, scratch, LDS and occupancy, in <out>/kernel-info-<target>.json and .csv."})
    static final class KernelInfo implements Callable<Integer> {
        @Option(names = "--device", description = "OpenCL device name substring. Default: the first GPU")
        String device;
        @Option(names = "--options", defaultValue = "-cl-nv-verbose", description = "build options. Default: ${DEFAULT-VALUE}")
        String options;
        @Option(names = "--source-out", description = "also write the generated OpenCL C to this file")
        Path sourceOut;
        @Option(names = "--binary-out", description = "also write each program's binary (PTX text on NVIDIA) into this folder, "
                + "one file per kernel label")
        Path binaryOut;
        @Option(names = "--target", description = "compile offline for an AMD GPU: amd-gfx90a (MI200) or amd-gfx940 (MI300, "
                + "the newest CDNA target clang 15 knows)")
        String target;
        @Option(names = {"-o", "--out"}, description = "output folder of the table (JSON and CSV). Default: bench-results with "
                + "--target, none otherwise")
        Path out;
        @Option(names = "--commit", defaultValue = "unknown", description = "git commit recorded in the results")
        String commit;
        @Option(names = "--threads", description = "--target: compiles at once. Default: the number of cores")
        Integer threads;
        @Option(names = "--local-cap", description = "--target: plan as a backend limited to this many bytes of local memory per "
                + "work-group would (fewer elements per group, more groups per CU); element kernels without a plan within it are "
                + "named and left out. Default: the target's 65536")
        Long localCap;

        @Option(names = "--label", description = "NVIDIA: only the kernels whose label contains this text (e.g. BP3.0; the other "
                + "element families are then not built at all). Default: all")
        String label;

        @Option(names = "-N", description = "degrees of the element kernels, 1.." + io.lobatto.backend.aparapi.AparapiBackend.MAX_DEGREE
                + ": one (7), a range (1..15) or a list (1,3,5). Default: 7, every degree with --target")
        String degrees;

        @Override
        public Integer call() throws Exception {
            List<Integer> ns = DegreeList.parse(degrees == null ? (target == null ? "7" : "1.." + AparapiBackend.MAX_DEGREE)
                    : degrees, "-N", AparapiBackend.MAX_DEGREE);
            if (threads != null && threads < 1) {
                throw new IllegalArgumentException("--threads " + threads + " must be at least 1");
            }
            if (localCap != null && (localCap < 1024 || target == null)) {
                throw new IllegalArgumentException("--local-cap " + localCap + (target == null ? " needs --target"
                        : " is below the 1024 bytes every plan needs"));
            }
            if (target != null) {
                return amd(AmdTarget.of(target), ns);
            }
            requireOpenClDevice(device);
            StringBuilder all = new StringBuilder();
            List<java.util.Map<String, Object>> rows = new java.util.ArrayList<>();
            java.util.Set<String> seen = new java.util.HashSet<>();
            for (int n : ns) {
                for (io.lobatto.backend.aparapi.runtime.KernelSource s : KernelInfoSources.generated(device, n, label)) {
                    if ((label != null && !s.label().contains(label)) || !seen.add(s.source())) {
                        continue;
                    }
                    System.out.println("== " + s.label());
                    if (!s.options().isEmpty()) {
                        // e.g. the register cap (-lobatto-maxnreg=N, a PTX edit of the backend's own build)
                        System.out.println("   the backend builds it with '" + s.options() + "'; this build has only --options");
                    }
                    all.append("// ===== ").append(s.label()).append('\n').append(s.source()).append('\n');
                    Path binary = null;
                    if (binaryOut != null) {
                        Files.createDirectories(binaryOut);
                        binary = binaryOut.resolve(s.label().replaceAll("[^A-Za-z0-9=.]+", "_") + ".ptx");
                    }
                    List<String> report = OpenClBuildReport.build(device, s.source(), options, binary);
                    report.forEach(System.out::println);
                    rows.add(NvidiaBuildLog.row(s.label(), s.label().contains("N=") ? n : 0, report));
                }
            }
            if (sourceOut != null) {
                Files.writeString(sourceOut, all.toString());
            }
            rows.sort(java.util.Comparator.comparing(r -> r.get("N") == null ? 0 : (Integer) r.get("N")));
            if (out != null) {
                java.util.Map<String, Object> meta = new java.util.LinkedHashMap<>();
                meta.put("suite", "kernel-info");
                meta.put("target", "nvidia");
                meta.put("device", io.lobatto.backend.aparapi.OpenClDevices.list().stream()
                        .filter(d -> device == null ? d.type() == io.lobatto.backend.aparapi.runtime.ClDevice.Type.GPU : d.name().contains(device))
                        .findFirst().map(Object::toString).orElse("?"));
                meta.put("options", options);
                meta.put("element_variant", System.getProperty("lobatto.aparapi.elementVariant", "table"));
                if (label != null) {
                    meta.put("label_filter", label);
                }
                meta.put("commit", commit);
                meta.put("date", java.time.Instant.now().toString());
                Path prefix = out.resolve("kernel-info-nvidia");
                NvidiaBuildLog.write(rows, meta, prefix);
                System.out.println("wrote " + prefix + ".json and .csv");
            }
            return 0;
        }

        /** --target: every kernel the backend would build on {@code t}, compiled offline; the table, JSON and CSV. */
        private int amd(AmdTarget t, List<Integer> ns) throws Exception {
            AmdClang clang = AmdClang.find();
            long start = System.nanoTime();
            int nThreads = threads != null ? threads : Runtime.getRuntime().availableProcessors();
            long cap = localCap == null ? AmdTarget.LDS_BYTES : Math.min(localCap, AmdTarget.LDS_BYTES);
            List<String> noPlan = new java.util.ArrayList<>();
            List<AmdKernelInfo.Row> rows = AmdKernelInfo.run(clang, t, ns, cap, nThreads, noPlan);
            double seconds = (System.nanoTime() - start) * 1e-9;
            AmdKernelInfo.print(rows, System.out);
            java.util.Map<String, Object> meta = new java.util.LinkedHashMap<>();
            meta.put("suite", "kernel-info");
            meta.put("target", t.id());
            meta.put("mcpu", t.cpu());
            meta.put("gpus", t.gpus());
            meta.put("compiler", clang.version());
            meta.put("command", String.join(" ", clang.command(t.cpu(), Path.of("k.cl"), Path.of("k.o"))));
            meta.put("model", "CL_DEVICE_MAX_WORK_GROUP_SIZE " + AmdTarget.MAX_WORK_GROUP + ", CL_DEVICE_LOCAL_MEM_SIZE "
                    + AmdTarget.LDS_BYTES + ", CL_KERNEL_WORK_GROUP_SIZE reqd_work_group_size else " + AmdTarget.DEFAULT_KERNEL_GROUP
                    + "; waves per SIMD = min(registers, LDS of " + AmdTarget.LDS_BYTES + " B per CU in " + AmdTarget.LDS_GRANULE
                    + " B blocks, " + AmdTarget.MAX_WAVES_PER_SIMD + "), 4 SIMDs per CU, waves of 64");
            meta.put("element_variant", System.getProperty("lobatto.aparapi.elementVariant", "table"));
            meta.put("local_cap_bytes", cap);
            meta.put("no_plan_within_cap", noPlan);
            meta.put("commit", commit);
            meta.put("date", java.time.Instant.now().toString());
            meta.put("compile_seconds", Math.round(seconds * 10) / 10.0);
            Path prefix = (out == null ? Path.of("bench-results") : out).resolve("kernel-info-" + t.id()
                    + (cap < AmdTarget.LDS_BYTES ? "-local" + cap : ""));
            AmdKernelInfo.write(rows, meta, prefix);
            long scratch = rows.stream().filter(r -> r.usage().usesScratch()).count();
            long sgpr = rows.stream().filter(r -> r.usage().sgprSpill() > 0).count();
            long low = rows.stream().filter(r -> r.waves() < 4).count();
            System.out.printf(Locale.ROOT, "%d kernels compiled for %s (%s) in %.1f s on %d threads: %d use scratch, %d spill SGPRs "
                    + "(to VGPR lanes), %d below 4 waves per SIMD%n", rows.size(), t.cpu(), clang.version(), seconds, nThreads, scratch,
                    sgpr, low);
            if (!noPlan.isEmpty()) {
                System.out.println("no plan within " + cap + " bytes of local memory: " + String.join(", ", noPlan));
            }
            for (AmdKernelInfo.Row r : rows) {
                if (r.misfit() != null) {
                    System.out.println("does not fit: " + r.misfit());
                }
            }
            System.out.println("wrote " + prefix + ".json and .csv");
            return 0;
        }
    }

    /** kernel-info needs an OpenCL GPU (or the device named): fails in one line before any build when there is none. */
    static void requireOpenClDevice(String device) {
        java.util.List<io.lobatto.backend.aparapi.runtime.ClDevice> all = io.lobatto.backend.aparapi.OpenClDevices.list();
        boolean found = all.stream().anyMatch(d -> device == null ? d.type() == io.lobatto.backend.aparapi.runtime.ClDevice.Type.GPU
                : d.name().contains(device));
        if (!found) {
            String seen = all.isEmpty() ? "no OpenCL device at all" : "OpenCL devices: " + all.stream()
                    .map(d -> d.name() + " (" + d.type() + ")").collect(java.util.stream.Collectors.joining(", "));
            throw new IllegalArgumentException(device == null
                    ? "kernel-info builds for an OpenCL GPU and found none (" + seen + "); name another device with --device"
                    : "no OpenCL device matching '" + device + "' (" + seen + ")");
        }
    }

    @Command(name = "plot", mixinStandardHelpOptions = true, versionProvider = BenchCli.Version.class,
            description = "render PNG plots from result JSON files (needs java.desktop)")
    static final class Plot implements Callable<Integer> {
        @Parameters(arity = "1..*", description = "result JSON files (bs-*.json, bk-*.json, bp-*.json, nekbone-*.json, op-*.json)")
        Path[] files;

        @Override
        public Integer call() throws Exception {
            for (Path f : files) {
                Object json = JsonReader.parse(Files.readString(f));
                for (Path png : Plots.render(f, json)) {
                    System.out.println("wrote " + png);
                }
            }
            return 0;
        }
    }
}
