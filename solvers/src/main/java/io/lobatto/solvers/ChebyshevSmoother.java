package io.lobatto.solvers;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceOperator;
import io.lobatto.core.backend.DeviceVector;

/**
 * Chebyshev acceleration of Jacobi on one level (Saad, "Iterative Methods for Sparse Linear Systems", Algorithm
 * 12.1, on D^-1 A with D = diag(A)): for the interval [a, b] (NekRS's usual smoothing band
 * [0.1 lambda_max, 1.1 lambda_max], or the whole estimated spectrum for a coarse solve), with theta = (b + a)/2,
 * delta = (b - a)/2, sigma = theta/delta,
 * <pre>
 *   d_0 = D^-1 r / theta;  x += d_0;  rho_0 = 1/sigma
 *   for k = 1..order-1:  r -= A d_(k-1);  rho_k = 1/(2 sigma - rho_(k-1));
 *                        d_k = rho_k rho_(k-1) d_(k-1) + (2 rho_k/delta) D^-1 r;  x += d_k
 * </pre>
 * The correction x - x_0 = p(D^-1 A) D^-1 r_0 is a fixed polynomial of degree order-1 in D^-1 A times D^-1, a
 * symmetric operator: used as both pre- and post-smoother it keeps the V-cycle symmetric. Owns two work vectors.
 */
final class ChebyshevSmoother implements AutoCloseable {

    private final DeviceOperator operator;
    private final Backend backend;
    private final DeviceVector inverseDiagonal;
    private final double lower;
    private final double upper;
    private final int order;
    private final boolean fourthKind;
    private final DeviceVector d;
    private final DeviceVector ad;

    ChebyshevSmoother(DeviceOperator operator, DeviceVector inverseDiagonal, double lower, double upper, int order) {
        this(operator, inverseDiagonal, lower, upper, order, false);
    }

    /**
     * With {@code fourthKind}, the smoother is Lottes' Chebyshev polynomial of the fourth kind on [0, upper]
     * ({@code lower} unused): d_0 = 4/(3 upper) D^-1 r, d_k = (2k-1)/(2k+3) d_(k-1) + (8k+4)/((2k+3) upper) D^-1 r_k.
     */
    ChebyshevSmoother(DeviceOperator operator, DeviceVector inverseDiagonal, double lower, double upper, int order,
                      boolean fourthKind) {
        if (!(lower > 0 && upper > lower)) {
            throw new IllegalArgumentException("Chebyshev needs 0 < lower < upper, got [" + lower + ", " + upper + "]");
        }
        if (order < 1) {
            throw new IllegalArgumentException("Chebyshev order must be >= 1, got " + order);
        }
        this.operator = operator;
        this.backend = operator.backend();
        this.inverseDiagonal = inverseDiagonal;
        this.lower = lower;
        this.upper = upper;
        this.order = order;
        this.fourthKind = fourthKind;
        this.d = backend.allocate(operator.size());
        this.ad = backend.allocate(operator.size());
    }

    double lower() {
        return lower;
    }

    double upper() {
        return upper;
    }

    int order() {
        return order;
    }

    /**
     * x += p(D^-1 A) D^-1 r, with r the residual b - A x on entry. When {@code updateResidual} r is b - A x on return
     * (one more operator apply), else r is left in an intermediate state. Operator applies: order - 1, plus one when
     * {@code updateResidual}. {@code scratch} is a work vector of the level's size (used by backends without a fused
     * Chebyshev step).
     */
    void smooth(DeviceVector r, DeviceVector x, boolean updateResidual, DeviceVector scratch) {
        if (fourthKind) {
            backend.chebyshevStep(0, 4 / (3 * upper), inverseDiagonal, r, d, x, scratch);
            for (int k = 1; k < order; k++) {
                operator.apply(d, ad);
                backend.axpby(-1, ad, 1, r);
                backend.chebyshevStep((2.0 * k - 1) / (2.0 * k + 3), (8.0 * k + 4) / ((2.0 * k + 3) * upper), inverseDiagonal,
                        r, d, x, scratch);
            }
            if (updateResidual) {
                operator.apply(d, ad);
                backend.axpby(-1, ad, 1, r);
            }
            return;
        }
        double theta = 0.5 * (upper + lower);
        double delta = 0.5 * (upper - lower);
        double sigma = theta / delta;
        double rho = 1 / sigma;
        backend.chebyshevStep(0, 1 / theta, inverseDiagonal, r, d, x, scratch);
        for (int k = 1; k < order; k++) {
            operator.apply(d, ad);
            backend.axpby(-1, ad, 1, r);
            double rhoNew = 1 / (2 * sigma - rho);
            backend.chebyshevStep(rhoNew * rho, 2 * rhoNew / delta, inverseDiagonal, r, d, x, scratch);
            rho = rhoNew;
        }
        if (updateResidual) {
            operator.apply(d, ad);
            backend.axpby(-1, ad, 1, r);
        }
    }

    @Override
    public void close() {
        d.close();
        ad.close();
    }
}
