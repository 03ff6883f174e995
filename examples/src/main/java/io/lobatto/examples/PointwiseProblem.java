package io.lobatto.examples;

import java.util.Objects;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.geometry.GeometricFactors;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.PointwiseSetup;
import io.lobatto.core.pointwise.Quadrature;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledPointwiseOperator;
import io.lobatto.operators.BoundPointwiseOperator;
import io.lobatto.operators.PointwiseOperator;
import io.lobatto.operators.physics.Mass;
import io.lobatto.solvers.ConjugateGradient;
import io.lobatto.solvers.JacobiPreconditioner;
import io.lobatto.solvers.SolveResult;

/**
 * A linear problem given by a user operator (a {@link PointwiseFunction} with its {@link PointwiseSetup}) and a
 * {@link ManufacturedField}: A u = b with A = Z^T L Z ({@link AssembledPointwiseOperator}, every component masked on
 * the tagged boundary) and b = Z^T B^T (w |J| f) - Z^T L u_b, the load integrated with Gauss-Legendre quadrature
 * at the exact f (a pointwise mass with the factor w |J| f(x) applied to the field 1) and the Dirichlet data u_b
 * lifted through the unmasked Z. Solved by CG, with Jacobi ({@link AssembledPointwiseOperator#diagonal()}) or
 * without; errors as in {@link PoissonProblem}: max at the nodes, L2 by Gauss-Legendre quadrature, over all
 * components.
 */
public final class PointwiseProblem {

    /** The preconditioner of the CG solve. */
    public enum Preconditioning { NONE, JACOBI }

    /**
     * What a solve produced: the nodal solution and the exact one, component-blocked {@code [ncomp][N_nodes]} in
     * the mesh's global numbering, the errors over all components, the assembled DOFs ncomp N_G, and the setup
     * time (operator, load, lifting and preconditioner).
     */
    public record Solution(double[] u, double[] exact, int components, SolveResult solve, double maxError, double l2Error, int assembledDofs,
                           int elements, double setupSeconds) {
    }

    private final SpectralElementMesh mesh;
    private final PointwiseFunction function;
    private final Quadrature quadrature;
    private final PointwiseSetup setup;
    private final ManufacturedField exact;

    public PointwiseProblem(SpectralElementMesh mesh, PointwiseFunction function, Quadrature quadrature, PointwiseSetup setup,
                            ManufacturedField exact) {
        this.mesh = Objects.requireNonNull(mesh, "mesh");
        this.function = Objects.requireNonNull(function, "function");
        this.quadrature = Objects.requireNonNull(quadrature, "quadrature");
        this.setup = Objects.requireNonNull(setup, "setup");
        this.exact = Objects.requireNonNull(exact, "exact solution");
        if (exact.components() != function.components()) {
            throw new IllegalArgumentException("the solution has " + exact.components() + " components but " + function + " has "
                    + function.components());
        }
        if (mesh.hexMesh().tags().isEmpty()) {
            throw new IllegalArgumentException("the mesh has no tagged (Dirichlet) boundary face, so the problem is singular: "
                    + "tag at least one boundary face (a physical surface in Gmsh)");
        }
    }

    public SpectralElementMesh mesh() {
        return mesh;
    }

