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
     * A smoother's residual update: r = c1 A x + r and, where {@code s} is not null, s = c2 A x + s ({@code y} is
     * scratch of {@link #size()}, left with A x or any values). All vectors distinct. The default applies into
     * {@code y} and calls {@link Backend#axpby}; the assembled operator folds the updates into its gather.
     */
    default void applyResidual(DeviceVector x, DeviceVector y, double c1, DeviceVector r, double c2, DeviceVector s) {
        apply(x, y);
        backend().axpby(c1, y, 1, r);
        if (s != null) {
            backend().axpby(c2, y, 1, s);
        }
    }

    /**
     * A Chebyshev-Jacobi smoothing step after the residual update: r = r - A d, then d = a d + b (inverseDiagonal o r)
     * and x += d ({@code y} is scratch of {@link #size()}). All vectors distinct. The default calls
     * {@link #applyResidual} and {@link Backend#chebyshevStep}; the assembled operator folds the step into its gather.
     */
    default void applyResidualChebyshevStep(DeviceVector d, DeviceVector y, DeviceVector r, double a, double b,
                                            DeviceVector inverseDiagonal, DeviceVector x) {
        applyResidual(d, y, -1, r, 0, null);
        backend().chebyshevStep(a, b, inverseDiagonal, r, d, x, y);
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

    /** Whether {@link #applyDirectionDot} runs for this operator. The default is false. */
    default boolean foldsDirectionDot() {
        return false;
    }

    /**
     * CG's apply before its search-direction update: y = A q with q = z + beta p, and returns q . y, leaving p as it is
     * (the update p = z + beta p follows in the pass that updates x and r, {@link Backend#cgStep}). {@code z}, {@code p}
     * and {@code y} must be distinct. The default throws {@link UnsupportedOperationException}: call it only where
     * {@link #foldsDirectionDot} is true.
     */
    default double applyDirectionDot(DeviceVector z, double beta, DeviceVector p, DeviceVector y) {
        throw new UnsupportedOperationException("applyDirectionDot: " + getClass().getSimpleName()
                + " does not apply the search direction before its update");
    }

    /**
     * Plain CG's iteration after the first, where {@link #foldsDirectionDot} is true: x += pending p (the step before's
     * deferred update), q = r + beta p, y = A q, p . A p = q . y, alpha = {@link Backend#cgAlpha}(rz, p . A p) (0 where
     * p . A p is not positive and finite: x and r stay), p = q, x += alpha p (an operator may defer it where
     * {@code deferX} asks), r -= alpha y, and y = 0 again. {@code y} must be zero on entry and is left zero; out[0] =
     * p . A p, out[1] = the new r . r, out[2] = the alpha left to add to x with the new p (0 unless deferred). The default
     * composes {@link #applyDirectionDot} and {@link Backend#cgStep} and defers nothing.
     *
     * @throws IllegalArgumentException where out is shorter than 3, or {@code deferX} with {@code pending} not 0
     */
    default void cgIteration(double beta, double rz, double pending, boolean deferX, DeviceVector p, DeviceVector y,
                             DeviceVector x, DeviceVector r, double[] out) {
        Backend.checkCgIteration("cgIteration", pending, deferX, out);
        if (pending != 0) {
            backend().axpby(pending, p, 1, x);
        }
        double pAp = applyDirectionDot(r, beta, p, y);
        out[1] = backend().cgStep(Backend.cgAlpha(rz, pAp), beta, p, y, x, r);
        out[0] = pAp;
        out[2] = 0;
        backend().fill(y, 0);
    }

    /** Whether {@link #queueCgIteration} runs for this operator (CG's scalars kept on the device). The default is false. */
    default boolean queuesCgIterations() {
        return false;
    }

    /**
     * {@link #cgIteration} queued as CG iteration {@code k}, with beta set on the device
     * ({@link Backend#queueAssembledCgIteration}): the call returns without waiting, and {@link #awaitCgIteration}(k)
     * gives p . A p, r . r and alpha later. {@code beta}, {@code rz} and {@code pending} are read only with {@code first}.
     * The default throws {@link UnsupportedOperationException}: call it only where {@link #queuesCgIterations} is true.
     */
    default void queueCgIteration(int k, boolean first, double beta, double rz, double pending, boolean deferX,
                                  DeviceVector p, DeviceVector y, DeviceVector x, DeviceVector r) {
        throw new UnsupportedOperationException("queueCgIteration: " + getClass().getSimpleName()
                + " does not keep CG's scalars on the device");
    }

    /** {@link Backend#awaitCgIteration}: out[0] = p . A p, out[1] = r . r, out[2] = alpha of queued iteration k. */
    default void awaitCgIteration(int k, double[] out) {
        throw new UnsupportedOperationException("awaitCgIteration: " + getClass().getSimpleName()
                + " does not keep CG's scalars on the device");
    }
}
