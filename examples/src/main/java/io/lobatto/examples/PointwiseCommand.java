package io.lobatto.examples;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.Backends;
import io.lobatto.core.io.VtuWriter;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.core.pointwise.Quadrature;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What the user-operator commands ({@code diffusion}, {@code elasticity}) share: the options, one solve with its
 * report, the convergence table over N ({@code --sweep}) and the VTU output. A subcommand says which
 * {@link PointwiseProblem} to solve on a mesh.
 */
abstract class PointwiseCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    final BackendOptions backendOptions = new BackendOptions();

    @Mixin
    final MeshOptions meshOptions = new MeshOptions();

    @Option(names = {"-N", "--degree"}, defaultValue = "7",
            description = "polynomial degree N: " + CliChecks.DEGREE_RANGE + ". Default: ${DEFAULT-VALUE}")
    int degree;

    @Option(names = "--quadrature", defaultValue = "GAUSS",
            description = "GAUSS (N+2 Gauss-Legendre points per direction) or GLL (collocation at the N+1 nodes), any case. "
                    + "Default: ${DEFAULT-VALUE}")
    Quadrature quadrature;

    @Option(names = "--pc", defaultValue = "jacobi", description = "preconditioner: jacobi or none, any case. Default: ${DEFAULT-VALUE}")
    PointwiseProblem.Preconditioning preconditioner;

    @Option(names = "--tol", defaultValue = "1e-10", description = "relative residual tolerance. Default: ${DEFAULT-VALUE}")
    double tolerance;

    @Option(names = "--max-it", defaultValue = "10000", description = "maximum CG iterations. Default: ${DEFAULT-VALUE}")
    int maxIterations;

    @Option(names = "--sweep", arity = "0..1", fallbackValue = "1..8", converter = DegreeRange.Converter.class,
            description = "convergence table over N (range lo..hi or one N, default 1..8) on the same mesh")
    DegreeRange sweep;

    @Option(names = "--vtu", description = "write the solution, exact solution and error to this .vtu file")
    Path vtu;

    /** The command's name for the report. */
    abstract String name();

    /** Checks the physics options; throws {@link IllegalArgumentException} with what to change. */
    abstract void checkPhysics();

    /** One line describing the physics (coefficients, operator). */
    abstract String describePhysics();

    /** The problem on {@code mesh}. */
    abstract PointwiseProblem problem(SpectralElementMesh mesh);

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        int lo = sweep != null ? sweep.lo() : degree, hi = sweep != null ? sweep.hi() : degree;
        CliChecks.requireDegree(lo, null);
        CliChecks.requireDegree(hi, null);
        if (!(tolerance >= 0)) {
            throw new IllegalArgumentException("--tol must be >= 0, got " + tolerance);
        }
        if (maxIterations < 1) {
            throw new IllegalArgumentException("--max-it must be >= 1, got " + maxIterations);
        }
        checkPhysics();
        if (meshOptions.hexMesh().tags().isEmpty()) {
            throw new IllegalArgumentException("the mesh has no tagged (Dirichlet) boundary face, so the problem is singular: "
                    + "tag at least one boundary face (a physical surface in Gmsh)");
        }
        if (vtu != null && sweep == null) {
            CliChecks.requireWritable(vtu, "--vtu");
        }
        try (Backend backend = backendOptions.create()) {
            CliChecks.requireDegree(hi, backend);
            out.println("lobatto " + name() + ": " + Backends.describe(backend));
            out.println("mesh: " + meshOptions.describe() + ", " + describePhysics() + ", " + quadrature + " quadrature, preconditioner "
                    + (preconditioner == PointwiseProblem.Preconditioning.JACOBI ? "Jacobi" : "none") + ", tolerance " + tolerance);
            if (sweep != null) {
                out.printf("%4s %10s %6s %10s %12s %12s %10s%n", "N", "DOFs", "iters", "time[s]", "max error", "L2 error", "rate");
                double prev = Double.NaN;
                boolean converged = true;
                for (int n = lo; n <= hi; n++) {
                    PointwiseProblem.Solution s = solveOnce(backend, n, out, "N = " + n + ": ");
                    double rate = Double.isNaN(prev) ? Double.NaN : prev / s.maxError();
                    out.printf("%4d %10d %6d %10.3f %12.3e %12.3e %10s%n", n, s.assembledDofs(), s.solve().iterations(),
                            s.solve().seconds(), s.maxError(), s.l2Error(), Double.isNaN(rate) ? "" : String.format("x%.1f", rate));
                    prev = s.maxError();
                    converged &= s.solve().converged();
                }
                return converged ? 0 : 2;
            }
            long t0 = System.nanoTime();
            PointwiseProblem.Solution s = solveOnce(backend, degree, out, "");
            out.printf("N = %d, elements = %d, DOFs = %d (%d component%s x %d assembled nodes, Dirichlet nodes excluded)%n", degree,
                    s.elements(), s.assembledDofs(), s.components(), s.components() == 1 ? "" : "s",
                    s.assembledDofs() / s.components());
            out.printf("CG: %s after %d iterations, residual %.3e -> %.3e%n", s.solve().reason(), s.solve().iterations(),
                    s.solve().initialResidual(), s.solve().finalResidual());
            out.printf("time: setup %.3f s, solve %.3f s (%.3f ms per iteration), total %.3f s%n", s.setupSeconds(),
                    s.solve().seconds(), 1e3 * s.solve().secondsPerIteration(), (System.nanoTime() - t0) * 1e-9);
            out.printf("error: max %.3e, L2 %.3e%n", s.maxError(), s.l2Error());
            if (vtu != null) {
                writeVtu(meshOptions.build(degree), s);
                out.println("wrote " + vtu);
            }
            return s.solve().converged() ? 0 : 2;
        }
    }

    private PointwiseProblem.Solution solveOnce(Backend backend, int n, PrintWriter out, String label) throws java.io.IOException {
        SpectralElementMesh mesh = meshOptions.build(n);
        try (SolveProgress progress = SolveProgress.onTerminal(out, label, maxIterations)) {
            return problem(mesh).solve(backend, preconditioner, tolerance, maxIterations, null, progress);
        }
    }

    /** u, u_exact and the error: scalar fields for one component, 3-vector fields for three. */
    private void writeVtu(SpectralElementMesh mesh, PointwiseProblem.Solution s) throws java.io.IOException {
        int ncomp = s.components();
        double[] err = new double[s.u().length];
        for (int i = 0; i < err.length; i++) {
            err[i] = s.u()[i] - s.exact()[i];
        }
        VtuWriter w = new VtuWriter(mesh);
        if (ncomp == 1) {
            w.scalar("u", s.u()).scalar("u_exact", s.exact()).scalar("error", err);
        } else {
            w.vector("u", PointwiseProblem.interleave(s.u(), ncomp)).vector("u_exact", PointwiseProblem.interleave(s.exact(), ncomp))
                    .vector("error", PointwiseProblem.interleave(err, ncomp));
        }
        w.write(vtu);
    }
}
