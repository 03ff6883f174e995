package io.lobatto.core.backend;

/**
 * A linear operator y = A x on vectors of one {@link Backend} (for example an assembled operator
 * A = Z^T L Z on assembled vectors). Solvers are written against this interface.
 */
public interface DeviceOperator {

    /** The backend whose vectors this operator acts on. */
    Backend backend();

    /** The number of rows and columns. */
    int size();

    /** y = A x; {@code x} and {@code y} must be distinct vectors of length {@link #size()}. */
    void apply(DeviceVector x, DeviceVector y);
}
