package io.lobatto.solvers;

/** Why a {@link ConjugateGradient} solve stopped. */
public enum StopReason {
    /** ||r|| ≤ relative tolerance * ||b||. */
    CONVERGED_RELATIVE,
    /** ||r|| ≤ absolute tolerance. */
    CONVERGED_ABSOLUTE,
    /** The right-hand side was zero, so x = 0 solves exactly. */
    ZERO_RIGHT_HAND_SIDE,
    /** The fixed number of iterations was done (NekBone mode); no convergence test. */
    FIXED_ITERATIONS,
    /** The maximum number of iterations was reached without convergence. */
    MAX_ITERATIONS;

    /** True for the converged outcomes. */
    public boolean converged() {
        return this == CONVERGED_RELATIVE || this == CONVERGED_ABSOLUTE || this == ZERO_RIGHT_HAND_SIDE;
    }
}
