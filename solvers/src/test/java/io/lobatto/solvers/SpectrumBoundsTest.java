package io.lobatto.solvers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.lobatto.backend.cpu.CpuBackend;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceOperator;
import io.lobatto.core.backend.DeviceVector;

/** Lanczos bounds from CG coefficients on operators with a known spectrum. */
class SpectrumBoundsTest {

    /** y = diag(d) x. */
    private record Diagonal(Backend backend, DeviceVector d) implements DeviceOperator {
        @Override
        public int size() {
            return d.length();
        }

        @Override
        public void apply(DeviceVector x, DeviceVector y) {
            backend.pointwiseMultiply(d, x, y);
        }
    }

    @Test
    void ritzValuesApproachTheExtremeEigenvaluesFromInside() {
        int n = 200;
        double[] d = new double[n];
        double[] ones = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = 1 + 99.0 * i / (n - 1); // eigenvalues 1 .. 100 of D^-1 A with D = I
            ones[i] = 1;
        }
        try (Backend be = new CpuBackend(1); DeviceVector dd = be.upload(d); DeviceVector inv = be.upload(ones)) {
            SpectrumBounds few = SpectrumBounds.estimate(new Diagonal(be, dd), inv, 6, 1);
            SpectrumBounds many = SpectrumBounds.estimate(new Diagonal(be, dd), inv, 60, 1);
            assertEquals(6, few.steps());
            assertTrue(few.lambdaMax() <= 100 + 1e-9 && few.lambdaMax() > 85, "6 steps: lambda_max " + few.lambdaMax());
            assertTrue(few.lambdaMin() >= 1 - 1e-9, "6 steps: lambda_min " + few.lambdaMin());
            assertEquals(100, many.lambdaMax(), 1e-6, "60 steps");
            assertEquals(1, many.lambdaMin(), 1e-3, "60 steps");
        }
    }

    @Test
    void tridiagonalEigenvaluesByBisection() {
        // T = tridiag(-1, 2, -1) of size 5: eigenvalues 2 - 2 cos(k pi / 6), k = 1..5
        double[] diag = {2, 2, 2, 2, 2};
        double[] off = {-1, -1, -1, -1};
        for (int k = 0; k < 5; k++) {
            assertEquals(2 - 2 * Math.cos((k + 1) * Math.PI / 6), SpectrumBounds.eigenvalue(diag, off, k), 1e-12);
        }
    }

    @Test
    void theParallelStartVectorIsSplittableRandomsSequenceBitForBit() {
        for (long seed : new long[] {0x5eed + 7, -3, 0}) {
            int n = 300_000;
            double[] start = SpectrumBounds.randomStart(n, seed);
            java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
            for (int i = 0; i < n; i++) {
                double expected = r.nextDouble() - 0.5;
                org.junit.jupiter.api.Assertions.assertEquals(Double.doubleToRawLongBits(expected),
                        Double.doubleToRawLongBits(start[i]), "seed " + seed + ", entry " + i);
            }
        }
    }
}
