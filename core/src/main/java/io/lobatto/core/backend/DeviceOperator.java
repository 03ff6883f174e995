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

    /**
     * CG's search-direction update fused with the apply: p = z + beta p, then y = A p, and returns
     * p . y (hipBone's Algorithm 1 with the update folded into the operator, so a CG iteration needs no
     * separate pass over p). {@code z}, {@code p} and {@code y} must be distinct. The default updates,
     * then calls {@link #applyDot}.
     */
    default double updateApplyDot(DeviceVector z, double beta, DeviceVector p, DeviceVector y) {
        backend().axpby(1, z, beta, p);
        return applyDot(p, y);
    }
}
