package io.lobatto.conformance;

import static io.lobatto.conformance.TestProblems.random;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceFdm;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.StiffnessBp35;
import io.lobatto.solvers.ConjugateGradient;
import io.lobatto.solvers.ExtendedElements;
import io.lobatto.solvers.FastDiagonalization;
import io.lobatto.solvers.PMultigrid;
import io.lobatto.solvers.SchwarzPreconditioner;
import io.lobatto.solvers.Smoother;
import io.lobatto.solvers.SolveResult;
import io.lobatto.solvers.StopReason;

/**
 * Conformance of the overlapping Schwarz smoother on a backend: the fast-diagonalisation kernel ({@link Backend#applyFdm})
 * equals a dense (EJML) solve of the separable extended-element operator M_t (x) M_s (x) S_r + M_t (x) S_s (x) M_r +
 * S_t (x) M_s (x) M_r on the points kept; additive Schwarz is symmetric positive definite; both Schwarz methods agree
 * with the Java reference; the two-grid error reduction with Chebyshev-Schwarz smoothing stays below a bound on a
 * deformed box and on Kershaw's mesh; flexible CG with the (non-symmetric) RAS V-cycle converges to the true residual.
 */
public abstract class SchwarzConformance {

    /** The backend under test (shared; do not close). */
    protected abstract Backend backend();

    private static double[] kron3(double[] t, double[] s, double[] r, int n) {
        double[] out = new double[n * n * n * n * n * n];
        int n3 = n * n * n;
        for (int k = 0; k < n; k++) {
            for (int j = 0; j < n; j++) {
                for (int i = 0; i < n; i++) {
                    for (int c = 0; c < n; c++) {
                        for (int b = 0; b < n; b++) {
                            for (int a = 0; a < n; a++) {
                                out[(i + n * (j + n * k)) * n3 + a + n * (b + n * c)] = t[k * n + c] * s[j * n + b] * r[i * n + a];
                            }
                        }
                    }
                }
            }
        }
        return out;
    }

