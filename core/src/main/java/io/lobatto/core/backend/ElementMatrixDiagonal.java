package io.lobatto.core.backend;

import io.lobatto.core.basis.Basis1D;

/**
 * The diagonal of the element matrices of an {@link ElementKernel} from its geometric data, matrix-free: the reference
 * that every backend's {@link Backend#elementDiagonal} follows (the Java backend runs it; the operators layer uses it for
 * host factors). With B the 1D matrix that evaluates derivatives of the GLL Lagrange polynomials at the quadrature
 * points (D for BP3.5, D~ I for BP3.0) and P the 1D interpolation (identity for BP3.5, I for BP1.0 and BP3.0), the
 * diagonal entry of node (i,j,k) is a sum of separable contractions
 * C(F; A1,A2,A3)_ijk = sum_abc A1[a][i] A2[b][j] A3[c][k] F_abc with squared or mixed 1D matrices:
 * C(G00; B∘B, P∘P, P∘P) + C(G11; P∘P, B∘B, P∘P) + C(G22; P∘P, P∘P, B∘B) + 2 C(G01; P∘B, B∘P, P∘P)
 * + 2 C(G02; P∘B, P∘P, B∘P) + 2 C(G12; P∘P, P∘B, B∘P) + lambda C(wJ; P∘P, P∘P, P∘P).
 * Holds one element's scratch: one instance per thread.
 */
public final class ElementMatrixDiagonal {

    private final ElementKernel kernel;
    private final int nq;
    private final int np;
    private final int m;
    private final int mp;
    private final double[] deriv;
    private final double[] pp;
    private final double[] bb;
    private final double[] pb;
    private final double[] f;
    private final double[] t1;
    private final double[] t2;
    private final double[] acc;

    /** Scratch and 1D matrices for {@code kernel} at degree {@code basis.degree()}. */
    public ElementMatrixDiagonal(ElementKernel kernel, Basis1D basis) {
        this.kernel = kernel;
        this.nq = basis.nq();
        this.np = basis.np();
        this.m = kernel.usesGaussQuadrature() ? basis.nqGauss() : nq;
        this.mp = m * m * m;
        double[] interp;
        if (kernel == ElementKernel.STIFFNESS_BP35) {
            interp = new double[nq * nq];
            for (int i = 0; i < nq; i++) {
                interp[i * nq + i] = 1;
            }
            deriv = basis.differentiation();
        } else {
            interp = basis.interpolation();
            deriv = multiply(basis.gaussDifferentiation(), interp, m, m, nq);
        }
        pp = hadamard(interp, interp);
        bb = hadamard(deriv, deriv);
        pb = hadamard(interp, deriv);
        f = new double[mp];
        t1 = new double[nq * m * m];
        t2 = new double[nq * nq * m];
        acc = new double[np];
    }

    /**
     * Writes the diagonal of one element's matrix into {@code out[offset .. offset + Np)}, from its geometric data
     * {@code data[base ..]}: {@code [P][stride]}, stride 7 (packed G, wJ) for every kernel, or 1 (wJ alone) for BP1.0.
     * {@code lambda} is ignored by BP1.0.
     */
    public void element(double[] data, int base, int stride, double lambda, double[] out, int offset) {
        if (kernel == ElementKernel.STIFFNESS_BP35) {
            collocated(data, base, stride, lambda, bb, deriv, nq, out, offset);
            return;
        }
        java.util.Arrays.fill(acc, 0);
        if (kernel == ElementKernel.STIFFNESS_BP30) {
            addTerm(data, base, stride, mp, 0, 1, bb, pp, pp, f, t1, t2, acc, nq, m);
            addTerm(data, base, stride, mp, 3, 1, pp, bb, pp, f, t1, t2, acc, nq, m);
            addTerm(data, base, stride, mp, 5, 1, pp, pp, bb, f, t1, t2, acc, nq, m);
            addTerm(data, base, stride, mp, 1, 2, pb, pb, pp, f, t1, t2, acc, nq, m);
            addTerm(data, base, stride, mp, 2, 2, pb, pp, pb, f, t1, t2, acc, nq, m);
            addTerm(data, base, stride, mp, 4, 2, pp, pb, pb, f, t1, t2, acc, nq, m);
            if (lambda != 0) {
                addTerm(data, base, stride, mp, 6, lambda, pp, pp, pp, f, t1, t2, acc, nq, m);
            }
        } else {
            // the mass operator reads wJ alone
            addTerm(data, base, stride, mp, stride == 1 ? 0 : 6, 1, pp, pp, pp, f, t1, t2, acc, nq, m);
        }
        System.arraycopy(acc, 0, out, offset, np);
    }

