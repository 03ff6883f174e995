package io.lobatto.conformance;

import static io.lobatto.conformance.TestProblems.random;
import static io.lobatto.conformance.TestProblems.relativeError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceOperator;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.BoundElementOperator;
import io.lobatto.operators.ElementOperator;
import io.lobatto.solvers.ConjugateGradient;
import io.lobatto.solvers.JacobiPreconditioner;
import io.lobatto.solvers.Preconditioner;
import io.lobatto.solvers.SolveResult;

/**
 * Conformance of the fused CG kernels: {@link Backend#applyAssembledDot} equals applyAssembled followed
 * by dot, {@link Backend#pcgUpdate} equals cgUpdate + pointwiseMultiply + dot, both deterministic, and
 * CG / Jacobi PCG take the same iterations (and give the same solution to round-off) on the fused path
 * as on the generic one (operator and preconditioner wrapped so that they do not expose the fusion).
 */
public abstract class FusedOperationsConformance {

    /** The backend under test (shared; do not close). */
    protected abstract Backend backend();

    /** Z with no mask, Dirichlet on every face, or two faces masked. */
    enum Mask {
        NONE(TestProblems::unmasked), DIRICHLET(TestProblems::dirichlet), PARTLY(TestProblems::partlyMasked);

        final Function<SpectralElementMesh, ScatterOperator> build;

        Mask(Function<SpectralElementMesh, ScatterOperator> build) {
            this.build = build;
        }
    }

    static Stream<Arguments> kernelsDegreesMasks() {
        return Stream.of(ElementKernel.values()).flatMap(k -> IntStream.of(1, 2, 4, 7).boxed()
                .flatMap(n -> Stream.of(Mask.values()).map(m -> Arguments.of(k, n, m))));
    }

    @ParameterizedTest(name = "{0} N={1} mask={2}")
    @MethodSource("kernelsDegreesMasks")
    void applyAssembledDotEqualsApplyAssembledThenDot(ElementKernel kernel, int degree, Mask mask) {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
        ScatterOperator z = mask.build.apply(mesh);
        ElementOperator op = ElementOperator.of(kernel, mesh, 1.1);
        double[] x = random(z.globalSize(), 17L * degree + mask.ordinal());
        try (AssembledOperator a = AssembledOperator.bind(op, z, be, 0.25); DeviceVector dx = be.upload(x);
             DeviceVector y1 = be.allocate(z.globalSize()); DeviceVector y2 = be.allocate(z.globalSize())) {
            a.apply(dx, y1);
            double dot = be.dot(dx, y1);
            double fused = a.applyDot(dx, y2);
            double[] h1 = be.download(y1), h2 = be.download(y2);
            assertArrayEquals(h1, h2, 0.0, "y_G of applyAssembledDot must be bitwise that of applyAssembled");
            assertEquals(dot, fused, 1e-13 * Math.sqrt(be.norm2(dx) * be.norm2(y1)) + 1e-300,
                    kernel + " N=" + degree + " " + mask + ": x.Ax fused vs apply + dot");
            assertEquals(fused, a.applyDot(dx, y2), 0.0, "applyAssembledDot is deterministic");
        }
    }

