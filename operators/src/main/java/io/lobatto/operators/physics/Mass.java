package io.lobatto.operators.physics;

import io.lobatto.core.pointwise.FieldEvaluation;
import io.lobatto.core.pointwise.PointGeometry;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.PointwiseSetup;

/**
 * The scalar mass (c u, v) at a point: v = c w |J| u, with c w |J| stored per point (1 double). With c = 1 and
 * Gauss quadrature this is CEED's BP1 (Lobatto's BP1.0).
 */
public final class Mass extends PointwiseFunction {

    public Mass() {
        super(1, 1, FieldEvaluation.VALUES);
    }

    @Override
    public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
        v[0] = data[0] * u[0];
    }

    /** The setup storing w |J|. */
    public static PointwiseSetup setup() {
        return setup(Coefficient.constant(1));
    }

    /** The setup storing c(x) w |J|. */
    public static PointwiseSetup setup(Coefficient c) {
        return (x, dxdr, w, q) -> q[0] = c.at(x[0], x[1], x[2]) * w * PointGeometry.determinant(dxdr);
    }
}
