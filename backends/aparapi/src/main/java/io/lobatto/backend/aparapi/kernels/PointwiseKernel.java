package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * The element kernel of a user operator: y^e = B^T f(B x^e) for each element, with f the user's
 * {@link io.lobatto.core.pointwise.PointwiseFunction} and B = (I x I x I ; D_r ; D_s ; D_t) per component
 * (I the GLL -> GL interpolation for Gauss quadrature, the identity for GLL collocation; D the
 * differentiation on the quadrature points). Per element and component, sum-factorised in local memory like
 * BP1.0/BP3.0 (tensor paper, kernel sequence 3): u is interpolated to the P^3 points; then at each point the
 * work-item forms u[c] and the reference gradient du[3c + d] of every component into private arrays, reads
 * the point's data (one buffer [dataPerPoint][E P^3], coalesced over the point), and calls {@link #pointwise()},
 * whose OpenCL C the backend replaces by a call of the user's translated {@code apply}; the outputs v and dv
 * are tested against the basis: D^T dv + v at the points, then I^T back to the GLL nodes.
 *
 * <p>Local memory per element slot ({@link #perElem} doubles), per component c: the grid U_c (values at the
 * points, later the projected result), for gradients the flux grids F_r, F_s, F_t, and for both values and
 * gradients a grid V_c (with values alone v overwrites U_c in place); for Gauss one P^3 scratch grid shared by
 * the components. The matrices follow the slots at {@link #ldsMat}: I (P x Q), then D (P rows of {@link #dStride}).
 * Vectors are component-blocked: x_L, y_L {@code [ncomp][E][Q^3]}; with {@link #fromGlobal} x is x_G
 * {@code [ncomp][ng]} read through the scatter ids.
 */
public final class PointwiseKernel extends Kernel {

    /** GLL points per direction Q = N + 1. */
    @BuildConstant int nq;
    /** Quadrature points per direction P: Q (GLL) or Q + 1 (Gauss). */
    @BuildConstant int pts;
    /** 1 for Gauss quadrature (interpolation I), 0 for GLL collocation. */
    @BuildConstant int gauss;
    /** ncomp, 1..3. */
    @BuildConstant int ncomp;
    /** Stored doubles per point. */
    @BuildConstant int ndata;
    /** 1 when the function reads u and writes v. */
    @BuildConstant int vals;
    /** 1 when the function reads du and writes dv. */
    @BuildConstant int grads;
    @BuildConstant int elemsPerGroup;
    @BuildConstant int threadsPerElem;
    /** Local doubles per element slot. */
    @BuildConstant int perElem;
    /** Where the matrices start in local memory. */
    @BuildConstant int ldsMat;
    /** 1 when x is x_G read through the scatter ids. */
    @BuildConstant int fromGlobal;
    /**
     * 1 when the element grids do not fit the local memory and live in the global scratch {@link #scr}
     * ({@code [slot][perElem]} per launch slot, written and read by the slot's own work-group); the matrices stay
     * in local memory.
     */
    @BuildConstant int globalGrids;
    /** Row stride of D in local memory: P, or P + 1 when P is even (odd strides avoid bank conflicts). */
    @BuildConstant int dStride;

    double[] x = new double[1];
    double[] y = new double[1];
    int[] ids = new int[1];
    double[] matI = new double[1];
    double[] matD = new double[1];
    /** The point data, [ndata][E P^3]. */
    double[] qdata = new double[1];
    /** The element grids when {@link #globalGrids}: one region of perElem doubles per element slot. */
    double[] scr = new double[1];
    int elems;
    /** N_G, the component stride of x_G. */
    int ng;
    @Local double[] lds = new double[1];

    @PrivateMemorySpace(3) double[] pu = new double[3];
    @PrivateMemorySpace(9) double[] pdu = new double[9];
    @PrivateMemorySpace(32) double[] pq = new double[32];
    @PrivateMemorySpace(3) double[] pv = new double[3];
    @PrivateMemorySpace(9) double[] pdv = new double[9];

    @Override
    public void run() {
        int lid = getLocalId();
        int T = threadsPerElem;
        int le = lid / T;
        int t = lid - le * T;
        int e = getGroupId() * elemsPerGroup + le;
        int valid = 0;
        if (le < elemsPerGroup && e < elems) {
            valid = 1;
        }
        int P = pts;
        int P3 = P * P * P;
        int Q = nq;
        int np = Q * Q * Q;
        int L0 = le * perElem;
        if (globalGrids == 1) {
            L0 = (getGroupId() * elemsPerGroup + le) * perElem;
        }
        int G = 1 + 3 * grads + vals * grads;
        int sc = L0 + ncomp * G * P3;
        int mI = ldsMat;
        int nI = gauss * P * Q;
        int mD = ldsMat + nI;
        int nD = grads * P * P;
        for (int i = lid; i < nI; i += getLocalSize()) {
            lds[mI + i] = matI[i];
        }
        for (int i = lid; i < nD; i += getLocalSize()) {
            lds[mD + (i / P) * dStride + i % P] = matD[i];
        }
        // u of each component at the points: loaded (onto the scratch grid for Gauss), then I in three stages
        for (int c = 0; c < ncomp; c++) {
            int U = L0 + c * G * P3;
            int dst = U;
            if (gauss == 1) {
                dst = sc;
            }
            if (le < elemsPerGroup) {
                for (int p = t; p < np; p += T) {
                    double u = 0;
                    if (valid == 1) {
                        u = readU(c, e * np + p);
                    }
                    gw(dst + gridIndex(p, Q, P), u);
                }
            }
            sync();
            if (gauss == 1) {
                interpolatePoints(sc, U, t, T, 0, mI);
                interpolatePoints(U, sc, t, T, 1, mI);
                interpolatePoints(sc, U, t, T, 2, mI);
            }
        }
        // the pointwise function at each point
        if (le < elemsPerGroup) {
            int npts = elems * P3;
            for (int p = t; p < P3; p += T) {
                int a = p % P;
                int b = (p / P) % P;
                int cc = p / (P * P);
                for (int c = 0; c < ncomp; c++) {
                    int U = L0 + c * G * P3;
                    if (vals == 1) {
                        pu[c] = gr(U + p);
                    }
                    if (grads == 1) {
                        double vr = 0;
                        double vs = 0;
                        double vt = 0;
                        for (int m = 0; m < P; m++) {
                            vr += lds[mD + a * dStride + m] * gr(U + m + P * (b + P * cc));
                            vs += lds[mD + b * dStride + m] * gr(U + a + P * (m + P * cc));
                            vt += lds[mD + cc * dStride + m] * gr(U + a + P * (b + P * m));
                        }
                        pdu[3 * c] = vr;
                        pdu[3 * c + 1] = vs;
                        pdu[3 * c + 2] = vt;
                    }
                    pv[c] = 0;
                    pdv[3 * c] = 0;
                    pdv[3 * c + 1] = 0;
                    pdv[3 * c + 2] = 0;
                }
                for (int k = 0; k < ndata; k++) {
                    double q = 0;
                    if (valid == 1) {
                        q = qdata[k * npts + e * P3 + p];
                    }
                    pq[k] = q;
                }
                pointwise();
                for (int c = 0; c < ncomp; c++) {
                    int U = L0 + c * G * P3;
                    if (grads == 1) {
                        gw(U + P3 + p, pdv[3 * c]);
                        gw(U + 2 * P3 + p, pdv[3 * c + 1]);
                        gw(U + 3 * P3 + p, pdv[3 * c + 2]);
                        if (vals == 1) {
                            gw(U + 4 * P3 + p, pv[c]);
                        }
                    } else {
                        gw(U + p, pv[c]);
                    }
                }
            }
        }
        sync();
        // test against the basis: D^T dv + v at the points into U_c, then I^T back to the nodes, then y
        for (int c = 0; c < ncomp; c++) {
            int U = L0 + c * G * P3;
            if (grads == 1) {
                if (le < elemsPerGroup) {
                    for (int p = t; p < P3; p += T) {
                        int a = p % P;
                        int b = (p / P) % P;
                        int cc = p / (P * P);
                        double s = 0;
                        if (vals == 1) {
                            s = gr(U + 4 * P3 + p);
                        }
                        for (int m = 0; m < P; m++) {
                            s += lds[mD + m * dStride + a] * gr(U + P3 + m + P * (b + P * cc))
                                    + lds[mD + m * dStride + b] * gr(U + 2 * P3 + a + P * (m + P * cc))
                                    + lds[mD + m * dStride + cc] * gr(U + 3 * P3 + a + P * (b + P * m));
                        }
                        gw(U + p, s);
                    }
                }
                sync();
            }
            int out = U;
            if (gauss == 1) {
                projectPoints(U, sc, t, T, 2, mI);
                projectPoints(sc, U, t, T, 1, mI);
                projectPoints(U, sc, t, T, 0, mI);
                out = sc;
            }
            if (valid == 1) {
                for (int p = t; p < np; p += T) {
                    y[c * elems * np + e * np + p] = gr(out + gridIndex(p, Q, P));
                }
            }
            sync();
        }
    }

    /** A grid entry: local memory, or the global scratch. */
    private double gr(int i) {
        double v = 0;
        if (globalGrids == 1) {
            v = scr[i];
        } else {
            v = lds[i];
        }
        return v;
    }

    private void gw(int i, double v) {
        if (globalGrids == 1) {
            scr[i] = v;
        } else {
            lds[i] = v;
        }
    }

    /** The work-group barrier; with the grids in the global scratch a global-memory fence as well. */
    private void sync() {
        if (globalGrids == 1) {
            localGlobalBarrier();
        } else {
            localBarrier();
        }
    }

    /**
     * The placeholder for the user's function at one point: the backend replaces its OpenCL C by a call of the
     * translated {@code apply(u, du, data, v, dv)} on the private arrays {@link #pu}, {@link #pdu}, {@link #pq},
     * {@link #pv}, {@link #pdv}. As written (never run) it is the identity.
     */
    private void pointwise() {
        pv[0] = pu[0] + pq[0];
        pdv[0] = pdu[0];
    }

    /** u of component c at local node li: x_L[c E Q^3 + li], or x_G[c ng + Z(li)] (0 where masked). */
    private double readU(int c, int li) {
        double u = 0;
        if (fromGlobal == 1) {
            int id = ids[li];
            if (id >= 0) {
                u = x[c * ng + id];
            }
        } else {
            u = x[c * elems * nq * nq * nq + li];
        }
        return u;
    }

    /** Position on the element's P^3 grid of GLL node p = i + Q(j + Qk) (the identity when P = Q). */
    private int gridIndex(int p, int Q, int P) {
        int g = p;
        if (P != Q) {
            int i = p % Q;
            int r = p / Q;
            g = i + P * ((r % Q) + P * (r / Q));
        }
        return g;
    }

    /** One stage GLL -> GL from grid src to grid dst along direction dir (as {@link ElementKernelBase}'s). */
    private void interpolatePoints(int src, int dst, int t, int T, int dir, int mI) {
        int P = pts;
        int Q = nq;
        int count = P * Q * Q;
        if (dir == 1) {
            count = P * P * Q;
        } else if (dir == 2) {
            count = P * P * P;
        }
        for (int p = t; p < count; p += T) {
            int a = p % P;
            int r = p / P;
            int b = r % P;
            int c = r / P;
            if (dir == 0) {
                b = r % Q;
                c = r / Q;
            }
            double s = 0;
            if (dir == 0) {
                for (int m = 0; m < Q; m++) {
                    s += lds[mI + a * Q + m] * gr(src + m + P * (b + P * c));
                }
            } else if (dir == 1) {
                for (int m = 0; m < Q; m++) {
                    s += lds[mI + b * Q + m] * gr(src + a + P * (m + P * c));
                }
            } else {
                for (int m = 0; m < Q; m++) {
                    s += lds[mI + c * Q + m] * gr(src + a + P * (b + P * m));
                }
            }
            gw(dst + a + P * (b + P * c), s);
        }
        sync();
    }

    /** The transpose stage GL -> GLL (I^T) from grid src to grid dst along direction dir. */
    private void projectPoints(int src, int dst, int t, int T, int dir, int mI) {
        int P = pts;
        int Q = nq;
        int count = P * P * Q;
        int d0 = P;
        int d1 = P;
        if (dir == 1) {
            count = P * Q * Q;
            d1 = Q;
        } else if (dir == 0) {
            count = Q * Q * Q;
            d0 = Q;
            d1 = Q;
        }
        for (int p = t; p < count; p += T) {
            int a = p % d0;
            int r = p / d0;
            int b = r % d1;
            int c = r / d1;
            double s = 0;
            if (dir == 2) {
                for (int m = 0; m < P; m++) {
                    s += lds[mI + m * Q + c] * gr(src + a + P * (b + P * m));
                }
            } else if (dir == 1) {
                for (int m = 0; m < P; m++) {
                    s += lds[mI + m * Q + b] * gr(src + a + P * (m + P * c));
                }
            } else {
                for (int m = 0; m < P; m++) {
                    s += lds[mI + m * Q + a] * gr(src + m + P * (b + P * c));
                }
            }
            gw(dst + a + P * (b + P * c), s);
        }
        sync();
    }
}
