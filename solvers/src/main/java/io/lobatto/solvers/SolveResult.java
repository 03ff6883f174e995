package io.lobatto.solvers;

/**
 * The outcome of a {@link ConjugateGradient} solve.
 *
 * @param iterations       CG iterations done (operator applies after the initial residual)
 * @param initialResidual  ||b - A x0||_2
 * @param finalResidual    ||r||_2 of the recursively updated residual at the end
 * @param rhsNorm          ||b||_2
 * @param reason           why it stopped
 * @param seconds          wall time of the solve including the initial residual
 * @param residualHistory  ||r_j||_2 for j = 0..iterations when recorded, else an empty array
 */
public record SolveResult(int iterations, double initialResidual, double finalResidual, double rhsNorm,
                          StopReason reason, double seconds, double[] residualHistory) {

    /** True when the solve met its tolerance. */
    public boolean converged() {
        return reason.converged();
    }

    /** Seconds per iteration (0 when no iteration was done). */
    public double secondsPerIteration() {
        return iterations == 0 ? 0 : seconds / iterations;
    }

    @Override
    public String toString() {
        return String.format("%s after %d iterations: |r| = %.3e (|r0| = %.3e, |b| = %.3e), %.3f s",
                reason, iterations, finalResidual, initialResidual, rhsNorm, seconds);
    }
}
