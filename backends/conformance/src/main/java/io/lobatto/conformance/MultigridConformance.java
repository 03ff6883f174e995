package io.lobatto.conformance;

import static io.lobatto.conformance.TestProblems.random;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import org.junit.jupiter.api.Test;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceTransfer;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.ElementOperator;
import io.lobatto.operators.StiffnessBp35;
import io.lobatto.solvers.ConjugateGradient;
import io.lobatto.solvers.PMultigrid;
import io.lobatto.solvers.SolveResult;
import io.lobatto.solvers.StopReason;

/**
 * Conformance of p-multigrid on a backend: the transfer kernels (prolongation P = Z_f^T W_f J Z_c interpolates
 * polynomials of the coarse degree exactly; restriction is its adjoint, x_c . R r_f = P x_c . r_f; both agree with
 * the Java reference) and the V-cycle B of {@link PMultigrid} (symmetric x . B y = y . B x, positive definite, a
 * two-grid error reduction below 0.3 per cycle, PCG with B in at most 25 iterations on a 4^3 N = 7 problem).
 */
public abstract class MultigridConformance {

    /** The backend under test (shared; do not close). */
    protected abstract Backend backend();

    private static ScatterOperator scatter(SpectralElementMesh mesh, int maskKind) {
        return maskKind == 0 ? TestProblems.unmasked(mesh) : maskKind == 1 ? TestProblems.partlyMasked(mesh)
                : TestProblems.dirichlet(mesh);
    }

    /** P x_c on {@code be}, on the host. */
    private static double[] prolongate(Backend be, SpectralElementMesh coarse, ScatterOperator zc, SpectralElementMesh fine,
                                       ScatterOperator zf, double[] xc) {
        try (DeviceTransfer t = be.uploadTransfer(coarse.basis(), fine.basis(), fine.elementCount());
             var dzc = upload(be, zc); var dzf = upload(be, zf);
             DeviceVector x = be.upload(xc); DeviceVector work = be.allocate(zf.localSize());
             DeviceVector y = be.allocate(zf.globalSize())) {
            be.prolongate(t, dzc, dzf, x, work, y);
            return be.download(y);
        }
    }

    /** R r_f on {@code be}, on the host. */
    private static double[] restrict(Backend be, SpectralElementMesh coarse, ScatterOperator zc, SpectralElementMesh fine,
                                     ScatterOperator zf, double[] rf) {
        try (DeviceTransfer t = be.uploadTransfer(coarse.basis(), fine.basis(), fine.elementCount());
             var dzc = upload(be, zc); var dzf = upload(be, zf);
             DeviceVector r = be.upload(rf); DeviceVector work = be.allocate(zc.localSize());
             DeviceVector y = be.allocate(zc.globalSize())) {
            be.restrict(t, dzf, dzc, r, work, y);
            return be.download(y);
        }
    }

    private static io.lobatto.core.backend.DeviceScatter upload(Backend be, ScatterOperator z) {
        return be.uploadScatter(z.scatterIds(), z.gatherStarts(), z.gatherIds(), z.blockStarts(), z.inverseDegree(), z.globalSize());
    }

    /** A polynomial of total degree <= n in x, y, z with coefficients from {@code seed}. */
    private static double polynomial(int n, long seed, double x, double y, double z) {
        java.util.Random rnd = new java.util.Random(seed);
        double s = 0;
        for (int a = 0; a <= n; a++) {
            for (int b = 0; a + b <= n; b++) {
                for (int c = 0; a + b + c <= n; c++) {
                    s += (2 * rnd.nextDouble() - 1) * Math.pow(x, a) * Math.pow(y, b) * Math.pow(z, c);
                }
            }
        }
        return s;
    }

    private static double[] sample(SpectralElementMesh mesh, ScatterOperator z, int n, long seed) {
        double[] xyz = mesh.globalCoordinates();
        double[] v = new double[mesh.globalNodeCount()];
        for (int g = 0; g < v.length; g++) {
            v[g] = polynomial(n, seed, xyz[3 * g], xyz[3 * g + 1], xyz[3 * g + 2]);
        }
        return z.toAssembled(v);
    }

