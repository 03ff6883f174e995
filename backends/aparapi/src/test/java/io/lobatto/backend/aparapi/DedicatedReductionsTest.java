package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.backend.aparapi.kernels.CgUpdateKernel;
import io.lobatto.backend.aparapi.kernels.DotKernel;
import io.lobatto.backend.aparapi.kernels.ReductionKernel;
import io.lobatto.backend.aparapi.runtime.KernelSource;
import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.DeviceIntVector;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.ElementOperator;
import io.lobatto.solvers.ConjugateGradient;
import io.lobatto.solvers.JacobiPreconditioner;
import io.lobatto.solvers.SolveResult;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Dot, norm² and the CG update in kernels of their own ({@link DotKernel}, {@link CgUpdateKernel}) against the general
 * {@link ReductionKernel} ({@link BackendCore#REDUCTION_KERNELS_PROPERTY}): only the arguments they read, the same bits
 * (sums, x and r) at sizes below and above the small group's switch and the backend's group, the same CG and PCG
 * iterations and solutions, the rows left out of a rank's sums unchanged, and the property's values and error.
 */
class DedicatedReductionsTest {

    private static final String PROPERTY = BackendCore.REDUCTION_KERNELS_PROPERTY;

    private static Set<String> argumentNames(KernelBuilds.Spec spec) {
        Set<String> names = new TreeSet<>();
        for (KernelSource.Arg a : spec.source().args()) {
            names.add(a.name());
        }
        return names;
    }

    /** No device needed: the translated signatures ({@code passid} is Aparapi's own, bound once when a kernel is made). */
    @Test
    void theDedicatedKernelsTakeOnlyTheArgumentsTheyRead() {
        assertEquals(Set.of("x", "y", "partials", "n", "lds", "passid"),
                argumentNames(KernelBuilds.reduction(ReductionKernel.DOT, 256, true)));
        assertEquals(Set.of("p", "ap", "x", "r", "partials", "alpha", "n", "lds", "passid"),
                argumentNames(KernelBuilds.reduction(ReductionKernel.CG_UPDATE, 256, true)));
        assertEquals(13, KernelBuilds.reduction(ReductionKernel.DOT, 256, false).source().args().size(),
                "the general kernel's arguments");
        assertEquals(DotKernel.class, KernelBuilds.reduction(ReductionKernel.DOT, 64, true).family());
        assertEquals(CgUpdateKernel.class, KernelBuilds.reduction(ReductionKernel.CG_UPDATE, 64, true).family());
        for (int op : new int[] {ReductionKernel.PCG_UPDATE, ReductionKernel.RECIPROCAL, ReductionKernel.UPDATE_DOT}) {
            assertEquals(ReductionKernel.class, KernelBuilds.reduction(op, 64, true).family(), "op " + op + " keeps the general kernel");
        }
        assertEquals(KernelBuilds.reduction(ReductionKernel.DOT, 64), KernelBuilds.reduction(ReductionKernel.DOT, 64, false));
        assertEquals(8L * 64, KernelBuilds.reductionLocalBytes(ReductionKernel.DOT, 64, true), "one tree");
        assertEquals(16L * 64, KernelBuilds.reductionLocalBytes(ReductionKernel.DOT, 64, false), "the general kernel's two");
        assertEquals(16L * 64, KernelBuilds.reductionLocalBytes(ReductionKernel.PCG_UPDATE, 64, true));
    }

    /**
     * dot, norm² and the CG update (its r . r, x and r) with the dedicated kernels and with the general one give the same
     * bits, with no small group and with one (n = 1 up to 2^20 + 3, below and above the switch at small x 256 entries, and
     * at least three entries per work-item of the largest grid: 3 x 2^20 + 5 entries on PoCL's group of 1024).
     */
    @Test
    void dotNormAndCgUpdateGiveTheGeneralKernelsBits() {
        AparapiBackend be = OpenClAvailability.backend();
        int small = Math.min(256, be.reductionGroupSize() / 4);
        int limit = small * BackendCore.SMALL_REDUCE_GROUPS;
        int smallBefore = be.smallReduceGroup();
        boolean dedicatedBefore = be.dedicatedReductions();
        try {
            for (int g : new int[] {0, small}) {
                be.smallReduceGroup(g);
                // the last size gives every work-item of the largest grid at least three entries (the loop's order shows)
                int several = 3 * AparapiBackend.REDUCE_GROUPS * be.reductionGroupSize() + 5;
                for (int n : new int[] {1, 127, 128, 4097, limit, limit + 1, (1 << 20) + 3, several}) {
                    String what = "n = " + n + ", group " + be.reductionGroupSize(n) + " (small group " + g + ")";
                    Results general = reductions(be, false, n);
                    Results dedicated = reductions(be, true, n);
                    general.assertSameBits(dedicated, what);
                    assertTrue(built(be, DotKernel.class, be.reductionGroupSize(n)), what + ": the dedicated dot was built");
                    assertTrue(built(be, CgUpdateKernel.class, be.reductionGroupSize(n)), what + ": the dedicated CG update was built");
                }
            }
        } finally {
            be.smallReduceGroup(smallBefore);
            be.dedicatedReductions(dedicatedBefore);
        }
    }

    /** Whether {@code be} has built {@code family} for groups of {@code group}. */
    private static boolean built(AparapiBackend be, Class<?> family, int group) {
        for (KernelSource s : be.builtSources()) {
            if (s.source().contains("translated from " + family.getName() + " ") && s.source().contains("#define LB_GROUP (" + group + ")")) {
                return true;
            }
        }
        return false;
    }

    /** The bits a run of the reductions gives. */
    private record Results(double dot, double norm, double rr, double[] x, double[] r, double rrAgain) {

        void assertSameBits(Results o, String what) {
            assertEquals(Double.doubleToRawLongBits(dot), Double.doubleToRawLongBits(o.dot), what + ": dot " + dot + " against " + o.dot);
            assertEquals(Double.doubleToRawLongBits(norm), Double.doubleToRawLongBits(o.norm), what + ": norm2 " + norm + " against "
                    + o.norm);
            assertEquals(Double.doubleToRawLongBits(rr), Double.doubleToRawLongBits(o.rr), what + ": cgUpdate's r.r " + rr
                    + " against " + o.rr);
            assertArrayEquals(x, o.x, what + ": cgUpdate's x");
            assertArrayEquals(r, o.r, what + ": cgUpdate's r");
            assertEquals(Double.doubleToRawLongBits(rrAgain), Double.doubleToRawLongBits(o.rrAgain), what + ": the second cgUpdate's r.r");
        }
    }

    /** dot, norm², and two CG updates (the second with x and r as the first left them) in the kernels {@code dedicated} says. */
    private static Results reductions(AparapiBackend be, boolean dedicated, int n) {
        be.dedicatedReductions(dedicated);
        try (DeviceVector a = be.upload(TestProblems.random(n, 21)); DeviceVector b = be.upload(TestProblems.random(n, 22));
             DeviceVector p = be.upload(TestProblems.random(n, 23)); DeviceVector ap = be.upload(TestProblems.random(n, 24));
             DeviceVector x = be.upload(TestProblems.random(n, 25)); DeviceVector r = be.upload(TestProblems.random(n, 26))) {
            double dot = be.dot(a, b);
            double norm = be.norm2(a);
            double rr = be.cgUpdate(0.37, p, ap, x, r);
            double[] xs = be.download(x);
            double[] rs = be.download(r);
            double again = be.cgUpdate(-1.25, ap, p, x, r);
            return new Results(dot, norm, rr, xs, rs, again);
        }
    }

    /** CG and Jacobi PCG take the same iterations and give the same bits with either kernels. */
    @Test
    void cgAndJacobiPcgTakeTheSameIterationsAndBits() {
        AparapiBackend be = OpenClAvailability.backend();
        boolean before = be.dedicatedReductions();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 3, 2, 4);
        ScatterOperator zop = TestProblems.dirichlet(mesh);
        try (AssembledOperator a = AssembledOperator.bind(ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0.5), zop, be);
             JacobiPreconditioner jacobi = JacobiPreconditioner.of(a)) {
            double[] b = TestProblems.random(a.size(), 5);
            for (boolean pcg : new boolean[] {false, true}) {
                SolveResult[] res = new SolveResult[2];
                double[][] sol = new double[2][];
                for (int v = 0; v < 2; v++) {
                    be.dedicatedReductions(v == 1);
                    try (DeviceVector bv = be.upload(b); DeviceVector x = be.allocate(a.size());
                         ConjugateGradient cg = new ConjugateGradient(a, pcg ? jacobi : null).relativeTolerance(1e-10).maxIterations(2000)) {
                        res[v] = cg.solve(bv, x);
                        sol[v] = be.download(x);
                    }
                }
                String what = pcg ? "Jacobi PCG" : "CG";
                assertTrue(res[0].iterations() > 10, what + ": " + res[0].iterations() + " iterations");
                assertEquals(res[0].iterations(), res[1].iterations(), what + ": iterations, general against dedicated kernels");
                assertEquals(Double.doubleToRawLongBits(res[0].finalResidual()), Double.doubleToRawLongBits(res[1].finalResidual()),
                        what + ": final residual norm");
                assertArrayEquals(sol[0], sol[1], what + ": the solution's bits");
            }
        } finally {
            be.dedicatedReductions(before);
        }
    }

    /**
     * The sums less a rank's rows: one range keeps the general kernel (it skips the range in its own pass), other rows take
     * the dedicated kernel and the correction launch; both give the bits of the general kernel's path.
     */
    @Test
    void theSumsLessRowsGiveTheSameBits() {
        AparapiBackend be = OpenClAvailability.backend();
        boolean before = be.dedicatedReductions();
        int n = 70_001;
        try {
            for (boolean contiguous : new boolean[] {true, false}) {
                int[] rows = new int[2_000];
                for (int i = 0; i < rows.length; i++) {
                    rows[i] = contiguous ? n - rows.length + i : 7 + 31 * i;
                }
                double[][] out = new double[2][];
                for (int v = 0; v < 2; v++) {
                    be.dedicatedReductions(v == 1);
                    try (DeviceIntVector ex = be.upload(rows); DeviceVector a = be.upload(TestProblems.random(n, 31));
                         DeviceVector b = be.upload(TestProblems.random(n, 32)); DeviceVector x = be.upload(TestProblems.random(n, 33));
                         DeviceVector r = be.upload(TestProblems.random(n, 34))) {
                        double dot = be.dot(a, b, ex);
                        double rr = be.cgUpdate(0.37, a, b, x, r, ex);
                        double[] rs = be.download(r);
                        out[v] = new double[rs.length + 2];
                        out[v][0] = dot;
                        out[v][1] = rr;
                        System.arraycopy(rs, 0, out[v], 2, rs.length);
                    }
                }
                assertArrayEquals(out[0], out[1], (contiguous ? "one range" : "scattered rows") + ": dot, r.r and r");
            }
        } finally {
            be.dedicatedReductions(before);
        }
    }

    /** The property: unset and {@code dedicated} the dedicated kernels, {@code general} the general one, else an error. */
    @Test
    void thePropertyTakesDedicatedOrGeneralAndNamesABadValue() {
        PropertyGuard.keeping(() -> {
            System.clearProperty(PROPERTY);
            assertTrue(BackendCore.dedicatedReductionsProperty(), "unset: dedicated");
            System.setProperty(PROPERTY, "dedicated");
            assertTrue(BackendCore.dedicatedReductionsProperty());
            System.setProperty(PROPERTY, "General");
            assertFalse(BackendCore.dedicatedReductionsProperty());
            System.setProperty(PROPERTY, "fused");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, BackendCore::dedicatedReductionsProperty);
            for (String part : List.of(PROPERTY, "'fused'", "'dedicated'", "'general'")) {
                assertTrue(e.getMessage().contains(part), "the message names " + part + ": " + e.getMessage());
            }
            if (OpenClAvailability.available()) {
                IllegalArgumentException open = assertThrows(IllegalArgumentException.class, AparapiBackend::new,
                        "a backend does not open with a bad value");
                assertEquals(e.getMessage(), open.getMessage());
                System.setProperty(PROPERTY, "general");
                try (AparapiBackend be = new AparapiBackend();
                     DeviceVector a = be.upload(TestProblems.random(1000, 1))) {
                    assertFalse(be.dedicatedReductions(), "general: the general kernel");
                    be.norm2(a);
                    assertFalse(built(be, DotKernel.class, be.reductionGroupSize(1000)), "general builds no DotKernel");
                    assertTrue(KernelBuilds.vectorKernels(be.runtime().device().maxWorkGroupSize(), be.runtime().device().localMemBytes(),
                                    s -> be.runtime().programs().kernel(s).workGroupSize()).stream()
                            .noneMatch(k -> k.source().source().contains(DotKernel.class.getName())),
                            "general: KernelBuilds lists no DotKernel");
                }
            }
        }, PROPERTY);
    }
}
