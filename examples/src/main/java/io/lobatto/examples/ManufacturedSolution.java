package io.lobatto.examples;

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

    /** The right-hand side f = -Δu + λu. */
    public double f(double x, double y, double z) {
        double k = Math.PI * Math.PI * (1 / (lx * lx) + 1 / (ly * ly) + 1 / (lz * lz));
        return (k + lambda) * u(x, y, z);
    }
}
