package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.backend.aparapi.kernels.CgStepKernel;
import io.lobatto.backend.aparapi.runtime.KernelSource;
import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.DeviceVector;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.TreeSet;

/**
 * CG's whole vector step, BS5 with p = r + beta p folded in ({@link CgStepKernel}), against the host loop
 * p_i = r_i + beta p_i; x_i += alpha p_i; r_i -= alpha Ap_i; sum += r_i^2: p, x and r to 1e-15 of each entry's terms
 * (the device may contract a + b c to a fused multiply-add, so not bit for bit), r . r to 1e-12 relative, in one launch,
 * with the backend's reduction group and with a small one; n = 0 launches nothing; aliased vectors and lengths that
 * differ are refused, naming the vectors.
 */
class CgStepTest {

    private static final double ALPHA = 0.37;
    private static final double BETA = 0.61;

    /** No device needed: the translated kernel takes only what the step reads, one tree of local memory. */
    @Test
    void theKernelTakesOnlyTheArgumentsItReads() {
        Set<String> names = new TreeSet<>();
        for (KernelSource.Arg a : KernelBuilds.cgStep(256).source().args()) {
            names.add(a.name());
        }
        // scalars and pending: alpha and p . A p, and a deferred step's alpha, of the builds for CG's iteration on the
        // device (the unused buffer and 0 here)
        assertEquals(Set.of("p", "ap", "x", "r", "partials", "alpha", "beta", "n", "lds", "passid", "scalars", "pending"), names);
        assertEquals(CgStepKernel.class, KernelBuilds.cgStep(64).family());
        assertEquals(8L * 64, KernelBuilds.cgStepLocalBytes(64), "one tree");
    }

    /**
     * n = 1, 255, 256, 257 and 100003 with no small group and with one (n up to the small group's switch then takes
     * the small group), each step one launch; then n = 0: 0, no launch.
     */
    @Test
    void cgStepMatchesTheHostLoop() {
        AparapiBackend be = OpenClAvailability.backend();
        int smallBefore = be.smallReduceGroup();
        int small = Math.min(256, be.reductionGroupSize() / 4);
        try {
            for (int g : new int[] {0, small}) {
                be.smallReduceGroup(g);
                for (int n : new int[] {1, 255, 256, 257, 100_003}) {
                    step(be, n, "n = " + n + ", group " + be.reductionGroupSize(n) + " (small group " + g + ")");
                }
            }
        } finally {
            be.smallReduceGroup(smallBefore);
        }
        try (DeviceVector p = be.allocate(0); DeviceVector ap = be.allocate(0); DeviceVector x = be.allocate(0);
             DeviceVector r = be.allocate(0)) {
            long before = be.launches();
            assertEquals(0.0, be.cgStep(ALPHA, BETA, p, ap, x, r), "n = 0");
            assertEquals(before, be.launches(), "n = 0 launches nothing");
        }
    }

    private static void step(AparapiBackend be, int n, String what) {
        double[] p = TestProblems.random(n, 41);
        double[] ap = TestProblems.random(n, 42);
        double[] x = TestProblems.random(n, 43);
        double[] r = TestProblems.random(n, 44);
        // the host loop, and each entry's scale: the sum of the magnitudes of the terms it adds
        double[] hp = new double[n];
        double[] hx = new double[n];
        double[] hr = new double[n];
        double[] sp = new double[n];
        double[] sx = new double[n];
        double[] sr = new double[n];
        double rr = 0;
        for (int i = 0; i < n; i++) {
            double pi = r[i] + BETA * p[i];
            hp[i] = pi;
            hx[i] = x[i] + ALPHA * pi;
            double ri = r[i] - ALPHA * ap[i];
            hr[i] = ri;
            rr += ri * ri;
            sp[i] = Math.abs(r[i]) + Math.abs(BETA * p[i]);
            sx[i] = Math.abs(x[i]) + Math.abs(ALPHA) * sp[i];
            sr[i] = Math.abs(r[i]) + Math.abs(ALPHA * ap[i]);
        }
        try (DeviceVector dp = be.upload(p); DeviceVector dap = be.upload(ap); DeviceVector dx = be.upload(x);
             DeviceVector dr = be.upload(r)) {
            long before = be.launches();
            double got = be.cgStep(ALPHA, BETA, dp, dap, dx, dr);
            assertEquals(before + 1, be.launches(), what + ": one launch");
            assertEquals(rr, got, 1e-12 * rr, what + ": r . r");
            near(hp, sp, be.download(dp), what + ": p");
            near(hx, sx, be.download(dx), what + ": x");
            near(hr, sr, be.download(dr), what + ": r");
            assertArrayEquals(ap, be.download(dap), 0.0, what + ": ap is only read");
        }
    }

    /** |got_i - expected_i| at most 1e-15 of the entry's scale (its terms' magnitudes). */
    private static void near(double[] expected, double[] scale, double[] got, String what) {
        assertEquals(expected.length, got.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            double err = Math.abs(got[i] - expected[i]);
            if (err > 1e-15 * scale[i]) {
                throw new AssertionError(what + "[" + i + "] = " + got[i] + ", the host's " + expected[i] + " (error " + err
                        + " above 1e-15 x " + scale[i] + ")");
            }
        }
    }

    /** Every aliased pair is refused by name; a length that differs names the vector, its length and p's. */
    @Test
    void aliasesAndLengthsAreRefused() {
        AparapiBackend be = OpenClAvailability.backend();
        try (DeviceVector p = be.upload(new double[] {1, 2, 3}); DeviceVector ap = be.upload(new double[] {4, 5, 6});
             DeviceVector x = be.upload(new double[] {7, 8, 9}); DeviceVector r = be.upload(new double[] {1, 1, 1});
             DeviceVector two = be.upload(new double[] {1, 1})) {
            DeviceVector[] all = {p, ap, x, r};
            String[] names = {"p", "ap", "x", "r"};
            for (int i = 0; i < all.length; i++) {
                for (int j = i + 1; j < all.length; j++) {
                    DeviceVector[] args = all.clone();
                    args[j] = all[i];
                    refused(be, args, "cgStep: " + names[i] + " and " + names[j] + " must be distinct vectors");
                }
            }
            for (int i = 1; i < all.length; i++) {
                DeviceVector[] args = all.clone();
                args[i] = two;
                refused(be, args, "cgStep: p has length 3 but " + names[i] + " has length 2");
            }
            DeviceVector[] shortP = {two, ap, x, r};
            refused(be, shortP, "cgStep: p has length 2 but ap has length 3");
            assertArrayEquals(new double[] {1, 2, 3}, be.download(p), "a refused step writes nothing");
            assertArrayEquals(new double[] {7, 8, 9}, be.download(x), "a refused step writes nothing");
            assertArrayEquals(new double[] {1, 1, 1}, be.download(r), "a refused step writes nothing");
        }
    }

    private static void refused(AparapiBackend be, DeviceVector[] v, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> be.cgStep(ALPHA, BETA, v[0], v[1], v[2], v[3]));
        assertTrue(e.getMessage().contains(message), "message '" + e.getMessage() + "' lacks '" + message + "'");
    }
}
