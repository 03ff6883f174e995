package io.lobatto.solvers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import org.junit.jupiter.api.Test;

import io.lobatto.backend.cpu.CpuBackend;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceOperator;
import io.lobatto.core.backend.DeviceVector;

/**
 * CG on diagonal operators, where the theory is exact: with k distinct eigenvalues CG converges in
 * k iterations, and Jacobi preconditioning of a diagonal operator converges in one.
 */
class ConjugateGradientTest {

    /** Shared by the tests and the property; daemon threads. */
    private static final Backend backend = new CpuBackend(2);

    /** A = diag(d) on the backend. */
    record Diagonal(Backend backend, DeviceVector d, int size) implements DeviceOperator {
        @Override
        public void apply(DeviceVector x, DeviceVector y) {
            backend.pointwiseMultiply(d, x, y);
        }
    }

    static double[] eigenvalues(int n, int distinct) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = 1 + (i % distinct) * 3.5;
        }
        return d;
    }

    @Test
    void convergesInAsManyIterationsAsDistinctEigenvalues() {
        qt().withExamples(20)
                .forAll(integers().between(1, 8), integers().between(20, 400))
                .checkAssert((distinct, n) -> {
            double[] d = eigenvalues(n, distinct);
            double[] b = new double[n];
            for (int i = 0; i < n; i++) {
                b[i] = Math.sin(i + 1.0) + 2;
            }
            try (DeviceVector dd = backend.upload(d); DeviceVector db = backend.upload(b); DeviceVector x = backend.allocate(n);
                 ConjugateGradient cg = new ConjugateGradient(new Diagonal(backend, dd, n)).relativeTolerance(1e-12)) {
                SolveResult r = cg.solve(db, x);
                assertTrue(r.converged(), r.toString());
                assertTrue(r.iterations() <= distinct, "iterations " + r.iterations() + " > distinct eigenvalues " + distinct);
                double[] xs = backend.download(x);
                for (int i = 0; i < n; i++) {
                    assertEquals(b[i] / d[i], xs[i], 1e-10);
                }
            }
        });
    }

    @Test
    void jacobiOnADiagonalOperatorConvergesInOneIteration() {
        int n = 100;
        double[] d = eigenvalues(n, 7);
        try (DeviceVector dd = backend.upload(d); DeviceVector db = backend.upload(d); DeviceVector x = backend.allocate(n);
             JacobiPreconditioner pc = JacobiPreconditioner.ofDiagonal(backend, d);
             ConjugateGradient cg = new ConjugateGradient(new Diagonal(backend, dd, n), pc)) {
            SolveResult r = cg.solve(db, x);
            assertEquals(1, r.iterations(), r.toString());
            for (double v : backend.download(x)) {
                assertEquals(1, v, 1e-14);
            }
        }
    }

    @Test
    void zeroRightHandSideAndBadArguments() {
        int n = 10;
        try (DeviceVector dd = backend.upload(eigenvalues(n, 3)); DeviceVector b = backend.allocate(n);
             DeviceVector x = backend.allocate(n); DeviceVector wrong = backend.allocate(n + 1);
             ConjugateGradient cg = new ConjugateGradient(new Diagonal(backend, dd, n))) {
            SolveResult r = cg.solve(b, x);
            assertEquals(StopReason.ZERO_RIGHT_HAND_SIDE, r.reason());
            assertEquals(0, r.iterations());
            assertThrows(IllegalArgumentException.class, () -> cg.solve(wrong, x));
            assertThrows(IllegalArgumentException.class, () -> cg.relativeTolerance(-1));
            assertThrows(IllegalArgumentException.class, () -> cg.maxIterations(-1));
            assertThrows(IllegalArgumentException.class, () -> JacobiPreconditioner.ofDiagonal(backend, new double[] {1, 0}));
        }
    }

    @Test
    void nanRightHandSideIsABreakdown() {
        int n = 10;
        double[] b = new double[n];
        b[3] = Double.NaN;
        try (DeviceVector dd = backend.upload(eigenvalues(n, 3)); DeviceVector db = backend.upload(b);
             DeviceVector x = backend.allocate(n); ConjugateGradient cg = new ConjugateGradient(new Diagonal(backend, dd, n))) {
            SolverBreakdownException ex = assertThrows(SolverBreakdownException.class, () -> cg.solve(db, x));
            assertEquals(SolverBreakdownException.Kind.NOT_FINITE, ex.kind());
        }
    }
}
