package io.lobatto.core.backend;

/**
 * What an element kernel reads besides the vector it acts on, uploaded once: the 1D matrices of the
 * basis (D for BP3.5; I for BP1.0; I and D~ for BP3.0) and the geometric factors of every element.
 * Created by {@link Backend#uploadElementData}; released by {@link #close()}.
 */
public interface DeviceElementData extends AutoCloseable {

    /** Which operator the data is for. */
    ElementKernel kernel();

    /** Polynomial degree N (Nq = N + 1 GLL points per direction). */
    int degree();

    /** Number of elements E. */
    int elements();

    /** Length of the element-local vectors this data acts on: E (N+1)^3. */
    default int localSize() {
        int nq = degree() + 1;
        return elements() * nq * nq * nq;
    }

    /**
     * True when the kernel computes the geometric factors from the element vertices on every apply
     * ({@link Backend#elementDataOnTheFly}) instead of reading stored ones.
     */
    default boolean factorsOnTheFly() {
        return false;
    }

    /** True once {@link #close()} has been called. */
    boolean isClosed();

    /** Releases the memory; idempotent. */
    @Override
    void close();
}
