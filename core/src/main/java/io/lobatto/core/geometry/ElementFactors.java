package io.lobatto.core.geometry;

import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.pointwise.Quadrature;

/**
 * The geometric factors of one element from its node positions (site/src/site/markdown/design.md, "The math"): with
 * the positions X at the GLL nodes relative to the element's first node, the Jacobian J = dx/dr at the quadrature
 * points is D X (GLL collocation) or D~ I X (Gauss-Legendre: I interpolates to the N+2 points, D~ differentiates
 * there), and per point
 * <pre>
 *   wJ = w_i w_j w_k |J|,     G = wJ J^-1 J^-T   (packed G00, G01, G02, G11, G12, G22, wJ).
 * </pre>
 * Every sum runs from 0 in ascending order of the contracted index, so each backend that uses this class, and
 * {@link GeometricFactors}, gets bitwise the same factors from the same positions. Holds one element's scratch:
 * one instance per thread. Not thread-safe.
 */
public final class ElementFactors {

    private static final int PACKED_STRIDE = GeometricFactors.PACKED_STRIDE;

    private final boolean gauss;
    private final int nq;
    private final int np;
    private final int q;
    private final int p;
    private final double[] w;
    private final double[] dm;
    private final double[] interp;
    private final double[] x;     // positions at the points relative to the first node, [3][P]
    private final double[] tmp1;
    private final double[] tmp2;
    private final double[] u;     // one coordinate at the GLL nodes, [Np]
    private final double[] jac;   // the derivative fields d x_d / d r_c at the points, [3d + c][P]

    /** Scratch for degree {@code basis.degree()} at the points of {@code quadrature}. */
    public ElementFactors(Basis1D basis, Quadrature quadrature) {
        this.gauss = quadrature == Quadrature.GAUSS;
        this.nq = basis.nq();
        this.np = basis.np();
        this.q = gauss ? basis.nqGauss() : nq;
        this.p = q * q * q;
        this.w = gauss ? basis.gauss().weights() : basis.gll().weights();
        this.dm = gauss ? basis.gaussDifferentiation() : basis.differentiation();
        this.interp = gauss ? basis.interpolation() : null;
        this.x = new double[3 * p];
        this.tmp1 = new double[3 * q * nq * nq];
        this.tmp2 = new double[3 * q * q * nq];
        this.u = new double[np];
        this.jac = new double[9 * p];
    }

    /** Points per direction Q. */
    public int pointsPerDirection() {
        return q;
    }

    /** Points per element P = Q^3. */
    public int points() {
        return p;
    }

    /** The 1D quadrature weights (not copied: read only). */
    double[] weights() {
        return w;
    }

    /** Positions at the points relative to the first node, [3][P] (not copied: read only, valid after {@link #derive}). */
    double[] positions() {
        return x;
    }

    /** d x_d / d r_c at the points, [3d + c][P] (not copied: read only, valid after {@link #derive}). */
    double[] jacobian() {
        return jac;
    }

    /** Coordinate {@code d} of point {@code pt} relative to the element's first node (after {@link #derive}). */
    public double relativePosition(int d, int pt) {
        return x[d * p + pt];
    }

    /** Interpolates the relative node positions {@code rel} ([Np][3]) to the points and differentiates them there. */
    public void derive(double[] rel) {
        if (!gauss) {
            for (int n = 0; n < np; n++) {
                for (int d = 0; d < 3; d++) {
                    x[d * p + n] = rel[3 * n + d];
                }
            }
        } else {
            interpolate(rel, 0, nq, q, interp, u, tmp1, tmp2, x);
        }
        derivatives();
    }

