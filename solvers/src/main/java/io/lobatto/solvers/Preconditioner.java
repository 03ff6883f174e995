package io.lobatto.solvers;

import io.lobatto.core.backend.DeviceVector;

/**
 * An approximation M^-1 of A^-1: z = M^-1 r on device vectors. Plain PCG needs M^-1 fixed, linear, symmetric and
 * positive definite; a preconditioner that is not ({@link #isVariable()}) gets the flexible CG of
 * {@link ConjugateGradient} instead.
 */
public interface Preconditioner extends AutoCloseable {

    /** z = M^-1 r ({@code r} and {@code z} are distinct). */
    void apply(DeviceVector r, DeviceVector z);

    /**
     * True when z = M^-1 r is not a fixed symmetric positive definite linear map: a non-symmetric smoother (restricted
     * Schwarz), an inner iteration. {@link ConjugateGradient} then takes the Polak-Ribiere beta (flexible CG, Notay
     * 2000). Default false.
     */
    default boolean isVariable() {
        return false;
    }

    @Override
    default void close() {
    }
}
