package io.lobatto.conformance;

import static io.lobatto.conformance.TestProblems.random;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.DenseReference;
import io.lobatto.operators.ElementOperator;
import io.lobatto.operators.StiffnessBp35;
import io.lobatto.solvers.ConjugateGradient;
import io.lobatto.solvers.JacobiPreconditioner;
import io.lobatto.solvers.SolveResult;
import io.lobatto.solvers.SolverBreakdownException;
import io.lobatto.solvers.StopReason;

/**
 * Conformance of the conjugate gradient solver on a backend: convergence to the requested tolerance
 * (checked with a true residual), agreement with a dense EJML direct solve, Jacobi PCG, breakdown on an
 * indefinite operator, and the fixed-iteration and max-iteration outcomes.
 */
public abstract class SolverConformance {

    /** The backend under test (shared; do not close). */
    protected abstract Backend backend();

    private static double trueResidual(Backend be, AssembledOperator a, DeviceVector b, DeviceVector x) {
        try (DeviceVector ax = be.allocate(a.size())) {
            a.apply(x, ax);
            be.axpby(1, b, -1, ax);
            return Math.sqrt(be.norm2(ax));
        }
    }

    @ParameterizedTest
    @EnumSource(ElementKernel.class)
    void solvesToTheRequestedTolerance(ElementKernel kernel) {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, 4);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        ElementOperator op = ElementOperatorConformance.make(kernel, mesh, 1.0);
        try (AssembledOperator a = AssembledOperator.bind(op, z, be); DeviceVector b = be.upload(random(a.size(), 11));
             DeviceVector x = be.allocate(a.size()); ConjugateGradient cg = new ConjugateGradient(a).relativeTolerance(1e-9)) {
            SolveResult r = cg.solve(b, x);
            assertEquals(StopReason.CONVERGED_RELATIVE, r.reason(), r.toString());
            assertTrue(r.finalResidual() <= 1e-9 * r.rhsNorm(), r.toString());
            double tr = trueResidual(be, a, b, x);
            assertTrue(tr <= 1e-8 * r.rhsNorm(), "true residual " + tr + " vs |b| " + r.rhsNorm());
        }
    }

    @ParameterizedTest
    @EnumSource(ElementKernel.class)
    void matchesADenseDirectSolve(ElementKernel kernel) {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(2, 2, 1, 3);
        ScatterOperator z = TestProblems.partlyMasked(mesh);
        ElementOperator op = ElementOperatorConformance.make(kernel, mesh, 0.5);
        double[] rhs = random(z.globalSize(), 23);
        DMatrixRMaj dense = DenseReference.assembledMatrix(op, z, 0);
        DMatrixRMaj sol = new DMatrixRMaj(rhs.length, 1);
        assertTrue(CommonOps_DDRM.solve(dense, new DMatrixRMaj(rhs.length, 1, true, rhs), sol));
        try (AssembledOperator a = AssembledOperator.bind(op, z, be); DeviceVector b = be.upload(rhs);
             DeviceVector x = be.allocate(a.size());
             ConjugateGradient cg = new ConjugateGradient(a, null).relativeTolerance(1e-14).maxIterations(5000)) {
            SolveResult r = cg.solve(b, x);
            double err = TestProblems.relativeError(be.download(x), sol.data);
            assertTrue(err < 1e-10, kernel + ": relative difference to the direct solve " + err + " (" + r + ")");
        }
    }

    @Test
    void jacobiNeedsNoMoreIterationsOnAStronglyDeformedMesh() {
        Backend be = backend();
        HexMesh box = HexMesh.box(4, 3, 3, 0, 4, 0, 1, 0, 0.5);
        // strongly deformed and stretched: node spacing varies a lot, so the diagonal varies a lot
        NodeMap stretch = (x0, x) -> {
            x[0] = x0[0] * x0[0] * x0[0] / 16 + 0.02 * x0[0];
            x[1] = x0[1] + 0.15 * Math.sin(Math.PI * x0[0] / 4) * Math.sin(Math.PI * x0[1]);
            x[2] = x0[2] * (1 + 3 * x0[1]);
        };
        SpectralElementMesh mesh = SpectralElementMesh.of(box, 5, stretch);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        ElementOperator op = StiffnessBp35.on(mesh, 0);
        try (AssembledOperator a = AssembledOperator.bind(op, z, be); DeviceVector b = be.upload(random(a.size(), 3));
             DeviceVector x1 = be.allocate(a.size()); DeviceVector x2 = be.allocate(a.size());
             JacobiPreconditioner jacobi = JacobiPreconditioner.of(a);
             ConjugateGradient cg = new ConjugateGradient(a).relativeTolerance(1e-8);
             ConjugateGradient pcg = new ConjugateGradient(a, jacobi).relativeTolerance(1e-8)) {
            SolveResult plain = cg.solve(b, x1);
            SolveResult pre = pcg.solve(b, x2);
            assertTrue(plain.converged() && pre.converged(), plain + " / " + pre);
            assertTrue(pre.iterations() <= plain.iterations(), "PCG " + pre.iterations() + " > CG " + plain.iterations());
            assertTrue(TestProblems.relativeError(be.download(x2), be.download(x1)) < 1e-5);
        }
    }

    @Test
    void indefiniteOperatorBreaksDownWithTheDocumentedError() {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(2, 2, 2, 3);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        // S + lambda M with lambda far below -lambda_min(M^-1 S): indefinite
        try (AssembledOperator a = AssembledOperator.bind(StiffnessBp35.on(mesh, -500), z, be);
             DeviceVector b = be.upload(random(a.size(), 5)); DeviceVector x = be.allocate(a.size());
             ConjugateGradient cg = new ConjugateGradient(a)) {
            SolverBreakdownException ex = assertThrows(SolverBreakdownException.class, () -> cg.solve(b, x));
            assertEquals(SolverBreakdownException.Kind.NOT_POSITIVE_DEFINITE, ex.kind());
            assertTrue(ex.value() <= 0 && ex.iteration() >= 1, ex.getMessage());
        }
    }

    @Test
    void fixedIterationsAndMaxIterationsAreReported() {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(2, 2, 2, 4);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        try (AssembledOperator a = AssembledOperator.bind(StiffnessBp35.on(mesh, 0), z, be, 0.1);
             DeviceVector b = be.upload(random(a.size(), 8)); DeviceVector x = be.allocate(a.size());
             ConjugateGradient cg = new ConjugateGradient(a)) {
            SolveResult fixed = cg.fixedIterations(17).recordHistory(true).solve(b, x);
            assertEquals(17, fixed.iterations());
            assertEquals(StopReason.FIXED_ITERATIONS, fixed.reason());
            assertEquals(18, fixed.residualHistory().length);
            assertTrue(fixed.residualHistory()[17] < fixed.residualHistory()[0]);
            be.fill(x, 0);
            SolveResult capped = cg.fixedIterations(-1).relativeTolerance(1e-30).maxIterations(5).solve(b, x);
            assertEquals(StopReason.MAX_ITERATIONS, capped.reason());
            assertEquals(5, capped.iterations());
        }
    }
}
