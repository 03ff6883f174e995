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
    /** The same matrices transposed, [L][n][n]: V^T[i][a] = V[a][i] (the backward contractions read its rows). */
    private final double[] vectorsT;
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
        this.vectorsT = new double[vectors.length];
        for (int l = 0; l < vectors.length / (n * n); l++) {
            for (int a = 0; a < n; a++) {
                for (int i = 0; i < n; i++) {
                    vectorsT[l * n * n + i * n + a] = vectors[l * n * n + a * n + i];
                }
            }
        }
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
            applyElement(worker, e, x, e * n3, y, e * n3, false);
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
            applyElement(worker, e, c, 0, c, 0, true);
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

    /**
     * y[yOff..] = V D^-1 V^T x[xOff..] for element e's block ({@code x} and {@code y} may be the same block); with
     * {@code inner} only the inner (n-2)^3 points of y are made (the backward contractions skip what they do not feed),
     * the others are left as they were.
     */
    private void applyElement(int worker, int e, double[] x, int xOff, double[] y, int yOff, boolean inner) {
        int n2 = n * n;
        double[] a = scratchA[worker], b = scratchB[worker];
        int vr = line(e, 0) * n2, vs = line(e, 1) * n2, vt = line(e, 2) * n2;
        int lr = line(e, 0) * n, ls = line(e, 1) * n, lt = line(e, 2) * n;
        int lo = inner ? 1 : 0, hi = inner ? n - 1 : n;
        // forward: one index at a time with V^T
        contract(x, xOff, a, 0, vectors, vr, 0, 0, n, 0, n);
        contract(a, 0, b, 0, vectors, vs, 1, 0, n, 0, n);
        contract(b, 0, a, 0, vectors, vt, 2, 0, n, 0, n);
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
        // backward with V (its transpose's rows): t on the layers kept, s on their rows kept, r on the points kept
        contract(a, 0, b, 0, vectorsT, vt, 2, lo, hi, 0, n);
        contract(b, 0, a, 0, vectorsT, vs, 1, lo, hi, lo, hi);
        contract(a, 0, y, yOff, vectorsT, vr, 0, lo, hi, lo, hi);
    }

    /**
     * out[.. i ..] = sum_q m[q][i] in[.. q ..] along direction {@code dir} (0 = r, the fastest index) of the n^3 block
     * {@code in}, with m the n x n matrix at {@code mOff} of {@code mat}: V (the forward contractions, with V^T) or V^T
     * (the backward ones, with V). Only the outputs of layers k in [kLo, kHi) are made, and for dir &lt; 2 only rows j in
     * [jLo, jHi); for dir 0 only the points i in [jLo, jHi) of those rows. The sum over q runs in ascending q from 0, as
     * a dot product would, with the innermost loop over contiguous entries so that the JIT vectorises it.
     */
    private void contract(double[] in, int inOff, double[] out, int outOff, double[] mat, int mOff, int dir,
                          int kLo, int kHi, int jLo, int jHi) {
        int n2 = n * n;
        if (dir == 2) {
            for (int k = kLo; k < kHi; k++) {
                int o = outOff + k * n2;
                java.util.Arrays.fill(out, o, o + n2, 0.0);
                for (int q = 0; q < n; q++) {
                    double c = mat[mOff + q * n + k];
                    int src = inOff + q * n2;
                    for (int p = 0; p < n2; p++) {
                        out[o + p] += c * in[src + p];
                    }
                }
            }
        } else if (dir == 1) {
            for (int k = kLo; k < kHi; k++) {
                for (int j = jLo; j < jHi; j++) {
                    int o = outOff + (k * n + j) * n;
                    java.util.Arrays.fill(out, o, o + n, 0.0);
                    for (int q = 0; q < n; q++) {
                        double c = mat[mOff + q * n + j];
                        int src = inOff + (k * n + q) * n;
                        for (int i = 0; i < n; i++) {
                            out[o + i] += c * in[src + i];
                        }
                    }
                }
            }
        } else {
            int iLo = jLo, iHi = jHi;
            for (int k = kLo; k < kHi; k++) {
                for (int j = jLo; j < jHi; j++) {
                    int row = (k * n + j) * n;
                    int o = outOff + row;
                    java.util.Arrays.fill(out, o + iLo, o + iHi, 0.0);
                    for (int q = 0; q < n; q++) {
                        double u = in[inOff + row + q];
                        int m = mOff + q * n;
                        for (int i = iLo; i < iHi; i++) {
                            out[o + i] += mat[m + i] * u;
                        }
                    }
                }
            }
        }
    }
}
