package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * The element kernel of a user operator whose function reads and writes values only
 * ({@link io.lobatto.core.pointwise.FieldEvaluation#VALUES}, mass-like) at Gauss points: y^e_c = I^T f(I x^e)_c
 * with I = I x I x I the GLL -> GL interpolation, in BP1.0's line structure ({@link MassBp10LineKernel},
 * {@link RegisterKernelBase}): for each component c, I along t straight from the input into the grid, then along
 * s in place; then along r a work-item takes the lines (b, c), interpolates them, calls the user's function at each
 * of the P points of the line ({@link #pointwise()}, replaced by the translated {@code apply}; u[c], v[c] and the
 * point's data in private arrays) and projects the result back with I^T: for one component without leaving
 * registers (BP1.0's r-stage), for several through the line's own P slots of local memory (all P values of every
 * component in registers cost NVIDIA's compiler ~200 registers and a stack frame at N = 7); I^T along s in place and
 * along t to y. Four barriers after staging I.
 *
 * <p>Local memory: ncomp grids of SA x P x P doubles per element slot (SA = {@link #strideA}, odd), then I
 * (P x Q). Vectors are component-blocked as in {@link PointwiseKernel}: x_L, y_L {@code [ncomp][E][Q^3]}; the
 * point data {@code [ndata][E P^3]}; with {@link #fromGlobal} x is x_G {@code [ncomp][ng]} read through the
 * scatter ids.
 */
public final class PointwiseLineKernel extends Kernel {

    /** GLL points per direction Q = N + 1. */
    @BuildConstant int nq;
    /** Gauss points per direction P = Q + 1. */
    @BuildConstant int pts;
    /** ncomp, 1..3. */
    @BuildConstant int ncomp;
    /** Stored doubles per point. */
    @BuildConstant int ndata;
    @BuildConstant int elemsPerGroup;
    /** Work-items per element, at most P^2. */
    @BuildConstant int threadsPerElem;
    /** Stride of b in a local P^3 grid: P, or P + 1 when P is even. */
    @BuildConstant int strideA;
    /** 1 when x is x_G read through the scatter ids. */
    @BuildConstant int fromGlobal;

    double[] x = new double[1];
    double[] y = new double[1];
    int[] ids = new int[1];
    double[] matI = new double[1];
    /** The point data, [ndata][E P^3]. */
    double[] qdata = new double[1];
    int elems;
    /** N_G, the component stride of x_G. */
    int ng;
    @Local double[] lds = new double[1];

    /** A line of Q values. */
    @PrivateMemorySpace(17) double[] colU = new double[17];
    /** A line of P values. */
    @PrivateMemorySpace(17) double[] colY = new double[17];

    @PrivateMemorySpace(3) double[] pu = new double[3];
    @PrivateMemorySpace(9) double[] pdu = new double[9];
    @PrivateMemorySpace(32) double[] pq = new double[32];
    @PrivateMemorySpace(3) double[] pv = new double[3];
    @PrivateMemorySpace(9) double[] pdv = new double[9];

    @Override
    public void run() {
        int P = pts;
        int Q = nq;
        int SA = strideA;
        int T = threadsPerElem;
        int lid = getLocalId();
        int le = lid / T;
        int t = lid - le * T;
        int e = getGroupId() * elemsPerGroup + le;
        int gridSize = SA * P * P;
        int L0 = le * ncomp * gridSize;
        int mI = elemsPerGroup * ncomp * gridSize;
        int valid = 0;
        if (le < elemsPerGroup && e < elems) {
            valid = 1;
        }
        for (int n = lid; n < P * Q; n += getLocalSize()) {
            lds[mI + n] = matI[n];
        }
        for (int k = 0; k < 3 * ncomp; k++) {
            pdu[k] = 0;
        }
        localBarrier();
        // I along t, from the input: column (i, j) of each component into layers c of its grid
        if (valid == 1) {
            for (int c = 0; c < ncomp; c++) {
                int grid = L0 + c * gridSize;
                for (int l = t; l < Q * Q; l += T) {
                    for (int k = 0; k < Q; k++) {
                        colU[k] = readU(c, e * Q * Q * Q + l + Q * Q * k);
                    }
                    int at = grid + l % Q + SA * (l / Q);
                    for (int cc = 0; cc < P; cc++) {
                        double s = 0;
                        for (int k = 0; k < Q; k++) {
                            s += lds[mI + cc * Q + k] * colU[k];
                        }
                        lds[at + SA * P * cc] = s;
                    }
                }
            }
        }
        localBarrier();
        // I along s, in place: lines (i, c)
        if (valid == 1) {
            for (int c = 0; c < ncomp; c++) {
                int grid = L0 + c * gridSize;
                for (int l = t; l < Q * P; l += T) {
                    int at = grid + l % Q + SA * P * (l / Q);
                    for (int m = 0; m < Q; m++) {
                        colU[m] = lds[at + SA * m];
                    }
                    for (int b = 0; b < P; b++) {
                        double s = 0;
                        for (int m = 0; m < Q; m++) {
                            s += lds[mI + b * Q + m] * colU[m];
                        }
                        lds[at + SA * b] = s;
                    }
                }
            }
        }
        localBarrier();
        // along r, one component: I, the user's function at each point of the line, I^T, all in registers
        if (valid == 1 && ncomp == 1) {
            int npts = elems * P * P * P;
            for (int l = t; l < P * P; l += T) {
                int at = L0 + SA * l;
                for (int m = 0; m < Q; m++) {
                    colU[m] = lds[at + m];
                }
                for (int a = 0; a < P; a++) {
                    double s = 0;
                    for (int m = 0; m < Q; m++) {
                        s += lds[mI + a * Q + m] * colU[m];
                    }
                    colY[a] = s;
                }
                int g = e * P * P * P + P * l;
                for (int a = 0; a < P; a++) {
                    pu[0] = colY[a];
                    pv[0] = 0;
                    for (int k = 0; k < ndata; k++) {
                        pq[k] = qdata[k * npts + g + a];
                    }
                    pointwise();
                    colY[a] = pv[0];
                }
                for (int m = 0; m < Q; m++) {
                    double s = 0;
                    for (int a = 0; a < P; a++) {
                        s += lds[mI + a * Q + m] * colY[a];
                    }
                    lds[at + m] = s;
                }
            }
        }
        // along r, several components: each line interpolated in place (P values), the function point by point on
        // the lines of every component in local memory (its code once, not P times), then each line projected back
        if (valid == 1 && ncomp > 1) {
            int npts = elems * P * P * P;
            for (int l = t; l < P * P; l += T) {
                for (int c = 0; c < ncomp; c++) {
                    int at = L0 + c * gridSize + SA * l;
                    for (int m = 0; m < Q; m++) {
                        colU[m] = lds[at + m];
                    }
                    for (int a = 0; a < P; a++) {
                        double s = 0;
                        for (int m = 0; m < Q; m++) {
                            s += lds[mI + a * Q + m] * colU[m];
                        }
                        lds[at + a] = s;
                    }
                }
                int g = e * P * P * P + P * l;
                int at0 = L0 + SA * l;
                for (int a = 0; a < P; a++) {
                    for (int c = 0; c < ncomp; c++) {
                        pu[c] = lds[at0 + c * gridSize + a];
                        pv[c] = 0;
                    }
                    for (int k = 0; k < ndata; k++) {
                        pq[k] = qdata[k * npts + g + a];
                    }
                    pointwise();
                    for (int c = 0; c < ncomp; c++) {
                        lds[at0 + c * gridSize + a] = pv[c];
                    }
                }
                for (int c = 0; c < ncomp; c++) {
                    int at = L0 + c * gridSize + SA * l;
                    for (int a = 0; a < P; a++) {
                        colY[a] = lds[at + a];
                    }
                    for (int m = 0; m < Q; m++) {
                        double s = 0;
                        for (int a = 0; a < P; a++) {
                            s += lds[mI + a * Q + m] * colY[a];
                        }
                        lds[at + m] = s;
                    }
                }
            }
        }
        localBarrier();
        // I^T along s, in place
        if (valid == 1) {
            for (int c = 0; c < ncomp; c++) {
                int grid = L0 + c * gridSize;
                for (int l = t; l < Q * P; l += T) {
                    int at = grid + l % Q + SA * P * (l / Q);
                    for (int b = 0; b < P; b++) {
                        colY[b] = lds[at + SA * b];
                    }
                    for (int m = 0; m < Q; m++) {
                        double s = 0;
                        for (int b = 0; b < P; b++) {
                            s += lds[mI + b * Q + m] * colY[b];
                        }
                        lds[at + SA * m] = s;
                    }
                }
            }
        }
        localBarrier();
        // I^T along t, to y
        if (valid == 1) {
            int np = Q * Q * Q;
            for (int c = 0; c < ncomp; c++) {
                int grid = L0 + c * gridSize;
                for (int l = t; l < Q * Q; l += T) {
                    int at = grid + l % Q + SA * (l / Q);
                    for (int cc = 0; cc < P; cc++) {
                        colY[cc] = lds[at + SA * P * cc];
                    }
                    for (int k = 0; k < Q; k++) {
                        double s = 0;
                        for (int cc = 0; cc < P; cc++) {
                            s += lds[mI + cc * Q + k] * colY[cc];
                        }
                        y[c * elems * np + e * np + l + Q * Q * k] = s;
                    }
                }
            }
        }
    }

    /**
     * The placeholder for the user's function at one point, replaced by a call of the translated
     * {@code apply(u, du, data, v, dv)} on {@link #pu}, {@link #pdu}, {@link #pq}, {@link #pv}, {@link #pdv}.
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
}
