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

    /** The preconditioners of {@code --pc}. */
    enum Pc { NONE, JACOBI }

    @Option(names = "--pc", defaultValue = "jacobi", description = "preconditioner: none or jacobi, any case. Default: ${DEFAULT-VALUE}")
    Pc preconditioner;

    @Option(names = "--tol", defaultValue = "1e-10", description = "relative residual tolerance. Default: ${DEFAULT-VALUE}")
    double tolerance;

    @Option(names = "--max-it", defaultValue = "5000", description = "maximum CG iterations. Default: ${DEFAULT-VALUE}")
    int maxIterations;

    @Option(names = "--sweep", arity = "0..1", fallbackValue = "1..10", converter = DegreeRange.Converter.class,
            description = "convergence table over N (range lo..hi or one N, default 1..10) on the same mesh")
    DegreeRange sweep;

    @Option(names = "--vtu", description = "write the solution, exact solution and error to this .vtu file")
    Path vtu;

    @Option(names = "--profile", description = "print the per-kernel time split of the solve (aparapi backend; OpenCL event profiling)")
    boolean profile;

    @Override
    public Integer call() throws Exception {
        java.io.PrintWriter out = spec.commandLine().getOut();
        boolean jacobi = preconditioner == Pc.JACOBI;
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
        PoissonProblem.requireWellPosed(meshOptions.hexMesh(), lambda);
        if (vtu != null && sweep == null) {
            CliChecks.requireWritable(vtu, "--vtu");
        }
        ManufacturedSolution exact = ManufacturedSolution.unitCube(lambda);
        try (Backend backend = backendOptions.create()) {
            CliChecks.requireDegree(hi, backend);
            out.println("lobatto poisson: " + Backends.describe(backend));
            out.println("mesh: " + meshOptions.describe() + ", operator " + operator + ", lambda " + lambda
                    + ", preconditioner " + (jacobi ? "Jacobi" : "none") + ", tolerance " + tolerance);
            if (sweep != null) {
                out.printf("%4s %10s %6s %10s %12s %12s %10s%n", "N", "DOFs", "iters", "time[s]", "max error", "L2 error", "rate");
                double prev = Double.NaN;
                for (int n = lo; n <= hi; n++) {
                    PoissonProblem.Solution s;
                    try (SolveProgress progress = SolveProgress.onTerminal(out, "N = " + n + ": ", maxIterations)) {
                        s = solveOnce(backend, n, exact, jacobi, null, progress);
                    }
                    double rate = Double.isNaN(prev) ? Double.NaN : prev / s.maxError();
                    out.printf("%4d %10d %6d %10.3f %12.3e %12.3e %10s%n", n, s.assembledDofs(), s.solve().iterations(),
                            s.solve().seconds(), s.maxError(), s.l2Error(), Double.isNaN(rate) ? "" : String.format("x%.1f", rate));
                    prev = s.maxError();
                }
                return 0;
            }
            long t0 = System.nanoTime();
            PoissonProblem.Solution s;
            try (SolveProgress progress = SolveProgress.onTerminal(out, "", maxIterations)) {
                s = solveOnce(backend, degree, exact, jacobi, it -> { }, progress);
            }
            out.printf("N = %d, elements = %d, DOFs = %d (assembled, Dirichlet nodes excluded)%n", degree,
                    s.elements(), s.assembledDofs());
            out.printf("CG: %s after %d iterations, residual %.3e -> %.3e%n", s.solve().reason(), s.solve().iterations(),
                    s.solve().initialResidual(), s.solve().finalResidual());
            out.printf("time: setup %.3f s, solve %.3f s (%.3f ms per iteration), total %.3f s%n", s.setupSeconds(),
                    s.solve().seconds(), 1e3 * s.solve().secondsPerIteration(), (System.nanoTime() - t0) * 1e-9);
            out.printf("error: max %.3e, L2 %.3e%n", s.maxError(), s.l2Error());
            if (backend instanceof io.lobatto.backend.aparapi.AparapiBackend a) {
                long peak = a.runtime().peakBytesHeld();
                out.printf("device memory: peak %.3f GB in the backend's buffers, %.1f bytes per DOF%n", peak * 1e-9,
                        (double) peak / s.assembledDofs());
            }
            if (profile) {
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
        }
    }

    private PoissonProblem.Solution solveOnce(Backend backend, int n, ManufacturedSolution exact, boolean jacobi,
                                              java.util.function.IntConsumer progress, SolveProgress monitor)
            throws java.io.IOException {
        SpectralElementMesh mesh = meshOptions.build(n);
        return new PoissonProblem(mesh, exact, operator).solve(backend, jacobi, tolerance, maxIterations,
                progress == null ? null : it -> {
                    if (it == 1 && profile) {
                        KernelTimes.start(backend); // from the second iteration on: no setup or first-launch costs
                    }
                    progress.accept(it);
                }, monitor);
    }
}
