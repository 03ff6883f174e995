package io.lobatto.parallel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.lobatto.backend.cpu.CpuBackend;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.parallel.SingleRankCommunicator;

/**
 * The SPI's default {@link io.lobatto.core.backend.Backend#cgStep} (axpby(1, r, beta, p) then cgUpdate), as the
 * {@link DistributedBackend} runs it on the CPU backend: p, x and r those of the host loop p_i = r_i + beta p_i;
 * x_i += alpha p_i; r_i -= alpha Ap_i (bit for bit: Java does not contract to fused multiply-adds), and r . r that of
 * the rows this rank owns (every third row shared, not owned) to 1e-12 relative; bad arguments refused before p is
 * written.
 */
class DefaultCgStepTest {

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 255, 256, 257, 100_003})
    void theDefaultStepMatchesTheHostLoopOverTheOwnedRows(int n) {
        double alpha = 0.731;
        double beta = -0.417;
        Random rnd = new Random(5 + n);
        double[] p = random(rnd, n);
        double[] ap = random(rnd, n);
        double[] x = random(rnd, n);
        double[] r = random(rnd, n);
        double[] mask = new double[n];
        for (int i = 0; i < n; i++) {
            mask[i] = i % 3 == 1 ? 0 : 1;
        }
        double[] hp = p.clone();
        double[] hx = x.clone();
        double[] hr = r.clone();
        double rr = 0;
        for (int i = 0; i < n; i++) {
            double pi = hr[i] + beta * hp[i];
            hp[i] = pi;
            hx[i] += alpha * pi;
            double ri = hr[i] - alpha * ap[i];
            hr[i] = ri;
            rr += mask[i] * ri * ri;
        }
        try (CpuBackend cpu = new CpuBackend(2); DistributedBackend b = new DistributedBackend(cpu, SingleRankCommunicator.INSTANCE, mask);
             DeviceVector dp = b.upload(p); DeviceVector dap = b.upload(ap); DeviceVector dx = b.upload(x);
             DeviceVector dr = b.upload(r)) {
            double got = b.cgStep(alpha, beta, dp, dap, dx, dr);
            String what = "n = " + n;
            assertArrayEquals(hp, b.download(dp), 0.0, what + ": p");
            assertArrayEquals(hx, b.download(dx), 0.0, what + ": x");
            assertArrayEquals(hr, b.download(dr), 0.0, what + ": r");
            if (n == 0) {
                assertEquals(0.0, got, what);
            } else {
                assertEquals(rr, got, 1e-12 * rr, what + ": r . r over the owned rows");
            }
            if (n > 1) {
                refused("cgStep: p and r must be distinct vectors", () -> b.cgStep(alpha, beta, dp, dap, dx, dp));
                refused("cgStep: ap and x must be distinct vectors", () -> b.cgStep(alpha, beta, dp, dap, dap, dr));
                try (DeviceVector shorter = b.allocate(n - 1)) {
                    refused("cgStep: p has length " + n + " but x has length " + (n - 1),
                            () -> b.cgStep(alpha, beta, dp, dap, shorter, dr));
                }
                assertArrayEquals(hp, b.download(dp), 0.0, what + ": a refused step leaves p as it was");
            }
        }
    }

    private static double[] random(Random rnd, int n) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = 2 * rnd.nextDouble() - 1;
        }
        return v;
    }

    private static void refused(String message, Runnable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
        assertTrue(e.getMessage().contains(message), "message '" + e.getMessage() + "' lacks '" + message + "'");
    }
}
