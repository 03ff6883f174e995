package io.lobatto.core.geometry;

import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.mesh.ElementGeometry;

/**
 * The geometric factors of a trilinear element at its GLL nodes in closed form, from its 8 vertices alone: what a
 * BP3.5 kernel computes on the fly instead of reading 7 stored factors per node. With the corners X_abc (a, b, c in
 * {0, 1} the side of r, s, t; {@link io.lobatto.core.mesh.HexReference}'s order) and l_0(r) = (1 - r) / 2,
 * l_1(r) = (1 + r) / 2, the map x(r, s, t) = sum l_a(r) l_b(s) l_c(t) X_abc has the columns of J = dx/dr
 * <pre>
 *   x_r = 1/2 sum_bc l_b(s) l_c(t) (X_1bc - X_0bc)      (the four r-edges, bilinear in s and t)
 *   x_s = 1/2 sum_ac l_a(r) l_c(t) (X_a1c - X_a0c)
 *   x_t = 1/2 sum_ab l_a(r) l_b(s) (X_ab1 - X_ab0)
 * </pre>
 * so along a column (r_i, s_j, .) x_t is constant and x_r, x_s are linear in t. The rows of adj(J) are
 * n_r = x_s x x_t, n_s = x_t x x_r, n_t = x_r x x_s, |J| = x_r . n_r, and
 * G = w |J| J^-1 J^-T = (w / |J|) [n_a . n_b], wJ = w |J| with w = w_i w_j w_k (DESIGN.md, "The math").
 * In exact arithmetic these are the factors of {@link GeometricFactors#atGll}; in floating point they agree to a few
 * units in the last place of the element's size.
 */
public final class TrilinearFactors {

    private TrilinearFactors() {
    }

    /**
     * The packed factors (G00, G01, G02, G11, G12, G22, wJ) at the GLL nodes of {@code basis} of every element,
     * {@code [E][Np][7]}, by the closed form.
     *
     * @throws IllegalArgumentException if {@code geometry} is not trilinear ({@link ElementGeometry#isTrilinear()}),
     *                                  7 E Np exceeds the array limit, or a node has |J| {@literal <=} 0 (naming the
     *                                  element and node)
     */
    public static double[] packed(ElementGeometry geometry, Basis1D basis) {
        String why = geometry.notTrilinearReason();
        if (why != null) {
            throw new IllegalArgumentException("TrilinearFactors needs trilinear elements (geometry order 1, no point map), but "
                    + why);
        }
        int ne = geometry.elementCount();
        int nq = basis.nq();
        int np = basis.np();
        long total = 7L * ne * np;
        if (total > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("geometric factors too large: 7 * E * Np = 7 * " + ne + " * " + np + " = "
                    + total + " exceeds the array limit 2^31 - 8");
        }
        double[] x = geometry.nodes();
        double[] r = basis.gll().nodes();
        double[] w = basis.gll().weights();
        double[] out = new double[(int) total];
        java.util.stream.IntStream.range(0, ne).parallel().forEach(e -> element(x, 24 * e, nq, r, w, out, 7 * np * e, e));
        return out;
    }

    /** Element e's factors from its vertices at {@code x[v0 ..]} into {@code out[o0 ..]}, [Np][7]. */
    private static void element(double[] x, int v0, int nq, double[] r, double[] w, double[] out, int o0, int e) {
        double[] col = new double[15];
        for (int j = 0; j < nq; j++) {
            for (int i = 0; i < nq; i++) {
                column(x, v0, r[i], r[j], col);
                for (int k = 0; k < nq; k++) {
                    int n = i + nq * (j + nq * k);
                    double det = point(col, r[k], w[i] * w[j] * w[k], out, o0 + 7 * n);
                    if (!(det > 0)) {
                        throw new IllegalArgumentException(String.format(
                                "element %d: Jacobian determinant |J| = %.6g is not positive at GLL point (i,j,k) = (%d,%d,%d); "
                                        + "the element is inverted or degenerate (check its vertex order)", e, det, i, j, k));
                    }
                }
            }
        }
    }

    /**
     * The column coefficients at (r, s) of the element whose vertices start at {@code x[v0]}: x_r = l_0(t) R0 + l_1(t) R1,
     * x_s = l_0(t) S0 + l_1(t) S1, x_t = T, into {@code col} = (R0, R1, S0, S1, T), 3 coordinates each.
     */
    static void column(double[] x, int v0, double r, double s, double[] col) {
        double r0 = 0.5 * (1 - r);
        double r1 = 0.5 * (1 + r);
        double s0 = 0.5 * (1 - s);
        double s1 = 0.5 * (1 + s);
        for (int d = 0; d < 3; d++) {
            // corners 0(-,-,-) 1(+,-,-) 2(+,+,-) 3(-,+,-) 4(-,-,+) 5(+,-,+) 6(+,+,+) 7(-,+,+)
            double x0 = x[v0 + d], x1 = x[v0 + 3 + d], x2 = x[v0 + 6 + d], x3 = x[v0 + 9 + d];
            double x4 = x[v0 + 12 + d], x5 = x[v0 + 15 + d], x6 = x[v0 + 18 + d], x7 = x[v0 + 21 + d];
            col[d] = 0.5 * (s0 * (x1 - x0) + s1 * (x2 - x3));
            col[3 + d] = 0.5 * (s0 * (x5 - x4) + s1 * (x6 - x7));
            col[6 + d] = 0.5 * (r0 * (x3 - x0) + r1 * (x2 - x1));
            col[9 + d] = 0.5 * (r0 * (x7 - x4) + r1 * (x6 - x5));
            col[12 + d] = 0.5 * (s0 * (r0 * (x4 - x0) + r1 * (x5 - x1)) + s1 * (r0 * (x7 - x3) + r1 * (x6 - x2)));
        }
    }

    /** The packed factors at t on the column {@code col} with weight w into {@code out[o ..]}; returns |J|. */
    static double point(double[] col, double t, double w, double[] out, int o) {
        double t0 = 0.5 * (1 - t);
        double t1 = 0.5 * (1 + t);
        double rx = t0 * col[0] + t1 * col[3];
        double ry = t0 * col[1] + t1 * col[4];
        double rz = t0 * col[2] + t1 * col[5];
        double sx = t0 * col[6] + t1 * col[9];
        double sy = t0 * col[7] + t1 * col[10];
        double sz = t0 * col[8] + t1 * col[11];
        double tx = col[12];
        double ty = col[13];
        double tz = col[14];
        // rows of adj(J): n_r = x_s x x_t, n_s = x_t x x_r, n_t = x_r x x_s
        double arx = sy * tz - sz * ty;
        double ary = sz * tx - sx * tz;
        double arz = sx * ty - sy * tx;
        double asx = ty * rz - tz * ry;
        double asy = tz * rx - tx * rz;
        double asz = tx * ry - ty * rx;
        double atx = ry * sz - rz * sy;
        double aty = rz * sx - rx * sz;
        double atz = rx * sy - ry * sx;
        double det = rx * arx + ry * ary + rz * arz;
        double f = w / det;
        out[o] = f * (arx * arx + ary * ary + arz * arz);
        out[o + 1] = f * (arx * asx + ary * asy + arz * asz);
        out[o + 2] = f * (arx * atx + ary * aty + arz * atz);
        out[o + 3] = f * (asx * asx + asy * asy + asz * asz);
        out[o + 4] = f * (asx * atx + asy * aty + asz * atz);
        out[o + 5] = f * (atx * atx + aty * aty + atz * atz);
        out[o + 6] = w * det;
        return det;
    }
}