    /**
     * BP3.5 (GLL collocation, P = identity): the separable contractions collapse to 1D sums,
     * diag_ijk = sum_a D_ai^2 G00_ajk + sum_b D_bj^2 G11_ibk + sum_c D_ck^2 G22_ijc
     * + 2 D_ii D_jj G01_ijk + 2 D_ii D_kk G02_ijk + 2 D_jj D_kk G12_ijk + lambda wJ_ijk.
     * Terms, sums and products are taken in the order of the general contraction (whose extra terms are exact
     * zeros), so the result is the same bit for bit, at O(Nq^4) instead of O(Nq^4) per term times 3 passes.
     */
    private static void collocated(double[] data, int base, int stride, double lambda, double[] bb, double[] d, int nq,
                                   double[] out, int offset) {
        int np = nq * nq * nq;
        for (int k = 0; k < nq; k++) {
            for (int j = 0; j < nq; j++) {
                for (int i = 0; i < nq; i++) {
                    int n = i + nq * (j + nq * k);
                    double s0 = 0, s1 = 0, s2 = 0;
                    for (int a = 0; a < nq; a++) {
                        s0 += bb[a * nq + i] * data[base + stride * (a + nq * (j + nq * k))];
                    }
                    for (int b = 0; b < nq; b++) {
                        s1 += bb[b * nq + j] * data[base + stride * (i + nq * (b + nq * k)) + 3];
                    }
                    for (int c = 0; c < nq; c++) {
                        s2 += bb[c * nq + k] * data[base + stride * (i + nq * (j + nq * c)) + 5];
                    }
                    double dii = d[i * nq + i], djj = d[j * nq + j], dkk = d[k * nq + k];
                    int o = base + stride * n;
                    double acc = 0;
                    acc += 1 * s0;
                    acc += 1 * s1;
                    acc += 1 * s2;
                    acc += 2 * (djj * (dii * data[o + 1]));
                    acc += 2 * (dkk * (dii * data[o + 2]));
                    acc += 2 * (dkk * (djj * data[o + 4]));
                    if (lambda != 0) {
                        acc += lambda * data[o + 6];
                    }
                    out[offset + n] = acc;
                }
            }
        }
    }

    /** The term of factor {@code component}, read from the packed factors of one element starting at {@code base}. */
    private static void addTerm(double[] data, int base, int stride, int mp, int component, double scale, double[] a1,
                                double[] a2, double[] a3, double[] f, double[] t1, double[] t2, double[] acc, int nq, int m) {
        for (int q = 0; q < mp; q++) {
            f[q] = data[base + stride * q + component];
        }
        contract(f, a1, a2, a3, scale, t1, t2, acc, nq, m);
    }

    /** acc_ijk += scale * sum_abc a1[a][i] a2[b][j] a3[c][k] f_abc (matrices m x nq, row-major). */
    public static void contract(double[] f, double[] a1, double[] a2, double[] a3, double scale, double[] t1,
                                 double[] t2, double[] acc, int nq, int m) {
        // t1[i + nq (b + m c)] = sum_a a1[a][i] f[a + m (b + m c)]
        for (int bc = 0; bc < m * m; bc++) {
            for (int i = 0; i < nq; i++) {
                double s = 0;
                for (int a = 0; a < m; a++) {
                    s += a1[a * nq + i] * f[a + m * bc];
                }
                t1[i + nq * bc] = s;
            }
        }
        // t2[i + nq (j + nq c)] = sum_b a2[b][j] t1[i + nq (b + m c)]
        for (int c = 0; c < m; c++) {
            for (int j = 0; j < nq; j++) {
                for (int i = 0; i < nq; i++) {
                    double s = 0;
                    for (int b = 0; b < m; b++) {
                        s += a2[b * nq + j] * t1[i + nq * (b + m * c)];
                    }
                    t2[i + nq * (j + nq * c)] = s;
                }
            }
        }
        for (int k = 0; k < nq; k++) {
            for (int ij = 0; ij < nq * nq; ij++) {
                double s = 0;
                for (int c = 0; c < m; c++) {
                    s += a3[c * nq + k] * t2[ij + nq * nq * c];
                }
                acc[ij + nq * nq * k] += scale * s;
            }
        }
    }

    /** The entrywise product of two matrices of the same shape. */
    public static double[] hadamard(double[] a, double[] b) {
        double[] c = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            c[i] = a[i] * b[i];
        }
        return c;
    }

    /** C = A B with A (rows x inner), B (inner x cols), row-major. */
    public static double[] multiply(double[] a, double[] b, int rows, int inner, int cols) {
        double[] c = new double[rows * cols];
        for (int r = 0; r < rows; r++) {
            for (int k = 0; k < inner; k++) {
                double v = a[r * inner + k];
                for (int col = 0; col < cols; col++) {
                    c[r * cols + col] += v * b[k * cols + col];
                }
            }
        }
        return c;
    }
}
