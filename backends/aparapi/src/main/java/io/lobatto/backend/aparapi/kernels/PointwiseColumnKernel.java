package io.lobatto.backend.aparapi.kernels;

import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * The element kernel of a one-component user operator whose function reads gradients (y^e = B^T f(B x^e), B =
 * (I ; D_r ; D_s ; D_t)), in the register column structure of BP3.5 and BP3.0 ({@link RegisterKernelBase},
 * {@link StiffnessBp35ColumnKernel}, {@link StiffnessBp30ColumnKernel}): at GLL points ({@link #gauss} = 0) Nq^2
 * work-items per element load their columns u(i, j, .) from the input; at Gauss points the line stages interpolate
 * u to the P^3 grid first. Then work-item (i, j) walks the layers k: the layer goes through local memory for the
 * r- and s-derivatives, the t-derivative comes from its registers, and at each point it calls the user's function
 * ({@link #pointwise()}, replaced by the translated {@code apply}) on u, du = (u_r, u_s, u_t) and the point's data;
 * the fluxes dv_r, dv_s go through two local layers for D^T, D^T along t accumulates in registers, v is added to
 * the point. Far less local memory than {@link PointwiseKernel} (three P x S layers and one P^3 grid per element,
 * against five P^3 grids), so N >= 10 stays out of the global scratch. Point data {@code [ndata][E P^3]}; x_L, y_L
 * {@code [E][Q^3]}; with {@code fromGlobal} x is x_G read through the scatter ids.
 */
public final class PointwiseColumnKernel extends RegisterKernelBase {

    /** 1 for Gauss quadrature (the line stages of I around the columns), 0 for GLL collocation. */
    @BuildConstant int gauss;
    /** Stored doubles per point. */
    @BuildConstant int ndata;
    /** 1 when the function reads u and writes v. */
    @BuildConstant int vals;

    /** The point data, [ndata][E P^3]. */
    double[] qdata = new double[1];

    @PrivateMemorySpace(3) double[] pu = new double[3];
    @PrivateMemorySpace(9) double[] pdu = new double[9];
    @PrivateMemorySpace(32) double[] pq = new double[32];
    @PrivateMemorySpace(3) double[] pv = new double[3];
    @PrivateMemorySpace(9) double[] pdv = new double[9];

    @Override
    public void run() {
        int P = pts;
        int Q = nq;
        int S = stride;
        int SA = strideA;
        int T = threadsPerElem;
        int P2 = P * P;
        int lid = getLocalId();
        int le = lid / T;
        int t = lid - le * T;
        int e = getGroupId() * elemsPerGroup + le;
        int valid = 0;
        if (le < elemsPerGroup && e < elems) {
            valid = 1;
        }
        int gridSize = P2 * P;
        if (gauss == 1) {
            gridSize = SA * P2;
        }
        int perElem = gridSize + 3 * P * S;
        int grid = le * perElem;
        int sq = grid + gridSize;
        int mI = elemsPerGroup * perElem;
        int mD = mI + gauss * P * Q;
        if (gauss == 1) {
            stageI(mI);
        }
        stageD(mD);
        int col = grid + t;
        int cs = P2;
        if (gauss == 1) {
            col = grid + t % P + SA * (t / P);
            cs = SA * P;
        }
        localBarrier();
        if (gauss == 1) {
            interpolateStages(e, grid, mI, t, valid, 0);
            for (int k = 0; k < P; k++) {
                colU[k] = lds[col + cs * k];
            }
        }
        if (gauss == 0) {
            for (int k = 0; k < P; k++) {
                double u = 0;
                if (valid == 1) {
                    u = readUGuarded(e * gridSize + t + P2 * k);
                }
                colU[k] = u;
                lds[col + cs * k] = u;
            }
            localBarrier();
        }
        columns(e, t, valid, sq, mD, col, cs);
        if (gauss == 0) {
            if (valid == 1) {
                for (int k = 0; k < P; k++) {
                    y[e * gridSize + t + P2 * k] = colY[k] + lds[col + cs * k];
                }
            }
        }
        if (gauss == 1) {
            for (int k = 0; k < P; k++) {
                lds[col + cs * k] += colY[k];
            }
            localBarrier();
            if (valid == 1) {
                projectR(grid, mI, t);
            }
            localBarrier();
            if (valid == 1) {
                projectS(grid, mI, t);
            }
            localBarrier();
            if (valid == 1) {
                projectToY(e, grid, mI, t);
            }
        }
    }

    /** Stage t back, GL -> GLL: the P layers of column (i, j) projected with I^T and written to y_L of element e. */
    private void projectToY(int e, int grid, int mI, int t) {
        int Q = nq;
        int P = pts;
        int SA = strideA;
        for (int l = t; l < Q * Q; l += threadsPerElem) {
            int at = grid + l % Q + SA * (l / Q);
            for (int c = 0; c < P; c++) {
                colY[c] = lds[at + SA * P * c];
            }
            for (int k = 0; k < Q; k++) {
                double s = 0;
                for (int c = 0; c < P; c++) {
                    s += lds[mI + c * Q + k] * colY[c];
                }
                y[e * Q * Q * Q + l + Q * Q * k] = s;
            }
        }
    }

    /**
     * {@link RegisterKernelBase}'s column stiffness with the user's function in place of G and wJ: on return the
     * work-item's column at (col, col + cs, ...) holds each layer's v + r/s divergence and colY the t-part.
     */
    private void columns(int e, int t, int valid, int sq, int mD, int col, int cs) {
        int P = pts;
        int P2 = P * P;
        int S = stride;
        int i = t % P;
        int j = t / P;
        int sgr = sq + P * S;
        int sgs = sgr + P * S;
        int npts = elems * P2 * P;
        int base = e * P2 * P + t;
        for (int k = 0; k < P; k++) {
            colY[k] = 0;
        }
        for (int k = 0; k < P; k++) {
            double uk = lds[col + cs * k];
            lds[sq + j * S + i] = uk;
            localBarrier();
            double qr = 0;
            double qs = 0;
            double qt = 0;
            for (int m = 0; m < P; m++) {
                qr += lds[mD + i * S + m] * lds[sq + j * S + m];
                qs += lds[mD + j * S + m] * lds[sq + m * S + i];
                qt += lds[mD + k * S + m] * colU[m];
            }
            double gqt = 0;
            double mass = 0;
            if (valid == 1) {
                int g = base + P2 * k;
                for (int n = 0; n < ndata; n++) {
                    pq[n] = qdata[n * npts + g];
                }
                pu[0] = uk;
                pdu[0] = qr;
                pdu[1] = qs;
                pdu[2] = qt;
                pv[0] = 0;
                pdv[0] = 0;
                pdv[1] = 0;
                pdv[2] = 0;
                pointwise();
                lds[sgr + j * S + i] = pdv[0];
                lds[sgs + j * S + i] = pdv[1];
                gqt = pdv[2];
                if (vals == 1) {
                    mass = pv[0];
                }
            }
            localBarrier();
            double div = mass;
            for (int m = 0; m < P; m++) {
                div += lds[mD + m * S + i] * lds[sgr + j * S + m] + lds[mD + m * S + j] * lds[sgs + m * S + i];
            }
            lds[col + cs * k] = div;
            for (int m = 0; m < P; m++) {
                colY[m] += lds[mD + k * S + m] * gqt;
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
}
