/**
 * Krylov solvers on device vectors: the (preconditioned) conjugate gradient method
 * {@link io.lobatto.solvers.ConjugateGradient} (hipBone's Algorithm 1 with fused updates, a relative or
 * absolute tolerance, or a fixed number of iterations as in NekBone),
 * {@link io.lobatto.solvers.JacobiPreconditioner}, and the outcome of a solve
 * ({@link io.lobatto.solvers.SolveResult}, {@link io.lobatto.solvers.StopReason}). Every vector stays in the
 * backend's memory during a solve; only scalars come back to the host.
 */
package io.lobatto.solvers;
