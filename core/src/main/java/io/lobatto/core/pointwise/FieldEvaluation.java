package io.lobatto.core.pointwise;

/**
 * What a {@link PointwiseFunction} reads of its input field at each quadrature point, and what it
 * returns to be tested against (libCEED's evaluation modes): the interpolated values B u, the
 * reference gradients (D_r, D_s, D_t) u, or both. The element kernel computes and projects only what
 * is named here, so a pure diffusion never interpolates values and a mass never differentiates.
 */
public enum FieldEvaluation {
    /** u and v: the weak form tests the output against the basis functions (a mass-like term). */
    VALUES,
    /** du and dv: the output is tested against the reference gradients of the basis (a stiffness-like term). */
    GRADIENTS,
    /** Both: for example a screened diffusion, or a reaction-diffusion term. */
    VALUES_AND_GRADIENTS;

    /** True when values u are interpolated to the points and v is projected back. */
    public boolean readsValues() {
        return this != GRADIENTS;
    }

    /** True when reference gradients du are computed at the points and dv is projected back. */
    public boolean readsGradients() {
        return this != VALUES;
    }
}
