package io.lobatto.examples;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.Backends;
import io.lobatto.core.mesh.SpectralElementMesh;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code lobatto poisson}: solves -Δu + λu = f with the manufactured solution
 * u = sin(πx) sin(πy) sin(πz) and Dirichlet data, prints iterations, time and errors; {@code --sweep}
 * prints the convergence table over N; {@code --vtu} writes the solution and error for ParaView.
 */
@Command(name = "poisson", mixinStandardHelpOptions = true, versionProvider = LobattoCli.Version.class,
        description = "Solve -Δu + λu = f (manufactured u = sin(πx)sin(πy)sin(πz)) with CG and report the error.",
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:converged", "1:error (one line 'lobatto: error: ...' on stderr; --stacktrace shows the trace)",
            "2:CG stopped at --max-it without converging"})
final class PoissonCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    final BackendOptions backendOptions = new BackendOptions();

    @Mixin
    final MeshOptions meshOptions = new MeshOptions();

    @Option(names = {"-N", "--degree"}, defaultValue = "7",
            description = "polynomial degree N: " + CliChecks.DEGREE_RANGE + ". Default: ${DEFAULT-VALUE}")
    int degree;

    @Option(names = "--operator", defaultValue = "BP35",
            description = "BP35 (GLL collocation) or BP30 (Gauss-Legendre quadrature), any case. Default: ${DEFAULT-VALUE}")
    PoissonProblem.Operator operator;

    @Option(names = "--lambda", defaultValue = "0", description = "screening λ >= 0. Default: ${DEFAULT-VALUE}")
    double lambda;

    @Option(names = "--pc", defaultValue = "pmg", description = "preconditioner: pmg (p-multigrid V-cycle, Chebyshev-Jacobi "
            + "smoothing), jacobi or none, any case. Default: ${DEFAULT-VALUE}")
    PoissonProblem.Preconditioning preconditioner;

    @Option(names = "--pmg-degrees", split = ",", description = "p-multigrid schedule, fine first (e.g. 7,3,1). Default: halving N, N/2, ..., 1 with Jacobi "
            + "relaxation; N, N-2, ..., 2, 1 (7,5,3,2,1; 8,6,4,2,1) with asm or ras")
    int[] pmgDegrees;

    @Option(names = "--smoother", defaultValue = "cheb-jacobi", converter = SmootherConverter.class,
            description = "p-multigrid smoother: Chebyshev polynomial (cheb: 1st kind on [0.1, 1.1] lambda_max; cheb4: Lottes' "
                    + "4th kind; cheb4opt: 4th kind with Lottes' optimised weights, orders 1..8) and relaxation (jacobi; asm: "
                    + "additive Schwarz with fast-diagonalisation solves on elements extended by one GLL layer; ras: restricted "
                    + "Schwarz, solved by flexible CG), e.g. cheb4opt-ras. Default: ${DEFAULT-VALUE}")
    io.lobatto.solvers.Smoother smoother;

    /** Parses --smoother with {@link io.lobatto.solvers.Smoother#parse}. */
    static final class SmootherConverter implements picocli.CommandLine.ITypeConverter<io.lobatto.solvers.Smoother> {
        @Override
        public io.lobatto.solvers.Smoother convert(String value) {
            return io.lobatto.solvers.Smoother.parse(value);
        }
    }

    @Option(names = "--smoother-order", defaultValue = "3", description = "Chebyshev order of the p-multigrid smoother, 1..10. Default: ${DEFAULT-VALUE}")
    int smootherOrder;

    @Option(names = "--coarse-reduction", defaultValue = "0.1", description = "p-multigrid coarsest level: the error "
            + "reduction 1/T_m its fixed Chebyshev-Jacobi polynomial aims at, in (0, 1). Default: ${DEFAULT-VALUE}")
    double coarseReduction;

    @Option(names = "--coarse-max-it", defaultValue = "60", description = "p-multigrid coarsest level: the cap on its Chebyshev "
            + "iterations, >= 1. Default: ${DEFAULT-VALUE}")
    int coarseMaxIterations;

    @Option(names = "--h-coarsening", arity = "1", description = "p-multigrid: continue below N = 1 by halving the box "
            + "(true or false; box meshes with even element counts only). Default: on where every side has at least "
            + io.lobatto.solvers.HCoarsening.AUTO_START_SIDE + " elements (system property "
            + io.lobatto.solvers.PMultigrid.H_COARSENING_PROPERTY + "=auto|true|false)")
    Boolean hCoarsening;

    @Option(names = "--tol", defaultValue = "1e-10", description = "relative residual tolerance. Default: ${DEFAULT-VALUE}")
    double tolerance;

    @Option(names = "--max-it", defaultValue = "5000", description = "maximum CG iterations. Default: ${DEFAULT-VALUE}")
    int maxIterations;

    @Option(names = "--sweep", arity = "0..1", fallbackValue = "1..10", converter = DegreeRange.Converter.class,
            description = "convergence table over N (range lo..hi or one N, default 1..10) on the same mesh")
    DegreeRange sweep;

    @Option(names = "--vtu", description = "write the solution, exact solution and error to this .vtu file")
    Path vtu;

    /**
     * Started by mpirun on several ranks: the solve of the lobatto-parallel module (found through
     * {@link io.lobatto.core.parallel.DistributedCommand}) with this command's options, slabs of the box mesh, one device
     * per rank, Jacobi PCG. Options it does not have are refused by name.
     */
    private int distributed(java.io.PrintWriter out, int ranks) {
        io.lobatto.core.parallel.DistributedCommand cmd = io.lobatto.core.parallel.DistributedCommand.find("poisson")
                .orElseThrow(() -> new IllegalArgumentException("started by mpirun on " + ranks + " ranks, but the distributed "
                        + "solve (lobatto-parallel, JDK 22+) is not on the class path: add lobatto-parallel.jar and its Open MPI "
                        + "binding, or run without mpirun"));
        picocli.CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
        for (String unsupported : new String[] {"--mesh", "--kershaw", "--sweep", "--vtu", "--pmg-degrees", "--smoother",
            "--smoother-order"}) {
            if (parsed.hasMatchedOption(unsupported)) {
                throw new IllegalArgumentException(unsupported + " is not supported by the distributed solve on " + ranks
                        + " ranks (it takes -N, -e, --deform, --lambda, --pc pmg|jacobi|none, --tol, --max-it, --backend, --profile)");
            }
        }
        if (operator != PoissonProblem.Operator.BP35) {
            throw new IllegalArgumentException("--operator " + operator + ": the distributed solve applies BP35 only");
        }
        String pc = preconditioner.toString().toLowerCase(java.util.Locale.ROOT);   // jacobi, none or pmg: all distributed
        int[] e = meshOptions.elements;
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("-N", Integer.toString(degree),
                "-e", e[0] + "," + e[1] + "," + e[2], "--deform", Double.toString(meshOptions.deform),
                "--lambda", Double.toString(lambda), "--pc", pc, "--tol", Double.toString(tolerance),
                "--max-it", Integer.toString(maxIterations),
                "--backend", "best".equalsIgnoreCase(backendOptions.backend) ? "auto" : backendOptions.backend));
        if (profile) {
            args.add("--profile");
        }
        int code = cmd.run(args.toArray(new String[0]), out);
        return code == 1 ? 2 : code == 2 ? 1 : code;
    }

    @Option(names = "--profile", description = "print the per-kernel time split of the solve (aparapi backend; OpenCL event profiling)")
    boolean profile;

    @Override
    public Integer call() throws Exception {
        java.io.PrintWriter out = spec.commandLine().getOut();
        int ranks = io.lobatto.core.parallel.DistributedCommand.launcherSize();
        if (ranks > 1) {
            return distributed(out, ranks);
        }
        // every check that needs no backend comes first: bad input fails in a second, not after a solve
        int lo = sweep != null ? sweep.lo() : degree, hi = sweep != null ? sweep.hi() : degree;
        CliChecks.requireDegree(lo, null);
        CliChecks.requireDegree(hi, null);
        if (!(tolerance >= 0)) {
            throw new IllegalArgumentException("--tol must be >= 0, got " + tolerance);
        }
        if (maxIterations < 1) {
            throw new IllegalArgumentException("--max-it must be >= 1, got " + maxIterations);
        }
        if (lambda < 0) {
            throw new IllegalArgumentException("--lambda must be >= 0 for CG, got " + lambda);
        }
        if (smoother.polynomial() == io.lobatto.solvers.Smoother.Polynomial.FOURTH_KIND_OPTIMAL && smootherOrder > 8) {
            throw new IllegalArgumentException("--smoother " + smoother.cliName() + " has optimised weights for orders 1..8, got"
                    + " --smoother-order " + smootherOrder);
        }
        if (smootherOrder < 1 || smootherOrder > 10) {
            throw new IllegalArgumentException("--smoother-order must be in 1..10, got " + smootherOrder);
        }
        if (!(coarseReduction > 0 && coarseReduction < 1)) {
            throw new IllegalArgumentException("--coarse-reduction must be in (0, 1), got " + coarseReduction);
        }
        if (coarseMaxIterations < 1) {
            throw new IllegalArgumentException("--coarse-max-it must be >= 1, got " + coarseMaxIterations);
        }
        if (pmgDegrees != null && sweep != null) {
            throw new IllegalArgumentException("--pmg-degrees names the levels of one N; leave it out with --sweep");
        }
        if (pmgDegrees != null && (pmgDegrees.length == 0 || pmgDegrees[0] != degree)) {
            throw new IllegalArgumentException("--pmg-degrees must start at -N " + degree + ", got "
                    + java.util.Arrays.toString(pmgDegrees));
        }
        PoissonProblem.requireWellPosed(meshOptions.hexMesh(), lambda);
        if (vtu != null && sweep == null) {
            CliChecks.requireWritable(vtu, "--vtu");
        }
        ManufacturedSolution exact = ManufacturedSolution.unitCube(lambda);
        // the host setup's loops compile while the backend opens its device (with a Schwarz smoother, its setup's too)
        io.lobatto.solvers.SetupWarmup.start(lo, preconditioner == PoissonProblem.Preconditioning.PMG && smoother.relaxation().isSchwarz());
        Backend backend = backendOptions.create();
        double opened = sinceProcessStart();
        try {
            CliChecks.requireDegree(hi, backend);
            out.println("lobatto poisson: " + Backends.describe(backend));
            out.println("mesh: " + meshOptions.describe() + ", operator " + operator + ", lambda " + lambda
                    + ", preconditioner " + describePc() + ", tolerance " + tolerance);
            if (sweep != null) {
                out.printf("%4s %10s %6s %10s %12s %12s %10s%n", "N", "DOFs", "iters", "time[s]", "max error", "L2 error", "rate");
                double prev = Double.NaN;
                for (int n = lo; n <= hi; n++) {
                    PoissonProblem.Solution s;
                    try (SolveProgress progress = SolveProgress.onTerminal(out, "N = " + n + ": ", maxIterations)) {
                        s = solveOnce(backend, n, exact, null, progress);
                    }
                    double rate = Double.isNaN(prev) ? Double.NaN : prev / s.maxError();
                    out.printf("%4d %10d %6d %10.3f %12.3e %12.3e %10s%n", n, s.assembledDofs(), s.solve().iterations(),
                            s.solve().seconds(), s.maxError(), s.l2Error(), Double.isNaN(rate) ? "" : String.format("x%.1f", rate));
                    prev = s.maxError();
                }
                return 0;
            }
            long t0 = System.nanoTime();
            double started = sinceProcessStart();
            PoissonProblem.Solution s;
            try (SolveProgress progress = SolveProgress.onTerminal(out, "", maxIterations)) {
                s = solveOnce(backend, degree, exact, it -> { }, progress);
            }
            out.printf("N = %d, elements = %d, DOFs = %d (assembled, Dirichlet nodes excluded)%n", degree,
                    s.elements(), s.assembledDofs());
            out.printf("CG: %s after %d iterations, residual %.3e -> %.3e%n", s.solve().reason(), s.solve().iterations(),
                    s.solve().initialResidual(), s.solve().finalResidual());
            out.printf("time: setup %.3f s, solve %.3f s (%.3f ms per iteration), total %.3f s%n", s.setupSeconds(),
                    s.solve().seconds(), 1e3 * s.solve().secondsPerIteration(), (System.nanoTime() - t0) * 1e-9);
            out.printf("error: max %.3e, L2 %.3e%n", s.maxError(), s.l2Error());
            if (!s.levels().isEmpty()) {
                printLevels(out, s);
            }
            if (backend instanceof io.lobatto.backend.aparapi.AparapiBackend a) {
                long peak = a.runtime().peakBytesHeld();
                out.printf("device memory: peak %.3f GB in the backend's buffers, %.1f bytes per DOF%n", peak * 1e-9,
                        (double) peak / s.assembledDofs());
            }
            if (profile) {
                out.printf("process: backend opened %.3f s after the JVM started (%.3f s to open it: device, context, "
                        + "work-group probes%s), the run's timer started at %.3f s%n", opened,
                        backendOptions.openingEnded - backendOptions.openingStarted,
                        backendOptions.openedAhead ? String.format(", from %.3f s, ahead while the options were read",
                                backendOptions.openingStarted) : "", started);
                printSetup(out, lastPhases, s.assembledDofs(), s.elements());
                printBuilds(out, backend);
                KernelTimes.print(backend, out, s.solve().iterations() - 1, s.solve().secondsPerIteration());
            }
            if (vtu != null) {
                SpectralElementMesh mesh = meshOptions.build(degree);
                double[] err = new double[s.u().length];
                for (int i = 0; i < err.length; i++) {
                    err[i] = s.u()[i] - s.exact()[i];
                }
                new io.lobatto.core.io.VtuWriter(mesh).scalar("u", s.u()).scalar("u_exact", s.exact()).scalar("error", err).write(vtu);
                out.println("wrote " + vtu);
            }
            return s.solve().converged() ? 0 : 2;
        } finally {
            long c0 = System.nanoTime();
            backend.close();
            if (profile) {
                out.printf("process: closing the backend took %.3f s (it waits for kernel builds still running), at %.3f s%n",
                        (System.nanoTime() - c0) * 1e-9, sinceProcessStart());
                out.flush();
            }
        }
    }

    /**
     * Seconds since the JVM started (its uptime, to the millisecond; the OS's process start instant is only good to a
     * second on Linux).
     */
    static double sinceProcessStart() {
        return java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() * 1e-3;
    }

    /**
     * The setup by phase (seconds, microseconds per element: what numbering or Z costs per element, and the process CPU
     * seconds where they can be read: all threads, the JIT compilers' included), and the host heap in use per DOF.
     */
    static void printSetup(java.io.PrintWriter out, io.lobatto.solvers.SetupPhases phases, long dofs, int elements) {
        java.util.Map<String, Double> cpu = phases.cpuSeconds();
        double cpuTotal = cpu.values().stream().mapToDouble(Double::doubleValue).sum();
        out.printf("setup by phase (%.3f s%s):%n", phases.totalSeconds(),
                cpu.isEmpty() ? "" : String.format(", process CPU %.2f s on %d processors", cpuTotal,
                        Runtime.getRuntime().availableProcessors()));
        phases.seconds().forEach((k, v) -> out.printf("  %-22s %8.3f s %9.2f us/element%s%n", k, v, 1e6 * v / Math.max(1, elements),
                cpu.containsKey(k) ? String.format(" %7.2f s CPU", cpu.get(k)) : ""));
        Runtime rt = Runtime.getRuntime();
        long used = rt.totalMemory() - rt.freeMemory();
        out.printf("host heap in use: %.3f GB, %.1f bytes per DOF%n", used * 1e-9, (double) used / dofs);
    }

    /**
     * The kernel builds of the run on a backend that builds kernels: how many were compiled and loaded from the disk
     * cache, their summed and longest times, and the five longest (they run on the build threads, concurrently with
     * the setup, so they show in the phases only where an operation waited for one).
     */
    static void printBuilds(java.io.PrintWriter out, io.lobatto.core.backend.Backend backend) {
        if (!(backend instanceof io.lobatto.backend.aparapi.AparapiBackend a)) {
            return;
        }
        java.util.List<io.lobatto.backend.aparapi.runtime.ProgramCache.Build> log = a.runtime().programs().buildLog();
        if (log.isEmpty()) {
            return;
        }
        long compiled = log.stream().filter(b -> !b.fromDisk()).mapToLong(io.lobatto.backend.aparapi.runtime.ProgramCache.Build::kernels).sum();
        long kernels = log.stream().mapToLong(io.lobatto.backend.aparapi.runtime.ProgramCache.Build::kernels).sum();
        double sum = log.stream().mapToLong(io.lobatto.backend.aparapi.runtime.ProgramCache.Build::nanos).sum() * 1e-9;
        long first = log.stream().mapToLong(io.lobatto.backend.aparapi.runtime.ProgramCache.Build::startNanos).min().orElse(0);
        long last = log.stream().mapToLong(b -> b.startNanos() + b.nanos()).max().orElse(0);
        out.printf("kernel builds: %d compiled, %d from the disk cache, in %d programs, %.3f s summed, %.3f s from the first start "
                + "to the last end%n", compiled, kernels - compiled, log.size(), sum, (last - first) * 1e-9);
        io.lobatto.backend.aparapi.runtime.ProgramCache programs = a.runtime().programs();
        if (programs.quickBuilt() > 0) {
            out.printf("quick-first builds: %d kernels built quickly, %d optimised since (%s)%n", programs.quickBuilt(),
                    programs.upgraded(), io.lobatto.backend.aparapi.runtime.ProgramCache.QUICK_FIRST_PROPERTY);
        }
        log.stream().sorted(java.util.Comparator.comparingLong(io.lobatto.backend.aparapi.runtime.ProgramCache.Build::nanos)
                .reversed()).limit(5).forEach(b -> out.printf("  %8.3f s  %s%s%n", b.nanos() * 1e-9,
                b.label().length() > 110 ? b.label().substring(0, 107) + "..." : b.label(),
                b.fromDisk() ? " (disk)" : ""));
        // the first builds on the JVM's clock: what the backend's start and the setup's first phases wait for
        double origin = System.nanoTime() * 1e-9 - sinceProcessStart();
        out.println("builds in start order (start and end after the JVM started, duration; seconds):");
        log.stream().sorted(java.util.Comparator.comparingLong(io.lobatto.backend.aparapi.runtime.ProgramCache.Build::startNanos))
                .limit(24).forEach(b -> out.printf("  %8.3f  %8.3f  %8.3f s  %s%s%n", b.startNanos() * 1e-9 - origin,
                        (b.startNanos() + b.nanos()) * 1e-9 - origin, b.nanos() * 1e-9,
                        b.label().length() > 100 ? b.label().substring(0, 97) + "..." : b.label(), b.fromDisk() ? " (disk)" : ""));
    }

    /** {@code b} with {@code --h-coarsening}'s choice when it was given, else as it is (the builder's default: auto). */
    private io.lobatto.solvers.PMultigrid.Builder withHCoarsening(io.lobatto.solvers.PMultigrid.Builder b) {
        return hCoarsening == null ? b : b.hCoarsening(hCoarsening);
    }

    private String describePc() {
        return switch (preconditioner) {
            case NONE -> "none";
            case JACOBI -> "Jacobi";
            case PMG -> "p-multigrid V-cycle (" + (pmgDegrees != null ? java.util.Arrays.toString(pmgDegrees)
                    : smoother.relaxation().isSchwarz() ? "N, N-2, ..., 2, 1" : "halving N")
                    + ", " + smoother.describe() + " order " + smootherOrder + ")" + (smoother.isSymmetric() ? "" : ", flexible CG");
        };
    }

    /** The p-multigrid levels: degree, DOFs, smoother, eigenvalue bounds, applies per cycle and time. */
    private static void printLevels(java.io.PrintWriter out, PoissonProblem.Solution s) {
        long cycles = s.levels().get(0).cycles();
        out.printf("p-multigrid: %d levels, %d V-cycles, setup %.3f s (%.0f%% of the solve)%n", s.levels().size(), cycles,
                s.preconditionerSetupSeconds(), 100 * s.preconditionerSetupSeconds() / s.solve().seconds());
        out.printf("  %3s %10s %8s %-34s %18s %8s %10s %9s%n", "N", "DOFs", "elements", "smoother", "lambda(D^-1 A)",
                "applies", "time[s]", "ms/cycle");
        for (int l = 0; l < s.levels().size(); l++) {
            io.lobatto.solvers.PMultigrid.LevelInfo i = s.levels().get(l);
            boolean coarsest = l == s.levels().size() - 1;
            String smoother = coarsest ? String.format("coarse: %d Chebyshev its", i.smootherOrder())
                    : String.format("%s order %d", i.smoother(), i.smootherOrder());
            out.printf("  %3d %10d %8d %-34s %8.3g..%-8.3g %8d %10.3f %9.3f%n", i.degree(), i.dofs(), i.elements(), smoother,
                    i.lambdaMin(), i.lambdaMax(), i.appliesPerCycle(), i.seconds(),
                    i.cycles() == 0 ? 0 : 1e3 * i.seconds() / i.cycles());
        }
    }

    private PoissonProblem.Solution solveOnce(Backend backend, int n, ManufacturedSolution exact,
                                              java.util.function.IntConsumer progress, SolveProgress monitor)
            throws java.io.IOException {
        lastPhases = new io.lobatto.solvers.SetupPhases();   // before the mesh: its CPU time counts from here
        long t0 = System.nanoTime();
        SpectralElementMesh mesh = meshOptions.build(n);
        lastPhases.add("mesh and numbering", System.nanoTime() - t0);
        return new PoissonProblem(mesh, exact, operator).solve(backend, preconditioner,
                b -> withHCoarsening((pmgDegrees == null ? b : b.degrees(pmgDegrees)).smootherOrder(smootherOrder)
                        .smoother(smoother).coarseSolve(40, coarseReduction, coarseMaxIterations))
                        .timeLevels(sweep == null),
                tolerance, maxIterations,
                progress == null ? null : it -> {
                    if (it == 1 && profile) {
                        KernelTimes.start(backend); // from the second iteration on: no setup or first-launch costs
                    }
                    progress.accept(it);
                }, monitor, lastPhases);
    }

    /** The setup phases of the last solve. */
    private io.lobatto.solvers.SetupPhases lastPhases;
}
