package io.lobatto.operators.physics;

import io.lobatto.core.pointwise.FieldEvaluation;
import io.lobatto.core.pointwise.PointwiseFunction;

/**
 * The 3-component mass (c u, v) at a point: v_i = c w |J| u_i for i = 0, 1, 2, with c w |J| stored per point
 * ({@link Mass#setup}). With c = 1 and Gauss quadrature this is CEED's BP2.
 */
public final class VectorMass extends PointwiseFunction {

    public VectorMass() {
        super(3, 1, FieldEvaluation.VALUES);
    }

    @Override
    public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
        double s = data[0];
        v[0] = s * u[0];
        v[1] = s * u[1];
        v[2] = s * u[2];
    }
}
