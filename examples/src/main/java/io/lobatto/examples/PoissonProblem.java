package io.lobatto.examples;

import java.util.Objects;
import java.util.stream.IntStream;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.geometry.GeometricFactors;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.BoundElementOperator;
import io.lobatto.operators.ElementOperator;
import io.lobatto.operators.MassOperator;
import io.lobatto.operators.StiffnessBp30;
import io.lobatto.operators.StiffnessBp35;
import io.lobatto.solvers.ConjugateGradient;
import io.lobatto.solvers.JacobiPreconditioner;
import io.lobatto.solvers.PMultigrid;
import io.lobatto.solvers.Preconditioner;
import io.lobatto.solvers.SolveResult;

/**
 * The screened Poisson problem -Δu + λu = f with Dirichlet data u = g on the tagged boundary, in the
 * weak form Z^T (S + λM) Z u_G = Z^T M f - Z^T (S + λM) u_b: the right-hand side is integrated with the
 * BP1.0 mass matrix (Gauss-Legendre quadrature) and the Dirichlet data is lifted through the unmasked
 * scatter operator. Solved by (Jacobi-preconditioned) CG on a backend; errors against the exact solution
 * are measured at the GLL nodes (max) and with Gauss-Legendre quadrature (L2).
 */
public final class PoissonProblem {

    /** Which stiffness operator discretises -Δ + λ. */
    public enum Operator { BP35, BP30 }

    /** The preconditioner of the CG solve. */
    public enum Preconditioning { NONE, JACOBI, PMG }

    /**
     * What a solve produced: the nodal solution (original global numbering) and its errors; {@code setupSeconds} covers
     * the operators, the right-hand side and the preconditioner, of which {@code preconditionerSetupSeconds} is the
     * preconditioner's; {@code levels} describes the p-multigrid levels (empty for the other preconditioners).
     */
    public record Solution(double[] u, double[] exact, SolveResult solve, double maxError, double l2Error,
                           int assembledDofs, int elements, double setupSeconds, double preconditionerSetupSeconds,
                           java.util.List<PMultigrid.LevelInfo> levels) {
    }

    private final SpectralElementMesh mesh;
    private final ManufacturedSolution exact;
    private final Operator operator;

    public PoissonProblem(SpectralElementMesh mesh, ManufacturedSolution exact, Operator operator) {
        this.mesh = Objects.requireNonNull(mesh, "mesh");
        this.exact = Objects.requireNonNull(exact, "exact solution");
        this.operator = Objects.requireNonNull(operator, "operator");
        requireWellPosed(mesh.hexMesh(), exact.lambda());
    }

    /**
     * Checks that -Δu + λu = f with Dirichlet data on the tagged faces of {@code mesh} has a unique solution:
     * {@code λ >= 0}, and {@code λ > 0} unless at least one face is tagged (with no Dirichlet face and λ = 0 the operator has the
     * constants in its kernel and CG breaks down). Cheap: meant for before any assembly or solve.
     *
     * @throws IllegalArgumentException with what to change
     */
    public static void requireWellPosed(io.lobatto.core.mesh.HexMesh mesh, double lambda) {
        if (!(lambda >= 0)) {
            throw new IllegalArgumentException("λ must be >= 0 for CG (the operator -Δ + λ must be positive definite), got " + lambda);
        }
        if (lambda == 0 && mesh.tags().isEmpty()) {
            throw new IllegalArgumentException("the mesh has no tagged (Dirichlet) boundary face and λ = 0, so the problem is "
                    + "singular (u is defined only up to a constant): tag at least one boundary face (a physical surface "
                    + "in Gmsh) or use λ > 0 (--lambda)");
        }
    }

    public SpectralElementMesh mesh() {
        return mesh;
    }

    /** Solves on {@code backend} with CG (Jacobi-preconditioned when {@code jacobi}) to {@code tolerance}. */
    public Solution solve(Backend backend, boolean jacobi, double tolerance, int maxIterations,
                          java.util.function.IntConsumer progress) {
        return solve(backend, jacobi, tolerance, maxIterations, progress, null);
    }

    /** As {@link #solve(Backend, boolean, double, int, java.util.function.IntConsumer)}, with a residual monitor (may be null). */
    public Solution solve(Backend backend, boolean jacobi, double tolerance, int maxIterations,
                          java.util.function.IntConsumer progress, ConjugateGradient.Monitor monitor) {
        return solve(backend, jacobi ? Preconditioning.JACOBI : Preconditioning.NONE, null, tolerance, maxIterations, progress, monitor);
    }

