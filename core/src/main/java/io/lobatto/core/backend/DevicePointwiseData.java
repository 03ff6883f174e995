package io.lobatto.core.backend;

import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.Quadrature;

/**
 * A user operator on a backend: its {@link PointwiseFunction} (translated into the backend's element kernel
 * where the backend compiles kernels), the 1D matrices of its basis and quadrature, and the point data
 * {@code [E][P][dataPerPoint]}. Created by {@link Backend#uploadPointwise}; released by {@link #close()}.
 *
 * <p>Vector layout (component-blocked): an element-local vector of an ncomp-component field is
 * {@code [ncomp][E][Np]} and an assembled one {@code [ncomp][N_G]}, so Z acts on each component block alone.
 */
public interface DevicePointwiseData extends AutoCloseable {

    /** The pointwise function. */
    PointwiseFunction function();

    /** Where it integrates. */
    Quadrature quadrature();

    /** Polynomial degree N. */
    int degree();

    /** Number of elements E. */
    int elements();

    /** ncomp. */
    default int components() {
        return function().components();
    }

    /** Length of the element-local vectors this acts on: ncomp E (N+1)^3. */
    default int localSize() {
        int nq = degree() + 1;
        return components() * elements() * nq * nq * nq;
    }

    /** True once {@link #close()} has been called. */
    boolean isClosed();

    /** Releases the memory; idempotent. */
    @Override
    void close();
}
