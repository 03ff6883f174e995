package io.lobatto.solvers;

/**
 * Eigenvalues and eigenvectors of a small dense symmetric matrix by the cyclic Jacobi method (Jacobi 1846; the
 * threshold variant of Rutishauser 1971, as in Numerical Recipes' {@code jacobi}): plane rotations
 * J_pq^T A J_pq, each zeroing one off-diagonal entry, swept over p &lt; q until every off-diagonal entry is zero in
 * floating point; the product of the rotations is the orthogonal V with V^T A V = diag(lambda). It needs no
 * allocation and no library, converges quadratically after the first sweeps (6 to 10 sweeps at the sizes of the fast
 * diagonalisation's 1D lines, n &lt;= 18), and computes the eigenvalues to high relative accuracy. Used by
 * {@link FastDiagonalization} for its 1D generalised eigenproblems, reduced to this symmetric form.
 */
final class JacobiEigen {

    /** Sweeps after which {@link #decompose} gives up (never reached in practice: 6 to 10 sweeps converge). */
    static final int MAX_SWEEPS = 64;

    private JacobiEigen() {
    }

    /**
     * Diagonalises the symmetric {@code m x m} matrix {@code a} (row-major; destroyed): the eigenvalues in descending
     * order into {@code values[0..m)} and the eigenvectors as the columns of {@code v} (row-major {@code m x m}, unit
     * length), so that A v_i = values[i] v_i. {@code work} holds at least 2 m doubles.
     *
     * @throws IllegalArgumentException if a is not finite, or the sweeps do not converge in {@link #MAX_SWEEPS}
     */
    static void decompose(double[] a, int m, double[] values, double[] v, double[] work) {
        double[] b = work;        // b[0..m): the diagonal at the start of the sweep
        int zo = m;               // work[m..2m): the sweep's accumulated updates of the diagonal
        for (int p = 0; p < m; p++) {
            for (int q = 0; q < m; q++) {
                v[p * m + q] = p == q ? 1 : 0;
                if (!Double.isFinite(a[p * m + q])) {
                    throw new IllegalArgumentException("matrix entry (" + p + ", " + q + ") = " + a[p * m + q] + " is not finite");
                }
            }
            b[p] = a[p * m + p];
            values[p] = b[p];
            work[zo + p] = 0;
        }
        boolean converged = false;
        for (int sweep = 0; sweep < MAX_SWEEPS; sweep++) {
            double off = 0;
            for (int p = 0; p < m - 1; p++) {
                for (int q = p + 1; q < m; q++) {
                    off += Math.abs(a[p * m + q]);
                }
            }
            if (off == 0) {
                converged = true;
                break;
            }
            double threshold = sweep < 3 ? 0.2 * off / (m * m) : 0;
            for (int p = 0; p < m - 1; p++) {
                for (int q = p + 1; q < m; q++) {
                    double apq = a[p * m + q];
                    double g = 100 * Math.abs(apq);
                    if (sweep > 3 && Math.abs(values[p]) + g == Math.abs(values[p])
                            && Math.abs(values[q]) + g == Math.abs(values[q])) {
                        a[p * m + q] = 0;
                        continue;
                    }
                    if (Math.abs(apq) <= threshold) {
                        continue;
                    }
                    double h = values[q] - values[p];
                    double t;
                    if (Math.abs(h) + g == Math.abs(h)) {
                        t = apq / h;
                    } else {
                        double theta = 0.5 * h / apq;
                        t = 1 / (Math.abs(theta) + Math.sqrt(1 + theta * theta));
                        if (theta < 0) {
                            t = -t;
                        }
                    }
                    double c = 1 / Math.sqrt(1 + t * t);
                    double s = t * c;
                    double tau = s / (1 + c);
                    h = t * apq;
                    work[zo + p] -= h;
                    work[zo + q] += h;
                    values[p] -= h;
                    values[q] += h;
                    a[p * m + q] = 0;
                    for (int j = 0; j < p; j++) {
                        rotate(a, j * m + p, j * m + q, s, tau);
                    }
                    for (int j = p + 1; j < q; j++) {
                        rotate(a, p * m + j, j * m + q, s, tau);
                    }
                    for (int j = q + 1; j < m; j++) {
                        rotate(a, p * m + j, q * m + j, s, tau);
                    }
                    for (int j = 0; j < m; j++) {
                        rotate(v, j * m + p, j * m + q, s, tau);
                    }
                }
            }
            for (int p = 0; p < m; p++) {
                b[p] += work[zo + p];
                values[p] = b[p];
                work[zo + p] = 0;
            }
        }
        if (!converged) {
            throw new IllegalArgumentException("Jacobi eigenvalue sweeps did not converge in " + MAX_SWEEPS + " sweeps (m = " + m + ")");
        }
        // descending order, the columns of v with their eigenvalues (selection sort: m is small)
        for (int i = 0; i < m - 1; i++) {
            int k = i;
            for (int j = i + 1; j < m; j++) {
                if (values[j] > values[k]) {
                    k = j;
                }
            }
            if (k != i) {
                double t = values[i];
                values[i] = values[k];
                values[k] = t;
                for (int r = 0; r < m; r++) {
                    t = v[r * m + i];
                    v[r * m + i] = v[r * m + k];
                    v[r * m + k] = t;
                }
            }
        }
    }

    /** The rotation of the pair (x[i], x[j]) by the sine s and tau = s / (1 + cos). */
    private static void rotate(double[] x, int i, int j, double s, double tau) {
        double g = x[i];
        double h = x[j];
        x[i] = g - s * (h + g * tau);
        x[j] = h + s * (g - h * tau);
    }
}
