package io.lobatto.operators.physics;

import io.lobatto.core.pointwise.FieldEvaluation;
import io.lobatto.core.pointwise.PointGeometry;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.PointwiseSetup;

/**
 * The screened diffusion (kappa grad u, grad v) + (c u, v) at a point: dv = G du and v = c w |J| u, with
 * (G00, G01, G02, G11, G12, G22, c w |J|) stored per point, hipBone's packing. With kappa = 1, c = lambda and GLL
 * collocation it is Lobatto's BP3.5 operator S + lambda M; with Gauss quadrature BP3.0's.
 */
public final class ScreenedDiffusion extends PointwiseFunction {

    public ScreenedDiffusion() {
        super(1, PointGeometry.DIFFUSION_FACTORS + 1, FieldEvaluation.VALUES_AND_GRADIENTS);
    }

    @Override
    public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
        double ur = du[0], us = du[1], ut = du[2];
        dv[0] = data[0] * ur + data[1] * us + data[2] * ut;
        dv[1] = data[1] * ur + data[3] * us + data[4] * ut;
        dv[2] = data[2] * ur + data[4] * us + data[5] * ut;
        v[0] = data[6] * u[0];
    }

    /** The setup of S + lambda M: G = w |J| J^-1 J^-T and lambda w |J|. */
    public static PointwiseSetup setup(double lambda) {
        return setup(Coefficient.constant(1), Coefficient.constant(lambda));
    }

    /** The setup storing G = kappa(x) w |J| J^-1 J^-T and c(x) w |J|. */
    public static PointwiseSetup setup(Coefficient kappa, Coefficient c) {
        return (x, dxdr, w, q) -> {
            double wj = PointGeometry.diffusion(dxdr, w, kappa.at(x[0], x[1], x[2]), q, 0);
            q[6] = c.at(x[0], x[1], x[2]) * wj;
        };
    }
}
