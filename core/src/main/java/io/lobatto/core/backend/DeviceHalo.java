package io.lobatto.core.backend;

/**
 * The cross-rank half of a distributed gather Z^T in a backend's memory: the sums at the nodes that several ranks
 * hold (gslib's "non-local" part, hipBone's halo). For each shared row u, {@code rows[u]} is its id in the rank's
 * assembled vector and {@code sources[starts[u] .. starts[u+1])} list its contributions in a fixed order that every
 * rank holding the node agrees on (ascending rank): -1 for this rank's own partial sum (the value of the assembled
 * vector at the row), j &ge; 0 for entry j of the received values. {@link Backend#sumHalo} then writes the same
 * total, bitwise, on every rank that holds the node. Created by {@link Backend#uploadHalo}; released by {@link #close()}.
 */
public interface DeviceHalo extends AutoCloseable {

    /** The number of shared rows. */
    int rows();

    /** The length of the received-values vector. */
    int receivedSize();

    /** N_G: the length of the assembled vectors it sums into. */
    int globalSize();

    /** True once {@link #close()} has been called. */
    boolean isClosed();

    /** Releases the memory; idempotent. */
    @Override
    void close();
}
