package io.lobatto.examples;

/**
 * The manufactured solution of the variable-coefficient diffusion -div(kappa grad u) = f on the unit cube:
 * u = sin(πx) sin(πy) sin(πz) (zero on the boundary) with kappa = 1 + a sin(πx) sin(πy) sin(πz), a = 1/2
 * by default. By the product rule
 * <pre>
 *   f = -div(kappa grad u) = -(grad kappa . grad u) - kappa Δu,   Δu = -3π² u,
 *   grad u = π (cos πx sin πy sin πz, sin πx cos πy sin πz, sin πx sin πy cos πz),   grad kappa = a grad u,
 * </pre>
 * so f = 3π² kappa u - a |grad u|².
 *
 * @param amplitude a, the variation of kappa; |a| &lt; 1 keeps kappa positive
 */
public record DiffusionSolution(double amplitude) implements ManufacturedField {

    /** kappa = 1 + sin(πx) sin(πy) sin(πz) / 2. */
    public static DiffusionSolution standard() {
        return new DiffusionSolution(0.5);
    }

    public DiffusionSolution {
        if (!(Math.abs(amplitude) < 1)) {
            throw new IllegalArgumentException("the amplitude of kappa must be in (-1, 1) so that kappa > 0, got " + amplitude);
        }
    }

    @Override
    public int components() {
        return 1;
    }

    /** The conductivity kappa(x, y, z). */
    public double kappa(double x, double y, double z) {
        return 1 + amplitude * u(x, y, z);
    }

    /** u(x, y, z) = sin(πx) sin(πy) sin(πz). */
    public double u(double x, double y, double z) {
        return Math.sin(Math.PI * x) * Math.sin(Math.PI * y) * Math.sin(Math.PI * z);
    }

    /** grad u, length 3. */
    public double[] gradient(double x, double y, double z) {
        double sx = Math.sin(Math.PI * x), sy = Math.sin(Math.PI * y), sz = Math.sin(Math.PI * z);
        double cx = Math.cos(Math.PI * x), cy = Math.cos(Math.PI * y), cz = Math.cos(Math.PI * z);
        return new double[] {Math.PI * cx * sy * sz, Math.PI * sx * cy * sz, Math.PI * sx * sy * cz};
    }

    /** f = -div(kappa grad u) = -(grad kappa . grad u) - kappa Δu. */
    public double f(double x, double y, double z) {
        double[] g = gradient(x, y, z);
        double u = u(x, y, z);
        double gradKappaDotGradU = amplitude * (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]); // grad kappa = a grad u
        double laplacian = -3 * Math.PI * Math.PI * u;
        return -gradKappaDotGradU - kappa(x, y, z) * laplacian;
    }

    @Override
    public double u(int c, double x, double y, double z) {
        return u(x, y, z);
    }

    @Override
    public double f(int c, double x, double y, double z) {
        return f(x, y, z);
    }
}
