package io.lobatto.backend.aparapi.kernels;

/**
 * What the BP3.5 kernels that compute the geometric factors from an element's trilinear map in local memory share
 * ({@link StiffnessBp35TrilinearSharedKernel}, {@link StiffnessBp35TrilinearPointsKernel}): the element vertices, the
 * GLL nodes and weights, the map's 21 coefficients and the Jacobian's columns evaluated from them.
 *
 * <p>The map is x(r, s, t) = c_0 + c_r r + c_s s + c_t t + c_rs rs + c_rt rt + c_st st + c_rst rst, with
 * c_m = (1/8) sum_v sigma_m(v) X_v over the 8 vertices X_v and sigma_m(v) the product of the vertex's reference
 * coordinates (+-1) in the monomial m. The Jacobian's columns are bilinear in the other two coordinates,
 * <pre>
 *   x_r = c_r + s c_rs + t (c_rt + s c_rst),
 *   x_s = c_s + r c_rs + t (c_st + r c_rst),
 *   x_t = c_t + r c_rt + s (c_st + r c_rst),
 * </pre>
 * so an element keeps 21 coefficients (c_0 is not needed) in local memory, coefficient 3 (m - 1) + d being coordinate d
 * of c_m, m the monomial's bit mask (r 1, s 2, t 4; rs 3, rt 5, st 6, rst 7). From J = [x_r x_s x_t] the kernels take
 * the rows of adj(J) as cross products n_r = x_s x x_t, n_s = x_t x x_r, n_t = x_r x x_s, |J| = x_r . n_r and
 * G_ab = (w / |J|) n_a . n_b, wJ = w |J| ({@link io.lobatto.core.geometry.TrilinearFactors} is the host reference of
 * the same closed form). The vertices are {@link #verts}, [E][8][3] in {@link io.lobatto.core.mesh.HexReference}'s
 * corner order; {@link #gll} is the Nq nodes then the Nq weights.
 */
public abstract class TrilinearMapOperands extends PointColumnOperands {

    /** The element vertices, [E][8][3]. */
    double[] verts = new double[1];
    /** The GLL nodes r_0 .. r_N, then the GLL weights w_0 .. w_N. */
    double[] gll = new double[1];

    /**
     * Coefficient q (0..20) of element e's map: (1/8) sum_v sigma_m(v) X_v[d], m = q / 3 + 1 the monomial's bit mask,
     * d = q mod 3 the coordinate.
     */
    protected final double mapCoefficient(int e, int q) {
        int m = q / 3 + 1;
        int d = q - 3 * (q / 3);
        double sum = 0;
        for (int v = 0; v < 8; v++) {
            int negatives = 0;
            if ((m & 1) != 0) {
                negatives += 1 - (((v + 1) >> 1) & 1);
            }
            if ((m & 2) != 0) {
                negatives += 1 - ((v >> 1) & 1);
            }
            if ((m & 4) != 0) {
                negatives += 1 - ((v >> 2) & 1);
            }
            double xv = verts[e * 24 + 3 * v + d];
            if ((negatives & 1) == 1) {
                sum -= xv;
            } else {
                sum += xv;
            }
        }
        return 0.125 * sum;
    }

    /** Coordinate d of x_r at (., s, t) from the coefficients at lds[mc]: c_r + s c_rs + t (c_rt + s c_rst). */
    protected final double dxdr(int mc, int d, double s, double t) {
        return lds[mc + d] + s * lds[mc + 6 + d] + t * (lds[mc + 12 + d] + s * lds[mc + 18 + d]);
    }

    /** Coordinate d of x_s at (r, ., t): c_s + r c_rs + t (c_st + r c_rst). */
    protected final double dxds(int mc, int d, double r, double t) {
        return lds[mc + 3 + d] + r * lds[mc + 6 + d] + t * (lds[mc + 15 + d] + r * lds[mc + 18 + d]);
    }

