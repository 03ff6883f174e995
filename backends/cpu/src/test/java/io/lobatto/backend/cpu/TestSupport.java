package io.lobatto.backend.cpu;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;

/** Random data, scatter maps and dense (Kronecker-product) reference operators for the tests. */
final class TestSupport {

    private TestSupport() {
    }

    static double[] random(Random rnd, int n) {
        double[] x = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = 2 * rnd.nextDouble() - 1;
        }
        return x;
    }

    static double maxAbs(double[] x) {
        double m = 0;
        for (double v : x) {
            m = Math.max(m, Math.abs(v));
        }
        return m;
    }

    /** max_i |a_i - b_i| / max(max|b|, tiny). */
    static double relErr(double[] a, double[] b) {
        double m = 0;
        for (int i = 0; i < a.length; i++) {
            m = Math.max(m, Math.abs(a[i] - b[i]));
        }
        return m / Math.max(maxAbs(b), 1e-300);
    }

    // ------------------------------------------------------------------ scatter maps

    /** A scatter map with its CSR transpose; ids in [-1, nG), every global id used at least once. */
    record ScatterMap(int[] scatterIds, int[] gatherStarts, int[] gatherIds, int[] blockStarts, double[] inverseDegree,
                      int globalSize) {

        DeviceScatter upload(Backend b) {
            return b.uploadScatter(scatterIds, gatherStarts, gatherIds, blockStarts, inverseDegree, globalSize);
        }
    }

    static ScatterMap randomMap(Random rnd, int nL, int nG, double maskFraction) {
        int[] ids = new int[nL];
        for (int n = 0; n < nL; n++) {
            ids[n] = rnd.nextDouble() < maskFraction ? -1 : rnd.nextInt(nG);
        }
        // make sure every global id has at least one copy (Z^T Z invertible)
        for (int g = 0; g < nG && g < nL; g++) {
            ids[rnd.nextInt(nL)] = g;
        }
        return mapOf(ids, nG, 1 + rnd.nextInt(5));
    }

    /** Builds the CSR of Z^T (rows ascending, local ids ascending in a row) and W for given scatter ids. */
    static ScatterMap mapOf(int[] ids, int nG, int blocks) {
        int nL = ids.length;
        int[] count = new int[nG];
        for (int id : ids) {
            if (id >= 0) {
                count[id]++;
            }
        }
        int[] starts = new int[nG + 1];
        for (int g = 0; g < nG; g++) {
            starts[g + 1] = starts[g] + count[g];
        }
        int[] fill = starts.clone();
        int[] gids = new int[starts[nG]];
        for (int n = 0; n < nL; n++) {
            if (ids[n] >= 0) {
                gids[fill[ids[n]]++] = n;
            }
        }
        double[] w = new double[nL];
        for (int n = 0; n < nL; n++) {
            w[n] = ids[n] < 0 ? 0 : 1.0 / count[ids[n]];
        }
        List<Integer> bs = new ArrayList<>();
        bs.add(0);
        for (int b = 1; b < blocks; b++) {
            bs.add((int) ((long) nG * b / blocks));
        }
        bs.add(nG);
        int[] blockStarts = bs.stream().mapToInt(Integer::intValue).toArray();
        return new ScatterMap(ids, starts, gids, blockStarts, w, nG);
    }

    /**
     * The scatter map of a brick of ex x ey x ez elements of degree N (shared faces, edges and corners),
     * optionally with Dirichlet (masked) nodes on the whole boundary.
     */
    static ScatterMap brick(int n, int ex, int ey, int ez, boolean dirichlet) {
        int nq = n + 1;
        int gx = ex * n + 1, gy = ey * n + 1, gz = ez * n + 1;
        int[] ids = new int[ex * ey * ez * nq * nq * nq];
        int[] number = new int[gx * gy * gz];
        int next = 0;
        for (int z = 0; z < gz; z++) {
            for (int y = 0; y < gy; y++) {
                for (int x = 0; x < gx; x++) {
                    boolean boundary = x == 0 || y == 0 || z == 0 || x == gx - 1 || y == gy - 1 || z == gz - 1;
                    number[x + gx * (y + gy * z)] = dirichlet && boundary ? -1 : next++;
                }
            }
        }
        int e = 0;
        for (int kz = 0; kz < ez; kz++) {
            for (int ky = 0; ky < ey; ky++) {
                for (int kx = 0; kx < ex; kx++, e++) {
                    for (int k = 0; k < nq; k++) {
                        for (int j = 0; j < nq; j++) {
                            for (int i = 0; i < nq; i++) {
                                int x = kx * n + i, y = ky * n + j, z = kz * n + k;
                                ids[e * nq * nq * nq + i + nq * (j + nq * k)] = number[x + gx * (y + gy * z)];
                            }
                        }
                    }
                }
            }
        }
        return mapOf(ids, next, 3);
    }

    // ------------------------------------------------------------------ geometry

    /**
     * Random packed factors (G00,G01,G02,G11,G12,G22,wJ) or wJ alone at the quadrature points of
     * {@code kernel}: per point a random J = I + 0.3 R (so |J| > 0), G = w |J| J^-1 J^-T, wJ = w |J|, with w
     * the tensor quadrature weight. With {@code affine} J is the same at all points of an element.
     */
    static double[] geometry(Random rnd, ElementKernel kernel, Basis1D basis, int elements, boolean affine) {
        double[] w1 = kernel.usesGaussQuadrature() ? basis.gauss().weights() : basis.gll().weights();
        int q = w1.length;
        int f = kernel.factorsPerPoint();
        double[] out = new double[elements * q * q * q * f];
        int o = 0;
        for (int e = 0; e < elements; e++) {
            double[] j = randomJ(rnd);
            for (int c = 0; c < q; c++) {
                for (int b = 0; b < q; b++) {
                    for (int a = 0; a < q; a++) {
                        if (!affine) {
                            j = randomJ(rnd);
                        }
                        double w = w1[a] * w1[b] * w1[c];
                        double[] g = metric(j, w);
                        if (f == 1) {
                            out[o++] = g[6];
                        } else {
                            System.arraycopy(g, 0, out, o, 7);
                            o += 7;
                        }
                    }
                }
            }
        }
        return out;
    }

    static double[] randomJ(Random rnd) {
        double[] j = new double[9];
        for (int i = 0; i < 9; i++) {
            j[i] = 0.3 * (2 * rnd.nextDouble() - 1) + (i % 4 == 0 ? 1 : 0);
        }
        return j;
    }

    /** (G00,G01,G02,G11,G12,G22,wJ) for G = w |J| J^-1 J^-T. */
    static double[] metric(double[] j, double w) {
        double a = j[0], b = j[1], c = j[2], d = j[3], e = j[4], f = j[5], g = j[6], h = j[7], k = j[8];
        double det = a * (e * k - f * h) - b * (d * k - f * g) + c * (d * h - e * g);
        double[] inv = {
            (e * k - f * h) / det, (c * h - b * k) / det, (b * f - c * e) / det,
            (f * g - d * k) / det, (a * k - c * g) / det, (c * d - a * f) / det,
            (d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det};
        double[] m = new double[9];
        for (int r = 0; r < 3; r++) {
            for (int s = 0; s < 3; s++) {
                double sum = 0;
                for (int t = 0; t < 3; t++) {
                    sum += inv[r * 3 + t] * inv[s * 3 + t];
                }
                m[r * 3 + s] = w * det * sum;
            }
        }
        return new double[] {m[0], m[1], m[2], m[4], m[5], m[8], w * det};
    }

    // ------------------------------------------------------------------ dense references

    /** Kronecker product A3 = C (x) B (x) A acting on tensors with index a fastest: rows (p,q,r), cols (i,j,k). */
    static double[][] kron(double[] a, double[] b, double[] c, int rows, int cols) {
        int r3 = rows * rows * rows, c3 = cols * cols * cols;
        double[][] m = new double[r3][c3];
        for (int rc = 0; rc < rows; rc++) {
            for (int rb = 0; rb < rows; rb++) {
                for (int ra = 0; ra < rows; ra++) {
                    double[] row = m[ra + rows * (rb + rows * rc)];
                    for (int k = 0; k < cols; k++) {
                        for (int j = 0; j < cols; j++) {
                            for (int i = 0; i < cols; i++) {
                                row[i + cols * (j + cols * k)] = a[ra * cols + i] * b[rb * cols + j] * c[rc * cols + k];
                            }
                        }
                    }
                }
            }
        }
        return m;
    }

    static double[] matmul(double[] a, double[] b, int n, int k, int m) {
        double[] c = new double[n * m];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < m; j++) {
                double s = 0;
                for (int l = 0; l < k; l++) {
                    s += a[i * k + l] * b[l * m + j];
                }
                c[i * m + j] = s;
            }
        }
        return c;
    }

    static double[] identity(int n) {
        double[] e = new double[n * n];
        for (int i = 0; i < n; i++) {
            e[i * n + i] = 1;
        }
        return e;
    }

    /**
     * The dense Np x Np element matrix of {@code kernel} for element e, from the dense 3D matrices
     * B (values at the quadrature points) and Gr, Gs, Gt (gradients there), all Kronecker products of
     * the 1D matrices: A = sum_ab G_a^T diag(G_ab) G_b + lambda B^T diag(wJ) B (BP1.0: B^T diag(wJ) B).
     */
    static double[][] elementMatrix(ElementKernel kernel, Basis1D basis, double[] geo, int e, double lambda) {
        int n = basis.nq();
        int m = kernel.usesGaussQuadrature() ? basis.nqGauss() : n;
        double[] interp = kernel.usesGaussQuadrature() ? basis.interpolation() : identity(n);
        double[] deriv = kernel.usesGaussQuadrature()
                ? matmul(basis.gaussDifferentiation(), basis.interpolation(), m, m, n)
                : basis.differentiation();
        double[][] bq = kron(interp, interp, interp, m, n);
        double[][][] grad = {kron(deriv, interp, interp, m, n), kron(interp, deriv, interp, m, n),
            kron(interp, interp, deriv, m, n)};
        int np = n * n * n, nqp = m * m * m;
        int f = kernel.factorsPerPoint();
        double[][] a = new double[np][np];
        double[] h = new double[np];
        for (int q = 0; q < nqp; q++) {
            int gb = (e * nqp + q) * f;
            double wj = geo[gb + f - 1];
            double mass = kernel == ElementKernel.MASS_BP10 ? wj : lambda * wj;
            addOuter(a, bq[q], bq[q], mass);
            if (kernel == ElementKernel.MASS_BP10) {
                continue;
            }
            double[][] g = {{geo[gb], geo[gb + 1], geo[gb + 2]}, {geo[gb + 1], geo[gb + 3], geo[gb + 4]},
                {geo[gb + 2], geo[gb + 4], geo[gb + 5]}};
            for (int al = 0; al < 3; al++) {
                java.util.Arrays.fill(h, 0);
                for (int be = 0; be < 3; be++) {
                    double gab = g[al][be];
                    double[] gb2 = grad[be][q];
                    for (int c = 0; c < np; c++) {
                        h[c] += gab * gb2[c];
                    }
                }
                addOuter(a, grad[al][q], h, 1);
            }
        }
        return a;
    }

    /**
     * y = A x for element e with the A of {@link #elementMatrix} without forming it: per quadrature point the dense
     * Kronecker rows of B and G_a times x, then their transposes; O(P Np) work instead of O(P Np^2), so that the
     * reference reaches the degrees of the block kernels above N = 8.
     */
    static double[] elementApply(ElementKernel kernel, Basis1D basis, double[] geo, int e, double lambda, double[] x, int offset) {
        int n = basis.nq();
        int m = kernel.usesGaussQuadrature() ? basis.nqGauss() : n;
        double[] interp = kernel.usesGaussQuadrature() ? basis.interpolation() : identity(n);
        double[] deriv = kernel.usesGaussQuadrature()
                ? matmul(basis.gaussDifferentiation(), basis.interpolation(), m, m, n)
                : basis.differentiation();
        double[][] bq = kron(interp, interp, interp, m, n);
        double[][][] grad = kernel == ElementKernel.MASS_BP10 ? null : new double[][][] {kron(deriv, interp, interp, m, n),
            kron(interp, deriv, interp, m, n), kron(interp, interp, deriv, m, n)};
        int np = n * n * n, nqp = m * m * m;
        int f = kernel.factorsPerPoint();
        double[] y = new double[np];
        double[] gx = new double[3];
        for (int q = 0; q < nqp; q++) {
            int gb = (e * nqp + q) * f;
            double wj = geo[gb + f - 1];
            double mass = kernel == ElementKernel.MASS_BP10 ? wj : lambda * wj;
            double bx = 0;
            for (int c = 0; c < np; c++) {
                bx += bq[q][c] * x[offset + c];
            }
            for (int c = 0; c < np; c++) {
                y[c] += bq[q][c] * mass * bx;
            }
            if (grad == null) {
                continue;
            }
            for (int a = 0; a < 3; a++) {
                double s = 0;
                for (int c = 0; c < np; c++) {
                    s += grad[a][q][c] * x[offset + c];
                }
                gx[a] = s;
            }
            double[][] g = {{geo[gb], geo[gb + 1], geo[gb + 2]}, {geo[gb + 1], geo[gb + 3], geo[gb + 4]},
                {geo[gb + 2], geo[gb + 4], geo[gb + 5]}};
            for (int a = 0; a < 3; a++) {
                double h = g[a][0] * gx[0] + g[a][1] * gx[1] + g[a][2] * gx[2];
                for (int c = 0; c < np; c++) {
                    y[c] += grad[a][q][c] * h;
                }
            }
        }
        return y;
    }

    private static void addOuter(double[][] a, double[] u, double[] v, double s) {
        for (int r = 0; r < u.length; r++) {
            double ur = s * u[r];
            if (ur == 0) {
                continue;
            }
            double[] row = a[r];
            for (int c = 0; c < v.length; c++) {
                row[c] += ur * v[c];
            }
        }
    }

    /** y = A x, the naive triple loop over all elements' dense matrices. */
    static double[] applyDense(double[][][] mats, double[] x) {
        int np = mats[0].length;
        double[] y = new double[x.length];
        for (int e = 0; e < mats.length; e++) {
            for (int r = 0; r < np; r++) {
                double s = 0;
                for (int c = 0; c < np; c++) {
                    s += mats[e][r][c] * x[e * np + c];
                }
                y[e * np + r] = s;
            }
        }
        return y;
    }
}