    /** One CSR row per gather block: more blocks than a GPU backend has reduction work-groups. */
    /**
     * {@link DeviceOperator#applyResidual} (the Aparapi backend folds r = c1 A x + r and s = c2 A x + s into the
     * operator's gather) equals {@code apply} then {@code axpby} on the same backend, with one and two updated vectors,
     * to 1e-14 relative (the same expression; a compiler may contract it differently).
     */
    @ParameterizedTest(name = "N={0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {1, 3, 7})
    void applyResidualEqualsApplyThenAxpby(int degree) {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
        ScatterOperator z = TestProblems.partlyMasked(mesh);
        ElementOperator op = ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0.7);
        int n = z.globalSize();
        double[] x = random(n, 51), r0 = random(n, 52), s0 = random(n, 53);
        double c1 = -1, c2 = -1.2640890537108;
        try (AssembledOperator a = AssembledOperator.bind(op, z, be, 0.0); DeviceVector dx = be.upload(x);
             DeviceVector y = be.allocate(n); DeviceVector r = be.upload(r0); DeviceVector s = be.upload(s0);
             DeviceVector rf = be.upload(r0); DeviceVector sf = be.upload(s0)) {
            a.apply(dx, y);
            be.axpby(c1, y, 1, r);
            be.axpby(c2, y, 1, s);
            double[] ax = be.download(y);
            double scale = 0;
            for (double v : ax) {
                scale = Math.max(scale, Math.abs(v));
            }
            assertTrue(scale > 0);
            a.applyResidual(dx, y, c1, rf, c2, sf);
            double[] er = be.download(r), es = be.download(s), gr = be.download(rf), gs = be.download(sf);
            for (int i = 0; i < n; i++) {
                assertEquals(er[i], gr[i], 1e-14 * scale, "N=" + degree + " r[" + i + "] on " + be.name());
                assertEquals(es[i], gs[i], 1e-14 * scale, "N=" + degree + " s[" + i + "] on " + be.name());
            }
            // one vector: s untouched
            be.write(r0, rf);
            a.applyResidual(dx, y, c1, rf, 0, null);
            gr = be.download(rf);
            for (int i = 0; i < n; i++) {
                assertEquals(er[i], gr[i], 1e-14 * scale, "N=" + degree + " r[" + i + "] alone on " + be.name());
            }
        }
    }

    /**
     * {@link DeviceOperator#applyResidualChebyshevStep} (the Aparapi backend folds r -= A d and the Chebyshev-Jacobi step
     * d = a d + b (w o r), x += d into the operator's gather) equals {@code applyResidual} then {@code chebyshevStep} on
     * the same backend, to 1e-14 relative in r, d and x (the same expressions; a compiler may contract them differently).
     */
    @ParameterizedTest(name = "N={0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {1, 3, 7})
    void residualChebyshevStepEqualsResidualThenStep(int degree) {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
        ScatterOperator z = TestProblems.partlyMasked(mesh);
        ElementOperator op = ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0.7);
        int n = z.globalSize();
        double[] d0 = random(n, 61), r0 = random(n, 62), x0 = random(n, 63), w0 = random(n, 64);
        double a = 0.4285714285714286, b = 0.7301587301587301;
        try (AssembledOperator op1 = AssembledOperator.bind(op, z, be, 0.0); DeviceVector w = be.upload(w0);
             DeviceVector y = be.allocate(n); DeviceVector d = be.upload(d0); DeviceVector r = be.upload(r0);
             DeviceVector x = be.upload(x0); DeviceVector df = be.upload(d0); DeviceVector rf = be.upload(r0);
             DeviceVector xf = be.upload(x0)) {
            op1.applyResidual(d, y, -1, r, 0, null);
            be.chebyshevStep(a, b, w, r, d, x, y);
            op1.applyResidualChebyshevStep(df, y, rf, a, b, w, xf);
            double[][] expected = {be.download(r), be.download(d), be.download(x)};
            double[][] fused = {be.download(rf), be.download(df), be.download(xf)};
            String[] names = {"r", "d", "x"};
            for (int v = 0; v < 3; v++) {
                double scale = 0;
                for (double e : expected[v]) {
                    scale = Math.max(scale, Math.abs(e));
                }
                assertTrue(scale > 0);
                assertTrue(!java.util.Arrays.equals(expected[v], v == 0 ? r0 : v == 1 ? d0 : x0), names[v] + " changed");
                for (int i = 0; i < n; i++) {
                    assertEquals(expected[v][i], fused[v][i], 1e-14 * scale, "N=" + degree + " " + names[v] + "[" + i + "] on " + be.name());
                }
            }
        }
    }

