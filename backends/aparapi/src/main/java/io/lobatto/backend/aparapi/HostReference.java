package io.lobatto.backend.aparapi;

import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;

/**
 * Plain-Java references for the self-check and the tests: straight loops for the streaming and
 * gather/scatter kernels, and for the element kernels the dense (unfactorised) element matrices built
 * from the 1D matrices, y = sum_xy B_x^T G_xy B_y u + lambda B_0^T wJ B_0 u with B_x = K(x)J(x)J
 * (Kronecker products; J = I, K = D~ I for GL kernels, J = identity, K = D for BP3.5), applied entry by
 * entry without sum factorisation.
 */
final class HostReference {

    private HostReference() {
    }

    /** y_L = L x_L element by element (lambda ignored for BP1.0). */
    static double[] applyElements(ElementKernel kernel, Basis1D basis, int elements, double[] geo, double lambda, double[] x) {
        int q = basis.nq();
        int np = q * q * q;
        boolean gl = kernel.usesGaussQuadrature();
        int p = gl ? basis.nqGauss() : q;
        int p3 = p * p * p;
        double[] j1 = new double[p * q];
        double[] k1 = new double[p * q];
        if (gl) {
            double[] in = basis.interpolation();
            double[] dg = basis.gaussDifferentiation();
            System.arraycopy(in, 0, j1, 0, in.length);
            for (int a = 0; a < p; a++) {
                for (int i = 0; i < q; i++) {
                    double s = 0;
                    for (int m = 0; m < p; m++) {
                        s += dg[a * p + m] * in[m * q + i];
                    }
                    k1[a * q + i] = s;
                }
            }
        } else {
            double[] d = basis.differentiation();
            for (int a = 0; a < q; a++) {
                j1[a * q + a] = 1;
            }
            System.arraycopy(d, 0, k1, 0, d.length);
        }
        int fpp = kernel.factorsPerPoint();
        boolean stiff = kernel != ElementKernel.MASS_BP10;
        double[] y = new double[elements * np];
        double[] v = new double[4 * p3];
        for (int e = 0; e < elements; e++) {
            java.util.Arrays.fill(v, 0);
            for (int c = 0; c < p; c++) {
                for (int b = 0; b < p; b++) {
                    for (int a = 0; a < p; a++) {
                        int pt = a + p * (b + p * c);
                        double v0 = 0, vr = 0, vs = 0, vt = 0;
                        for (int k = 0; k < q; k++) {
                            for (int jj = 0; jj < q; jj++) {
                                for (int i = 0; i < q; i++) {
                                    double u = x[e * np + i + q * (jj + q * k)];
                                    double ja = j1[a * q + i], jb = j1[b * q + jj], jc = j1[c * q + k];
                                    v0 += ja * jb * jc * u;
                                    if (stiff) {
                                        vr += k1[a * q + i] * jb * jc * u;
                                        vs += ja * k1[b * q + jj] * jc * u;
                                        vt += ja * jb * k1[c * q + k] * u;
                                    }
                                }
                            }
                        }
                        int g = (e * p3 + pt) * fpp;
                        if (stiff) {
                            v[pt] = lambda * geo[g + 6] * v0;
                            v[p3 + pt] = geo[g] * vr + geo[g + 1] * vs + geo[g + 2] * vt;
                            v[2 * p3 + pt] = geo[g + 1] * vr + geo[g + 3] * vs + geo[g + 4] * vt;
                            v[3 * p3 + pt] = geo[g + 2] * vr + geo[g + 4] * vs + geo[g + 5] * vt;
                        } else {
                            v[pt] = geo[g] * v0;
                        }
                    }
                }
            }
            for (int k = 0; k < q; k++) {
                for (int jj = 0; jj < q; jj++) {
                    for (int i = 0; i < q; i++) {
                        double s = 0;
                        for (int c = 0; c < p; c++) {
                            for (int b = 0; b < p; b++) {
                                for (int a = 0; a < p; a++) {
                                    int pt = a + p * (b + p * c);
                                    double ja = j1[a * q + i], jb = j1[b * q + jj], jc = j1[c * q + k];
                                    s += ja * jb * jc * v[pt];
                                    if (stiff) {
                                        s += k1[a * q + i] * jb * jc * v[p3 + pt] + ja * k1[b * q + jj] * jc * v[2 * p3 + pt]
                                                + ja * jb * k1[c * q + k] * v[3 * p3 + pt];
                                    }
                                }
                            }
                        }
                        y[e * np + i + q * (jj + q * k)] = s;
                    }
                }
            }
        }
        return y;
    }

