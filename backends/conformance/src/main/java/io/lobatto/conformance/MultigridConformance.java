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
import io.lobatto.core.basis.Basis1D;
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
import io.lobatto.solvers.HCoarsening;
import io.lobatto.solvers.PMultigrid;
import io.lobatto.solvers.SolveResult;
import io.lobatto.solvers.StopReason;

/**
 * Conformance of p-multigrid on a backend: the transfer kernels (prolongation P = Z_f^T W_f J Z_c interpolates
 * polynomials of the coarse degree exactly; restriction is its adjoint, x_c . R r_f = P x_c . r_f; both agree with
 * the Java reference) and the V-cycle B of {@link PMultigrid} (symmetric x . B y = y . B x, positive definite, a
 * two-grid error reduction below 0.3 per cycle, PCG with B in at most 25 iterations on a 4^3 N = 7 problem), and the
 * h-coarsening below N = 1 ({@link HCoarsening}: P_h = Z_h^T W_h J_(1->2) Z_c reproduces trilinear functions on an affine
 * box, R_h = P_h^T, the V-cycle with h-levels symmetric and no worse than without them).
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
        return prolongate(be, coarse.basis(), fine.basis(), fine.elementCount(), zc, zf, xc);
    }

    /** R r_f on {@code be}, on the host. */
    private static double[] restrict(Backend be, SpectralElementMesh coarse, ScatterOperator zc, SpectralElementMesh fine,
                                     ScatterOperator zf, double[] rf) {
        return restrict(be, coarse.basis(), fine.basis(), fine.elementCount(), zc, zf, rf);
    }

    /** P x_c = Z_f^T W_f J Z_c x_c with J the interpolation from {@code cb} to {@code fb} on {@code elements} elements. */
    private static double[] prolongate(Backend be, Basis1D cb, Basis1D fb, int elements, ScatterOperator zc,
                                       ScatterOperator zf, double[] xc) {
        try (DeviceTransfer t = be.uploadTransfer(cb, fb, elements);
             var dzc = upload(be, zc); var dzf = upload(be, zf);
             DeviceVector x = be.upload(xc); DeviceVector work = be.allocate(zf.localSize());
             DeviceVector y = be.allocate(zf.globalSize())) {
            be.prolongate(t, dzc, dzf, x, work, y);
            return be.download(y);
        }
    }

    /** R r_f = P^T r_f = Z_c^T J^T W_f Z_f r_f, the transpose of {@link #prolongate(Backend, Basis1D, Basis1D, int, ScatterOperator, ScatterOperator, double[])}. */
    private static double[] restrict(Backend be, Basis1D cb, Basis1D fb, int elements, ScatterOperator zc,
                                     ScatterOperator zf, double[] rf) {
        try (DeviceTransfer t = be.uploadTransfer(cb, fb, elements);
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
    /** Z_h of {@link HCoarsening} for {@code fine} (N = 1) with the fine level's mask {@code fineMask}. */
    private static ScatterOperator hScatter(SpectralElementMesh fine, boolean[] fineMask) {
        return ScatterOperator.build(HCoarsening.fineIdsOfCoarsePoints(fine), fine.globalNodeCount(), fineMask);
    }

    /** P_h x_c = Z_h^T W_h J_(1->2) Z_c x_c on {@code be}, on the host. */
    private static double[] hProlongate(Backend be, SpectralElementMesh coarse, ScatterOperator zc, ScatterOperator zh,
                                        double[] xc) {
        return prolongate(be, Basis1D.of(1), Basis1D.of(2), coarse.elementCount(), zc, zh, xc);
    }

    /** R_h r_f = Z_c^T J^T W_h Z_h r_f on {@code be}, on the host. */
    private static double[] hRestrict(Backend be, SpectralElementMesh coarse, ScatterOperator zc, ScatterOperator zh,
                                      double[] rf) {
        return restrict(be, Basis1D.of(1), Basis1D.of(2), coarse.elementCount(), zc, zh, rf);
    }

    /**
     * A trilinear function: with {@code vanishAt} finite, (x - vanishAt)(k0 + k1 y + k2 z + k3 yz), zero on the face
     * x = vanishAt; else k0 + k1 x + k2 y + k3 z + k4 xy + k5 yz + k6 xz + k7 xyz.
     */
    private static double trilinear(double[] k, double vanishAt, double x, double y, double z) {
        if (Double.isFinite(vanishAt)) {
            return (x - vanishAt) * (k[0] + k[1] * y + k[2] * z + k[3] * y * z);
        }
        return k[0] + k[1] * x + k[2] * y + k[3] * z + k[4] * x * y + k[5] * y * z + k[6] * x * z + k[7] * x * y * z;
    }

    @Test
    void hProlongationReproducesTrilinearFunctionsOnAnAffineBox() {
        double[] bounds = {-0.5, 1, 0, 2, 0.25, 1.5};
        for (int[] n : new int[][] {{2, 2, 2}, {4, 6, 2}, {6, 4, 8}}) {
            for (boolean masked : new boolean[] {false, true}) {
                SpectralElementMesh fine = TestProblems.box(n[0], n[1], n[2], 1, bounds);
                SpectralElementMesh coarse = HCoarsening.coarsen(fine, 1).orElseThrow();
                assertEquals(fine.elementCount() / 8, coarse.elementCount());
                // masked: the face x = x0, where f vanishes (the coarse masked values read as 0); else no mask
                boolean[] fm = masked ? fine.boundaryMask(HexMesh.TAG_XMIN) : null;
                boolean[] cm = masked ? coarse.boundaryMask(HexMesh.TAG_XMIN) : null;
                ScatterOperator zc = ScatterOperator.build(coarse.localToGlobal(), coarse.globalNodeCount(), cm);
                ScatterOperator zf = ScatterOperator.build(fine.localToGlobal(), fine.globalNodeCount(), fm);
                ScatterOperator zh = hScatter(fine, fm);
                assertEquals(zf.globalSize(), zh.globalSize(), "Z_h numbers the fine level's nodes");
                double[] k = {0.7, -1.3, 0.4, 2.1, 1.1, -0.6, 0.9, -1.7};
                double x0 = masked ? bounds[0] : Double.NaN;
                double[] cxyz = coarse.globalCoordinates(), fxyz = fine.globalCoordinates();
                double[] fc = new double[coarse.globalNodeCount()], ff = new double[fine.globalNodeCount()];
                for (int g = 0; g < fc.length; g++) {
                    fc[g] = trilinear(k, x0, cxyz[3 * g], cxyz[3 * g + 1], cxyz[3 * g + 2]);
                }
                for (int g = 0; g < ff.length; g++) {
                    ff[g] = trilinear(k, x0, fxyz[3 * g], fxyz[3 * g + 1], fxyz[3 * g + 2]);
                }
                double[] got = hProlongate(backend(), coarse, zc, zh, zc.toAssembled(fc));
                double[] expected = zf.toAssembled(ff);
                double err = TestProblems.relativeError(got, expected);
                assertTrue(err < 1e-13, java.util.Arrays.toString(n) + " masked " + masked + ": relative error " + err);
            }
        }
    }

    @Test
    void hRestrictionIsTheAdjointOfHProlongation() {
        qt().withExamples(8).forAll(integers().between(0, 2), booleans().all(), longs().all()).checkAssert((maskKind, deformed, seed) -> {
            SpectralElementMesh fine = deformed ? TestProblems.deformedBox(4, 2, 6, 1)
                    : TestProblems.box(4, 2, 6, 1, new double[] {0, 1, 0, 2, 0, 1.5});
            SpectralElementMesh coarse = HCoarsening.coarsen(fine, 1).orElseThrow();
            ScatterOperator zf = scatter(fine, maskKind), zc = scatter(coarse, maskKind);
            boolean[] fm = maskKind == 0 ? null : maskKind == 1 ? fine.boundaryMask(HexMesh.TAG_XMIN, HexMesh.TAG_ZMAX)
                    : fine.boundaryMaskAllTagged();
            ScatterOperator zh = hScatter(fine, fm);
            double[] xc = random(zc.globalSize(), seed), rf = random(zf.globalSize(), seed ^ 0x5DEECE66DL);
            double[] pxc = hProlongate(backend(), coarse, zc, zh, xc);
            double[] rrf = hRestrict(backend(), coarse, zc, zh, rf);
            double left = TestProblems.dot(pxc, rf), right = TestProblems.dot(xc, rrf);
            double scale = Math.sqrt(TestProblems.dot(pxc, pxc) * TestProblems.dot(rf, rf));
            assertEquals(left, right, 1e-13 * scale, "mask " + maskKind + " deformed " + deformed);
        });
    }

    @Test
    void hTransfersAgreeWithTheReference() {
        SpectralElementMesh fine = TestProblems.deformedBox(6, 4, 4, 1);
        SpectralElementMesh coarse = HCoarsening.coarsen(fine, 1).orElseThrow();
        ScatterOperator zc = TestProblems.partlyMasked(coarse);
        ScatterOperator zh = hScatter(fine, fine.boundaryMask(HexMesh.TAG_XMIN, HexMesh.TAG_ZMAX));
        double[] xc = random(zc.globalSize(), 7), rf = random(zh.globalSize(), 8);
        Backend ref = BackendFixture.reference();
        assertTrue(TestProblems.relativeError(hProlongate(backend(), coarse, zc, zh, xc), hProlongate(ref, coarse, zc, zh, xc)) < 1e-13);
        assertTrue(TestProblems.relativeError(hRestrict(backend(), coarse, zc, zh, rf), hRestrict(ref, coarse, zc, zh, rf)) < 1e-13);
    }

    @Test
    void vCycleWithHLevelsIsSymmetricAndPositive() {
        Backend be = backend();
        qt().withExamples(4).forAll(integers().between(1, 4), longs().all()).checkAssert((degree, seed) -> {
            SpectralElementMesh mesh = TestProblems.deformedBox(8, 4, 4, degree);
            try (PMultigrid b = PMultigrid.builder(m -> StiffnessBp35.on(m, 0), mesh, be).hCoarsening(true, 2).build()) {
                java.util.List<PMultigrid.LevelInfo> levels = b.levels();
                PMultigrid.LevelInfo last = levels.get(levels.size() - 1);
                assertEquals(1, last.degree());
                assertEquals(4 * 2 * 2, last.elements(), "8x4x4 -> 4x2x2 at N = 1");
                int n = levels.get(0).dofs();
                double[] x = random(n, seed), y = random(n, seed ^ 0x5DEECE66DL);
                double xby = applyDot(be, b, x, y), ybx = applyDot(be, b, y, x);
                double xbx = applyDot(be, b, x, x), yby = applyDot(be, b, y, y);
                assertEquals(xby, ybx, 1e-12 * Math.sqrt(xbx * yby), "N=" + degree + ": x.By = " + xby + ", y.Bx = " + ybx);
                assertTrue(xbx > 0 && yby > 0, "N=" + degree + ": x.Bx = " + xbx + ", y.By = " + yby);
            }
        });
    }

    /** PCG iterations and solution with and without h-levels on the main job's deformed box. */
    @Test
    void hLevelsTakeNoMoreIterationsAndGiveTheSameSolution() {
        Backend be = backend();
        for (int degree : new int[] {3, 7}) {
            SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(8, 8, 8, 0, 1, 0, 1, 0, 1), degree,
                    io.lobatto.core.mesh.NodeMap.sinusoidal(0.05, 0, 1, 0, 1, 0, 1));
            ScatterOperator z = TestProblems.dirichlet(mesh);
            int[] iterations = new int[2];
            double[][] solutions = new double[2][];
            int[] levels = new int[2];
            try (AssembledOperator a = AssembledOperator.bind(StiffnessBp35.on(mesh, 0), z, be);
                 DeviceVector rhs = be.upload(random(a.size(), 23))) {
                for (int h = 0; h < 2; h++) {
                    try (PMultigrid b = PMultigrid.builder(m -> StiffnessBp35.on(m, 0), mesh, be).fineOperator(a)
                                 .hCoarsening(h == 1).build();
                         DeviceVector x = be.allocate(a.size());
                         ConjugateGradient cg = new ConjugateGradient(a, b).relativeTolerance(1e-10)) {
                        SolveResult result = cg.solve(rhs, x);
                        assertEquals(StopReason.CONVERGED_RELATIVE, result.reason(), result.toString());
                        iterations[h] = result.iterations();
                        solutions[h] = be.download(x);
                        levels[h] = b.levels().size();
                    }
                }
            }
            System.out.printf("N = %d, 8^3 on %s: %d iterations without h-levels (%d levels), %d with (%d levels)%n", degree,
                    be.name(), iterations[0], levels[0], iterations[1], levels[1]);
            assertEquals(levels[0] + 1, levels[1], "8^3 -> 4^3: one h-level");
            assertTrue(iterations[1] <= iterations[0], "N = " + degree + ": " + iterations[1] + " iterations with h-levels, "
                    + iterations[0] + " without");
            double err = TestProblems.relativeError(solutions[1], solutions[0]);
            assertTrue(err < 1e-8, "N = " + degree + ": the solutions differ by " + err + " relative");
        }
    }
}
