package io.lobatto.core.backend;

/**
 * The p-multigrid transfer between two degrees of one mesh in a backend's memory: the 1D interpolation matrix
 * J_ai = l_i(r_a) from the Nc+1 GLL points of the coarse degree to the Nf+1 GLL points of the fine degree, applied
 * element by element as the tensor product J (x) J (x) J. Prolongation is P = Z_f^T W_f J Z_c and restriction its
 * transpose R = P^T = Z_c^T J^T W_f Z_f ({@link Backend#prolongate}, {@link Backend#restrict}). Created by
 * {@link Backend#uploadTransfer}; released by {@link #close()}.
 */
public interface DeviceTransfer extends AutoCloseable {

    /** Nc, the degree of the coarse level. */
    int coarseDegree();

    /** Nf, the degree of the fine level. */
    int fineDegree();

    /** E, the number of elements of both levels. */
    int elements();

    /** True once {@link #close()} has been called. */
    boolean isClosed();

    /** Releases the memory; idempotent. */
    @Override
    void close();
}
