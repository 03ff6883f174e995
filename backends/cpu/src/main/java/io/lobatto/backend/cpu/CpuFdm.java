package io.lobatto.backend.cpu;

import io.lobatto.core.backend.DeviceFdm;

/**
 * The fast diagonalisation method in the Java backend: per element the n^3 block is contracted with V_r^T, V_s^T,
 * V_t^T (sum factorisation), divided by lambda_r,i + lambda_s,j + lambda_t,k (0 where that sum is not positive) and
 * contracted back with V_t, V_s, V_r. The matrices are dense per element and direction or a table of distinct lines
 * with each element's line per direction ({@link #lineOf}). Per-worker scratch is allocated once here, so an apply
 * allocates no arrays.
 */
final class CpuFdm implements DeviceFdm {

    final CpuBackend backend;
    private final int n;
    private final int elements;
    /** [L][n][n], V[a][i] = node a of eigenvector i (L = 3 E when dense). */
    private final double[] vectors;
    /** [L][n]. */
    private final double[] values;
    /** [E][3]: the line of element e in direction d, or null for dense (line 3 e + d). */
    private final int[] lineOf;
    private final double[][] scratchA;
    private final double[][] scratchB;
    private final double[][] scratchC;
    private volatile boolean closed;

    CpuFdm(CpuBackend backend, int n, int elements, double[] vectors, double[] values, int[] lineOf, int threads) {
        this.backend = backend;
        this.n = n;
        this.elements = elements;
        this.vectors = vectors.clone();
        this.values = values.clone();
        this.lineOf = lineOf == null ? null : lineOf.clone();
        this.scratchA = new double[threads][n * n * n];
        this.scratchB = new double[threads][n * n * n];
        this.scratchC = new double[threads][n * n * n];
    }

    private int line(int e, int d) {
        return lineOf == null ? 3 * e + d : lineOf[3 * e + d];
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
        int n3 = n * n * n;
        for (int e = from; e < to; e++) {
            applyElement(worker, e, x, e * n3, y, e * n3);
        }
    }

    /**
     * The restricted Schwarz local solves of elements [from, to): the block of {@code xG} read through {@code ids}
     * ([E][n^3], -1 reads 0), solved, and its inner (n-2)^3 points times {@code w} written to {@code yL} ([E][(n-2)^3]).
     */
    void applyRestricted(int worker, int from, int to, int[] ids, double[] xG, double[] w, double[] yL) {
        int n3 = n * n * n, m = n - 2, m3 = m * m * m;
        double[] c = scratchC[worker];
        for (int e = from; e < to; e++) {
            for (int p = 0; p < n3; p++) {
                int id = ids[e * n3 + p];
                c[p] = id >= 0 ? xG[id] : 0.0;
            }
            applyElement(worker, e, c, 0, c, 0);
            for (int k = 0; k < m; k++) {
                for (int j = 0; j < m; j++) {
                    for (int i = 0; i < m; i++) {
                        int q = e * m3 + i + m * (j + m * k);
                        yL[q] = c[(i + 1) + n * ((j + 1) + n * (k + 1))] * w[q];
                    }
                }
            }
        }
    }

    /** y[yOff..] = V D^-1 V^T x[xOff..] for element e's block ({@code x} and {@code y} may be the same block). */
    private void applyElement(int worker, int e, double[] x, int xOff, double[] y, int yOff) {
        int n2 = n * n;
        double[] a = scratchA[worker], b = scratchB[worker];
        int vr = line(e, 0) * n2, vs = line(e, 1) * n2, vt = line(e, 2) * n2;
        int lr = line(e, 0) * n, ls = line(e, 1) * n, lt = line(e, 2) * n;
        // forward: a[k][j][i] ... b, contracting one index at a time with V^T
        contract(x, xOff, a, 0, vr, true, 0);
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
        contract(a, 0, y, yOff, vr, false, 0);
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
