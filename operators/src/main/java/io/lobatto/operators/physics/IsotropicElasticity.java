package io.lobatto.operators.physics;

import io.lobatto.core.pointwise.FieldEvaluation;
import io.lobatto.core.pointwise.PointGeometry;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.PointwiseSetup;

/**
 * Linear isotropic elasticity (sigma(u), eps(v)) at a point, with the Lame parameters lambda and mu:
 * eps = (grad u + grad u^T) / 2, sigma = lambda tr(eps) I + 2 mu eps, for a 3-component displacement u. The stored
 * data (11 doubles) are J^-1 ({@code dr_d/dx_j} at {@code 3 d + j}), lambda w |J| and mu w |J|; the physical
 * gradient is grad u_c = sum_d du[3c+d] dr_d/dx_j, and dv[3c+d] = sum_j sigma_cj dr_d/dx_j (times w |J|).
 */
public final class IsotropicElasticity extends PointwiseFunction {

    /** Doubles stored per point. */
    public static final int DATA = 11;

    public IsotropicElasticity() {
        super(3, DATA, FieldEvaluation.GRADIENTS);
    }

    @Override
    public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
        // physical gradient g_cj = d u_c / d x_j
        double g00 = grad(du, data, 0, 0), g01 = grad(du, data, 0, 1), g02 = grad(du, data, 0, 2);
        double g10 = grad(du, data, 1, 0), g11 = grad(du, data, 1, 1), g12 = grad(du, data, 1, 2);
        double g20 = grad(du, data, 2, 0), g21 = grad(du, data, 2, 1), g22 = grad(du, data, 2, 2);
        double lw = data[9];
        double mw = data[10];
        double trace = g00 + g11 + g22;
        // w |J| sigma, symmetric
        double s00 = lw * trace + 2 * mw * g00;
        double s11 = lw * trace + 2 * mw * g11;
        double s22 = lw * trace + 2 * mw * g22;
        double s01 = mw * (g01 + g10);
        double s02 = mw * (g02 + g20);
        double s12 = mw * (g12 + g21);
        for (int d = 0; d < 3; d++) {
            double r0 = data[3 * d], r1 = data[3 * d + 1], r2 = data[3 * d + 2];
            dv[d] = s00 * r0 + s01 * r1 + s02 * r2;
            dv[3 + d] = s01 * r0 + s11 * r1 + s12 * r2;
            dv[6 + d] = s02 * r0 + s12 * r1 + s22 * r2;
        }
    }

    /** d u_c / d x_j = sum_d du[3c + d] dr_d/dx_j. */
    private double grad(double[] du, double[] data, int c, int j) {
        return du[3 * c] * data[j] + du[3 * c + 1] * data[3 + j] + du[3 * c + 2] * data[6 + j];
    }

    /** The setup for constant Lame parameters. */
    public static PointwiseSetup setup(double lambda, double mu) {
        return setup(Coefficient.constant(lambda), Coefficient.constant(mu));
    }

    /** The setup for Lame parameters lambda(x) and mu(x). */
    public static PointwiseSetup setup(Coefficient lambda, Coefficient mu) {
        return (x, dxdr, w, q) -> {
            double det = PointGeometry.inverse(dxdr, q);
            q[9] = lambda.at(x[0], x[1], x[2]) * w * det;
            q[10] = mu.at(x[0], x[1], x[2]) * w * det;
        };
    }
}
