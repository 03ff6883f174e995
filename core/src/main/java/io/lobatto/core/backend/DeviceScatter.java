package io.lobatto.core.backend;

/**
 * The scatter operator Z in a backend's memory (streaming paper, section 5; hipBone, "DOF storage"):
 * {@code scatterIds[n]} is the assembled (global) id of local node n, or -1 when the node is masked
 * (Dirichlet); Z^T is stored as CSR rows {@code gatherStarts[g] .. gatherStarts[g+1]} over local ids
 * {@code gatherIds}, with {@code blockStarts} splitting the rows into blocks of bounded local work;
 * {@code inverseDegree[n]} is W, the inverse multiplicity at local node n (0 when masked), so that
 * Z^T W Z = I. Created by {@link Backend#uploadScatter}; released by {@link #close()}.
 */
public interface DeviceScatter extends AutoCloseable {

    /** N_L: the length of element-local vectors. */
    int localSize();

    /** N_G: the length of assembled vectors (masked nodes excluded). */
    int globalSize();

    /** True once {@link #close()} has been called. */
    boolean isClosed();

    /** Releases the memory; idempotent. */
    @Override
    void close();
}