    @Test
    void applyAssembledDotWithManySmallGatherBlocks() {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(5, 5, 5, 3);
        ScatterOperator z = ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), mesh.boundaryMaskAllTagged(), 1);
        assertTrue(z.blockCount() > 2048, "blocks " + z.blockCount());
        ElementOperator op = ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0.7);
        double[] x = random(z.globalSize(), 5);
        try (BoundElementOperator bound = op.bind(be);
             DeviceScatter dz = be.uploadScatter(z.scatterIds(), z.gatherStarts(), z.gatherIds(), z.blockStarts(),
                     z.inverseDegree(), z.globalSize());
             DeviceVector dx = be.upload(x); DeviceVector yl = be.allocate(z.localSize());
             DeviceVector y1 = be.allocate(z.globalSize()); DeviceVector y2 = be.allocate(z.globalSize())) {
            be.applyAssembled(bound.data(), dz, 0.7, 0.3, dx, yl, y1);
            double dot = be.dot(dx, y1);
            double fused = be.applyAssembledDot(bound.data(), dz, 0.7, 0.3, dx, yl, y2);
            assertArrayEquals(be.download(y1), be.download(y2), 0.0);
            assertEquals(dot, fused, 1e-13 * Math.sqrt(be.norm2(dx) * be.norm2(y1)));
            double[] host = new double[z.globalSize()];
            be.read(y1, host);
            assertEquals(TestProblems.dot(x, host), fused, 1e-12 * Math.abs(fused) + 1e-300, "against a host dot");
        }
    }

    /**
     * Z uploaded with its degrees ({@code uploadScatterByDegree}: the backend makes W) applies the fused operator with a
     * shift, which reads W, bit for bit as Z uploaded with the host's W.
     */
    @Test
    void zUploadedByDegreeAppliesAsZWithTheHostsW() {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, 4);
        ScatterOperator z = ScatterOperator.of(mesh, mesh.boundaryMaskAllTagged());
        ElementOperator op = ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0.7);
        double[] x = random(z.globalSize(), 9);
        try (BoundElementOperator bound = op.bind(be);
             DeviceScatter withW = be.uploadScatter(z.scatterIds(), z.gatherStarts(), z.gatherIds(), z.blockStarts(),
                     z.inverseDegree(), z.globalSize());
             DeviceScatter byDegree = be.uploadScatterByDegree(z.scatterIds(), z.gatherStarts(), z.gatherIds(),
                     z.blockStarts(), z.degree(), z.globalSize());
             DeviceScatter byRows = be.uploadScatterByDegree(z.scatterIds(), z.gatherStarts(), z.gatherIds(),
                     z.blockStarts(), null, z.globalSize());
             DeviceScatter ownUpload = z.upload(be);
             DeviceVector dx = be.upload(x); DeviceVector yl = be.allocate(z.localSize());
             DeviceVector y1 = be.allocate(z.globalSize()); DeviceVector y2 = be.allocate(z.globalSize())) {
            be.applyAssembled(bound.data(), withW, 0.7, 1.3, dx, yl, y1);
            be.applyAssembled(bound.data(), byDegree, 0.7, 1.3, dx, yl, y2);
            assertArrayEquals(be.download(y1), be.download(y2), 0.0);
            be.applyAssembled(bound.data(), byRows, 0.7, 1.3, dx, yl, y2);      // null degree: the CSR's row lengths
            assertArrayEquals(be.download(y1), be.download(y2), 0.0);
            be.applyAssembled(bound.data(), ownUpload, 0.7, 1.3, dx, yl, y2);
            assertArrayEquals(be.download(y1), be.download(y2), 0.0);
            be.applyAssembled(bound.data(), byDegree, 0.7, 0.0, dx, yl, y2);
            double[] noShift = be.download(y2);
            double diff = 0;
            for (int i = 0; i < noShift.length; i++) {
                diff = Math.max(diff, Math.abs(noShift[i] - be.download(y1)[i]));
            }
            assertTrue(diff > 1e-3, "the shift reads W: " + diff);
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> be.uploadScatterByDegree(
                z.scatterIds(), z.gatherStarts(), z.gatherIds(), z.blockStarts(), new int[3], z.globalSize()));
        assertTrue(e.getMessage().contains("degree has length 3"), e.getMessage());
    }

    @Test
    void pcgUpdateEqualsTheSeparateOps() {
        qt().withExamples(20).forAll(integers().between(1, 300_000), longs().all()).checkAssert((n, seed) -> {
            Backend be = backend();
            double alpha = 0.41;
            double[] p = random(n, seed), ap = random(n, seed + 1), x = random(n, seed + 2), r = random(n, seed + 3);
            double[] d = random(n, seed + 4);
            for (int i = 0; i < n; i++) {
                d[i] = 0.5 + Math.abs(d[i]);
            }
            double[] xe = new double[n], re = new double[n], ze = new double[n];
            double rr = 0, rz = 0;
            for (int i = 0; i < n; i++) {
                xe[i] = x[i] + alpha * p[i];
                re[i] = r[i] - alpha * ap[i];
                ze[i] = d[i] * re[i];
                rr += re[i] * re[i];
                rz += re[i] * ze[i];
            }
            try (DeviceVector dp = be.upload(p); DeviceVector dap = be.upload(ap); DeviceVector dx = be.upload(x);
                 DeviceVector dr = be.upload(r); DeviceVector dd = be.upload(d); DeviceVector dz = be.allocate(n);
                 DeviceVector sx = be.upload(x); DeviceVector sr = be.upload(r); DeviceVector sz = be.allocate(n)) {
                double[] dots = {Double.NaN, Double.NaN, 7};
                be.pcgUpdate(alpha, dp, dap, dx, dr, dd, dz, dots);
                assertEquals(rr, dots[0], 1e-13 * rr, "r.r against host loops");
                assertEquals(rz, dots[1], 1e-13 * rz, "r.z against host loops");
                assertEquals(7, dots[2], 0.0, "dots[2] untouched");
                assertArrayEquals(xe, be.download(dx), 1e-15 * 4, "x");
                assertArrayEquals(re, be.download(dr), 1e-15 * 4, "r");
                assertArrayEquals(ze, be.download(dz), 1e-15 * 8, "z");
                // the separate ops on the same backend
                double rrSep = be.cgUpdate(alpha, dp, dap, sx, sr);
                be.pointwiseMultiply(dd, sr, sz);
                double rzSep = be.dot(sr, sz);
                assertArrayEquals(be.download(sx), be.download(dx), 0.0, "x as cgUpdate");
                assertArrayEquals(be.download(sr), be.download(dr), 0.0, "r as cgUpdate");
                assertArrayEquals(be.download(sz), be.download(dz), 0.0, "z as pointwiseMultiply");
                assertEquals(rrSep, dots[0], 1e-13 * rr, "r.r as cgUpdate");
                assertEquals(rzSep, dots[1], 1e-13 * rz, "r.z as dot");
                assertEquals(be.norm2(dr), dots[0], 1e-13 * rr, "r.r as norm2");
            }
        });
    }

    @Test
    void pcgUpdateIsDeterministic() {
        qt().withExamples(8).forAll(integers().between(1, 200_000), longs().all()).checkAssert((n, seed) -> {
            Backend be = backend();
            double[] p = random(n, seed), ap = random(n, seed + 1), x = random(n, seed + 2), r = random(n, seed + 3);
            double[] d = random(n, seed + 4);
            double[][] results = new double[2][];
            for (int run = 0; run < 2; run++) {
                try (DeviceVector dp = be.upload(p); DeviceVector dap = be.upload(ap); DeviceVector dx = be.upload(x);
                     DeviceVector dr = be.upload(r); DeviceVector dd = be.upload(d); DeviceVector dz = be.allocate(n)) {
                    double[] dots = new double[2];
                    be.pcgUpdate(-1.3, dp, dap, dx, dr, dd, dz, dots);
                    results[run] = dots;
                }
            }
            assertArrayEquals(results[0], results[1], 0.0);
        });
    }

    @Test
    void pcgUpdateRejectsBadArguments() {
        Backend be = backend();
        try (DeviceVector a = be.allocate(10); DeviceVector b = be.allocate(10); DeviceVector c = be.allocate(10);
             DeviceVector d = be.allocate(10); DeviceVector e = be.allocate(10); DeviceVector f = be.allocate(10);
             DeviceVector shorter = be.allocate(9)) {
            double[] dots = new double[2];
            assertThrows(IllegalArgumentException.class, () -> be.pcgUpdate(1, a, b, c, d, e, shorter, dots));
            assertThrows(IllegalArgumentException.class, () -> be.pcgUpdate(1, a, b, c, d, shorter, f, dots));
            assertThrows(IllegalArgumentException.class, () -> be.pcgUpdate(1, a, b, c, d, e, f, new double[1]));
            assertThrows(IllegalArgumentException.class, () -> be.pcgUpdate(1, a, b, c, d, e, f, null));
            assertThrows(IllegalArgumentException.class, () -> be.pcgUpdate(1, a, b, c, d, e, d, dots), "z aliases r");
            assertThrows(IllegalArgumentException.class, () -> be.pcgUpdate(1, a, b, c, c, e, f, dots), "r aliases x");
        }
    }

    /** A DeviceOperator that hides the fused applyDot of the assembled operator (the generic path). */
    static DeviceOperator unfused(AssembledOperator a) {
        return new DeviceOperator() {
            @Override
            public Backend backend() {
                return a.backend();
            }

            @Override
            public int size() {
                return a.size();
            }

            @Override
            public void apply(DeviceVector x, DeviceVector y) {
                a.apply(x, y);
            }
        };
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kernels")
    void cgAndJacobiPcgTakeTheSameIterationsFusedAndGeneric(ElementKernel kernel) {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, 4);
        ScatterOperator z = TestProblems.partlyMasked(mesh);
        ElementOperator op = ElementOperator.of(kernel, mesh, 0.8);
        try (AssembledOperator a = AssembledOperator.bind(op, z, be, 0.05);
             DeviceVector b = be.upload(random(a.size(), 41));
             JacobiPreconditioner jacobi = JacobiPreconditioner.of(a)) {
            Preconditioner genericJacobi = jacobi::apply; // not a JacobiPreconditioner: generic PCG path
            DeviceOperator generic = unfused(a);
            SolveResult[] results = new SolveResult[4];
            double[][] solutions = new double[4][];
            Object[][] configs = {{a, null}, {generic, null}, {a, jacobi}, {generic, genericJacobi}};
            for (int k = 0; k < 4; k++) {
                try (DeviceVector x = be.allocate(a.size());
                     ConjugateGradient cg = new ConjugateGradient((DeviceOperator) configs[k][0], (Preconditioner) configs[k][1])
                             .relativeTolerance(1e-10).recordHistory(true)) {
                    results[k] = cg.solve(b, x);
                    solutions[k] = be.download(x);
                }
            }
            for (int k = 0; k < 4; k += 2) {
                String what = k == 0 ? "CG" : "Jacobi PCG";
                SolveResult fused = results[k], gen = results[k + 1];
                assertTrue(fused.converged() && gen.converged(), what + ": " + fused + " / " + gen);
                assertEquals(gen.iterations(), fused.iterations(), what + ": iterations fused vs generic");
                // the two paths sum p.Ap (and r.z) in different orders; finite-precision CG amplifies that
                // round-off over the iterations (measured on the CPU backend: 2e-8 relative in |r| after
                // 50 iterations, 2e-6 after 55), so only the first iterations are compared tightly
                double[] hf = fused.residualHistory(), hg = gen.residualHistory();
                for (int i = 0; i < Math.min(hf.length, 10); i++) {
                    assertEquals(hg[i], hf[i], 1e-10 * hg[i] + 1e-300, what + ": |r| at iteration " + i);
                }
                double err = relativeError(solutions[k], solutions[k + 1]);
                assertTrue(err < 1e-7, what + ": solutions fused vs generic differ by " + err);
            }
        }
    }

    static Stream<ElementKernel> kernels() {
        return Stream.of(ElementKernel.values());
    }
}
