package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * The element kernel of a user operator whose function reads and writes values only
 * ({@link io.lobatto.core.pointwise.FieldEvaluation#VALUES}) at the GLL points: there B = I is the identity, so
 * y^e_c(p) = f(x^e(p))_c is a pointwise map. One work-item per local node i = e Q^3 + p: it reads u[c] of every
 * component, the node's data, calls the user's function ({@link #pointwise()}, replaced by the translated
 * {@code apply}) and writes v[c]; every access is coalesced over i, no local memory, no barrier. Vectors as in
 * {@link PointwiseKernel}: x_L, y_L {@code [ncomp][E Q^3]}, the data {@code [ndata][E Q^3]}; with
 * {@link #fromGlobal} x is x_G {@code [ncomp][ng]} read through the scatter ids.
 */
public final class PointwiseMapKernel extends Kernel {

    /** ncomp, 1..3. */
    @BuildConstant int ncomp;
    /** Stored doubles per point. */
    @BuildConstant int ndata;
    /** 1 when x is x_G read through the scatter ids. */
    @BuildConstant int fromGlobal;

    double[] x = new double[1];
    double[] y = new double[1];
    int[] ids = new int[1];
    /** The point data, [ndata][E Q^3]. */
    double[] qdata = new double[1];
    /** E Q^3, the local nodes (the component stride of x_L and y_L). */
    int nodes;
    /** N_G, the component stride of x_G. */
    int ng;

    @PrivateMemorySpace(3) double[] pu = new double[3];
    @PrivateMemorySpace(9) double[] pdu = new double[9];
    @PrivateMemorySpace(32) double[] pq = new double[32];
    @PrivateMemorySpace(3) double[] pv = new double[3];
    @PrivateMemorySpace(9) double[] pdv = new double[9];

    @Override
    public void run() {
        int i = getGlobalId();
        if (i < nodes) {
            int id = 0;
            if (fromGlobal == 1) {
                id = ids[i];
            }
            for (int c = 0; c < ncomp; c++) {
                double u = 0;
                if (fromGlobal == 1) {
                    if (id >= 0) {
                        u = x[c * ng + id];
                    }
                } else {
                    u = x[c * nodes + i];
                }
                pu[c] = u;
                pv[c] = 0;
                pdu[3 * c] = 0;
                pdu[3 * c + 1] = 0;
                pdu[3 * c + 2] = 0;
            }
            for (int k = 0; k < ndata; k++) {
                pq[k] = qdata[k * nodes + i];
            }
            pointwise();
            for (int c = 0; c < ncomp; c++) {
                y[c * nodes + i] = pv[c];
            }
        }
    }

    /**
     * The placeholder for the user's function at one node, replaced by a call of the translated
     * {@code apply(u, du, data, v, dv)} on {@link #pu}, {@link #pdu}, {@link #pq}, {@link #pv}, {@link #pdv}.
     */
    private void pointwise() {
        pv[0] = pu[0] + pq[0];
        pdv[0] = pdu[0];
    }
}