    /** Solves on {@code backend} with CG preconditioned by {@code pc} to the relative residual {@code tolerance}. */
    public Solution solve(Backend backend, Preconditioning pc, double tolerance, int maxIterations, IntConsumer progress,
                          ConjugateGradient.Monitor monitor) {
        long t0 = System.nanoTime();
        int ncomp = function.components();
        boolean[] mask = mesh.boundaryMaskAllTagged();
        ScatterOperator z = ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), mask);
        ScatterOperator zFull = ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), null);
        int nOrig = mesh.globalNodeCount();
        int nl = z.localSize();
        int ng = z.globalSize();
        double[] xyz = mesh.globalCoordinates();
        double[] uExact = new double[ncomp * nOrig];
        IntStream.range(0, nOrig).parallel().forEach(g -> {
            for (int c = 0; c < ncomp; c++) {
                uExact[c * nOrig + g] = exact.u(c, xyz[3 * g], xyz[3 * g + 1], xyz[3 * g + 2]);
            }
        });
        // the Dirichlet data u_b: the exact solution at the masked nodes, 0 elsewhere, element-local per component
        double[] gL = new double[ncomp * nl];
        boolean lift = false;
        for (int c = 0; c < ncomp; c++) {
            double[] gOrig = new double[nOrig];
            for (int g = 0; g < nOrig; g++) {
                if (mask[g]) {
                    gOrig[g] = uExact[c * nOrig + g];
                    lift |= gOrig[g] != 0;
                }
            }
            double[] block = new double[nl];
            zFull.scatter(zFull.toAssembled(gOrig), block);
            System.arraycopy(block, 0, gL, c * nl, nl);
        }
        PointwiseOperator a = PointwiseOperator.of(mesh, function, quadrature, setup);
        PointwiseOperator load = ncomp == 1
                ? PointwiseOperator.of(mesh, new Mass(), Quadrature.GAUSS, Mass.setup((x, y, zz) -> exact.f(0, x, y, zz)))
                : PointwiseOperator.of(mesh, new VectorLoad(), Quadrature.GAUSS, VectorLoad.setup(exact));
        double[] rhs;
        double[] u;
        SolveResult result;
        double setupSeconds;
        try (AssembledPointwiseOperator op = AssembledPointwiseOperator.bind(a, z, backend);
             BoundPointwiseOperator lb = load.bind(backend);
             DeviceVector ones = backend.allocate(ncomp * nl); DeviceVector tL = backend.allocate(ncomp * nl)) {
            backend.fill(ones, 1);
            lb.apply(ones, tL);                                        // B^T (w|J| f), per component
            rhs = gatherPerComponent(z, backend.download(tL), ncomp);  // Z^T B^T (w|J| f)
            if (lift) {
                backend.write(gL, ones);
                op.boundElementOperator().apply(ones, tL);             // L u_b
                double[] l = gatherPerComponent(z, backend.download(tL), ncomp);
                for (int i = 0; i < rhs.length; i++) {
                    rhs[i] -= l[i];
                }
            }
            try (DeviceVector b = backend.upload(rhs); DeviceVector x = backend.allocate(ncomp * ng);
                 JacobiPreconditioner m1 = pc == Preconditioning.JACOBI ? JacobiPreconditioner.ofDiagonal(backend, op.diagonal()) : null;
                 ConjugateGradient cg = new ConjugateGradient(op, m1).relativeTolerance(tolerance).maxIterations(maxIterations)) {
                setupSeconds = (System.nanoTime() - t0) * 1e-9;
                if (progress != null) {
                    cg.progress(progress);
                }
                if (monitor != null) {
                    cg.monitor(monitor);
                }
                result = cg.solve(b, x);
                double[] uG = backend.download(x);
                u = new double[ncomp * nOrig];
                double[] block = new double[ng];
                for (int c = 0; c < ncomp; c++) {
                    System.arraycopy(uG, c * ng, block, 0, ng);
                    double[] orig = z.fromAssembled(block, 0);
                    for (int g = 0; g < nOrig; g++) {
                        u[c * nOrig + g] = mask[g] ? uExact[c * nOrig + g] : orig[g];
                    }
                }
            }
        }
        double maxErr = QuadratureErrors.maxDifference(u, uExact);
        double[] wj = GeometricFactors.atGauss(mesh).jacobianWeights();
        double l2 = 0;
        double[] comp = new double[nOrig];
        for (int c = 0; c < ncomp; c++) {
            System.arraycopy(u, c * nOrig, comp, 0, nOrig);
            int cc = c;
            l2 += QuadratureErrors.l2Squared(mesh, comp, zFull, wj, (x, y, zz) -> exact.u(cc, x, y, zz));
        }
        return new Solution(u, uExact, ncomp, result, maxErr, Math.sqrt(l2), ncomp * ng, mesh.elementCount(), setupSeconds);
    }

    /** Z^T applied to each component block of {@code local} ({@code [ncomp][N_L]} -> {@code [ncomp][N_G]}), on the host. */
    static double[] gatherPerComponent(ScatterOperator z, double[] local, int ncomp) {
        int nl = z.localSize(), ng = z.globalSize();
        double[] out = new double[ncomp * ng];
        double[] in = new double[nl];
        double[] g = new double[ng];
        for (int c = 0; c < ncomp; c++) {
            System.arraycopy(local, c * nl, in, 0, nl);
            z.gather(in, g);
            System.arraycopy(g, 0, out, c * ng, ng);
        }
        return out;
    }

    /** A component-blocked nodal field {@code [3][N]} interleaved as (x, y, z) per node for {@link io.lobatto.core.io.VtuWriter#vector}. */
    static double[] interleave(double[] blocked, int ncomp) {
        int n = blocked.length / ncomp;
        double[] out = new double[blocked.length];
        for (int c = 0; c < ncomp; c++) {
            for (int i = 0; i < n; i++) {
                out[ncomp * i + c] = blocked[c * n + i];
            }
        }
        return out;
    }
}
