package io.lobatto.backend.cpu;

/**
 * The contractions of {@link TensorBlock} for any degree as plain loops with runtime sizes: the same operations in the
 * same order as the generated {@code TensorBlockN<N>} (each output is {@code a[r][0] in_0 + a[r][1] in_1 + ...}, summed
 * left to right from the first product, then stored or added), so both give the same bits. Four small methods serve
 * every contraction, where the generated classes have a few dozen large ones per degree: on a fresh JVM they reach the
 * JIT compilers after a few thousand multiply-adds instead of each large method after its own hundred calls, and C2
 * compiles them in a fraction of the time, while their compiled loops run slower than the generated, vectorised ones.
 */
final class TensorBlockLoops extends TensorBlock {

    /**
     * @param degree    N
     * @param blockSize B, as the generated contractions of this degree have it (the block layout must agree)
     */
    TensorBlockLoops(int degree, int blockSize) {
        super(degree, blockSize);
    }

    @Override
    void gradSlow(double[] a, double[] in, double[] out, boolean acc) {
        slow(a, n, n, n * n * b, in, out, acc);
    }

    @Override
    void gradMid(double[] a, double[] in, double[] out, boolean acc) {
        mid(a, n, n, n, n * b, in, out, acc);
    }

    @Override
    void gaussSlow(double[] a, double[] in, double[] out, boolean acc) {
        slow(a, m, m, m * m * b, in, out, acc);
    }

    @Override
    void gaussMid(double[] a, double[] in, double[] out, boolean acc) {
        mid(a, m, m, m, m * b, in, out, acc);
    }

    @Override
    void interpSlowN(double[] a, double[] in, double[] out) {
        slow(a, m, n, n * n * b, in, out, false);
    }

    @Override
    void interpMid(double[] a, double[] in, double[] out) {
        mid(a, m, n, m, n * b, in, out, false);
    }

    @Override
    void interpSlowM(double[] a, double[] in, double[] out) {
        slow(a, m, n, m * m * b, in, out, false);
    }

    @Override
    void projectSlowM(double[] a, double[] in, double[] out) {
        slow(a, n, m, m * m * b, in, out, false);
    }

    @Override
    void projectMid(double[] a, double[] in, double[] out) {
        mid(a, n, m, n, m * b, in, out, false);
    }

    @Override
    void projectSlowN(double[] a, double[] in, double[] out) {
        slow(a, n, m, n * n * b, in, out, false);
    }

    /** out[c + plane r] (+)= sum_k a[r][k] in[c + plane k], k ascending from the first product (a rows x cols). */
    static void slow(double[] a, int rows, int cols, int plane, double[] in, double[] out, boolean acc) {
        for (int r = 0; r < rows; r++) {
            int ar = r * cols;
            int o = plane * r;
            if (acc) {
                for (int c = 0; c < plane; c++) {
                    out[o + c] += dot(a, ar, cols, in, c, plane);
                }
            } else {
                for (int c = 0; c < plane; c++) {
                    out[o + c] = dot(a, ar, cols, in, c, plane);
                }
            }
        }
    }

    /**
     * Per slab s of the slowest index: out[c + fibre (r + rows s)] (+)= sum_k a[r][k] in[c + fibre (k + cols s)], k
     * ascending from the first product.
     */
    static void mid(double[] a, int rows, int cols, int slabs, int fibre, double[] in, double[] out, boolean acc) {
        for (int s = 0; s < slabs; s++) {
            int inSlab = fibre * cols * s;
            for (int r = 0; r < rows; r++) {
                int ar = r * cols;
                int o = fibre * (r + rows * s);
                if (acc) {
                    for (int c = 0; c < fibre; c++) {
                        out[o + c] += dot(a, ar, cols, in, inSlab + c, fibre);
                    }
                } else {
                    for (int c = 0; c < fibre; c++) {
                        out[o + c] = dot(a, ar, cols, in, inSlab + c, fibre);
                    }
                }
            }
        }
    }

    /** a[ar] in[at] + a[ar + 1] in[at + stride] + ..., left to right (cols terms). */
    private static double dot(double[] a, int ar, int cols, double[] in, int at, int stride) {
        double s = a[ar] * in[at];
        for (int k = 1; k < cols; k++) {
            s += a[ar + k] * in[at + stride * k];
        }
        return s;
    }
}