    /** Coordinate d of x_t at (r, s, .): c_t + r c_rt + s (c_st + r c_rst). */
    protected final double dxdt(int mc, int d, double r, double s) {
        return lds[mc + 9 + d] + r * lds[mc + 12 + d] + s * (lds[mc + 15 + d] + r * lds[mc + 18 + d]);
    }

    /**
     * The fluxes G grad u at (r, s, t) with quadrature weight w, from the coefficients at lds[mc] and the reference
     * gradient (vr, vs, vt): lds[ir], lds[is], lds[it] = (G grad u)_r, _s, _t with G = (w / |J|) adj(J) adj(J)^T.
     * Returns |J|.
     */
    protected final double geometricFluxes(int mc, double r, double s, double t, double w, double vr, double vs, double vt,
                                           int ir, int is, int it) {
        double rx = dxdr(mc, 0, s, t);
        double ry = dxdr(mc, 1, s, t);
        double rz = dxdr(mc, 2, s, t);
        double sx = dxds(mc, 0, r, t);
        double sy = dxds(mc, 1, r, t);
        double sz = dxds(mc, 2, r, t);
        double tx = dxdt(mc, 0, r, s);
        double ty = dxdt(mc, 1, r, s);
        double tz = dxdt(mc, 2, r, s);
        return jacobianFluxes(rx, ry, rz, sx, sy, sz, tx, ty, tz, w, vr, vs, vt, ir, is, it);
    }

    /**
     * The fluxes G grad u for the Jacobian J = [x_r x_s x_t] (columns (rx, ry, rz), (sx, sy, sz), (tx, ty, tz)) with
     * quadrature weight w and reference gradient (vr, vs, vt), into lds[ir], lds[is], lds[it]. Returns |J|.
     */
    protected final double jacobianFluxes(double rx, double ry, double rz, double sx, double sy, double sz, double tx,
                                          double ty, double tz, double w, double vr, double vs, double vt, int ir, int is,
                                          int it) {
        // rows of adj(J): n_r = x_s x x_t, n_s = x_t x x_r, n_t = x_r x x_s
        double nrx = sy * tz - sz * ty;
        double nry = sz * tx - sx * tz;
        double nrz = sx * ty - sy * tx;
        double nsx = ty * rz - tz * ry;
        double nsy = tz * rx - tx * rz;
        double nsz = tx * ry - ty * rx;
        double ntx = ry * sz - rz * sy;
        double nty = rz * sx - rx * sz;
        double ntz = rx * sy - ry * sx;
        double det = rx * nrx + ry * nry + rz * nrz;
        double f = w / det;
        double g01 = f * (nrx * nsx + nry * nsy + nrz * nsz);
        double g02 = f * (nrx * ntx + nry * nty + nrz * ntz);
        double g12 = f * (nsx * ntx + nsy * nty + nsz * ntz);
        lds[ir] = f * (nrx * nrx + nry * nry + nrz * nrz) * vr + g01 * vs + g02 * vt;
        lds[is] = g01 * vr + f * (nsx * nsx + nsy * nsy + nsz * nsz) * vs + g12 * vt;
        lds[it] = g02 * vr + g12 * vs + f * (ntx * ntx + nty * nty + ntz * ntz) * vt;
        return det;
    }

    /** |J| at (r, s, t) from the coefficients at lds[mc]: x_r . (x_s x x_t). */
    protected final double jacobianDeterminant(int mc, double r, double s, double t) {
        double rx = dxdr(mc, 0, s, t);
        double ry = dxdr(mc, 1, s, t);
        double rz = dxdr(mc, 2, s, t);
        double sx = dxds(mc, 0, r, t);
        double sy = dxds(mc, 1, r, t);
        double sz = dxds(mc, 2, r, t);
        double tx = dxdt(mc, 0, r, s);
        double ty = dxdt(mc, 1, r, s);
        double tz = dxdt(mc, 2, r, s);
        return rx * (sy * tz - sz * ty) + ry * (sz * tx - sx * tz) + rz * (sx * ty - sy * tx);
    }
}
