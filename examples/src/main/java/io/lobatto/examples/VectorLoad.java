package io.lobatto.examples;

import io.lobatto.core.pointwise.FieldEvaluation;
import io.lobatto.core.pointwise.PointGeometry;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.PointwiseSetup;

/**
 * A user pointwise function of the examples: the 3-component weighted mass v_c = q_c u_c with its own factor per
 * component, q_c = w |J| f_c(x) ({@link #setup}). Applied to the field u = 1 it gives the load vector
 * B^T (w |J| f) of a body force f evaluated at the quadrature points, on any backend.
 */
final class VectorLoad extends PointwiseFunction {

    VectorLoad() {
        super(3, 3, FieldEvaluation.VALUES);
    }

    @Override
    public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
        v[0] = data[0] * u[0];
        v[1] = data[1] * u[1];
        v[2] = data[2] * u[2];
    }

    /** The setup storing w |J| f_c(x) for c = 0, 1, 2. */
    static PointwiseSetup setup(ManufacturedField field) {
        return (x, dxdr, w, q) -> {
            double wj = w * PointGeometry.determinant(dxdr);
            for (int c = 0; c < 3; c++) {
                q[c] = wj * field.f(c, x[0], x[1], x[2]);
            }
        };
    }
}
