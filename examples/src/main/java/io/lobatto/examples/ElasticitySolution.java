package io.lobatto.examples;

/**
 * The manufactured displacement of linear isotropic elasticity -div sigma(u) = f on the unit cube, zero on its
 * boundary: each component a product of 1D functions that vanish at 0 and 1,
 * <pre>
 *   u_0 = S(x) S(y) S(z),   u_1 = S2(x) S(y) E(z),   u_2 = E(x) S2(y) S(z),
 *   S(t) = sin(πt),  S2(t) = sin(2πt),  E(t) = e^t sin(πt),
 * </pre>
 * with sigma = lambda (div u) I + mu (grad u + grad u^T), so that
 * <pre>
 *   f_i = -sum_j d_j sigma_ij = -mu Δu_i - (lambda + mu) d_i (div u).
 * </pre>
 * Every derivative is the product of 1D derivatives ({@link #derivative}).
 *
 * @param lambda Lame's first parameter
 * @param mu     the shear modulus, positive
 */
public record ElasticitySolution(double lambda, double mu) implements ManufacturedField {

    /** The 1D factors: [component][direction] = 0 for S, 1 for S2, 2 for E. */
    private static final int[][] FACTORS = {{0, 0, 0}, {1, 0, 2}, {2, 1, 0}};

    public ElasticitySolution {
        if (!(mu > 0) || !(lambda + 2 * mu / 3 > 0) || !Double.isFinite(lambda) || !Double.isFinite(mu)) {
            throw new IllegalArgumentException("the Lame parameters need mu > 0 and lambda + 2 mu / 3 > 0 (a positive bulk "
                    + "modulus), got lambda " + lambda + ", mu " + mu);
        }
    }

    @Override
    public int components() {
        return 3;
    }

    /** The k-th derivative (k = 0, 1, 2) of the 1D factor {@code kind} at t. */
    static double factor(int kind, int k, double t) {
        double pi = Math.PI;
        switch (kind) {
            case 0: {
                double s = Math.sin(pi * t), c = Math.cos(pi * t);
                return k == 0 ? s : k == 1 ? pi * c : -pi * pi * s;
            }
            case 1: {
                double s = Math.sin(2 * pi * t), c = Math.cos(2 * pi * t);
                return k == 0 ? s : k == 1 ? 2 * pi * c : -4 * pi * pi * s;
            }
            default: {
                // (e^t sin πt)' = e^t (sin πt + π cos πt), '' = e^t ((1 - π²) sin πt + 2π cos πt)
                double e = Math.exp(t), s = Math.sin(pi * t), c = Math.cos(pi * t);
                return k == 0 ? e * s : k == 1 ? e * (s + pi * c) : e * ((1 - pi * pi) * s + 2 * pi * c);
            }
        }
    }

    /** d^(a+b+c) u_comp / dx^a dy^b dz^c for derivative orders a, b, c (each 0..2). */
    public double derivative(int comp, int a, int b, int c, double x, double y, double z) {
        int[] f = FACTORS[comp];
        return factor(f[0], a, x) * factor(f[1], b, y) * factor(f[2], c, z);
    }

    /** d u_comp / dx_j. */
    public double gradient(int comp, int j, double x, double y, double z) {
        return derivative(comp, j == 0 ? 1 : 0, j == 1 ? 1 : 0, j == 2 ? 1 : 0, x, y, z);
    }

    /** d² u_comp / dx_i dx_j. */
    double second(int comp, int i, int j, double x, double y, double z) {
        int[] o = new int[3];
        o[i]++;
        o[j]++;
        return derivative(comp, o[0], o[1], o[2], x, y, z);
    }

    /** The stress sigma_ij = lambda (div u) delta_ij + mu (d_j u_i + d_i u_j). */
    public double stress(int i, int j, double x, double y, double z) {
        double div = gradient(0, 0, x, y, z) + gradient(1, 1, x, y, z) + gradient(2, 2, x, y, z);
        return (i == j ? lambda * div : 0) + mu * (gradient(i, j, x, y, z) + gradient(j, i, x, y, z));
    }

    @Override
    public double u(int c, double x, double y, double z) {
        return derivative(c, 0, 0, 0, x, y, z);
    }

    /** f_i = -mu Δu_i - (lambda + mu) d_i (div u). */
    @Override
    public double f(int i, double x, double y, double z) {
        double laplacian = second(i, 0, 0, x, y, z) + second(i, 1, 1, x, y, z) + second(i, 2, 2, x, y, z);
        double gradDiv = second(0, 0, i, x, y, z) + second(1, 1, i, x, y, z) + second(2, 2, i, x, y, z);
        return -mu * laplacian - (lambda + mu) * gradDiv;
    }
}
