package io.lobatto.solvers;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceOperator;
import io.lobatto.core.backend.DeviceVector;

/**
 * Estimates of the extreme eigenvalues of the Jacobi-preconditioned operator D^-1 A (D = diag(A)) from a few steps
 * of Jacobi PCG, read as Lanczos (Saad, "Iterative Methods for Sparse Linear Systems", section 6.7.3): the CG
 * coefficients alpha_j, beta_j give the Lanczos tridiagonal T with T_jj = 1/alpha_j + beta_(j-1)/alpha_(j-1) and
 * T_(j,j+1) = sqrt(beta_j)/alpha_j, whose extreme eigenvalues (Sturm bisection) approach those of D^-1 A from
 * inside. The start vector is pseudo-random with a fixed seed, so the estimate is reproducible.
 *
 * @param lambdaMin the smallest Ritz value (an upper bound of the true lambda_min)
 * @param lambdaMax the largest Ritz value (a lower bound of the true lambda_max)
 * @param steps     the Lanczos steps done (fewer than asked when CG converged exactly)
 */
public record SpectrumBounds(double lambdaMin, double lambdaMax, int steps) {

    /**
     * Runs {@code steps} Jacobi-PCG steps on {@code operator} with {@code inverseDiagonal} = D^-1, on the
     * operator's backend (only the scalars come to the host).
     *
     * @throws IllegalArgumentException if {@code steps < 1} or the lengths differ
     */
    public static SpectrumBounds estimate(DeviceOperator operator, DeviceVector inverseDiagonal, int steps, long seed) {
        return estimate(operator, inverseDiagonal, steps, seed, v -> { });
    }

    /**
     * {@link #estimate(DeviceOperator, DeviceVector, int, long)} whose pseudo-random start vector is passed through
     * {@code consistent} on the device first: a distributed operator makes the copies of a shared node equal there
     * (each rank draws its own numbers), so that every rank runs the same Lanczos process.
     */
    public static SpectrumBounds estimate(DeviceOperator operator, DeviceVector inverseDiagonal, int steps, long seed,
                                          java.util.function.Consumer<DeviceVector> consistent) {
        int n = operator.size();
        if (inverseDiagonal.length() != n) {
            throw new IllegalArgumentException("inverseDiagonal has length " + inverseDiagonal.length()
                    + " but the operator has size " + n);
        }
        Backend backend = operator.backend();
        return lanczos(operator, (r, z) -> backend.pointwiseMultiply(inverseDiagonal, r, z), steps, seed, consistent);
    }

    /**
     * The extreme eigenvalues of M^-1 A for a symmetric positive definite {@code preconditioner} M^-1 (additive
     * Schwarz, say): {@code steps} PCG steps read as Lanczos, as {@link #estimate(DeviceOperator, DeviceVector, int, long)}.
     */
    public static SpectrumBounds estimate(DeviceOperator operator, Preconditioner preconditioner, int steps, long seed) {
        return lanczos(operator, preconditioner::apply, steps, seed, v -> { });
    }

    /**
     * The extreme real parts of the Ritz values of M^-1 A after {@code steps} Arnoldi steps (modified Gram-Schmidt), for
     * a {@code preconditioner} that is not symmetric (restricted Schwarz); the eigenvalues of the small Hessenberg
     * matrix come from Hipparchus. Keeps steps + 1 vectors on the backend.
     */
    public static SpectrumBounds arnoldi(DeviceOperator operator, Preconditioner preconditioner, int steps, long seed) {
        if (steps < 1) {
            throw new IllegalArgumentException("Arnoldi steps must be >= 1, got " + steps);
        }
        int n = operator.size();
        Backend backend = operator.backend();
        double[][] h = new double[steps + 1][steps];
        DeviceVector[] v = new DeviceVector[steps + 1];
        int m = 0;
        try (DeviceVector av = backend.allocate(n)) {
            v[0] = backend.allocate(n);
            backend.fillRandom(v[0], seed);                 // made where it lives: no host array of n

            backend.axpby(0, v[0], 1 / Math.sqrt(backend.norm2(v[0])), v[0]);
            for (int j = 0; j < steps; j++) {
                operator.apply(v[j], av);
                v[j + 1] = backend.allocate(n);
                preconditioner.apply(av, v[j + 1]);
                for (int i = 0; i <= j; i++) {
                    h[i][j] = backend.dot(v[j + 1], v[i]);
                    backend.axpby(-h[i][j], v[i], 1, v[j + 1]);
                }
                double norm = Math.sqrt(backend.norm2(v[j + 1]));
                h[j + 1][j] = norm;
                m = j + 1;
                if (!(norm > 1e-300) || !Double.isFinite(norm)) {
                    break;
                }
                backend.axpby(0, v[j + 1], 1 / norm, v[j + 1]);
            }
        } finally {
            for (DeviceVector x : v) {
                if (x != null) {
                    x.close();
                }
            }
        }
        double[][] hm = new double[m][m];
        for (int i = 0; i < m; i++) {
            System.arraycopy(h[i], 0, hm[i], 0, m);
        }
        org.hipparchus.complex.Complex[] ev = new org.hipparchus.linear.EigenDecompositionNonSymmetric(
                new org.hipparchus.linear.Array2DRowRealMatrix(hm, false)).getEigenvalues();
        double lo = Double.POSITIVE_INFINITY, hi = Double.NEGATIVE_INFINITY;
        for (org.hipparchus.complex.Complex c : ev) {
            lo = Math.min(lo, c.getReal());
            hi = Math.max(hi, c.getReal());
        }
        return new SpectrumBounds(lo, hi, m);
    }