    @Test
    void prolongationInterpolatesCoarsePolynomialsExactly() {
        qt().withExamples(12)
                .forAll(integers().between(1, 8), integers().between(1, 6), longs().all())
                .checkAssert((coarseDegree, step, seed) -> {
            int fineDegree = Math.min(15, coarseDegree + step);
            double[] bounds = {0, 1, 0, 2, 0, 1.5};
            SpectralElementMesh fine = TestProblems.box(2, 1, 2, fineDegree, bounds);
            SpectralElementMesh coarse = fine.atDegree(coarseDegree);
            ScatterOperator zf = TestProblems.unmasked(fine), zc = TestProblems.unmasked(coarse);
            double[] pf = prolongate(backend(), coarse, zc, fine, zf, sample(coarse, zc, coarseDegree, seed));
            double[] expected = sample(fine, zf, coarseDegree, seed);
            double err = TestProblems.relativeError(pf, expected);
            assertTrue(err < 1e-12, "Nc=" + coarseDegree + " Nf=" + fineDegree + ": relative error " + err);
        });
    }

    @Test
    void restrictionIsTheAdjointOfProlongation() {
        qt().withExamples(15)
                .forAll(integers().between(1, 7), integers().between(1, 6), integers().between(0, 2), longs().all())
                .checkAssert((coarseDegree, step, maskKind, seed) -> {
            int fineDegree = Math.min(15, coarseDegree + step);
            SpectralElementMesh fine = TestProblems.deformedBox(2, 2, 1, fineDegree);
            SpectralElementMesh coarse = fine.atDegree(coarseDegree);
            ScatterOperator zf = scatter(fine, maskKind), zc = scatter(coarse, maskKind);
            double[] xc = random(zc.globalSize(), seed), rf = random(zf.globalSize(), seed ^ 0x5DEECE66DL);
            double[] pxc = prolongate(backend(), coarse, zc, fine, zf, xc);
            double[] rrf = restrict(backend(), coarse, zc, fine, zf, rf);
            double left = TestProblems.dot(pxc, rf), right = TestProblems.dot(xc, rrf);
            double scale = Math.sqrt(TestProblems.dot(pxc, pxc) * TestProblems.dot(rf, rf));
            assertEquals(left, right, 1e-13 * scale, "Nc=" + coarseDegree + " Nf=" + fineDegree + " mask " + maskKind);
        });
    }

    @Test
    void transfersAgreeWithTheReference() {
        SpectralElementMesh fine = TestProblems.deformedBox(3, 2, 2, 7);
        SpectralElementMesh coarse = fine.atDegree(3);
        ScatterOperator zf = TestProblems.partlyMasked(fine), zc = TestProblems.partlyMasked(coarse);
        double[] xc = random(zc.globalSize(), 5), rf = random(zf.globalSize(), 6);
        Backend ref = BackendFixture.reference();
        assertTrue(TestProblems.relativeError(prolongate(backend(), coarse, zc, fine, zf, xc),
                prolongate(ref, coarse, zc, fine, zf, xc)) < 1e-13);
        assertTrue(TestProblems.relativeError(restrict(backend(), coarse, zc, fine, zf, rf),
                restrict(ref, coarse, zc, fine, zf, rf)) < 1e-13);
    }

    @Test
    void chebyshevStepUpdatesDirectionAndIterate() {
        Backend be = backend();
        int n = 20_011;
        double[] w = random(n, 1), r = random(n, 2), d = random(n, 3), x = random(n, 4);
        double a = 0.37, b = -1.9;
        try (DeviceVector dw = be.upload(w); DeviceVector dr = be.upload(r); DeviceVector dd = be.upload(d);
             DeviceVector dx = be.upload(x); DeviceVector scratch = be.allocate(n)) {
            be.chebyshevStep(a, b, dw, dr, dd, dx, scratch);
            double[] gotD = be.download(dd), gotX = be.download(dx);
            for (int i = 0; i < n; i++) {
                double v = a * d[i] + b * w[i] * r[i];
                assertEquals(v, gotD[i], 1e-15 * (1 + Math.abs(v)), "d[" + i + "]");
                assertEquals(x[i] + v, gotX[i], 1e-15 * (1 + Math.abs(x[i] + v)), "x[" + i + "]");
            }
            assertEquals(0, TestProblems.maxAbs(be.download(dr)) - TestProblems.maxAbs(r), "r is read only");
        }
    }

    private static double applyDot(Backend be, PMultigrid b, double[] x, double[] y) {
        try (DeviceVector dx = be.upload(x); DeviceVector dy = be.upload(y); DeviceVector by = be.allocate(y.length)) {
            b.apply(dy, by);
            return be.dot(dx, by);
        }
    }

    private PMultigrid vCycle(SpectralElementMesh mesh, ElementKernel kernel, double lambda) {
        return PMultigrid.builder(m -> ElementOperatorConformance.make(kernel, m, lambda), mesh, backend()).build();
    }

