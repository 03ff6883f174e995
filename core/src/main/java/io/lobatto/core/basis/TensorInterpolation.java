package io.lobatto.core.basis;

/**
 * Sum-factorised 3D tensor-product interpolation (A ⊗ A ⊗ A) u with a 1D matrix A (m x n, row-major), e.g.
 * the GLL -> GL interpolation I of the tensor-product paper (its Algorithm 1) applied to one element, in
 * three 1D passes (r, s, t) of O(m n^3 + m^2 n^2 + m^3 n) work instead of O(m^3 n^3).
 */
public final class TensorInterpolation {

    private TensorInterpolation() {
    }

    /**
     * out[a + m (b + m c)] = sum_ijk A[a][i] A[b][j] A[c][k] in[i + n (j + n k)]; w1 (m n n) and w2 (m m n) are
     * scratch.
     *
     * @throws IllegalArgumentException when an array is shorter than its size above
     */
    public static void interpolate(double[] a, int m, int n, double[] in, double[] out, double[] w1, double[] w2) {
        check("a", a, (long) m * n);
        check("in", in, (long) n * n * n);
        check("out", out, (long) m * m * m);
        check("w1", w1, (long) m * n * n);
        check("w2", w2, (long) m * m * n);
        for (int jk = 0; jk < n * n; jk++) {
            for (int r = 0; r < m; r++) {
                double s = 0;
                for (int i = 0; i < n; i++) {
                    s += a[r * n + i] * in[i + n * jk];
                }
                w1[r + m * jk] = s;
            }
        }
        for (int k = 0; k < n; k++) {
            for (int b = 0; b < m; b++) {
                for (int r = 0; r < m; r++) {
                    double s = 0;
                    for (int j = 0; j < n; j++) {
                        s += a[b * n + j] * w1[r + m * (j + n * k)];
                    }
                    w2[r + m * (b + m * k)] = s;
                }
            }
        }
        for (int c = 0; c < m; c++) {
            for (int rb = 0; rb < m * m; rb++) {
                double s = 0;
                for (int k = 0; k < n; k++) {
                    s += a[c * n + k] * w2[rb + m * m * k];
                }
                out[rb + m * m * c] = s;
            }
        }
    }

    private static void check(String name, double[] v, long need) {
        if (v.length < need) {
            throw new IllegalArgumentException(name + " has length " + v.length + " but needs at least " + need);
        }
    }
}
