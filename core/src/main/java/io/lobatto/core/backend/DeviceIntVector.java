package io.lobatto.core.backend;

/**
 * A read-only vector of {@code int} indices in a {@link Backend}'s memory (scatter ids, CSR offsets
 * of Z^T). Created by {@link Backend#upload(int[])}; released by {@link #close()}.
 */
public interface DeviceIntVector extends AutoCloseable {

    /** Number of entries. */
    int length();

    /** The backend whose memory holds this vector. */
    Backend backend();

    /** True once {@link #close()} has been called. */
    boolean isClosed();

    /** Releases the memory; idempotent. */
    @Override
    void close();
}
