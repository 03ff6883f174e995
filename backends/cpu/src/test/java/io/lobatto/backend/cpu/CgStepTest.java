package io.lobatto.backend.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.lobatto.core.backend.DeviceVector;

/**
 * CG's whole vector step (BS5 with p = r + beta p folded in) on the CPU backend: p, x and r bitwise those of the host
 * loop p_i = r_i + beta p_i; x_i += alpha p_i; r_i -= alpha Ap_i, r . r within 1e-12 of the host's sum, and every
 * result bitwise that of axpby(1, r, beta, p) then cgUpdate (the SPI's default), for any number of threads.
 */
class CgStepTest {

    private static final double ALPHA = 0.731;
    private static final double BETA = -0.417;

    /** The host loop of the step: updates p, x and r in place and returns the new r . r. */
    static double hostStep(double alpha, double beta, double[] p, double[] ap, double[] x, double[] r) {
        double sum = 0;
        for (int i = 0; i < p.length; i++) {
            double pi = r[i] + beta * p[i];
            p[i] = pi;
            x[i] += alpha * pi;
            double ri = r[i] - alpha * ap[i];
            r[i] = ri;
            sum += ri * ri;
        }
        return sum;
    }

    /** Lengths 0, 1, below and at one chunk, just above it, and several chunks with a ragged tail. */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 255, 8192, 8193, 100_003})
    void cgStepMatchesTheHostLoopAndTheComposedOps(int n) {
        Random rnd = new Random(17 + n);
        double[] p = TestSupport.random(rnd, n);
        double[] ap = TestSupport.random(rnd, n);
        double[] x = TestSupport.random(rnd, n);
        double[] r = TestSupport.random(rnd, n);
        double[] hp = p.clone();
        double[] hx = x.clone();
        double[] hr = r.clone();
        double rr = hostStep(ALPHA, BETA, hp, ap.clone(), hx, hr);
        for (int threads : new int[] {1, 3}) {
            try (CpuBackend b = new CpuBackend(threads);
                 DeviceVector dp = b.upload(p); DeviceVector dap = b.upload(ap);
                 DeviceVector dx = b.upload(x); DeviceVector dr = b.upload(r);
                 DeviceVector cp = b.upload(p); DeviceVector cx = b.upload(x); DeviceVector cr = b.upload(r)) {
                double got = b.cgStep(ALPHA, BETA, dp, dap, dx, dr);
                String what = "n = " + n + ", " + threads + " threads";
                assertArrayEquals(hp, b.download(dp), 0.0, what + ": p");
                assertArrayEquals(hx, b.download(dx), 0.0, what + ": x");
                assertArrayEquals(hr, b.download(dr), 0.0, what + ": r");
                if (n == 0) {
                    assertEquals(0.0, got, what);
                } else {
                    assertEquals(rr, got, 1e-12 * rr, what + ": r . r");
                }
                b.axpby(1, cr, BETA, cp);
                double composed = b.cgUpdate(ALPHA, cp, dap, cx, cr);
                assertEquals(Double.doubleToRawLongBits(composed), Double.doubleToRawLongBits(got),
                        what + ": r . r against axpby then cgUpdate, " + composed + " against " + got);
                assertArrayEquals(b.download(cp), b.download(dp), 0.0, what + ": p against axpby then cgUpdate");
                assertArrayEquals(b.download(cx), b.download(dx), 0.0, what + ": x against axpby then cgUpdate");
                assertArrayEquals(b.download(cr), b.download(dr), 0.0, what + ": r against axpby then cgUpdate");
            }
        }
    }

    /** Aliased vectors and a length that differs are refused, naming the vectors, before anything is written. */
    @Test
    void aliasesAndLengthsAreRefused() {
        try (CpuBackend b = new CpuBackend(2);
             DeviceVector p = b.upload(new double[] {1, 2, 3}); DeviceVector ap = b.upload(new double[] {4, 5, 6});
             DeviceVector x = b.upload(new double[] {7, 8, 9}); DeviceVector r = b.upload(new double[] {1, 1, 1});
             DeviceVector shortR = b.upload(new double[] {1, 1})) {
            refused("cgStep: p and ap must be distinct", () -> b.cgStep(1, 1, p, p, x, r));
            refused("cgStep: p and r must be distinct", () -> b.cgStep(1, 1, p, ap, x, p));
            refused("cgStep: ap and x must be distinct", () -> b.cgStep(1, 1, p, ap, ap, r));
            refused("cgStep: x and r must be distinct", () -> b.cgStep(1, 1, p, ap, x, x));
            refused("cgStep: p has length 3 but r has length 2", () -> b.cgStep(1, 1, p, ap, x, shortR));
            assertArrayEquals(new double[] {1, 2, 3}, b.download(p), "p is not written by a refused call");
            assertArrayEquals(new double[] {7, 8, 9}, b.download(x), "x is not written by a refused call");
        }
    }

    private static void refused(String message, Runnable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
        assertTrue(e.getMessage().contains(message), "message '" + e.getMessage() + "' lacks '" + message + "'");
    }
}
