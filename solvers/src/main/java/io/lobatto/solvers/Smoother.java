package io.lobatto.solvers;

import java.util.Locale;
import java.util.Objects;

/**
 * The smoother of a p-multigrid level: a Chebyshev polynomial p(M^-1 A) M^-1 in the preconditioned operator, named
 * by its polynomial and its inner relaxation M^-1.
 * <ul>
 *   <li>{@link Polynomial#FIRST_KIND}: Chebyshev of the first kind on the band [0.1, 1.1] lambda_max (NekRS's), needs a
 *       lower bound of the band; {@link Polynomial#FOURTH_KIND}: Lottes' Chebyshev polynomial of the fourth kind on
 *       [0, lambda_max] (Lottes 2022, "Optimal polynomial smoothers for multigrid V-cycles"), needs only lambda_max;
 *       {@link Polynomial#FOURTH_KIND_OPTIMAL}: the same with Lottes' optimised weights beta_i of the iterates (orders
 *       1..8; Phillips &amp; Fischer 2022).</li>
 *   <li>{@link Relaxation#JACOBI}: M = diag(A); {@link Relaxation#ASM}: additive Schwarz on the elements extended by
 *       one GLL layer, local solves by fast diagonalisation (symmetric); {@link Relaxation#RAS}: restricted additive
 *       Schwarz, each local solution kept on its own element only, weighted by the inverse multiplicity (not
 *       symmetric: the outer Krylov method must be flexible).</li>
 * </ul>
 * Names on the command line: {@code cheb-jacobi}, {@code cheb4-asm}, {@code cheb4opt-ras}, ... ({@link #parse}).
 *
 * @param polynomial the Chebyshev polynomial
 * @param relaxation the inner relaxation M^-1
 */
public record Smoother(Polynomial polynomial, Relaxation relaxation) {

    /** Chebyshev-Jacobi of the first kind, the default. */
    public static final Smoother CHEBYSHEV_JACOBI = new Smoother(Polynomial.FIRST_KIND, Relaxation.JACOBI);

    /** The Chebyshev polynomial of a smoother. */
    public enum Polynomial {
        /** First kind on [low, high] lambda_max. */
        FIRST_KIND("cheb"),
        /** Lottes' fourth kind on [0, high lambda_max]. */
        FOURTH_KIND("cheb4"),
        /** Lottes' fourth kind with the optimised weights beta_i (orders 1..8). */
        FOURTH_KIND_OPTIMAL("cheb4opt");

        private final String prefix;

        Polynomial(String prefix) {
            this.prefix = prefix;
        }
    }

    /** The inner relaxation M^-1 of a smoother. */
    public enum Relaxation {
        /** M = diag(A). */
        JACOBI("jacobi"),
        /** Additive Schwarz, fast-diagonalisation local solves on the extended elements (symmetric). */
        ASM("asm"),
        /** Restricted additive Schwarz (not symmetric). */
        RAS("ras");

        private final String suffix;

        Relaxation(String suffix) {
            this.suffix = suffix;
        }

        /** Whether this relaxation is an overlapping Schwarz method. */
        public boolean isSchwarz() {
            return this != JACOBI;
        }
    }

    /** Both parts are required. */
    public Smoother {
        Objects.requireNonNull(polynomial, "polynomial");
        Objects.requireNonNull(relaxation, "relaxation");
    }

    /** Whether the smoother is a symmetric operator (a symmetric V-cycle, so plain PCG stays valid). */
    public boolean isSymmetric() {
        return relaxation != Relaxation.RAS;
    }

    /** The command-line name: polynomial prefix, '-', relaxation ({@code cheb4opt-ras}). */
    public String cliName() {
        return polynomial.prefix + "-" + relaxation.suffix;
    }

    /** All names {@link #parse} accepts, comma-separated. */
    public static String names() {
        StringBuilder s = new StringBuilder();
        for (Polynomial p : Polynomial.values()) {
            for (Relaxation r : Relaxation.values()) {
                s.append(s.length() == 0 ? "" : ", ").append(new Smoother(p, r).cliName());
            }
        }
        return s.toString();
    }

    /**
     * The smoother named {@code name} ({@link #cliName()}, case-insensitive).
     *
     * @throws IllegalArgumentException naming the value and the names accepted
     */
    public static Smoother parse(String name) {
        String n = Objects.requireNonNull(name, "smoother name").trim().toLowerCase(Locale.ROOT);
        for (Polynomial p : Polynomial.values()) {
            for (Relaxation r : Relaxation.values()) {
                if (new Smoother(p, r).cliName().equals(n)) {
                    return new Smoother(p, r);
                }
            }
        }
        throw new IllegalArgumentException("smoother '" + name + "' is not one of: " + names());
    }

    /** A short description for reports, e.g. "Chebyshev 4th kind (optimised) - RAS". */
    public String describe() {
        String p = switch (polynomial) {
            case FIRST_KIND -> "Chebyshev";
            case FOURTH_KIND -> "Chebyshev 4th kind";
            case FOURTH_KIND_OPTIMAL -> "Chebyshev 4th kind opt.";
        };
        String r = switch (relaxation) {
            case JACOBI -> "Jacobi";
            case ASM -> "ASM";
            case RAS -> "RAS";
        };
        return p + "(" + r + ")";
    }
}