    private static double[] dense(double[][] m) {
        int n = m.length;
        double[] out = new double[n * n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                out[i * n + j] = m[i][j];
            }
        }
        return out;
    }

    private static double[] diagonal(double[] d) {
        int n = d.length;
        double[] out = new double[n * n];
        for (int i = 0; i < n; i++) {
            out[i * n + i] = d[i];
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void fastDiagonalisationSolvesTheSeparableExtendedOperator(int degree) {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 3, 2, degree);
        ExtendedElements ext = ExtendedElements.of(mesh);
        boolean[] masked = FastDiagonalization.extendedMask(mesh.boundaryMaskAllTagged(), mesh.globalNodeCount());
        double lambda = 0.7;
        FastDiagonalization f = FastDiagonalization.of(ext, masked, lambda);
        int n = f.points(), n3 = n * n * n;
        double[] x = random(f.elements() * n3, 11);
        double[] y;
        try (DeviceFdm fdm = be.uploadFdm(n, f.elements(), f.eigenvectors(), f.eigenvalues());
             DeviceVector dx = be.upload(x); DeviceVector dy = be.allocate(x.length)) {
            be.applyFdm(fdm, dx, dy);
            y = be.download(dy);
        }
        // the table of distinct lines gives the same solves, bit for bit
        FastDiagonalization.Table table = FastDiagonalization.table(ext, masked, lambda);
        assertTrue(table.lines() <= 3 * f.elements());
        try (DeviceFdm fdm = be.uploadFdm(n, table.elements(), table.vectors(), table.values(), table.lineOf());
             DeviceVector dx = be.upload(x); DeviceVector dy = be.allocate(x.length)) {
            be.applyFdm(fdm, dx, dy);
            org.junit.jupiter.api.Assertions.assertArrayEquals(y, be.download(dy), "N=" + degree + ": table upload on " + be.name());
        }
        int checked = 0;
        for (int e = 0; e < f.elements(); e++) {
            FastDiagonalization.Line[] line = new FastDiagonalization.Line[3];
            for (int d = 0; d < 3; d++) {
                line[d] = FastDiagonalization.line(ext, masked, e, d);
            }
            double[] mr = diagonal(line[0].mass()), ms = diagonal(line[1].mass()), mt = diagonal(line[2].mass());
            double[] sr = dense(line[0].stiffness()), ss = dense(line[1].stiffness()), st = dense(line[2].stiffness());
            double[] a = kron3(mt, ms, sr, n), b = kron3(mt, ss, mr, n), c = kron3(st, ms, mr, n), m = kron3(mt, ms, mr, n);
            int[] kept = new int[n3];
            int nk = 0;
            for (int p = 0; p < n3; p++) {
                if (line[0].kept()[p % n] && line[1].kept()[(p / n) % n] && line[2].kept()[p / (n * n)]) {
                    kept[nk++] = p;
                }
            }
            DMatrixRMaj k = new DMatrixRMaj(nk, nk);
            DMatrixRMaj rhs = new DMatrixRMaj(nk, 1);
            for (int p = 0; p < nk; p++) {
                for (int q = 0; q < nk; q++) {
                    int pq = kept[p] * n3 + kept[q];
                    k.set(p, q, a[pq] + b[pq] + c[pq] + lambda * m[pq]);
                }
                rhs.set(p, 0, x[e * n3 + kept[p]]);
            }
            DMatrixRMaj sol = new DMatrixRMaj(nk, 1);
            assertTrue(CommonOps_DDRM.solve(k, rhs, sol), "dense solve of element " + e);
            double scale = CommonOps_DDRM.elementMaxAbs(sol);
            boolean[] isKept = new boolean[n3];
            for (int p = 0; p < nk; p++) {
                isKept[kept[p]] = true;
                assertEquals(sol.get(p, 0), y[e * n3 + kept[p]], 1e-10 * scale, "N=" + degree + " element " + e + " point " + kept[p]);
            }
            for (int p = 0; p < n3; p++) {
                if (!isKept[p]) {
                    assertEquals(0, y[e * n3 + p], 0, "N=" + degree + " element " + e + " point " + p + " is not in the local problem");
                }
            }
            checked += nk;
        }
        assertTrue(checked > 0);
    }

    /**
     * {@link Backend#applySchwarzLocal} (the Aparapi backend's fused kernel: scatter, the six contractions and the
     * scaling in local memory, the RAS weights) equals the Java reference's scatter, {@link Backend#applyFdm} and
     * pointwise weighting, with and without weights, to 1e-12 relative. N = 1 and 4 put n^3 below and above one
     * work-group of 256; N = 7 is the benchmarks' degree (n = 10).
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 4, 7})
    void schwarzLocalSolvesEqualTheReferenceFdm(int degree) {
        Backend be = backend();
        Backend ref = BackendFixture.reference();
        SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(6, 2, 2, 0, 1, 0, 1, 0, 1), degree, NodeMap.kershaw(0.3));
        ExtendedElements ext = ExtendedElements.of(mesh);
        int g = mesh.globalNodeCount();
        boolean[] masked = java.util.Arrays.copyOf(mesh.boundaryMaskAllTagged(), g + 1);
        masked[g] = true;
        ScatterOperator z = ScatterOperator.build(ext.localToGlobal(), g + 1, masked);
        FastDiagonalization f = FastDiagonalization.of(ext, masked, 0.3);
        double[] r = random(z.globalSize(), 21);
        double[] w = random(z.localSize(), 22);
        double[] expected;
        try (var dz = z.upload(ref); DeviceFdm fdm = ref.uploadFdm(f.points(), f.elements(), f.eigenvectors(), f.eigenvalues());
             DeviceVector dr = ref.upload(r); DeviceVector rExt = ref.allocate(z.localSize());
             DeviceVector uExt = ref.allocate(z.localSize())) {
            ref.scatter(dz, dr, rExt);
            ref.applyFdm(fdm, rExt, uExt);
            expected = ref.download(uExt);
        }
        double[] weighted = expected.clone();
        for (int i = 0; i < w.length; i++) {
            weighted[i] *= w[i];
        }
        try (var dz = z.upload(be); DeviceFdm fdm = be.uploadFdm(f.points(), f.elements(), f.eigenvectors(), f.eigenvalues());
             DeviceVector dr = be.upload(r); DeviceVector dw = be.upload(w); DeviceVector work = be.allocate(z.localSize());
             DeviceVector uExt = be.allocate(z.localSize())) {
            be.applySchwarzLocal(dz, fdm, null, dr, work, uExt);
            double[] plain = be.download(uExt);
            be.applySchwarzLocal(dz, fdm, dw, dr, work, uExt);
            double[] ras = be.download(uExt);
            double scale = 0;
            for (double v : expected) {
                scale = Math.max(scale, Math.abs(v));
            }
            assertTrue(scale > 0);
            for (int i = 0; i < expected.length; i++) {
                assertEquals(expected[i], plain[i], 1e-12 * scale, "N=" + degree + " ASM entry " + i + " on " + be.name());
                assertEquals(weighted[i], ras[i], 1e-12 * scale, "N=" + degree + " RAS entry " + i + " on " + be.name());
            }
        }
    }

    /**
     * The compact RAS setup (extended ids, FDM table, {@link Backend#applyRestrictedSchwarzLocal} and the mesh's own
     * gather) gives the same M^-1 r as the full setup (Z_ext, dense FDM, weights on the extended points), bit for bit:
     * the same products, and the gather sums the same nonzero terms in the same order (the full setup adds zeros of
     * the extension in between). On Kershaw's mesh, so that the table has fewer lines than 3 E, with Dirichlet nodes;
     * -3: N = 3 with every element in a random frame (the extended ids walked to on the backend through rotated faces).
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 4, 7, -3})
    void compactRasEqualsTheFullSetupBitForBit(int degreeOrRotated) {
        Backend be = backend();
        int degree = Math.abs(degreeOrRotated);
        HexMesh box = HexMesh.box(6, 2, 2, 0, 1, 0, 1, 0, 1);
        if (degreeOrRotated < 0) {        // every element in a random frame: the device walk through rotated faces
            int[][] rot = io.lobatto.core.mesh.HexReference.cubeRotations();
            java.util.Random rnd = new java.util.Random(7);
            for (int e = 0; e < box.elementCount(); e++) {
                box = box.rotateElementVertices(e, rot[rnd.nextInt(rot.length)]);
            }
        }
        SpectralElementMesh mesh = SpectralElementMesh.of(box, degree, NodeMap.kershaw(0.3));
        boolean[] mask = mesh.boundaryMaskAllTagged();
        ScatterOperator z = ScatterOperator.of(mesh, mask);
        double[] r = random(z.globalSize(), 41);
        double[][] out = new double[2][];
        for (int c = 0; c < 2; c++) {
            try (AssembledOperator a = AssembledOperator.bind(StiffnessBp35.on(mesh, 0), z, be);
                 SchwarzPreconditioner m = SchwarzPreconditioner.bind(a, mesh, mask, true, new io.lobatto.solvers.SetupPhases(),
                         c == 0);
                 DeviceVector dr = be.upload(r); DeviceVector dz = be.allocate(r.length)) {
                m.apply(dr, dz);
                out[c] = be.download(dz);
            }
        }
        double scale = 0;
        for (double v : out[1]) {
            scale = Math.max(scale, Math.abs(v));
        }
        assertTrue(scale > 0, "N=" + degree + ": RAS of a random residual is not 0");
        org.junit.jupiter.api.Assertions.assertArrayEquals(out[1], out[0], "N=" + degree + ": compact RAS on " + be.name());
    }

    /**
     * {@link Backend#gatherChebyshevStep} (the Aparapi backend folds the update into the gather) equals the reference's
     * gather and two axpby: d = a d + b Z^T u, x += beta d, to 1e-12 relative.
     */
    @Test
    void gatherChebyshevStepEqualsTheReference() {
        Backend be = backend();
        Backend ref = BackendFixture.reference();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, 5);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        double[] u = random(z.localSize(), 31), d0 = random(z.globalSize(), 32), x0 = random(z.globalSize(), 33);
        double a = 0.3, b = -1.7, beta = 1.26;
        double[] d = new double[d0.length], x = new double[x0.length];
        try (var dz = z.upload(ref); DeviceVector du = ref.upload(u); DeviceVector g = ref.allocate(z.globalSize())) {
            ref.gather(dz, du, g);
            double[] gh = ref.download(g);
            for (int i = 0; i < d.length; i++) {
                d[i] = a * d0[i] + b * gh[i];
                x[i] = x0[i] + beta * d[i];
            }
        }
        try (var dz = z.upload(be); DeviceVector du = be.upload(u); DeviceVector dd = be.upload(d0); DeviceVector dx = be.upload(x0);
             DeviceVector scratch = be.allocate(z.globalSize())) {
            be.gatherChebyshevStep(dz, du, a, b, beta, dd, dx, scratch);
            assertTrue(TestProblems.relativeError(be.download(dd), d) < 1e-12, "d on " + be.name());
            assertTrue(TestProblems.relativeError(be.download(dx), x) < 1e-12, "x on " + be.name());
        }
    }

    private static double applyDot(Backend be, SchwarzPreconditioner m, double[] x, double[] y) {
        try (DeviceVector dx = be.upload(x); DeviceVector dy = be.upload(y); DeviceVector my = be.allocate(y.length)) {
            m.apply(dy, my);
            return be.dot(dx, my);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 5})
    void additiveSchwarzIsSymmetricPositiveDefinite(int degree) {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
        ScatterOperator z = TestProblems.partlyMasked(mesh);
        try (AssembledOperator a = AssembledOperator.bind(StiffnessBp35.on(mesh, 0), z, be);
             SchwarzPreconditioner m = SchwarzPreconditioner.bind(a, mesh, mesh.boundaryMask(HexMesh.TAG_XMIN, HexMesh.TAG_ZMAX), false)) {
            double[] x = random(a.size(), 3), y = random(a.size(), 4);
            double xmy = applyDot(be, m, x, y), ymx = applyDot(be, m, y, x);
            double xmx = applyDot(be, m, x, x), ymy = applyDot(be, m, y, y);
            assertEquals(xmy, ymx, 1e-12 * Math.sqrt(xmx * ymy), "x.My = " + xmy + ", y.Mx = " + ymx);
            assertTrue(xmx > 0 && ymy > 0, "x.Mx = " + xmx + ", y.My = " + ymy);
        }
    }

    @Test
    void schwarzAgreesWithTheReference() {
        Backend be = backend();
        Backend ref = BackendFixture.reference();
        SpectralElementMesh mesh = TestProblems.deformedBox(2, 3, 2, 5);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        double[] r = random(z.globalSize(), 8);
        for (boolean restricted : new boolean[] {false, true}) {
            double[][] out = new double[2][];
            Backend[] both = {be, ref};
            for (int b = 0; b < 2; b++) {
                try (AssembledOperator a = AssembledOperator.bind(StiffnessBp35.on(mesh, 0), z, both[b]);
                     SchwarzPreconditioner m = SchwarzPreconditioner.bind(a, mesh, mesh.boundaryMaskAllTagged(), restricted);
                     DeviceVector dr = both[b].upload(r); DeviceVector dz = both[b].allocate(r.length)) {
                    m.apply(dr, dz);
                    out[b] = both[b].download(dz);
                }
            }
            double err = TestProblems.relativeError(out[0], out[1]);
            assertTrue(err < 1e-12, (restricted ? "RAS" : "ASM") + ": relative difference " + err + " from the Java reference");
        }
    }

    /** The A-norm error reduction per cycle of x += B (b - A x), B the two-grid cycle (fine -> fine/2) with {@code smoother}. */
    private double twoGridFactor(SpectralElementMesh mesh, Smoother smoother) {
        Backend be = backend();
        ScatterOperator z = TestProblems.dirichlet(mesh);
        int coarse = Math.max(1, mesh.degree() / 2);
        try (AssembledOperator a = AssembledOperator.bind(StiffnessBp35.on(mesh, 0), z, be);
             PMultigrid b = PMultigrid.builder(m -> StiffnessBp35.on(m, 0), mesh, be).fineOperator(a).degrees(mesh.degree(), coarse)
                     .smoother(smoother).coarseSolve(200, 1e-8, 1000).build();
             DeviceVector e = be.upload(random(a.size(), 3)); DeviceVector r = be.allocate(a.size());
             DeviceVector c = be.allocate(a.size())) {
            double energy0 = Math.sqrt(a.applyDot(e, r));
            double energy = energy0;
            int cycles = 8;
            for (int k = 0; k < cycles; k++) {
                b.apply(r, c);
                be.axpby(-1, c, 1, e);
                energy = Math.sqrt(a.applyDot(e, r));
            }
            double factor = Math.pow(energy / energy0, 1.0 / cycles);
            System.out.printf("two-grid %d -> %d, %s on %s: A-norm error reduction %.4f per cycle%n", mesh.degree(), coarse,
                    smoother.cliName(), be.name(), factor);
            return factor;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"cheb4opt-asm", "cheb4opt-ras", "cheb-ras"})
    void twoGridWithSchwarzSmoothingOnADeformedBox(String name) {
        // measured on the Java backend: 0.186 (cheb4opt-asm), 0.129 (cheb4opt-ras), 0.089 (cheb-ras)
        double factor = twoGridFactor(TestProblems.deformedBox(3, 3, 3, 6), Smoother.parse(name));
        assertTrue(factor < 0.25, name + ": two-grid (6 -> 3) convergence factor " + factor);
    }

    @Test
    void rasSmoothingBeatsJacobiOnKershaw() {
        SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(6, 6, 6, 0, 1, 0, 1, 0, 1), 4, NodeMap.kershaw(0.3));
        // measured on the Java backend: 0.532 (cheb-jacobi), 0.446 (cheb4opt-ras)
        double jacobi = twoGridFactor(mesh, Smoother.CHEBYSHEV_JACOBI);
        double ras = twoGridFactor(mesh, Smoother.parse("cheb4opt-ras"));
        assertTrue(ras < 0.5, "cheb4opt-ras: two-grid (4 -> 2) convergence factor on Kershaw 0.3 is " + ras + ", bound 0.5");
        assertTrue(ras < 0.9 * jacobi, "cheb4opt-ras " + ras + " against cheb-jacobi " + jacobi + " on Kershaw 0.3");
    }

    @Test
    void flexibleCgWithTheRasVCycleConverges() {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(4, 4, 4, 5);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        try (AssembledOperator a = AssembledOperator.bind(StiffnessBp35.on(mesh, 0), z, be);
             PMultigrid b = PMultigrid.builder(m -> StiffnessBp35.on(m, 0), mesh, be).fineOperator(a)
                     .smoother(Smoother.parse("cheb4opt-ras")).build();
             DeviceVector rhs = be.upload(random(a.size(), 17)); DeviceVector x = be.allocate(a.size());
             ConjugateGradient cg = new ConjugateGradient(a, b).relativeTolerance(1e-10)) {
            assertTrue(b.isVariable() && cg.isFlexible(), "RAS V-cycle: flexible CG");
            SolveResult result = cg.solve(rhs, x);
            assertEquals(StopReason.CONVERGED_RELATIVE, result.reason(), result.toString());
            assertTrue(result.iterations() <= 15, "flexible CG + RAS p-MG took " + result.iterations() + " iterations");
            try (DeviceVector ax = be.allocate(a.size())) {
                a.apply(x, ax);
                be.axpby(1, rhs, -1, ax);
                assertTrue(Math.sqrt(be.norm2(ax)) <= 1e-9 * result.rhsNorm(), "true residual");
            }
        }
    }
}
