package io.lobatto.operators.physics;

import io.lobatto.core.pointwise.FieldEvaluation;
import io.lobatto.core.pointwise.PointGeometry;
import io.lobatto.core.pointwise.PointwiseFunction;

/**
 * The vector Laplacian (kappa grad u_i, grad v_i) for i = 0, 1, 2 at a point: dv_i = G du_i with the same G for
 * every component ({@link Diffusion#setup}, 6 doubles). With kappa = 1 this is CEED's BP4 (Gauss) and BP6 (GLL).
 */
public final class VectorDiffusion extends PointwiseFunction {

    public VectorDiffusion() {
        super(3, PointGeometry.DIFFUSION_FACTORS, FieldEvaluation.GRADIENTS);
    }

    @Override
    public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
        double g00 = data[0], g01 = data[1], g02 = data[2], g11 = data[3], g12 = data[4], g22 = data[5];
        for (int c = 0; c < 3; c++) {
            double ur = du[3 * c], us = du[3 * c + 1], ut = du[3 * c + 2];
            dv[3 * c] = g00 * ur + g01 * us + g02 * ut;
            dv[3 * c + 1] = g01 * ur + g11 * us + g12 * ut;
            dv[3 * c + 2] = g02 * ur + g12 * us + g22 * ut;
        }
    }
}
