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

    /**
     * y = A x and returns x . y = x^T A x (CG's p . Ap). Operators that can compute the reduction in
     * the same pass as the apply (the assembled operator fuses it into its gather) override this; the
     * default applies and then takes the dot product.
     */
    default double applyDot(DeviceVector x, DeviceVector y) {
        apply(x, y);
        return backend().dot(x, y);
    }
}
