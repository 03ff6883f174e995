package io.lobatto.backend.cpu;

/**
 * The contractions of {@link TensorBlock} for any degree as plain loops with runtime sizes: the same operations in the
 * same order as the generated {@code TensorBlockN<N>} (each output is {@code a[r][0] in_0 + a[r][1] in_1 + ...}, summed
 * left to right from the first product, then stored or added), so both give the same bits. A few small methods serve
 * every contraction of every degree, where the generated classes have a few dozen large ones per degree: on a fresh JVM
 * they reach the JIT compilers after a few blocks instead of each large method after its own hundred calls, and C2
 * compiles them in a fraction of the time. Each row is summed over the whole plane or fibre at once (the first product
 * for every point, then each further product added), in loops over contiguous points that C2 vectorises.
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

    /** Per-thread sums of one row of a contraction before an accumulating store (length of the largest plane). */
    private final ThreadLocal<double[]> rowSums = ThreadLocal.withInitial(() -> new double[Math.max(n, m) * Math.max(n, m) * b]);

    /**
     * out[c + plane r] (+)= sum_k a[r][k] in[c + plane k], k ascending from the first product (a rows x cols): per row,
     * the first product for every c, then each further product added for every c (loops over c that the JIT
     * vectorises), which rounds as the generated left-to-right sums do.
     */
    void slow(double[] a, int rows, int cols, int plane, double[] in, double[] out, boolean acc) {
        double[] t = acc ? rowSums.get() : out;
        for (int r = 0; r < rows; r++) {
            int o = acc ? 0 : plane * r;
            row(a, r * cols, cols, in, 0, plane, t, o);
            if (acc) {
                add(t, out, plane * r, plane);
            }
        }
    }

    /**
     * Per slab s of the slowest index: out[c + fibre (r + rows s)] (+)= sum_k a[r][k] in[c + fibre (k + cols s)], k
     * ascending from the first product, rounded as {@link #slow}.
     */
    void mid(double[] a, int rows, int cols, int slabs, int fibre, double[] in, double[] out, boolean acc) {
        double[] t = acc ? rowSums.get() : out;
        for (int s = 0; s < slabs; s++) {
            int inSlab = fibre * cols * s;
            for (int r = 0; r < rows; r++) {
                int o = fibre * (r + rows * s);
                row(a, r * cols, cols, in, inSlab, fibre, t, acc ? 0 : o);
                if (acc) {
                    add(t, out, o, fibre);
                }
            }
        }
    }

    /** t[o + c] = a[ar] in[at + c] + a[ar + 1] in[at + stride + c] + ..., left to right (cols terms), c < len. */
    private static void row(double[] a, int ar, int cols, double[] in, int at, int len, double[] t, int o) {
        final double a0 = a[ar];
        for (int c = 0; c < len; c++) {
            t[o + c] = a0 * in[at + c];
        }
        for (int k = 1; k < cols; k++) {
            final double ak = a[ar + k];
            final int ik = at + len * k;
            for (int c = 0; c < len; c++) {
                t[o + c] += ak * in[ik + c];
            }
        }
    }

    /** out[o + c] += t[c], c < len. */
    private static void add(double[] t, double[] out, int o, int len) {
        for (int c = 0; c < len; c++) {
            out[o + c] += t[c];
        }
    }
}
