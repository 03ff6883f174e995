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
@Command(name = "poisson", mixinStandardHelpOptions = true,
        description = "Solve -Δu + λu = f (manufactured u = sin(πx)sin(πy)sin(πz)) with CG and report the error.")
final class PoissonCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    final BackendOptions backendOptions = new BackendOptions();

    @Mixin
    final MeshOptions meshOptions = new MeshOptions();

    @Option(names = {"-N", "--degree"}, defaultValue = "7", description = "polynomial degree N. Default: ${DEFAULT-VALUE}")
    int degree;

    @Option(names = "--operator", defaultValue = "BP35",
            description = "BP35 (GLL collocation) or BP30 (Gauss-Legendre quadrature). Default: ${DEFAULT-VALUE}")
    PoissonProblem.Operator operator;

    @Option(names = "--lambda", defaultValue = "0", description = "screening λ >= 0. Default: ${DEFAULT-VALUE}")
    double lambda;

    @Option(names = "--pc", defaultValue = "jacobi", description = "preconditioner: none or jacobi. Default: ${DEFAULT-VALUE}")
    String preconditioner;

    @Option(names = "--tol", defaultValue = "1e-10", description = "relative residual tolerance. Default: ${DEFAULT-VALUE}")
    double tolerance;

    @Option(names = "--max-it", defaultValue = "5000", description = "maximum CG iterations. Default: ${DEFAULT-VALUE}")
    int maxIterations;

    @Option(names = "--sweep", arity = "0..1", fallbackValue = "1..10",
            description = "convergence table over N (range lo..hi, default 1..10) on the same mesh")
    String sweep;

    @Option(names = "--vtu", description = "write the solution, exact solution and error to this .vtu file")
    Path vtu;

    @Option(names = "--profile", description = "print the per-kernel time split of the solve (aparapi backend; OpenCL event profiling)")
    boolean profile;

    @Override
    public Integer call() throws Exception {
        java.io.PrintWriter out = spec.commandLine().getOut();
        boolean jacobi = switch (preconditioner.toLowerCase(java.util.Locale.ROOT)) {
            case "jacobi" -> true;
            case "none" -> false;
            default -> throw new IllegalArgumentException("--pc must be none or jacobi, got " + preconditioner);
        };
        if (lambda < 0) {
            throw new IllegalArgumentException("--lambda must be >= 0 for CG, got " + lambda);
        }
        ManufacturedSolution exact = ManufacturedSolution.unitCube(lambda);
        try (Backend backend = backendOptions.create()) {
            out.println("lobatto poisson: " + Backends.describe(backend));
            out.println("mesh: " + meshOptions.describe() + ", operator " + operator + ", lambda " + lambda
                    + ", preconditioner " + (jacobi ? "Jacobi" : "none") + ", tolerance " + tolerance);
            if (sweep != null) {
                String[] r = sweep.split("\\.\\.");
                int lo = Integer.parseInt(r[0].trim()), hi = Integer.parseInt(r[r.length - 1].trim());
                out.printf("%4s %10s %6s %10s %12s %12s %10s%n", "N", "DOFs", "iters", "time[s]", "max error", "L2 error", "rate");
                double prev = Double.NaN;
                for (int n = lo; n <= hi; n++) {
                    PoissonProblem.Solution s = solveOnce(backend, n, exact, jacobi, null);
                    double rate = Double.isNaN(prev) ? Double.NaN : prev / s.maxError();
                    out.printf("%4d %10d %6d %10.3f %12.3e %12.3e %10s%n", n, s.assembledDofs(), s.solve().iterations(),
                            s.solve().seconds(), s.maxError(), s.l2Error(), Double.isNaN(rate) ? "" : String.format("x%.1f", rate));
                    prev = s.maxError();
                }
                return 0;
            }
            long t0 = System.nanoTime();
            int[] last = {0};
            PoissonProblem.Solution s = solveOnce(backend, degree, exact, jacobi, it -> {
                if (it % 100 == 0 && it != last[0]) {
                    last[0] = it;
                    out.println("  ... CG iteration " + it);
                    out.flush();
                }
            });
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
                                              java.util.function.IntConsumer progress) throws java.io.IOException {
        SpectralElementMesh mesh = meshOptions.build(n);
        return new PoissonProblem(mesh, exact, operator).solve(backend, jacobi, tolerance, maxIterations,
                progress == null ? null : it -> {
                    if (it == 1 && profile) {
                        KernelTimes.start(backend); // from the second iteration on: no setup or first-launch costs
                    }
                    progress.accept(it);
                });
    }
}