    /**
     * Writes the factors of the points ({@code stride} 7: packed G and wJ; 1: wJ alone) into {@code out} from
     * {@code offset}, point after point, after {@link #derive}; returns -1, or the first point with |J| {@literal <=} 0
     * (or NaN), where it stops.
     */
    public int write(double[] out, int offset, int stride) {
        if (stride != 1 && stride != PACKED_STRIDE) {
            throw new IllegalArgumentException("stride must be 1 or 7, got " + stride);
        }
        for (int k = 0; k < q; k++) {
            for (int j = 0; j < q; j++) {
                for (int i = 0; i < q; i++) {
                    int pt = i + q * (j + q * k);
                    if (!writePoint(out, offset, stride, pt, w[i] * w[j] * w[k])) {
                        return pt;
                    }
                }
            }
        }
        return -1;
    }

    /**
     * The factors of point {@code pt} with quadrature weight {@code w3} = w_i w_j w_k (one call per point: a small
     * method compiled after its first few hundred points); false where |J| {@literal <=} 0 (or NaN), writing nothing.
     */
    private boolean writePoint(double[] out, int offset, int stride, int pt, double w3) {
        double j00 = jac[pt], j01 = jac[p + pt], j02 = jac[2 * p + pt];
        double j10 = jac[3 * p + pt], j11 = jac[4 * p + pt], j12 = jac[5 * p + pt];
        double j20 = jac[6 * p + pt], j21 = jac[7 * p + pt], j22 = jac[8 * p + pt];
        double c00 = j11 * j22 - j12 * j21;
        double c01 = j12 * j20 - j10 * j22;
        double c02 = j10 * j21 - j11 * j20;
        double det = j00 * c00 + j01 * c01 + j02 * c02;
        if (!(det > 0)) {
            return false;
        }
        double wj = w3 * det;
        if (stride == 1) {
            out[offset + pt] = wj;
            return true;
        }
        // inverse: inv[c][d] = cofactor[d][c] / det, rows a of J^-1 = (ia0, ia1, ia2)
        double inv = 1 / det;
        double i00 = c00 * inv, i01 = (j02 * j21 - j01 * j22) * inv, i02 = (j01 * j12 - j02 * j11) * inv;
        double i10 = c01 * inv, i11 = (j00 * j22 - j02 * j20) * inv, i12 = (j02 * j10 - j00 * j12) * inv;
        double i20 = c02 * inv, i21 = (j01 * j20 - j00 * j21) * inv, i22 = (j00 * j11 - j01 * j10) * inv;
        int o = offset + stride * pt;
        out[o] = wj * (i00 * i00 + i01 * i01 + i02 * i02);
        out[o + 1] = wj * (i00 * i10 + i01 * i11 + i02 * i12);
        out[o + 2] = wj * (i00 * i20 + i01 * i21 + i02 * i22);
        out[o + 3] = wj * (i10 * i10 + i11 * i11 + i12 * i12);
        out[o + 4] = wj * (i10 * i20 + i11 * i21 + i12 * i22);
        out[o + 5] = wj * (i20 * i20 + i21 * i21 + i22 * i22);
        out[o + 6] = wj;
        return true;
    }

    /** The error for point {@code pt} of element {@code e} (x0, y0, z0: the absolute position of its first node). */
    public IllegalArgumentException nonPositive(int e, int pt, double x0, double y0, double z0) {
        int i = pt % q, j = (pt / q) % q, k = pt / (q * q);
        double[] dxdr = new double[9];
        for (int r = 0; r < 9; r++) {
            dxdr[r] = jac[r * p + pt];
        }
        double det = io.lobatto.core.pointwise.PointGeometry.determinant(dxdr);
        return new IllegalArgumentException(String.format(
                "element %d: Jacobian determinant |J| = %.6g is not positive at %s point (i,j,k) = (%d,%d,%d), "
                        + "x = (%.10g, %.10g, %.10g); the element is inverted or degenerate (check its vertex order)",
                e, det, gauss ? "GL" : "GLL", i, j, k, x0 + x[pt], y0 + x[p + pt], z0 + x[2 * p + pt]));
    }