    /** PCG with z = M^-1 r by {@code precondition}, read as Lanczos. */
    private static SpectrumBounds lanczos(DeviceOperator operator, java.util.function.BiConsumer<DeviceVector, DeviceVector> precondition,
                                          int steps, long seed, java.util.function.Consumer<DeviceVector> consistent) {
        if (steps < 1) {
            throw new IllegalArgumentException("Lanczos steps must be >= 1, got " + steps);
        }
        int n = operator.size();
        Backend backend = operator.backend();
        double[] alpha = new double[steps];
        double[] beta = new double[steps];
        int done = 0;
        try (DeviceVector r = backend.allocate(n); DeviceVector z = backend.allocate(n);
             DeviceVector p = backend.allocate(n); DeviceVector ap = backend.allocate(n);
             DeviceVector x = backend.allocate(n)) {
            backend.fillRandom(r, seed);                    // made where it lives: no host array of n
            consistent.accept(r);
            precondition.accept(r, z);
            double rz = backend.dot(r, z);
            backend.copy(z, p);
            for (int j = 0; j < steps; j++) {
                double pAp = operator.applyDot(p, ap);
                if (!(pAp > 0) || !(rz > 0)) {
                    break;
                }
                alpha[j] = rz / pAp;
                backend.cgUpdate(alpha[j], p, ap, x, r);
                precondition.accept(r, z);
                double rzNew = backend.dot(r, z);
                beta[j] = rzNew / rz;
                rz = rzNew;
                done = j + 1;
                if (!(rz > 0)) {
                    break;
                }
                backend.axpby(1, z, beta[j], p);
            }
        }
        if (done == 0) {
            throw new IllegalStateException("Lanczos: no step possible (p . Ap <= 0 or r . z <= 0 at the start): the operator "
                    + "or the preconditioner is not positive definite");
        }
        return fromCg(alpha, beta, done);
    }

    /** The extreme eigenvalues of the Lanczos tridiagonal of {@code m} CG steps with coefficients alpha, beta. */
    static SpectrumBounds fromCg(double[] alpha, double[] beta, int m) {
        double[] diag = new double[m];
        double[] off = new double[Math.max(0, m - 1)];
        for (int j = 0; j < m; j++) {
            diag[j] = 1 / alpha[j] + (j > 0 ? beta[j - 1] / alpha[j - 1] : 0);
            if (j < m - 1) {
                off[j] = Math.sqrt(beta[j]) / alpha[j];
            }
        }
        return new SpectrumBounds(eigenvalue(diag, off, 0), eigenvalue(diag, off, m - 1), m);
    }

    /** The k-th smallest eigenvalue of the symmetric tridiagonal (diag, off) by Sturm-sequence bisection. */
    static double eigenvalue(double[] diag, double[] off, int k) {
        int m = diag.length;
        double lo = Double.POSITIVE_INFINITY, hi = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < m; i++) {
            double radius = (i > 0 ? Math.abs(off[i - 1]) : 0) + (i < m - 1 ? Math.abs(off[i]) : 0);
            lo = Math.min(lo, diag[i] - radius);
            hi = Math.max(hi, diag[i] + radius);
        }
        for (int it = 0; it < 200 && hi - lo > 1e-14 * Math.max(Math.abs(lo), Math.abs(hi)); it++) {
            double mid = 0.5 * (lo + hi);
            if (countBelow(diag, off, mid) > k) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        return 0.5 * (lo + hi);
    }

    /** The number of eigenvalues below {@code x} (Sturm count of the LDL^T pivots of T - x I). */
    private static int countBelow(double[] diag, double[] off, double x) {
        int count = 0;
        double q = 1;
        for (int i = 0; i < diag.length; i++) {
            double o = i > 0 ? off[i - 1] : 0;
            q = diag[i] - x - (i > 0 ? o * o / q : 0);
            if (q == 0) {
                q = 1e-300;
            }
            if (q < 0) {
                count++;
            }
        }
        return count;
    }

    /**
     * The start vector: {@code new SplittableRandom(seed).nextDouble() - 0.5}, n times, made in parallel. SplittableRandom's
     * i-th value (from 0) is {@code mix64(seed + (i + 1) GOLDEN_GAMMA) >>> 11} times 2^-53 (Steele, Lea and Flood's
     * SplitMix64), so every entry is computed on its own, bit for bit the sequential stream (a test checks it); at 102.5M
     * DOFs the sequential loop was most of the eigenvalue-bound setup.
     */
    static double[] randomStart(int n, long seed) {
        return io.lobatto.core.backend.RandomFill.of(n, seed);
    }
}
