package io.lobatto.solvers;

import io.lobatto.core.backend.DeviceVector;

/** A symmetric positive definite approximation M^-1 of A^-1: z = M^-1 r on device vectors. */
public interface Preconditioner extends AutoCloseable {

    /** z = M^-1 r ({@code r} and {@code z} are distinct). */
    void apply(DeviceVector r, DeviceVector z);

    @Override
    default void close() {
    }
}
