package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * A function of position at the GLL nodes of every element ({@link io.lobatto.core.pointwise.PointFunction}: right-hand
 * sides, boundary data, exact solutions), one work-item per node i = e Nq^3 + n: the absolute position as
 * {@link io.lobatto.core.mesh.ElementGeometry#positions} (the interpolant sum_c phi_c X_c of the element's geometry
 * nodes, phi = 0 skipped, then the point map, {@link #mapPoint()}), then the function ({@link #function()}), whose
 * outputs go to {@code out[i nout + k]} ([E][Nq^3][nout]). Both placeholders are replaced by calls of the translated
 * {@code evaluate(x, c, out)}. No local memory, no barrier.
 */
public final class EvaluateKernel extends Kernel {

    /** Geometry nodes per element, 8 or 27. */
    @BuildConstant int nodesPer;
    /** GLL nodes per element Nq^3. */
    @BuildConstant int np;
    /** 1 when the element has a point map. */
    @BuildConstant int mapped;
    /** Coefficients of the map. */
    @BuildConstant int ncoef;
    /** Outputs of the function, 1..3. */
    @BuildConstant int nout;
    /** Coefficients of the function. */
    @BuildConstant int fcoef;

    /** The geometry nodes, [E][nodesPer][3]. */
    double[] nodes = new double[1];
    /** The shape functions at the GLL nodes, [Nq^3][nodesPer]. */
    double[] phi = new double[1];
    double[] coef = new double[1];
    double[] fc = new double[1];
    double[] out = new double[1];
    /** E Nq^3. */
    int n;

    @PrivateMemorySpace(3) double[] px = new double[3];
    @PrivateMemorySpace(64) double[] pc = new double[64];
    @PrivateMemorySpace(3) double[] pout = new double[3];
    @PrivateMemorySpace(64) double[] qc = new double[64];
    @PrivateMemorySpace(3) double[] qout = new double[3];

    @Override
    public void run() {
        int i = getGlobalId();
        if (i < n) {
            int e = i / np;
            int node = i - e * np;
            int nc = nodesPer;
            int base = 3 * nc * e;
            double a = 0;
            double b = 0;
            double d = 0;
            for (int c = 0; c < nc; c++) {
                double f = phi[nc * node + c];
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
                for (int k = 0; k < ncoef; k++) {
                    pc[k] = coef[k];
                }
                mapPoint();
                px[0] = pout[0];
                px[1] = pout[1];
                px[2] = pout[2];
            }
            for (int k = 0; k < fcoef; k++) {
                qc[k] = fc[k];
            }
            for (int k = 0; k < nout; k++) {
                qout[k] = 0;
            }
            function();
            for (int k = 0; k < nout; k++) {
                out[i * nout + k] = qout[k];
            }
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
