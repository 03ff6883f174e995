package io.lobatto.core.pointwise;

import io.lobatto.core.basis.Basis1D;

/**
 * Where a pointwise operator integrates: at the N+1 GLL nodes themselves (collocation, no
 * interpolation: BP3.5's choice) or at N+2 Gauss-Legendre points per direction, reached by the 1D
 * interpolation I (BP1.0's and BP3.0's choice, exact for the mass matrix on affine elements).
 */
public enum Quadrature {
    /** GLL collocation: Q = N+1 points per direction, the nodes of the basis. */
    GLL,
    /** Gauss-Legendre: Q = N+2 points per direction, u interpolated GLL -> GL by I. */
    GAUSS;

    /** Points per direction Q for {@code basis}. */
    public int pointsPerDirection(Basis1D basis) {
        return this == GLL ? basis.nq() : basis.nqGauss();
    }

    /** Points per element Q^3 for {@code basis}. */
    public int pointsPerElement(Basis1D basis) {
        int q = pointsPerDirection(basis);
        return q * q * q;
    }
}