    @Test
    void vCycleIsSymmetric() {
        qt().withExamples(8)
                .forAll(integers().between(2, 8), booleans().all(), longs().all())
                .checkAssert((degree, bp30, seed) -> {
            SpectralElementMesh mesh = TestProblems.deformedBox(2, 2, 2, degree);
            ElementKernel kernel = bp30 ? ElementKernel.STIFFNESS_BP30 : ElementKernel.STIFFNESS_BP35;
            try (PMultigrid b = vCycle(mesh, kernel, 0)) {
                int n = b.levels().get(0).dofs();
                double[] x = random(n, seed), y = random(n, seed ^ 0x5DEECE66DL);
                double xby = applyDot(backend(), b, x, y), ybx = applyDot(backend(), b, y, x);
                double scale = Math.sqrt(applyDot(backend(), b, x, x) * applyDot(backend(), b, y, y));
                assertEquals(xby, ybx, 1e-12 * scale, kernel + " N=" + degree + ": x.By = " + xby + ", y.Bx = " + ybx);
            }
        });
    }

    @Test
    void vCycleIsPositiveDefinite() {
        qt().withExamples(8).forAll(integers().between(1, 8), longs().all()).checkAssert((degree, seed) -> {
            SpectralElementMesh mesh = TestProblems.deformedBox(2, 2, 2, degree);
            try (PMultigrid b = vCycle(mesh, ElementKernel.STIFFNESS_BP35, 0)) {
                double[] x = random(b.levels().get(0).dofs(), seed);
                double xbx = applyDot(backend(), b, x, x);
                assertTrue(xbx > 0, "N=" + degree + ": x.Bx = " + xbx);
            }
        });
    }

    /** The error reduction per cycle of x += B (b - A x) in the A-norm, from 8 cycles on a random error. */
    @Test
    void twoGridConvergenceFactorIsBelowPoint3() {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 3, 3, 6);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        try (AssembledOperator a = AssembledOperator.bind(StiffnessBp35.on(mesh, 0), z, be);
             PMultigrid b = PMultigrid.builder(m -> StiffnessBp35.on(m, 0), mesh, be).fineOperator(a).degrees(6, 3)
                     .coarseSolve(200, 1e-8, 1000).build();
             DeviceVector e = be.upload(random(a.size(), 3)); DeviceVector r = be.allocate(a.size());
             DeviceVector c = be.allocate(a.size())) {
            // error propagation e <- (I - B A) e: r = A e, e -= B r
            double energy0 = Math.sqrt(a.applyDot(e, r));
            double energy = energy0;
            int cycles = 8;
            for (int k = 0; k < cycles; k++) {
                b.apply(r, c);
                be.axpby(-1, c, 1, e);
                energy = Math.sqrt(a.applyDot(e, r));
            }
            double factor = Math.pow(energy / energy0, 1.0 / cycles);
            System.out.printf("two-grid 6 -> 3 on %s: A-norm error reduction %.4f per cycle%n", be.name(), factor);
            assertTrue(factor < 0.3, "two-grid (6 -> 3) convergence factor " + factor);
        }
    }

    @Test
    void pcgWithPMultigridConvergesInAtMost25IterationsOn4CubedAtN7() {
        Backend be = backend();
        SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(4, 4, 4, 0, 1, 0, 1, 0, 1), 7,
                io.lobatto.core.mesh.NodeMap.sinusoidal(0.05, 0, 1, 0, 1, 0, 1));
        ScatterOperator z = TestProblems.dirichlet(mesh);
        ElementOperator op = StiffnessBp35.on(mesh, 0);
        try (AssembledOperator a = AssembledOperator.bind(op, z, be);
             PMultigrid b = PMultigrid.builder(m -> StiffnessBp35.on(m, 0), mesh, be).fineOperator(a).build();
             DeviceVector rhs = be.upload(random(a.size(), 17)); DeviceVector x = be.allocate(a.size());
             ConjugateGradient cg = new ConjugateGradient(a, b).relativeTolerance(1e-10)) {
            SolveResult result = cg.solve(rhs, x);
            assertEquals(StopReason.CONVERGED_RELATIVE, result.reason(), result.toString());
            assertTrue(result.iterations() <= 25, "PCG + p-MG took " + result.iterations() + " iterations");
            try (DeviceVector ax = be.allocate(a.size())) {
                a.apply(x, ax);
                be.axpby(1, rhs, -1, ax);
                assertTrue(Math.sqrt(be.norm2(ax)) <= 1e-9 * result.rhsNorm(), "true residual");
            }
        }
    }
}