    static double[] scatter(int[] ids, double[] xg) {
        double[] xl = new double[ids.length];
        for (int n = 0; n < ids.length; n++) {
            xl[n] = ids[n] >= 0 ? xg[ids[n]] : 0;
        }
        return xl;
    }

    static double[] gather(int[] ids, double[] xl, int globalSize) {
        double[] xg = new double[globalSize];
        for (int n = 0; n < ids.length; n++) {
            if (ids[n] >= 0) {
                xg[ids[n]] += xl[n];
            }
        }
        return xg;
    }

    /**
     * Z of a structured box of ex x ey x ez elements of degree N: scatter ids (boundary masked with -1 when
     * {@code dirichlet}), the CSR arrays of Z^T and the inverse degree W.
     */
    static Mesh boxMesh(int degree, int ex, int ey, int ez, boolean dirichlet) {
        int q = degree + 1;
        int np = q * q * q;
        int gx = ex * degree + 1, gy = ey * degree + 1, gz = ez * degree + 1;
        int elements = ex * ey * ez;
        int[] node = new int[elements * np];
        int[] globalId = new int[gx * gy * gz];
        java.util.Arrays.fill(globalId, -2);
        int ng = 0;
        for (int e = 0; e < elements; e++) {
            int eX = e % ex, eY = (e / ex) % ey, eZ = e / (ex * ey);
            for (int k = 0; k < q; k++) {
                for (int jj = 0; jj < q; jj++) {
                    for (int i = 0; i < q; i++) {
                        int X = eX * degree + i, Y = eY * degree + jj, Z = eZ * degree + k;
                        int lin = X + gx * (Y + gy * Z);
                        boolean boundary = X == 0 || Y == 0 || Z == 0 || X == gx - 1 || Y == gy - 1 || Z == gz - 1;
                        if (globalId[lin] == -2) {
                            globalId[lin] = dirichlet && boundary ? -1 : ng++;
                        }
                        node[e * np + i + q * (jj + q * k)] = globalId[lin];
                    }
                }
            }
        }
        int nl = node.length;
        int[] count = new int[ng + 1];
        for (int id : node) {
            if (id >= 0) {
                count[id + 1]++;
            }
        }
        for (int g = 0; g < ng; g++) {
            count[g + 1] += count[g];
        }
        int[] starts = count.clone();
        int[] fillPos = count.clone();
        int[] ids = new int[starts[ng]];
        for (int n = 0; n < nl; n++) {
            if (node[n] >= 0) {
                ids[fillPos[node[n]]++] = n;
            }
        }
        double[] w = new double[nl];
        for (int n = 0; n < nl; n++) {
            if (node[n] >= 0) {
                w[n] = 1.0 / (starts[node[n] + 1] - starts[node[n]]);
            }
        }
        return new Mesh(node, starts, ids, w, ng, elements);
    }

    /** Z of {@link #boxMesh}. */
    record Mesh(int[] scatterIds, int[] gatherStarts, int[] gatherIds, double[] inverseDegree, int globalSize, int elements) {
    }

    /** Deterministic pseudo-random geometric factors: G symmetric positive definite, wJ > 0. */
    static double[] geometry(ElementKernel kernel, Basis1D basis, int elements, long seed) {
        java.util.Random r = new java.util.Random(seed);
        int p = kernel.usesGaussQuadrature() ? basis.nqGauss() : basis.nq();
        int pts = elements * p * p * p;
        int fpp = kernel.factorsPerPoint();
        double[] g = new double[pts * fpp];
        for (int i = 0; i < pts; i++) {
            if (fpp == 1) {
                g[i] = 0.5 + r.nextDouble();
            } else {
                g[i * 7] = 1 + r.nextDouble();
                g[i * 7 + 1] = 0.2 * (r.nextDouble() - 0.5);
                g[i * 7 + 2] = 0.2 * (r.nextDouble() - 0.5);
                g[i * 7 + 3] = 1 + r.nextDouble();
                g[i * 7 + 4] = 0.2 * (r.nextDouble() - 0.5);
                g[i * 7 + 5] = 1 + r.nextDouble();
                g[i * 7 + 6] = 0.5 + r.nextDouble();
            }
        }
        return g;
    }

    static double[] random(int n, long seed) {
        java.util.Random r = new java.util.Random(seed);
        double[] x = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = 2 * r.nextDouble() - 1;
        }
        return x;
    }

    /** max_i |a_i - b_i| / max(1, max_i |b_i|). */
    static double relErr(double[] a, double[] b) {
        double m = 1e-300, d = 0;
        for (int i = 0; i < b.length; i++) {
            m = Math.max(m, Math.abs(b[i]));
            d = Math.max(d, Math.abs(a[i] - b[i]));
        }
        return d / m;
    }
}
