package io.lobatto.solvers;

import java.util.Objects;
import java.util.function.IntConsumer;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceOperator;
import io.lobatto.core.backend.DeviceVector;

/**
 * The (preconditioned) conjugate gradient method for A x = b with A symmetric positive definite,
 * hipBone's Algorithm 1 on assembled vectors: per iteration one operator apply with p . Ap in the same
 * pass ({@link DeviceOperator#applyDot}, fused into the gather by {@code AssembledOperator}), the fused
 * update x += alpha p; r -= alpha Ap with r . r in the same pass (BS5), and p = r + beta p, folded into
 * the next apply ({@link DeviceOperator#updateApplyDot}: the assembled operator's element kernel reads
 * r + beta p and its gather writes the new p). Where the operator sums p . A p in its apply
 * ({@link DeviceOperator#foldsDirectionDot}), plain CG instead applies r + beta p without writing it
 * ({@link DeviceOperator#applyDirectionDot}) and one pass then writes p = r + beta p, x += alpha p and r -= alpha Ap with
 * r . r ({@link Backend#cgStep}): no pass reads Ap for the dot. The operator runs that iteration whole
 * ({@link DeviceOperator#cgIteration}), so a backend can set alpha on the device and read p . Ap and r . r back at once,
 * and may move x once every two steps (x += alpha_k p_k deferred into step k + 1, which reads p_k anyway; the last
 * one is added when the solve returns or throws; so x is one step behind while a {@link Monitor} or progress listener
 * runs). Where the operator also keeps CG's scalars on the device ({@link DeviceOperator#queuesCgIterations}), the
 * iterations after the first are queued ({@link DeviceOperator#queueCgIteration}: beta set on the device too) and the
 * host reads iteration j's p . Ap and r . r while iteration j + 1 runs: a solve to a tolerance then checks one iteration
 * late and runs, and counts, one iteration past the one that converged; the monitor and progress listener are called
 * as each iteration's scalars arrive.
 * With a
 * preconditioner M^-1: z = M^-1 r, beta = (r.z)_new / (r.z)_old, p = z + beta p. With a
 * {@link JacobiPreconditioner} on the same backend, z = diag(A)^-1 r and r . z are fused into the
 * update as well ({@link Backend#pcgUpdate}); other preconditioners take the generic path (update,
 * apply, dot). Everything stays on the operator's backend; only the scalars of the reductions come
 * back to the host.
 *
 * <p>When the preconditioner says it is variable ({@link Preconditioner#isVariable()}: not symmetric, or not a fixed
 * linear map), CG becomes flexible CG (Notay 2000, truncation 1): beta = z_new . (r_new - r_old) / (z_old . r_old), the
 * Polak-Ribiere formula, which keeps the local A-orthogonality of consecutive search directions for any M^-1 at the
 * cost of one more vector, one copy and one dot per iteration.
 *
 * <p>Stops when ||r||_2 ≤ max(relativeTolerance * ||b||_2, absoluteTolerance), or after
 * maxIterations (reported as {@link StopReason#MAX_ITERATIONS}, not an exception), or after exactly
 * {@code fixedIterations} when set (NekBone's 100 iterations). Breakdown (p.Ap ≤ 0, NaN/Inf) throws
 * {@link SolverBreakdownException}. Owns its work vectors; release them with {@link #close()}.
 */
public final class ConjugateGradient implements AutoCloseable {

    private final DeviceOperator operator;
    private final Backend backend;
    private final Preconditioner preconditioner;
    private final DeviceVector r;
    private final DeviceVector p;
    private final DeviceVector ap;
    private final DeviceVector z;
    /** r of the previous iteration (flexible CG only), else null. */
    private final DeviceVector rOld;
    /** The device diag(A)^-1 when the preconditioner is Jacobi on this backend (fused update), else null. */
    private final DeviceVector inverseDiagonal;
    private final double[] dots = new double[3];
    private double relativeTolerance = 1e-8;
    private double absoluteTolerance = 0;
    private int maxIterations = 10_000;
    private int fixedIterations = -1;
    private boolean recordHistory;
    private IntConsumer progress;
    private Monitor monitor;

