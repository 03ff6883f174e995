package io.lobatto.backend.cpu;

import io.lobatto.core.backend.DeviceFdm;

/**
 * The fast diagonalisation method in the Java backend: per element the n^3 block is contracted with V_r^T, V_s^T,
 * V_t^T (sum factorisation), divided by lambda_r,i + lambda_s,j + lambda_t,k (0 where that sum is not positive) and
 * contracted back with V_t, V_s, V_r. Per-worker scratch is allocated once here, so an apply allocates no arrays.
 */
final class CpuFdm implements DeviceFdm {

    final CpuBackend backend;
    private final int n;
    private final int elements;
    /** [E][3][n][n], V_d[a][i] = node a of eigenvector i. */
    private final double[] vectors;
    /** [E][3][n]. */
    private final double[] values;
    private final double[][] scratchA;
    private final double[][] scratchB;
    private volatile boolean closed;

    CpuFdm(CpuBackend backend, int n, int elements, double[] vectors, double[] values, int threads) {
        this.backend = backend;
        this.n = n;
        this.elements = elements;
        this.vectors = vectors.clone();
        this.values = values.clone();
        this.scratchA = new double[threads][n * n * n];
        this.scratchB = new double[threads][n * n * n];
    }

    @Override
    public int points() {
        return n;
    }

    @Override
    public int elements() {
        return elements;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
    }

    /** y = V D^-1 V^T x for elements [from, to). */
    void applyElements(int worker, int from, int to, double[] x, double[] y) {
        int n2 = n * n, n3 = n2 * n;
        double[] a = scratchA[worker], b = scratchB[worker];
        for (int e = from; e < to; e++) {
            int base = e * n3;
            int vr = 3 * e * n2, vs = vr + n2, vt = vs + n2;
            int lr = 3 * e * n, ls = lr + n, lt = ls + n;
            // forward: a[k][j][i] ... b, contracting one index at a time with V^T
            contract(x, base, a, 0, vr, true, 0);
            contract(a, 0, b, 0, vs, true, 1);
            contract(b, 0, a, 0, vt, true, 2);
            for (int k = 0; k < n; k++) {
                for (int j = 0; j < n; j++) {
                    double ljk = values[ls + j] + values[lt + k];
                    int row = (k * n + j) * n;
                    for (int i = 0; i < n; i++) {
                        double d = values[lr + i] + ljk;
                        a[row + i] = d > 0 ? a[row + i] / d : 0.0;
                    }
                }
            }
            contract(a, 0, b, 0, vt, false, 2);
            contract(b, 0, a, 0, vs, false, 1);
            contract(a, 0, y, base, vr, false, 0);
        }
    }

    /**
     * out = (V or V^T) applied along direction {@code dir} (0 = r, the fastest index) of the n^3 block {@code in}:
     * with {@code transpose}, out[.. i ..] = sum_a V[a][i] in[.. a ..], else out[.. a ..] = sum_i V[a][i] in[.. i ..].
     */
    private void contract(double[] in, int inOff, double[] out, int outOff, int v, boolean transpose, int dir) {
        int stride = dir == 0 ? 1 : dir == 1 ? n : n * n;
        int n3 = n * n * n;
        for (int p = 0; p < n3; p++) {
            int idx = (p / stride) % n;
            int lineStart = p - idx * stride;
            double s = 0;
            for (int q = 0; q < n; q++) {
                double m = transpose ? vectors[v + q * n + idx] : vectors[v + idx * n + q];
                s += m * in[inOff + lineStart + q * stride];
            }
            out[outOff + p] = s;
        }
    }
}
