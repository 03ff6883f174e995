package io.lobatto.solvers;

/**
 * CG broke down: p . Ap ≤ 0 (the operator, or the preconditioner, is not symmetric positive definite)
 * or a NaN/Inf appeared. Carries the iteration and the offending value.
 */
public class SolverBreakdownException extends ArithmeticException {

    /** What went wrong. */
    public enum Kind {
        /** p . A p ≤ 0: the operator is not positive definite. */
        NOT_POSITIVE_DEFINITE,
        /** r . z ≤ 0 with r != 0: the preconditioner is not positive definite. */
        PRECONDITIONER_NOT_POSITIVE_DEFINITE,
        /** A NaN or infinite value appeared in a reduction. */
        NOT_FINITE
    }

    private final Kind kind;
    private final int iteration;
    private final double value;

    public SolverBreakdownException(Kind kind, int iteration, String quantity, double value) {
        super("CG breakdown at iteration " + iteration + ": " + quantity + " = " + value + " ("
                + switch (kind) {
                    case NOT_POSITIVE_DEFINITE -> "the operator is not symmetric positive definite; for a stiffness "
                            + "operator this usually means a singular problem: no Dirichlet node is masked in the scatter "
                            + "operator and λ = 0 (mask a tagged boundary face or use λ > 0)";
                    case PRECONDITIONER_NOT_POSITIVE_DEFINITE -> "the preconditioner is not positive definite";
                    case NOT_FINITE -> "NaN or Inf: check the operator, the right-hand side and the initial guess";
                } + ")");
        this.kind = kind;
        this.iteration = iteration;
        this.value = value;
    }

    public Kind kind() {
        return kind;
    }

    public int iteration() {
        return iteration;
    }

    public double value() {
        return value;
    }
}
