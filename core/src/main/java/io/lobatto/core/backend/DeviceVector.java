package io.lobatto.core.backend;

/**
 * A vector of doubles that lives in a {@link Backend}'s memory (host memory for the Java backend,
 * device memory for a GPU backend). Created by {@link Backend#allocate(int)} or
 * {@link Backend#upload(double[])}; released by {@link #close()}. Using a closed vector, or a vector
 * of another backend, is an error that backends report with {@link IllegalArgumentException} or
 * {@link IllegalStateException}.
 */
public interface DeviceVector extends AutoCloseable {

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
