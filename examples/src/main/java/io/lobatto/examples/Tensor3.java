package io.lobatto.examples;

/** Sum-factorised 3D tensor-product interpolation (A ⊗ A ⊗ A) u with a 1D matrix A (m x n, row-major). */
final class Tensor3 {

    private Tensor3() {
    }

    /** out[a + m (b + m c)] = sum_ijk A[a][i] A[b][j] A[c][k] in[i + n (j + n k)]; w1 (m n n) and w2 (m m n) are scratch. */
    static void interpolate(double[] a, int m, int n, double[] in, double[] out, double[] w1, double[] w2) {
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
}
