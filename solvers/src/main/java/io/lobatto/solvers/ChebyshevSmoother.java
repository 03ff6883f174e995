package io.lobatto.solvers;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceOperator;
import io.lobatto.core.backend.DeviceVector;

/**
 * Chebyshev acceleration of a relaxation M^-1 on one level (Jacobi, M = diag(A), or an overlapping Schwarz method),
 * a fixed polynomial p(M^-1 A) M^-1 of degree order-1 applied to the residual.
 *
 * <p>First kind (Saad, "Iterative Methods for Sparse Linear Systems", Algorithm 12.1) on [a, b] (NekRS's smoothing
 * band [0.1 lambda_max, 1.1 lambda_max], or the whole estimated spectrum for a coarse solve), with
 * theta = (b + a)/2, delta = (b - a)/2, sigma = theta/delta:
 * <pre>
 *   d_0 = M^-1 r / theta;  x += d_0;  rho_0 = 1/sigma
 *   for k = 1..order-1:  r -= A d_(k-1);  rho_k = 1/(2 sigma - rho_(k-1));
 *                        d_k = rho_k rho_(k-1) d_(k-1) + (2 rho_k/delta) M^-1 r;  x += d_k
 * </pre>
 * Fourth kind (Lottes 2022, "Optimal polynomial smoothers for multigrid V-cycles", Algorithm 3) on [0, b], b the upper
 * bound only: d_0 = 4/(3b) M^-1 r, d_k = (2k-1)/(2k+3) d_(k-1) + (8k+4)/((2k+3) b) M^-1 r_k, with r_k = r_(k-1) - A
 * d_(k-1); x += beta_k d_k, beta_k = 1 for the plain fourth kind and Lottes' optimised weights (his Table, orders 1..8,
 * also in Phillips &amp; Fischer 2022 and PETSc/NekRS) for {@link Smoother.Polynomial#FOURTH_KIND_OPTIMAL}. With those
 * weights x is not the iterate the residual recursion belongs to, so the true residual b - A x is carried alongside
 * when the caller asks for it.
 *
 * <p>With a symmetric M^-1 the correction is a symmetric operator: used as both pre- and post-smoother it keeps the
 * V-cycle symmetric. Owns its work vectors.
 */
final class ChebyshevSmoother implements AutoCloseable {

    /** Lottes' optimised weights beta_1..beta_k of the fourth-kind iterates, for k = 1..8 (arXiv 2202.08830). */
    private static final double[][] OPTIMAL_WEIGHTS = {
        {1.12500000000000},
        {1.02387287570313, 1.26408905371085},
        {1.00842544782028, 1.08867839208730, 1.33753125909618},
        {1.00391310427285, 1.04035811188593, 1.14863498546254, 1.38268869241000},
        {1.00212930146164, 1.02173711549260, 1.07872433192603, 1.19810065292663, 1.41322542791682},
        {1.00128517255940, 1.01304293035233, 1.04678215124113, 1.11616489419675, 1.23829020218444, 1.43524297106744},
        {1.00083464397912, 1.00843949430122, 1.03008707768713, 1.07408384092003, 1.15036186707366, 1.27116474046139,
            1.45186658649364},
        {1.00057246631197, 1.00577427662415, 1.02050187922941, 1.05019803444565, 1.10115572984941, 1.18086042806856,
            1.29838585382576, 1.46486073151099},
    };

    /** The largest order with optimised weights. */
    static final int MAX_OPTIMAL_ORDER = OPTIMAL_WEIGHTS.length;

    private final DeviceOperator operator;
    private final Backend backend;
    private final DeviceVector inverseDiagonal;
    private final Preconditioner relaxation;
    private final double lower;
    private final double upper;
    private final int order;
    private final Smoother.Polynomial polynomial;
    private final DeviceVector d;
    private final DeviceVector ad;
    /** M^-1 r (Schwarz relaxation or weighted fourth kind), else null. */
    private final DeviceVector mr;
    /** The true residual (optimised fourth kind), else null. */
    private final DeviceVector rTrue;

    /** First kind with Jacobi on [lower, upper]. */
    ChebyshevSmoother(DeviceOperator operator, DeviceVector inverseDiagonal, double lower, double upper, int order) {
        this(operator, inverseDiagonal, null, lower, upper, order, Smoother.Polynomial.FIRST_KIND);
    }