    /**
     * Solves on {@code backend} with CG preconditioned by {@code pc} to {@code tolerance}. For {@link Preconditioning#PMG}
     * the V-cycle comes from {@code pmg} (a customised builder's settings: schedule, order; may be null for the defaults)
     * applied to this problem's operator; the levels are timed when {@code timeLevels}.
     */
    public Solution solve(Backend backend, Preconditioning pc, java.util.function.UnaryOperator<PMultigrid.Builder> pmg,
                          double tolerance, int maxIterations, java.util.function.IntConsumer progress,
                          ConjugateGradient.Monitor monitor) {
        long t0 = System.nanoTime();
        boolean[] mask = mesh.boundaryMaskAllTagged();
        ScatterOperator z = ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), mask);
        ScatterOperator zFull = ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), null);
        double lambda = exact.lambda();
        GeometricFactors gl = GeometricFactors.atGauss(mesh); // the mass operator's, and BP3.0's
        ElementOperator a = operator == Operator.BP35 ? StiffnessBp35.on(mesh, lambda)
                : new StiffnessBp30(mesh.basis(), gl, lambda);
        MassOperator m = new MassOperator(mesh.basis(), gl);

        int nOrig = mesh.globalNodeCount();
        double[] xyz = mesh.globalCoordinates();
        double[] fOrig = new double[nOrig];
        double[] gOrig = new double[nOrig];
        double[] uExact = new double[nOrig];
        IntStream.range(0, nOrig).parallel().forEach(g -> {
            double x = xyz[3 * g], y = xyz[3 * g + 1], zz = xyz[3 * g + 2];
            fOrig[g] = exact.f(x, y, zz);
            uExact[g] = exact.u(x, y, zz);
            gOrig[g] = mask[g] ? uExact[g] : 0;
        });
        double[] fL = new double[zFull.localSize()];
        double[] gL = new double[zFull.localSize()];
        zFull.scatter(zFull.toAssembled(fOrig), fL);
        zFull.scatter(zFull.toAssembled(gOrig), gL);

        double[] u;
        SolveResult result;
        double setup;
        double pcSetup;
        long[] pcNanos = new long[1];
        java.util.List<PMultigrid.LevelInfo> levels;
        try (AssembledOperator op = AssembledOperator.bind(a, z, backend);
             BoundElementOperator mb = m.bind(backend);
             DeviceVector dfL = backend.upload(fL); DeviceVector dgL = backend.upload(gL);
             DeviceVector tL = backend.allocate(z.localSize()); DeviceVector sL = backend.allocate(z.localSize());
             DeviceVector b = backend.allocate(z.globalSize()); DeviceVector lift = backend.allocate(z.globalSize());
             DeviceVector x = backend.allocate(z.globalSize());
             Preconditioner m1 = timed(() -> preconditioner(pc, pmg, op, backend), pcNanos);
             ConjugateGradient cg = new ConjugateGradient(op, m1).relativeTolerance(tolerance).maxIterations(maxIterations)) {
            mb.apply(dfL, tL);                                       // M f
            backend.gather(op.deviceScatter(), tL, b);               // Z^T M f
            op.boundElementOperator().apply(dgL, sL);                // (S + λM) u_b
            backend.gather(op.deviceScatter(), sL, lift);            // Z^T (S + λM) u_b
            backend.axpby(-1, lift, 1, b);
            setup = (System.nanoTime() - t0) * 1e-9;
            pcSetup = pcNanos[0] * 1e-9;
            if (progress != null) {
                cg.progress(progress);
            }
            if (monitor != null) {
                cg.monitor(monitor);
            }
            result = cg.solve(b, x);
            levels = m1 instanceof PMultigrid p ? p.levels() : java.util.List.of();
            double[] uG = backend.download(x);
            u = z.fromAssembled(uG, 0);
            for (int g = 0; g < nOrig; g++) {
                if (mask[g]) {
                    u[g] = uExact[g];
                }
            }
        }
        double maxErr = QuadratureErrors.maxDifference(u, uExact);
        double l2 = Math.sqrt(QuadratureErrors.l2Squared(mesh, u, zFull, m.geometricFactors().jacobianWeights(), exact::u));
        return new Solution(u, uExact, result, maxErr, l2, z.globalSize(), mesh.elementCount(), setup, pcSetup, levels);
    }

    private static <T> T timed(java.util.function.Supplier<T> make, long[] nanos) {
        long t0 = System.nanoTime();
        T t = make.get();
        nanos[0] = System.nanoTime() - t0;
        return t;
    }

    /** The preconditioner {@code pc} of {@code op} (null for none); p-multigrid levels use this problem's operator kind. */
    private Preconditioner preconditioner(Preconditioning pc, java.util.function.UnaryOperator<PMultigrid.Builder> pmg,
                                          AssembledOperator op, Backend backend) {
        double lambda = exact.lambda();
        return switch (pc) {
            case NONE -> null;
            case JACOBI -> JacobiPreconditioner.of(op);
            case PMG -> {
                PMultigrid.Builder b = PMultigrid.builder(m -> operator == Operator.BP35 ? StiffnessBp35.on(m, lambda)
                        : new StiffnessBp30(m.basis(), GeometricFactors.atGauss(m), lambda), mesh, backend).fineOperator(op);
                yield (pmg == null ? b : pmg.apply(b)).build();
            }
        };
    }
}
