package io.lobatto.core.backend;

/**
 * The element operators of the CEED bake-off problems (tensor-product paper, section 4), with their
 * CEED names. Each acts element by element on element-local vectors {@code [E][Np]}.
 */
public enum ElementKernel {
    /**
     * BP1.0 (CEED BP1): the mass matrix M^e = I^T J^e I with Gauss-Legendre quadrature on Nq+1 points
     * (I interpolates GLL -> GL). Geometric data: wJ at the GL points, {@code [E][NqGL^3]}.
     */
    MASS_BP10,
    /**
     * BP3.5 (CEED BP5): S^e + lambda M^e = D^T G^e D + lambda J^e with GLL collocation.
     * Geometric data: packed factors at the GLL points, {@code [E][Np][7]}.
     */
    STIFFNESS_BP35,
    /**
     * BP3.0 (CEED BP3): I^T D~^T G^e D~ I + lambda I^T J^e I with Gauss-Legendre quadrature
     * on Nq+1 points. Geometric data: packed factors at the GL points, {@code [E][NqGL^3][7]}.
     */
    STIFFNESS_BP30;

    /** Number of geometric doubles stored per quadrature point for this kernel (1 or 7). */
    public int factorsPerPoint() {
        return this == MASS_BP10 ? 1 : 7;
    }

    /** True when the kernel integrates at the Nq+1 Gauss-Legendre points, false for GLL collocation. */
    public boolean usesGaussQuadrature() {
        return this != STIFFNESS_BP35;
    }
}