    /**
     * jac[(3d + c) P + pt] = d x_d / d r_c at every point: the 1D derivative matrix along r, s, t, each sum
     * from 0 in ascending order of the contracted index (s and t as row updates). The loops call small methods
     * ({@link #lineDots}, {@link #rowUpdate}) many times per element, so that on a fresh JVM they are compiled within the
     * first element rather than interpreted until a long loop's on-stack replacement; the arithmetic is the same.
     */
    private void derivatives() {
        int qq = q * q;
        for (int d = 0; d < 3; d++) {
            int xd = d * p;
            int r = (3 * d) * p, sd = (3 * d + 1) * p, td = (3 * d + 2) * p;
            // r: dot products along contiguous lines
            for (int jk = 0; jk < qq; jk++) {
                lineDots(dm, q, q, x, xd + q * jk, jac, r + q * jk);
            }
            // s: rows i of (j, k) updated with D_ja times rows of (a, k)
            for (int k = 0; k < q; k++) {
                for (int j = 0; j < q; j++) {
                    int out = sd + q * (j + q * k);
                    java.util.Arrays.fill(jac, out, out + q, 0.0);
                    for (int a = 0; a < q; a++) {
                        rowUpdate(dm[j * q + a], x, xd + q * (a + q * k), jac, out, q);
                    }
                }
            }
            // t: planes (i, j) of k updated with D_ka times planes of a
            for (int k = 0; k < q; k++) {
                int out = td + qq * k;
                java.util.Arrays.fill(jac, out, out + qq, 0.0);
                for (int a = 0; a < q; a++) {
                    rowUpdate(dm[k * q + a], x, xd + qq * a, jac, out, qq);
                }
            }
        }
    }

    /**
     * out[o + i] = sum_a m[i cols + a] in[at + a] for i < rows, each sum from 0 in ascending order of a (the r-direction
     * contraction of one line).
     */
    private static void lineDots(double[] m, int rows, int cols, double[] in, int at, double[] out, int o) {
        for (int i = 0; i < rows; i++) {
            double v = 0;
            for (int a = 0; a < cols; a++) {
                v += m[i * cols + a] * in[at + a];
            }
            out[o + i] = v;
        }
    }

    /** out[o + i] += c in[at + i] for i < len (one row update of the s and t contractions). */
    private static void rowUpdate(double c, double[] in, int at, double[] out, int o, int len) {
        for (int i = 0; i < len; i++) {
            out[o + i] += c * in[at + i];
        }
    }

    /**
     * x[d*P + (a + q(b + q c))] = sum I_ai I_bj I_ck X_d(i,j,k): GLL positions ([Np][3] from {@code nodeOffset}) to
     * the GL points, one direction at a time. Each output is summed from 0 in ascending order of the contracted
     * index (the s and t passes run as row updates, which the JIT vectorises without changing any sum).
     */
    private static void interpolate(double[] coords, int nodeOffset, int nq, int q, double[] im, double[] u, double[] t1,
                                    double[] t2, double[] x) {
        int p = q * q * q;
        int np = nq * nq * nq;
        for (int d = 0; d < 3; d++) {
            for (int n = 0; n < np; n++) {
                u[n] = coords[3 * (nodeOffset + n) + d];
            }
            // r direction: t1[a + q(j + nq k)]
            for (int jk = 0; jk < nq * nq; jk++) {
                lineDots(im, q, nq, u, nq * jk, t1, q * jk);
            }
            // s direction: t2[a + q(b + q k)]
            for (int k = 0; k < nq; k++) {
                for (int b = 0; b < q; b++) {
                    int out = q * (b + q * k);
                    java.util.Arrays.fill(t2, out, out + q, 0.0);
                    for (int j = 0; j < nq; j++) {
                        rowUpdate(im[b * nq + j], t1, q * (j + nq * k), t2, out, q);
                    }
                }
            }
            // t direction
            int qq = q * q;
            for (int c = 0; c < q; c++) {
                int out = d * p + qq * c;
                java.util.Arrays.fill(x, out, out + qq, 0.0);
                for (int k = 0; k < nq; k++) {
                    rowUpdate(im[c * nq + k], t2, qq * k, x, out, qq);
                }
            }
        }
    }

}
