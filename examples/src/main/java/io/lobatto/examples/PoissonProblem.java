package io.lobatto.examples;

import java.util.Objects;
import java.util.stream.IntStream;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceGeometry;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.backend.ErrorNorms;
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
import io.lobatto.solvers.SetupPhases;
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
    public record Solution(NodalFields fields, SolveResult solve, double maxError, double l2Error,
                           int assembledDofs, int elements, double setupSeconds, double preconditionerSetupSeconds,
                           java.util.List<PMultigrid.LevelInfo> levels) {

        /** The solution per original global node, Dirichlet nodes set to g (made on first use). */
        public double[] u() {
            return fields.u();
        }

        /** The exact solution per original global node (made on first use). */
        public double[] exact() {
            return fields.exact();
        }
    }

    /**
     * The nodal solution and the exact one in the original global numbering, made on the host on first use (output
     * such as VTU files needs them; the errors do not, where the backend computes them).
     */
    public static final class NodalFields {
        private final java.util.function.Supplier<double[][]> make;
        private double[][] made;

        NodalFields(java.util.function.Supplier<double[][]> make) {
            this.make = make;
        }

        /** The solution per original global node. */
        public synchronized double[] u() {
            return fields()[0];
        }

        /** The exact solution per original global node. */
        public synchronized double[] exact() {
            return fields()[1];
        }

        private double[][] fields() {
            if (made == null) {
                made = make.get();
            }
            return made;
        }
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
        return solve(backend, pc, pmg, tolerance, maxIterations, progress, monitor, new SetupPhases());
    }

    /**
     * As {@link #solve(Backend, Preconditioning, java.util.function.UnaryOperator, double, int,
     * java.util.function.IntConsumer, ConjugateGradient.Monitor)}, recording the setup by phase into {@code phases}
     * (which may hold the mesh's phases already: they count into {@link Solution#setupSeconds()}). Where the mesh's
     * geometry is device-computable ({@link SpectralElementMesh#elementGeometry()}), the geometric factors, the Jacobi
     * diagonals, f and g are computed by the backend: the host builds only the numbering, the mask and Z.
     */
    public Solution solve(Backend backend, Preconditioning pc, java.util.function.UnaryOperator<PMultigrid.Builder> pmg,
                          double tolerance, int maxIterations, java.util.function.IntConsumer progress,
                          ConjugateGradient.Monitor monitor, SetupPhases phases) {
        backend.prepare(operator == Operator.BP35 ? ElementKernel.STIFFNESS_BP35 : ElementKernel.STIFFNESS_BP30,
                pc == Preconditioning.PMG ? pmgBuilder(pmg, backend).schedule() : new int[] {mesh.degree()},
                mesh.elementGeometry().orElse(null), exact.rightHandSide(), exact.solution());   // kernel builds start now
        double before = phases.totalSeconds();
        long t0 = System.nanoTime();
        boolean[] mask = phases.time("mask", mesh::boundaryMaskAllTagged);
        DeviceScatter z = phases.time("Z", () -> ScatterOperator.buildOn(backend, mesh, mask));   // where the operator runs
        double lambda = exact.lambda();
        ElementOperator a = operator == Operator.BP35 ? StiffnessBp35.on(mesh, lambda) : StiffnessBp30.on(mesh, lambda);
        MassOperator m = MassOperator.on(mesh);
        boolean onDevice = mesh.elementGeometry().isPresent();

        SolveResult result;
        double setup;
        double pcSetup;
        java.util.List<PMultigrid.LevelInfo> levels;
        DeviceGeometry geometry;
        try {
            geometry = onDevice ? backend.uploadGeometry(mesh.elementGeometry().orElseThrow()) : null;
        } catch (RuntimeException e) {
            z.close();
            throw e;
        }
        try (geometry;
             AssembledOperator op = phases.time("geometry", () -> AssembledOperator.bind(a, z, mesh, mask, backend));
             BoundElementOperator mb = phases.time("geometry", () -> m.bind(backend));
             DeviceVector dfL = backend.allocate(z.localSize()); DeviceVector dgL = backend.allocate(z.localSize());
             DeviceVector tL = backend.allocate(z.localSize()); DeviceVector sL = backend.allocate(z.localSize());
             DeviceVector b = backend.allocate(z.globalSize()); DeviceVector lift = backend.allocate(z.globalSize());
             DeviceVector x = backend.allocate(z.globalSize())) {
            long tPc = System.nanoTime();
            Preconditioner m1 = preconditioner(pc, pmg, op, backend, phases);
            pcSetup = (System.nanoTime() - tPc) * 1e-9;
            try (m1;
                 ConjugateGradient cg = new ConjugateGradient(op, m1).relativeTolerance(tolerance).maxIterations(maxIterations)) {
                long tRhs = System.nanoTime();
                if (onDevice) {
                    devicePointData(backend, geometry, op.deviceScatter(), dfL, dgL, tL);
                } else {
                    hostPointData(backend, op.scatterOperator(), mask, dfL, dgL);
                }
                mb.apply(dfL, tL);                                       // M f
                backend.gather(op.deviceScatter(), tL, b);               // Z^T M f
                op.boundElementOperator().apply(dgL, sL);                // (S + λM) u_b
                backend.gather(op.deviceScatter(), sL, lift);            // Z^T (S + λM) u_b
                backend.axpby(-1, lift, 1, b);
                backend.synchronize();
                phases.add("right-hand side", System.nanoTime() - tRhs);
                setup = before + (System.nanoTime() - t0) * 1e-9;
                phases.add("other", Math.max(0, Math.round((setup - phases.totalSeconds()) * 1e9)));
                if (progress != null) {
                    cg.progress(progress);
                }
                if (monitor != null) {
                    cg.monitor(monitor);
                }
                result = cg.solve(b, x);
                levels = m1 instanceof PMultigrid p ? p.levels() : java.util.List.of();
            }
            double[] uG = backend.download(x);
            if (onDevice) {
                backend.scatter(op.deviceScatter(), x, tL);                 // Z u
                backend.axpby(1, dgL, 1, tL);                               // u_L = Z u + g
                ErrorNorms norms = backend.errorNorms(geometry, mesh.basis(), tL, exact.solution());
                NodalFields fields = new NodalFields(() -> nodalFields(uG, ScatterOperator.of(mesh, mask), mask));
                return new Solution(fields, result, norms.max(), norms.l2(), z.globalSize(), mesh.elementCount(), setup,
                        pcSetup, levels);
            }
            return errors(uG, op.scatterOperator(), mask, m, result, setup, pcSetup, levels);
        }
    }

    /** u and the exact solution per original global node, Dirichlet nodes set to the exact values (host, element by element). */
    private double[][] nodalFields(double[] uG, ScatterOperator z, boolean[] mask) {
        double[] u = z.fromAssembled(uG, 0);
        double[] uExact = QuadratureErrors.exactAtNodes(mesh.elementGeometry().orElseThrow(), mesh.basis(), mesh.localToGlobal(),
                mesh.globalNodeCount(), exact::u);
        for (int g = 0; g < u.length; g++) {
            if (mask[g]) {
                u[g] = uExact[g];
            }
        }
        return new double[][] {u, uExact};
    }

    /**
     * f and the Dirichlet data g = u at the masked nodes as element-local vectors, evaluated by the backend at the
     * nodes' positions: gL = u_L - u_L * (Z 1), since Z 1 is 1 at the copies of unmasked nodes and 0 at masked ones.
     */
    private void devicePointData(Backend backend, DeviceGeometry g, DeviceScatter z, DeviceVector fL, DeviceVector gL,
                                 DeviceVector work) {
        try (DeviceVector ones = backend.allocate(z.globalSize()); DeviceVector u = backend.allocate(gL.length())) {
            backend.evaluate(g, mesh.basis(), exact.rightHandSide(), fL);
            backend.evaluate(g, mesh.basis(), exact.solution(), u);
            backend.fill(ones, 1);
            backend.scatter(z, ones, work);                // Z 1
            backend.pointwiseMultiply(work, u, gL);        // u (Z 1)
            backend.axpby(1, u, -1, gL);                   // u - u (Z 1)
        }
    }

    /** f and g on the host (the mesh's node map runs only there), through the unmasked Z. */
    private void hostPointData(Backend backend, ScatterOperator z, boolean[] mask, DeviceVector fL, DeviceVector gL) {
        ScatterOperator zFull = ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), null);
        int nOrig = mesh.globalNodeCount();
        double[] xyz = mesh.globalCoordinates();
        double[] fOrig = new double[nOrig];
        double[] gOrig = new double[nOrig];
        IntStream.range(0, nOrig).parallel().forEach(g -> {
            double x = xyz[3 * g], y = xyz[3 * g + 1], zz = xyz[3 * g + 2];
            fOrig[g] = exact.f(x, y, zz);
            gOrig[g] = mask[g] ? exact.u(x, y, zz) : 0;
        });
        double[] l = new double[zFull.localSize()];
        zFull.scatter(zFull.toAssembled(fOrig), l);
        backend.write(l, fL);
        zFull.scatter(zFull.toAssembled(gOrig), l);
        backend.write(l, gL);
    }

    /**
     * The solution in the original numbering (Dirichlet nodes set to g) and its errors on the host, from the mesh's
     * positions: the path of a mesh whose node map runs only on the host (with an element geometry the backend computes
     * the errors, {@link Backend#errorNorms}).
     */
    private Solution errors(double[] uG, ScatterOperator z, boolean[] mask, MassOperator m, SolveResult result, double setup,
                            double pcSetup, java.util.List<PMultigrid.LevelInfo> levels) {
        int nOrig = mesh.globalNodeCount();
        double[] u = z.fromAssembled(uG, 0);
        double[] xyz = mesh.globalCoordinates();
        double[] uExact = new double[nOrig];
        IntStream.range(0, nOrig).parallel().forEach(g -> uExact[g] = exact.u(xyz[3 * g], xyz[3 * g + 1], xyz[3 * g + 2]));
        for (int g = 0; g < nOrig; g++) {
            if (mask[g]) {
                u[g] = uExact[g];
            }
        }
        ScatterOperator zFull = ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), null);
        double l2 = Math.sqrt(QuadratureErrors.l2Squared(mesh, u, zFull, m.geometricFactors().jacobianWeights(), exact::u));
        double maxErr = QuadratureErrors.maxDifference(u, uExact);
        double[][] fields = {u, uExact};
        return new Solution(new NodalFields(() -> fields), result, maxErr, l2, z.globalSize(), mesh.elementCount(), setup,
                pcSetup, levels);
    }

    /** The preconditioner {@code pc} of {@code op} (null for none); p-multigrid levels use this problem's operator kind. */
    private Preconditioner preconditioner(Preconditioning pc, java.util.function.UnaryOperator<PMultigrid.Builder> pmg,
                                          AssembledOperator op, Backend backend, SetupPhases phases) {
        return switch (pc) {
            case NONE -> null;
            case JACOBI -> phases.time("diagonals", () -> JacobiPreconditioner.of(op));
            case PMG -> pmgBuilder(pmg, backend).fineOperator(op).phases(phases).build();
        };
    }

    /** The p-multigrid builder of this problem's operator kind, customised by {@code pmg} (null: the defaults). */
    private PMultigrid.Builder pmgBuilder(java.util.function.UnaryOperator<PMultigrid.Builder> pmg, Backend backend) {
        double lambda = exact.lambda();
        PMultigrid.Builder b = PMultigrid.builder(m -> operator == Operator.BP35 ? StiffnessBp35.on(m, lambda)
                : StiffnessBp30.on(m, lambda), mesh, backend);
        return pmg == null ? b : pmg.apply(b);
    }
}
