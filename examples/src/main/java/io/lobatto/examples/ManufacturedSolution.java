package io.lobatto.examples;

import io.lobatto.core.pointwise.PointFunction;

/**
 * A manufactured solution of -Δu + λu = f: u = sin(πx/Lx') sin(πy/Ly') sin(πz/Lz') shifted to a box,
 * so f = (π²/Lx² + π²/Ly² + π²/Lz² + λ) u is known in closed form. On the box it vanishes on the
 * boundary; on other domains its boundary values are imposed as Dirichlet data.
 */
public record ManufacturedSolution(double x0, double lx, double y0, double ly, double z0, double lz, double lambda) {

    /** u = sin(πx) sin(πy) sin(πz) on the unit cube. */
    public static ManufacturedSolution unitCube(double lambda) {
        return new ManufacturedSolution(0, 1, 0, 1, 0, 1, lambda);
    }

    /** The exact solution u(x, y, z). */
    public double u(double x, double y, double z) {
        return Math.sin(Math.PI * (x - x0) / lx) * Math.sin(Math.PI * (y - y0) / ly) * Math.sin(Math.PI * (z - z0) / lz);
    }

    /** u as a function the backend evaluates (coefficients x0, Lx, y0, Ly, z0, Lz, scale 1). */
    public PointFunction solution() {
        return new SineProduct(x0, lx, y0, ly, z0, lz, 1);
    }

    /** f = -Δu + λu as a function the backend evaluates (u scaled by π²(1/Lx² + 1/Ly² + 1/Lz²) + λ). */
    public PointFunction rightHandSide() {
        double k = Math.PI * Math.PI * (1 / (lx * lx) + 1 / (ly * ly) + 1 / (lz * lz));
        return new SineProduct(x0, lx, y0, ly, z0, lz, k + lambda);
    }

    /** s sin(π(x - x0)/Lx) sin(π(y - y0)/Ly) sin(π(z - z0)/Lz), coefficients (x0, Lx, y0, Ly, z0, Lz, s). */
    static final class SineProduct extends PointFunction {

        SineProduct(double x0, double lx, double y0, double ly, double z0, double lz, double scale) {
            super(1, x0, lx, y0, ly, z0, lz, scale);
        }

        @Override
        public void evaluate(double[] x, double[] c, double[] out) {
            double u = Math.sin(Math.PI * (x[0] - c[0]) / c[1]) * Math.sin(Math.PI * (x[1] - c[2]) / c[3])
                    * Math.sin(Math.PI * (x[2] - c[4]) / c[5]);
            out[0] = c[6] * u;
        }
    }

    /** The right-hand side f = -Δu + λu. */
    public double f(double x, double y, double z) {
        double k = Math.PI * Math.PI * (1 / (lx * lx) + 1 / (ly * ly) + 1 / (lz * lz));
        return (k + lambda) * u(x, y, z);
    }
}
