package io.lobatto.operators.physics;

import io.lobatto.core.pointwise.FieldEvaluation;
import io.lobatto.core.pointwise.PointGeometry;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.PointwiseSetup;

/**
 * The scalar diffusion (kappa grad u, grad v) at a point: dv = G du with the symmetric
 * G = kappa w |J| J^-1 J^-T stored per point (6 doubles, G00 G01 G02 G11 G12 G22). With kappa = 1 this is CEED's
 * BP3 (Gauss quadrature) and BP5 (GLL collocation); with kappa(x) a variable-coefficient diffusion.
 */
public final class Diffusion extends PointwiseFunction {

    public Diffusion() {
        super(1, PointGeometry.DIFFUSION_FACTORS, FieldEvaluation.GRADIENTS);
    }

    @Override
    public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
        double ur = du[0], us = du[1], ut = du[2];
        dv[0] = data[0] * ur + data[1] * us + data[2] * ut;
        dv[1] = data[1] * ur + data[3] * us + data[4] * ut;
        dv[2] = data[2] * ur + data[4] * us + data[5] * ut;
    }

    /** The setup storing G = w |J| J^-1 J^-T. */
    public static PointwiseSetup setup() {
        return setup(Coefficient.constant(1));
    }

    /** The setup storing G = kappa(x) w |J| J^-1 J^-T. */
    public static PointwiseSetup setup(Coefficient kappa) {
        return (x, dxdr, w, q) -> PointGeometry.diffusion(dxdr, w, kappa.at(x[0], x[1], x[2]), q, 0);
    }
}
