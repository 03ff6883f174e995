package io.lobatto.backend.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * The generated contractions and swaps ({@code TensorBlockN1} .. {@code TensorBlockN}{@value TensorBlock#MAX_DEGREE}, written by
 * {@code TensorBlockGenerator} at build time) against plain loops over the same index formulas, for every degree and
 * every contraction, set and accumulated. Both sum over k in ascending order, so they agree bitwise.
 */
class TensorBlockTest {

    /** Contracts the slowest index: out[c + plane*r] (+)= sum_k a[r][k] in[c + plane*k], c &lt; plane. */
    private static void slow(double[] a, int rows, int cols, int plane, double[] in, double[] out, boolean acc) {
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < plane; c++) {
                double s = 0;
                for (int k = 0; k < cols; k++) {
                    s += a[r * cols + k] * in[c + plane * k];
                }
                out[c + plane * r] = acc ? out[c + plane * r] + s : s;
            }
        }
    }

    /** Contracts the middle index, per slab s: out[c + fibre*(r + rows*s)] (+)= sum_k a[r][k] in[c + fibre*(k + cols*s)]. */
    private static void mid(double[] a, int rows, int cols, int slabs, int fibre, double[] in, double[] out, boolean acc) {
        for (int s = 0; s < slabs; s++) {
            for (int r = 0; r < rows; r++) {
                for (int c = 0; c < fibre; c++) {
                    double sum = 0;
                    for (int k = 0; k < cols; k++) {
                        sum += a[r * cols + k] * in[c + fibre * (k + cols * s)];
                    }
                    int o = c + fibre * (r + rows * s);
                    out[o] = acc ? out[o] + sum : sum;
                }
            }
        }
    }

    private interface Generated {
        void apply(TensorBlock t, double[] a, double[] in, double[] out, boolean acc);
    }

    private interface Reference {
        void apply(double[] a, double[] in, double[] out, boolean acc);
    }

    private static void check(String name, TensorBlock t, int rows, int cols, int inLength, int outLength, boolean withAcc,
                              Generated generated, Reference reference, Random rnd) {
        double[] a = random(rnd, rows * cols);
        double[] in = random(rnd, inLength);
        for (boolean acc : withAcc ? new boolean[] {false, true} : new boolean[] {false}) {
            double[] start = random(rnd, outLength + 3); // 3 guard values past the tensor: never written
            double[] got = start.clone();
            double[] expected = start.clone();
            generated.apply(t, a, in, got, acc);
            reference.apply(a, in, expected, acc);
            assertArrayEquals(expected, got, name + (acc ? " (acc)" : "") + " at N = " + t.degree);
        }
    }

    @Test
    void everyContractionOfEveryDegreeEqualsThePlainLoop() {
        Random rnd = new Random(17);
        for (int degree = 1; degree <= TensorBlock.MAX_DEGREE; degree++) {
            TensorBlock t = TensorBlock.of(degree);
            assertNotNull(t, "N = " + degree);
            assertEquals(degree, t.degree);
            int n = t.n, m = t.m, b = t.b;
            assertEquals(degree <= 3 ? 16 : 8, b, "block size at N = " + degree);
            int nnn = n * n * n * b, mmm = m * m * m * b;
            check("gradSlow", t, n, n, nnn, nnn, true, (g, a, in, out, acc) -> g.gradSlow(a, in, out, acc),
                    (a, in, out, acc) -> slow(a, n, n, n * n * b, in, out, acc), rnd);
            check("gradMid", t, n, n, nnn, nnn, true, (g, a, in, out, acc) -> g.gradMid(a, in, out, acc),
                    (a, in, out, acc) -> mid(a, n, n, n, n * b, in, out, acc), rnd);
            check("gaussSlow", t, m, m, mmm, mmm, true, (g, a, in, out, acc) -> g.gaussSlow(a, in, out, acc),
                    (a, in, out, acc) -> slow(a, m, m, m * m * b, in, out, acc), rnd);
            check("gaussMid", t, m, m, mmm, mmm, true, (g, a, in, out, acc) -> g.gaussMid(a, in, out, acc),
                    (a, in, out, acc) -> mid(a, m, m, m, m * b, in, out, acc), rnd);
            check("interpSlowN", t, m, n, nnn, m * n * n * b, false, (g, a, in, out, acc) -> g.interpSlowN(a, in, out),
                    (a, in, out, acc) -> slow(a, m, n, n * n * b, in, out, false), rnd);
            check("interpMid", t, m, n, m * n * n * b, m * m * n * b, false, (g, a, in, out, acc) -> g.interpMid(a, in, out),
                    (a, in, out, acc) -> mid(a, m, n, m, n * b, in, out, false), rnd);
            check("interpSlowM", t, m, n, n * m * m * b, mmm, false, (g, a, in, out, acc) -> g.interpSlowM(a, in, out),
                    (a, in, out, acc) -> slow(a, m, n, m * m * b, in, out, false), rnd);
            check("projectSlowM", t, n, m, mmm, n * m * m * b, false, (g, a, in, out, acc) -> g.projectSlowM(a, in, out),
                    (a, in, out, acc) -> slow(a, n, m, m * m * b, in, out, false), rnd);
            check("projectMid", t, n, m, n * m * m * b, n * n * m * b, false, (g, a, in, out, acc) -> g.projectMid(a, in, out),
                    (a, in, out, acc) -> mid(a, n, m, n, m * b, in, out, false), rnd);
            check("projectSlowN", t, n, m, m * n * n * b, nnn, false, (g, a, in, out, acc) -> g.projectSlowN(a, in, out),
                    (a, in, out, acc) -> slow(a, n, m, n * n * b, in, out, false), rnd);
        }
        assertNull(TensorBlock.of(TensorBlock.MAX_DEGREE + 1), "no contractions above MAX_DEGREE");
    }

    /**
     * {@link TensorBlockLoops} against the generated contractions, bit for bit (the raw bits, so the sign of a zero
     * counts too), on inputs with exact zeros and negative zeros: every contraction of every degree, stored and added.
     */
    @Test
    void theLoopContractionsGiveTheGeneratedBitsOnEveryDegree() {
        Random rnd = new Random(41);
        for (int degree = 1; degree <= TensorBlock.MAX_DEGREE; degree++) {
            TensorBlock g = TensorBlock.of(degree);
            TensorBlock l = new TensorBlockLoops(degree, g.b);
            int m = g.m;
            int length = m * m * m * g.b;
            for (int op = 0; op < 10; op++) {
                for (boolean acc : new boolean[] {false, true}) {
                    if (op >= 4 && acc) {
                        continue; // interpolation and projection only store
                    }
                    double[] a = random(rnd, m * m);
                    a[1] = 0.0;
                    a[2] = -0.0;
                    double[] in = random(rnd, length);
                    for (int i = 0; i < length; i += 7) {
                        in[i] = i % 2 == 0 ? 0.0 : -0.0; // products of zero: only the summation order keeps their sign
                    }
                    double[] start = random(rnd, length);
                    double[] expected = start.clone();
                    double[] got = start.clone();
                    contract(g, op, a, in, expected, acc);
                    contract(l, op, a, in, got, acc);
                    for (int i = 0; i < length; i++) {
                        if (Double.doubleToRawLongBits(expected[i]) != Double.doubleToRawLongBits(got[i])) {
                            throw new AssertionError("contraction " + op + (acc ? " (acc)" : "") + " at N = " + degree + ", entry " + i
                                    + ": loops " + got[i] + ", generated " + expected[i]);
                        }
                    }
                }
            }
        }
    }

    private static void contract(TensorBlock t, int op, double[] a, double[] in, double[] out, boolean acc) {
        switch (op) {
            case 0 -> t.gradSlow(a, in, out, acc);
            case 1 -> t.gradMid(a, in, out, acc);
            case 2 -> t.gaussSlow(a, in, out, acc);
            case 3 -> t.gaussMid(a, in, out, acc);
            case 4 -> t.interpSlowN(a, in, out);
            case 5 -> t.interpMid(a, in, out);
            case 6 -> t.interpSlowM(a, in, out);
            case 7 -> t.projectSlowM(a, in, out);
            case 8 -> t.projectMid(a, in, out);
            default -> t.projectSlowN(a, in, out);
        }
    }

    @Test
    void everySwapOfEveryDegreeEqualsTheGenericOne() {
        Random rnd = new Random(29);
        for (int degree = 1; degree <= TensorBlock.MAX_DEGREE; degree++) {
            TensorBlock t = TensorBlock.of(degree);
            int n = t.n, m = t.m;
            // the shapes the block kernels swap: (n, n, n), (m, m, m), (m, m, n) and (n, n, m)
            for (int[] shape : new int[][] {{n, n, n}, {m, m, m}, {m, m, n}, {n, n, m}}) {
                int length = shape[0] * shape[1] * shape[2] * t.b;
                double[] in = random(rnd, length);
                for (boolean add : new boolean[] {false, true}) {
                    double[] start = random(rnd, length + 3);
                    double[] got = start.clone();
                    double[] expected = start.clone();
                    t.swap(in, shape[0], shape[1], shape[2], got, add);
                    TensorBlock.swapGeneric(t.b, in, shape[0], shape[1], shape[2], expected, add);
                    assertArrayEquals(expected, got, "swap " + java.util.Arrays.toString(shape) + (add ? " (add)" : "") + " at N = " + degree);
                }
            }
        }
    }

    private static double[] random(Random rnd, int length) {
        double[] v = new double[length];
        for (int i = 0; i < length; i++) {
            v[i] = rnd.nextDouble() * 2 - 1;
        }
        return v;
    }
}
