package io.lobatto.core.basis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.Test;

class TensorInterpolationTest {

    @Test
    void sumFactorisationEqualsTheKroneckerProduct() {
        int m = 5;
        int n = 3;
        Random rnd = new Random(11);
        double[] a = rnd.doubles(m * n, -1, 1).toArray();
        double[] in = rnd.doubles(n * n * n, -1, 1).toArray();
        double[] out = new double[m * m * m];
        TensorInterpolation.interpolate(a, m, n, in, out, new double[m * n * n], new double[m * m * n]);
        for (int c = 0; c < m; c++) {
            for (int b = 0; b < m; b++) {
                for (int r = 0; r < m; r++) {
                    double s = 0;
                    for (int k = 0; k < n; k++) {
                        for (int j = 0; j < n; j++) {
                            for (int i = 0; i < n; i++) {
                                s += a[r * n + i] * a[b * n + j] * a[c * n + k] * in[i + n * (j + n * k)];
                            }
                        }
                    }
                    assertEquals(s, out[r + m * (b + m * c)], 1e-13);
                }
            }
        }
    }

    @Test
    void gllToGlInterpolationIsExactForDegreeNPolynomials() {
        Basis1D basis = Basis1D.of(4);
        int nq = basis.nq();
        int mq = basis.nqGauss();
        double[] r = basis.gll().nodes();
        double[] g = basis.gauss().nodes();
        double[] in = new double[nq * nq * nq];
        for (int k = 0; k < nq; k++) {
            for (int j = 0; j < nq; j++) {
                for (int i = 0; i < nq; i++) {
                    in[i + nq * (j + nq * k)] = Math.pow(r[i], 4) * r[j] * Math.pow(r[k], 3);
                }
            }
        }
        double[] out = new double[mq * mq * mq];
        TensorInterpolation.interpolate(basis.interpolation(), mq, nq, in, out, new double[mq * nq * nq], new double[mq * mq * nq]);
        for (int c = 0; c < mq; c++) {
            for (int b = 0; b < mq; b++) {
                for (int a = 0; a < mq; a++) {
                    assertEquals(Math.pow(g[a], 4) * g[b] * Math.pow(g[c], 3), out[a + mq * (b + mq * c)], 1e-13);
                }
            }
        }
    }

    @Test
    void shortArraysAreNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TensorInterpolation.interpolate(
                new double[6], 2, 3, new double[27], new double[8], new double[17], new double[12]));
        assertTrue(e.getMessage().startsWith("w1 has length 17 but needs at least 18"), e.getMessage());
    }
}