    /** Sees the residual as CG runs: for progress displays (called on the solving thread; keep it cheap). */
    @FunctionalInterface
    public interface Monitor {
        /**
         * Called once with iteration 0 and the initial residual, then after every iteration.
         *
         * @param iteration    iterations done
         * @param residualNorm ||r||_2 after them
         * @param targetNorm   the ||r||_2 at which the solve stops as converged (0 in fixed-iteration mode)
         */
        void iteration(int iteration, double residualNorm, double targetNorm);
    }

    /** Unpreconditioned CG on {@code operator}. */
    public ConjugateGradient(DeviceOperator operator) {
        this(operator, null);
    }

    /** Preconditioned CG ({@code preconditioner} may be null for plain CG). */
    public ConjugateGradient(DeviceOperator operator, Preconditioner preconditioner) {
        this.operator = Objects.requireNonNull(operator, "operator");
        this.backend = operator.backend();
        this.preconditioner = preconditioner;
        int n = operator.size();
        this.r = backend.allocate(n);
        this.p = backend.allocate(n);
        this.ap = backend.allocate(n);
        this.z = preconditioner == null ? null : backend.allocate(n);
        this.rOld = preconditioner != null && preconditioner.isVariable() ? backend.allocate(n) : null;
        this.inverseDiagonal = preconditioner instanceof JacobiPreconditioner j && j.backend() == backend
                && j.inverseDiagonal().length() == n ? j.inverseDiagonal() : null;
    }

    /** Whether this is flexible CG (the preconditioner is variable), with the Polak-Ribiere beta. */
    public boolean isFlexible() {
        return rOld != null;
    }

    /** Relative tolerance on ||r|| / ||b|| (default 1e-8). */
    public ConjugateGradient relativeTolerance(double tol) {
        if (!(tol >= 0)) {
            throw new IllegalArgumentException("relative tolerance must be >= 0, got " + tol);
        }
        this.relativeTolerance = tol;
        return this;
    }

    /** Absolute tolerance on ||r|| (default 0). */
    public ConjugateGradient absoluteTolerance(double tol) {
        if (!(tol >= 0)) {
            throw new IllegalArgumentException("absolute tolerance must be >= 0, got " + tol);
        }
        this.absoluteTolerance = tol;
        return this;
    }

