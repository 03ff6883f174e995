package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * The error of a nodal field against a closed-form one ({@link io.lobatto.core.backend.HostSetup#errorNorms}), one
 * work-item per element, in the host's order of operations:
 * <ol>
 *   <li>at each GLL node n the absolute position x_n (the interpolant sum_c phi_c X_c of the geometry nodes, phi = 0
 *       skipped, then the point map, {@link #mapPoint()});</li>
 *   <li>u_h and the three coordinates interpolated from the Nq^3 GLL nodes to the P^3 GL points, each in three
 *       sum-factorised stages (r, s, t), as {@link io.lobatto.core.basis.TensorInterpolation#interpolate};</li>
 *   <li>the function ({@link #function()}) at the nodes, then at the points, from one call site (its translation is
 *       inlined once: a second copy of its transcendentals doubled the kernel's compile time): the element's max of
 *       |u_h - u(x_n)| over the nodes and its sum over the points, in point order, of wJ_q ((I u_h)_q - u(x_q))^2.</li>
 * </ol>
 * The grids of a work-item live in the global scratch {@link #scr}, entry k of slot s at {@code k slots + s}, so that
 * the work-items of a warp read and write consecutive doubles. Launches cover elements e0 .. e0 + slots.
 */
public final class ErrorKernel extends Kernel {

    /** GLL points per direction Nq. */
    @BuildConstant int nq;
    /** Gauss points per direction P = Nq + 1. */
    @BuildConstant int pts;
    /** Geometry nodes per element, 8 or 27. */
    @BuildConstant int nodesPer;
    /** 1 when the element has a point map. */
    @BuildConstant int mapped;
    /** Coefficients of the map. */
    @BuildConstant int ncoef;
    /** Outputs of the function (the first is compared). */
    @BuildConstant int nout;
    /** Coefficients of the function. */
    @BuildConstant int fcoef;

    /** The geometry nodes, [E][nodesPer][3]. */
    double[] nodes = new double[1];
    /** The shape functions at the GLL nodes, [Nq^3][nodesPer]. */
    double[] phi = new double[1];
    /** The GLL to GL interpolation I, [P][Nq]. */
    double[] interp = new double[1];
    double[] coef = new double[1];
    double[] fc = new double[1];
    /** The field u_h, [E][Nq^3]. */
    double[] u = new double[1];
    /** wJ at the GL points, [E][P^3]. */
    double[] wj = new double[1];
    /** Per element: the squared L2 error. */
    double[] sums = new double[1];
    /** Per element: the max error at the nodes. */
    double[] maxima = new double[1];
    /** The grids, [perElem][slots]. */
    double[] scr = new double[1];
    int elems;
    /** The first element of this launch. */
    int e0;
    /** Work-items (element slots) of a launch: the stride of {@link #scr}. */
    int slots;

    @PrivateMemorySpace(3) double[] px = new double[3];
    @PrivateMemorySpace(64) double[] pc = new double[64];
    @PrivateMemorySpace(3) double[] pout = new double[3];
    @PrivateMemorySpace(64) double[] qc = new double[64];
    @PrivateMemorySpace(3) double[] qout = new double[3];

    @Override
    public void run() {
        int s = getGlobalId();
        int e = e0 + s;
        if (s < slots && e < elems) {
            int Q = nq;
            int P = pts;
            int np = Q * Q * Q;
            int P3 = P * P * P;
            int nc = nodesPer;
            int S = slots;
            // scratch regions (in units of the stride S): the four fields at the nodes, two stages, the four at the points
            int fU = 0;
            int t1 = 4 * np;
            int t2 = t1 + P * Q * Q;
            int gU = t2 + P * P * Q;
            for (int k = 0; k < ncoef; k++) {
                pc[k] = coef[k];
            }
            for (int k = 0; k < fcoef; k++) {
                qc[k] = fc[k];
            }
            // 1. positions and u_h at the nodes
            int base = 3 * nc * e;
            for (int n = 0; n < np; n++) {
                double a = 0;
                double b = 0;
                double d = 0;
                for (int c = 0; c < nc; c++) {
                    double f = phi[nc * n + c];
                    if (f != 0) {
                        a += f * nodes[base + 3 * c];
                        b += f * nodes[base + 3 * c + 1];
                        d += f * nodes[base + 3 * c + 2];
                    }
                }
                px[0] = a;
                px[1] = b;
                px[2] = d;
                if (mapped == 1) {
                    mapPoint();
                    px[0] = pout[0];
                    px[1] = pout[1];
                    px[2] = pout[2];
                }
                double uh = u[e * np + n];
                scr[(fU + n) * S + s] = uh;
                scr[(fU + np + n) * S + s] = px[0];
                scr[(fU + 2 * np + n) * S + s] = px[1];
                scr[(fU + 3 * np + n) * S + s] = px[2];
            }
            // 2. u_h, x, y, z from the GLL nodes to the GL points: I along r, s, then t
            for (int field = 0; field < 4; field++) {
                int in = fU + field * np;
                for (int jk = 0; jk < Q * Q; jk++) {
                    for (int r = 0; r < P; r++) {
                        double sum = 0;
                        for (int i = 0; i < Q; i++) {
                            sum += interp[r * Q + i] * scr[(in + i + Q * jk) * S + s];
                        }
                        scr[(t1 + r + P * jk) * S + s] = sum;
                    }
                }
                for (int k = 0; k < Q; k++) {
                    for (int b = 0; b < P; b++) {
                        for (int r = 0; r < P; r++) {
                            double sum = 0;
                            for (int j = 0; j < Q; j++) {
                                sum += interp[b * Q + j] * scr[(t1 + r + P * (j + Q * k)) * S + s];
                            }
                            scr[(t2 + r + P * (b + P * k)) * S + s] = sum;
                        }
                    }
                }
                int out = gU + field * P3;
                for (int c = 0; c < P; c++) {
                    for (int rb = 0; rb < P * P; rb++) {
                        double sum = 0;
                        for (int k = 0; k < Q; k++) {
                            sum += interp[c * Q + k] * scr[(t2 + rb + P * P * k) * S + s];
                        }
                        scr[(out + rb + P * P * c) * S + s] = sum;
                    }
                }
            }
            // 3. the max error at the nodes, then the squared L2 error at the GL points in point order, one call site
            double emax = 0;
            double l2 = 0;
            for (int m = 0; m < np + P3; m++) {
                int g = gU;
                int count = P3;
                int q = m - np;
                if (m < np) {
                    g = fU;
                    count = np;
                    q = m;
                }
                px[0] = scr[(g + count + q) * S + s];
                px[1] = scr[(g + 2 * count + q) * S + s];
                px[2] = scr[(g + 3 * count + q) * S + s];
                for (int k = 0; k < nout; k++) {
                    qout[k] = 0;
                }
                function();
                double dd = scr[(g + q) * S + s] - qout[0];
                if (m < np) {
                    emax = max(emax, abs(dd));
                } else {
                    l2 += wj[e * P3 + q] * dd * dd;
                }
            }
            sums[e] = l2;
            maxima[e] = emax;
        }
    }

    /** Placeholder: the map's {@code evaluate(px, pc, pout)}. */
    private void mapPoint() {
        pout[0] = px[0] + pc[0];
        pout[1] = px[1];
        pout[2] = px[2];
    }

    /** Placeholder: the function's {@code evaluate(px, qc, qout)}. */
    private void function() {
        qout[0] = px[0] + qc[0];
    }
}