    /**
     * The smoother with relaxation M^-1 = {@code relaxation}, or Jacobi with {@code inverseDiagonal} when
     * {@code relaxation} is null; {@code lower} is used by the first kind only.
     */
    ChebyshevSmoother(DeviceOperator operator, DeviceVector inverseDiagonal, Preconditioner relaxation, double lower,
                      double upper, int order, Smoother.Polynomial polynomial) {
        if (polynomial == Smoother.Polynomial.FIRST_KIND && !(lower > 0 && upper > lower)) {
            throw new IllegalArgumentException("Chebyshev needs 0 < lower < upper, got [" + lower + ", " + upper + "]");
        }
        if (!(upper > 0) || !Double.isFinite(upper)) {
            throw new IllegalArgumentException("Chebyshev needs a finite upper bound > 0, got " + upper);
        }
        if (order < 1) {
            throw new IllegalArgumentException("Chebyshev order must be >= 1, got " + order);
        }
        if (polynomial == Smoother.Polynomial.FOURTH_KIND_OPTIMAL && order > MAX_OPTIMAL_ORDER) {
            throw new IllegalArgumentException("the optimised fourth-kind weights are tabulated for orders 1.."
                    + MAX_OPTIMAL_ORDER + ", got order " + order);
        }
        if (relaxation == null && inverseDiagonal == null) {
            throw new IllegalArgumentException("Chebyshev needs a relaxation or an inverse diagonal");
        }
        this.operator = operator;
        this.backend = operator.backend();
        this.inverseDiagonal = inverseDiagonal;
        this.relaxation = relaxation;
        this.lower = lower;
        this.upper = upper;
        this.order = order;
        this.polynomial = polynomial;
        int n = operator.size();
        this.d = backend.allocate(n);
        this.ad = backend.allocate(n);
        boolean weighted = polynomial == Smoother.Polynomial.FOURTH_KIND_OPTIMAL;
        this.mr = relaxation != null || weighted ? backend.allocate(n) : null;
        this.rTrue = weighted ? backend.allocate(n) : null;
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

    Smoother.Polynomial polynomial() {
        return polynomial;
    }

    /**
     * The correction d of the last step of {@link #smooth}: after {@code smooth(r, x, false, scratch)} with a polynomial
     * whose iterate is x itself (not the optimised fourth kind), r - A d is the residual b - A x, which a caller may then
     * form itself (a distributed V-cycle forms it as partial sums, without an exchange, before its restriction).
     */
    DeviceVector lastCorrection() {
        return d;
    }

    /**
     * Whether a step of weight {@code beta} after r -= A d goes to the operator as one call
     * ({@link DeviceOperator#applyResidualChebyshevStep}): Jacobi relaxation with x += d, the case of {@link #step}'s fused
     * {@link Backend#chebyshevStep}, so the values are those of the two calls it replaces.
     */
    private boolean foldsStep(double beta) {
        return relaxation == null && beta == 1 && FOLD_STEP;
    }

    /** {@code -Dlobatto.pmg.foldChebyshevStep=false} keeps the residual update and the step apart (an A/B switch). */
    private static final boolean FOLD_STEP = Boolean.parseBoolean(System.getProperty("lobatto.pmg.foldChebyshevStep", "true"));

    /** One step: d = a d + b M^-1 r; x += beta d (with Schwarz: the local solves, then the gather folded into the update). */
    private void step(double a, double b, double beta, DeviceVector r, DeviceVector x, DeviceVector scratch) {
        if (relaxation == null && beta == 1) {
            backend.chebyshevStep(a, b, inverseDiagonal, r, d, x, scratch);
            return;
        }
        if (relaxation instanceof SchwarzPreconditioner schwarz) {
            schwarz.chebyshevStep(a, b, beta, r, d, x, mr);
            return;
        }
        if (relaxation == null) {
            backend.pointwiseMultiply(inverseDiagonal, r, mr);
        } else {
            relaxation.apply(r, mr);
        }
        backend.axpby(b, mr, a, d);
        backend.axpby(beta, d, 1, x);
    }

    /**
     * x += p(M^-1 A) M^-1 r, with r the residual b - A x on entry. When {@code updateResidual} r is b - A x on return
     * (one more operator apply), else r is left in an intermediate state. Operator applies: order - 1, plus one when
     * {@code updateResidual}. {@code scratch} is a work vector of the level's size (used by backends without a fused
     * Chebyshev step).
     */
    void smooth(DeviceVector r, DeviceVector x, boolean updateResidual, DeviceVector scratch) {
        if (polynomial != Smoother.Polynomial.FIRST_KIND) {
            double[] beta = polynomial == Smoother.Polynomial.FOURTH_KIND_OPTIMAL ? OPTIMAL_WEIGHTS[order - 1] : null;
            boolean carry = beta != null && updateResidual;
            if (carry) {
                backend.copy(r, rTrue);
            }
            step(0, 4 / (3 * upper), beta == null ? 1 : beta[0], r, x, scratch);
            for (int k = 1; k < order; k++) {
                double a = (2.0 * k - 1) / (2.0 * k + 3);
                double b = (8.0 * k + 4) / ((2.0 * k + 3) * upper);
                double betaK = beta == null ? 1 : beta[k];
                if (!carry && foldsStep(betaK)) {
                    operator.applyResidualChebyshevStep(d, ad, r, a, b, inverseDiagonal, x);
                    continue;
                }
                operator.applyResidual(d, ad, -1, r, carry ? -beta[k - 1] : 0, carry ? rTrue : null);
                step(a, b, betaK, r, x, scratch);
            }
            if (updateResidual) {
                if (carry) {
                    operator.applyResidual(d, ad, -beta[order - 1], rTrue, 0, null);
                    backend.copy(rTrue, r);
                } else {
                    operator.applyResidual(d, ad, -1, r, 0, null);
                }
            }
            return;
        }
        double theta = 0.5 * (upper + lower);
        double delta = 0.5 * (upper - lower);
        double sigma = theta / delta;
        double rho = 1 / sigma;
        step(0, 1 / theta, 1, r, x, scratch);
        for (int k = 1; k < order; k++) {
            double rhoNew = 1 / (2 * sigma - rho);
            if (foldsStep(1)) {
                operator.applyResidualChebyshevStep(d, ad, r, rhoNew * rho, 2 * rhoNew / delta, inverseDiagonal, x);
            } else {
                operator.applyResidual(d, ad, -1, r, 0, null);
                step(rhoNew * rho, 2 * rhoNew / delta, 1, r, x, scratch);
            }
            rho = rhoNew;
        }
        if (updateResidual) {
            operator.applyResidual(d, ad, -1, r, 0, null);
        }
    }

    @Override
    public void close() {
        d.close();
        ad.close();
        if (mr != null) {
            mr.close();
        }
        if (rTrue != null) {
            rTrue.close();
        }
    }
}