    /** Maximum number of iterations (default 10000). */
    public ConjugateGradient maxIterations(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("max iterations must be >= 0, got " + n);
        }
        this.maxIterations = n;
        return this;
    }

    /** Run exactly {@code n} iterations without a convergence test (NekBone mode); negative turns it off. */
    public ConjugateGradient fixedIterations(int n) {
        this.fixedIterations = n;
        return this;
    }

    /** Record ||r_j|| for every iteration in the result. */
    public ConjugateGradient recordHistory(boolean on) {
        this.recordHistory = on;
        return this;
    }

    /** Called with the iteration number after every iteration (e.g. a progress display). */
    public ConjugateGradient progress(IntConsumer listener) {
        this.progress = listener;
        return this;
    }

    /** Called with the iteration, the residual norm and the target after every iteration (and once before the first). */
    public ConjugateGradient monitor(Monitor listener) {
        this.monitor = listener;
        return this;
    }

    /**
     * The end of iteration {@code it} with r . r = {@code rr} (checked finite): its norm into the history, then the
     * progress listener and the monitor. Returns the norm.
     */
    private double iterationDone(int it, double rr, double reportedTarget, double[] history) {
        checkFinite(rr, it, "r . r");
        double rNorm = Math.sqrt(rr);
        if (recordHistory) {
            history[it] = rNorm;
        }
        if (progress != null) {
            progress.accept(it);
        }
        if (monitor != null) {
            monitor.iteration(it, rNorm, reportedTarget);
        }
        return rNorm;
    }

    /** r's norm after the last of {@link #queuedIterations}' iterations. */
    private double lastResidualNorm;

    /**
     * Plain CG's iterations after {@code done} on the device ({@link DeviceOperator#queueCgIteration}): iteration j + 1 is
     * queued before the host waits for iteration j's p . Ap and r . r, so the device never waits for the host.
     * <ul>
     *   <li>A solve to a tolerance therefore checks one iteration late. The iteration after the one that converged has
     *       run by then: where it moved, it counts, and where its residual is above the target again the solve goes on;
     *       where it did not move (p . Ap not positive or not finite near convergence), the converged one is the answer.</li>
     *   <li>A step that does not move (alpha 0) makes every step queued after it a no-op on the device
     *       ({@code CgBetaKernel}), so x is that of the last step that moved when a breakdown is thrown.</li>
     *   <li>x moves every other step; the last deferred alpha is added at the end, on every way out.</li>
     * </ul>
     * Returns the iterations done; r's norm is left in {@link #lastResidualNorm}.
     */
    private int queuedIterations(DeviceVector x, int done, int limit, double beta, double rr, double bNorm,
                                 double reportedTarget, double[] history) {
        backend.fill(ap, 0);                 // the queued iterations take Ap zero and leave it zero
        int it = done;                       // iterations counted
        int awaited = done;                  // iterations whose scalars the host has read
        int queuedTo = done;
        boolean lastDeferred = false;
        double lastAlpha = 0;
        boolean stop = false;                // converged (or exactly solved): queue no more
        boolean still = false;               // a step did not move: neither do the ones queued after it
        boolean ok = false;
        double rNorm = Math.sqrt(rr);
        try {
            while (awaited < queuedTo || !stop && queuedTo < limit) {
                if (!stop && queuedTo < limit) {
                    boolean defer = !lastDeferred;
                    operator.queueCgIteration(queuedTo + 1, queuedTo == done, beta, rr, 0, defer, p, ap, x, r);
                    queuedTo++;
                    lastDeferred = defer;
                    if (queuedTo < limit && awaited + 1 == queuedTo) {
                        continue;            // keep one more in flight while the host waits for this one
                    }
                }
                operator.awaitCgIteration(awaited + 1, dots);
                awaited++;
                lastAlpha = dots[2];
                if (still) {
                    continue;
                }
                double pAp = dots[0];
                boolean moved = pAp > 0 && pAp < 1.0e308;
                if (stop && !moved) {
                    still = true;            // the step after a converged one did not move: the converged one stands
                    continue;
                }
                checkFinite(pAp, awaited, "p . Ap");
                if (pAp <= 0) {
                    if (rr == 0) {
                        stop = true;         // r was exactly 0: nothing moves any more, and nothing is counted
                        still = true;
                        continue;
                    }
                    throw new SolverBreakdownException(SolverBreakdownException.Kind.NOT_POSITIVE_DEFINITE, awaited, "p . Ap",
                            pAp);
                }
                if (pAp >= 1.0e308) {
                    throw new SolverBreakdownException(SolverBreakdownException.Kind.NOT_FINITE, awaited, "p . Ap", pAp);
                }
                rr = dots[1];
                it++;
                rNorm = iterationDone(it, rr, reportedTarget, history);
                // converged: queue no more; the step already queued still runs and is checked like this one
                stop = fixedIterations < 0 && converged(rNorm, bNorm) != null;
            }
            ok = true;
        } finally {
            if (!ok) {
                // an exception: wait for what is still in flight (no-ops after a step that did not move), so that the
                // backend's read-back slots are free and x gets the last deferred alpha; their values are not checked
                try {
                    for (int j = awaited + 1; j <= queuedTo; j++) {
                        operator.awaitCgIteration(j, dots);
                        lastAlpha = dots[2];
                    }
                } catch (RuntimeException suppressed) {
                    lastDeferred = false;
                }
            }
            if (lastDeferred && lastAlpha != 0) {
                backend.axpby(lastAlpha, p, 1, x);   // the last step's deferred x += alpha p
            }
        }
        lastResidualNorm = rNorm;
        return it;
    }

    /**
     * Solves A x = b, starting from the x given (use a zero vector for x0 = 0); x is overwritten with
     * the solution. {@code b} is not modified.
     */
    public SolveResult solve(DeviceVector b, DeviceVector x) {
        int n = operator.size();
        requireLength(b, n, "b");
        requireLength(x, n, "x");
        long t0 = System.nanoTime();
        int limit = fixedIterations >= 0 ? fixedIterations : maxIterations;
        double[] history = recordHistory ? new double[limit + 1] : new double[0];

        double bb = backend.norm2(b);
        checkFinite(bb, 0, "b . b");
        double bNorm = Math.sqrt(bb);
        // r = b - A x
        operator.apply(x, ap);
        backend.copy(b, r);
        backend.axpby(-1, ap, 1, r);
        double rr = backend.norm2(r);
        checkFinite(rr, 0, "r . r");
        double r0 = Math.sqrt(rr);
        if (recordHistory) {
            history[0] = r0;
        }
        double target = Math.max(relativeTolerance * bNorm, absoluteTolerance);
        double reportedTarget = fixedIterations >= 0 ? 0 : target;
        if (monitor != null) {
            monitor.iteration(0, r0, reportedTarget);
        }
        if (fixedIterations < 0) {
            if (bNorm == 0 && r0 == 0) {
                return result(0, r0, r0, bNorm, StopReason.ZERO_RIGHT_HAND_SIDE, t0, history);
            }
            StopReason done = converged(r0, bNorm);
            if (done != null) {
                return result(0, r0, r0, bNorm, done, t0, history);
            }
        }
        double rz;
        if (preconditioner != null) {
            preconditioner.apply(r, z);
            rz = backend.dot(r, z);
            checkPreconditioner(rz, rr, 0);
            backend.copy(z, p);
        } else {
            rz = rr;
            backend.copy(r, p);
        }
        int it = 0;
        double rNorm = r0;
        // the search direction of the next iteration: p = dir + beta p, fused into its operator apply
        DeviceVector dir = null;
        double beta = 0;
        // plain CG whose operator sums p . A p in its apply: p = r + beta p moves into the update of x and r
        boolean step = preconditioner == null && operator.foldsDirectionDot();
        // cgIteration takes Ap zero and leaves it zero: zeroed once, before the first
        boolean apZero = false;
        // the alpha whose x += alpha p the last cgIteration left to the next (x moves once every two steps), else 0
        double pending = 0;
        // ... and whose scalars stay on the device: iterations queue with no wait between them
        boolean queued = step && operator.queuesCgIterations();
        try {
            while (it < limit) {
                if (queued && dir != null) {
                    it = queuedIterations(x, it, limit, beta, rr, bNorm, reportedTarget, history);
                    rNorm = lastResidualNorm;
                    break;
                }
                boolean folded = step && dir != null;
                double pAp;
                double rrFolded = 0;
                if (folded) {
                    if (!apZero) {
                        backend.fill(ap, 0);
                        apZero = true;
                    }
                    // the whole iteration, alpha on the device; where p . Ap is not positive x and r stay as they were
                    operator.cgIteration(beta, rz, pending, pending == 0, p, ap, x, r, dots);
                    pAp = dots[0];
                    rrFolded = dots[1];
                    pending = dots[2];
                } else {
                    pAp = dir == null ? operator.applyDot(p, ap) : operator.updateApplyDot(dir, beta, p, ap);
                }
                checkFinite(pAp, it + 1, "p . Ap");
                if (pAp <= 0) {
                    if (rr == 0) {
                        break;
                    }
                    throw new SolverBreakdownException(SolverBreakdownException.Kind.NOT_POSITIVE_DEFINITE, it + 1, "p . Ap", pAp);
                }
                if (folded && pAp >= 1.0e308) {
                    // p . Ap at or above 1e308: the device left x and r as they were, and CG would not move again
                    throw new SolverBreakdownException(SolverBreakdownException.Kind.NOT_FINITE, it + 1, "p . Ap", pAp);
                }
                double alpha = rz / pAp;
                double rzFused = 0;
                if (rOld != null) {
                    backend.copy(r, rOld);
                }
                if (folded) {
                    rr = rrFolded;
                } else if (inverseDiagonal != null) {
                    backend.pcgUpdate(alpha, p, ap, x, r, inverseDiagonal, z, dots);
                    rr = dots[0];
                    rzFused = dots[1];
                } else {
                    rr = backend.cgUpdate(alpha, p, ap, x, r);
                }
                it++;
                rNorm = iterationDone(it, rr, reportedTarget, history);
                if (fixedIterations < 0 && converged(rNorm, bNorm) != null) {
                    break;
                }
                if (it == limit) {
                    break;
                }
                double rzNew;
                if (preconditioner != null) {
                    if (inverseDiagonal != null) {
                        rzNew = rzFused;
                    } else {
                        preconditioner.apply(r, z);
                        rzNew = backend.dot(r, z);
                    }
                    checkPreconditioner(rzNew, rr, it);
                    dir = z;
                    if (rOld != null) {
                        // Polak-Ribiere: beta = z_new . (r_new - r_old) / (z_old . r_old)
                        double prNumerator = rzNew - backend.dot(rOld, z);
                        beta = prNumerator / rz;
                        rz = rzNew;
                        continue;
                    }
                } else {
                    rzNew = rr;
                    dir = r;
                }
                beta = rzNew / rz;
                rz = rzNew;
            }
        } finally {
            if (pending != 0) {
                backend.axpby(pending, p, 1, x);   // the last step's deferred x += alpha p, on every way out
            }
        }
        StopReason reason;
        if (fixedIterations >= 0) {
            reason = StopReason.FIXED_ITERATIONS;
        } else {
            StopReason c = converged(rNorm, bNorm);
            reason = c != null ? c : StopReason.MAX_ITERATIONS;
        }
        return result(it, r0, rNorm, bNorm, reason, t0, history);
    }

    private StopReason converged(double rNorm, double bNorm) {
        if (rNorm <= relativeTolerance * bNorm) {
            return StopReason.CONVERGED_RELATIVE;
        }
        if (rNorm <= absoluteTolerance) {
            return StopReason.CONVERGED_ABSOLUTE;
        }
        return null;
    }

    private SolveResult result(int it, double r0, double rn, double bNorm, StopReason reason, long t0, double[] history) {
        double seconds = (System.nanoTime() - t0) * 1e-9;
        double[] h = history.length == 0 ? history : java.util.Arrays.copyOf(history, it + 1);
        return new SolveResult(it, r0, rn, bNorm, reason, seconds, h);
    }

    private static void checkFinite(double v, int it, String what) {
        if (!Double.isFinite(v)) {
            throw new SolverBreakdownException(SolverBreakdownException.Kind.NOT_FINITE, it, what, v);
        }
    }

    private static void checkPreconditioner(double rz, double rr, int it) {
        checkFinite(rz, it, "r . z");
        if (rz <= 0 && rr > 0) {
            throw new SolverBreakdownException(SolverBreakdownException.Kind.PRECONDITIONER_NOT_POSITIVE_DEFINITE, it, "r . z", rz);
        }
    }

    private static void requireLength(DeviceVector v, int n, String name) {
        Objects.requireNonNull(v, name);
        if (v.length() != n) {
            throw new IllegalArgumentException(name + " has length " + v.length() + " but the operator has size " + n);
        }
    }

    @Override
    public void close() {
        r.close();
        p.close();
        ap.close();
        if (z != null) {
            z.close();
        }
        if (rOld != null) {
            rOld.close();
        }
    }
}
