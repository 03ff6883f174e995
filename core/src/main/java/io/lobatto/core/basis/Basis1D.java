package io.lobatto.core.basis;

import java.util.concurrent.ConcurrentHashMap;


/**
 * The 1D ingredients of a tensor-product spectral element of degree N (tensor-product paper, section 2;
 * site/src/site/markdown/design.md, "The math"): the Nq = N+1 Gauss-Lobatto-Legendre (GLL) nodes r_i and weights
 * w_i = 2 / (N(N+1) P_N(r_i)^2); the GLL differentiation matrix D_ij = l_j'(r_i) (diagonal by the negative sum, so that
 * D annihilates constants to round-off); the Nq+1 Gauss-Legendre
 * (GL) nodes and weights; the interpolation matrix I_ai = l_i(r~_a) from GLL to GL; and the GL
 * differentiation matrix D~_ab = l~_b'(r~_a). Matrices are dense, row-major ({@code M[row * cols + col]}).
 * Immutable and cached per degree: {@link #of(int)} returns the same instance for the same N.
 */
public final class Basis1D {

    /** Smallest supported degree. */
    public static final int MIN_DEGREE = 1;
    /** Largest supported degree. */
    public static final int MAX_DEGREE = 30;

    private static final ConcurrentHashMap<Integer, Basis1D> CACHE = new ConcurrentHashMap<>();

    private final int degree;
    private final QuadratureRule gll;
    private final QuadratureRule gl;
    private final double[] d;
    private final double[] interp;
    private final double[] dGl;

    private Basis1D(int degree) {
        this.degree = degree;
        this.gll = gaussLobattoLegendre(degree + 1);
        this.gl = gaussLegendre(degree + 2);
        this.d = gllDifferentiation(degree, gll);
        double[] x = gll.nodes();
        double[] y = gl.nodes();
        this.interp = interpolationMatrix(x, y);
        this.dGl = differentiationMatrix(y);
    }

    /**
     * The basis of degree {@code degree}, built once and cached.
     *
     * @throws IllegalArgumentException unless {@value #MIN_DEGREE} ≤ degree ≤ {@value #MAX_DEGREE}
     */
    public static Basis1D of(int degree) {
        if (degree < MIN_DEGREE || degree > MAX_DEGREE) {
            throw new IllegalArgumentException("degree N = " + degree + " is out of range [" + MIN_DEGREE + ", " + MAX_DEGREE + "]");
        }
        return CACHE.computeIfAbsent(degree, Basis1D::new);
    }

    /** Polynomial degree N. */
    public int degree() {
        return degree;
    }

    /** Nq = N + 1, the number of GLL points per direction. */
    public int nq() {
        return degree + 1;
    }

    /** Np = Nq^3, nodes per hexahedral element. */
    public int np() {
        int nq = nq();
        return nq * nq * nq;
    }

    /** NqGL = N + 2, the number of GL quadrature points per direction (BP1.0, BP3.0). */
    public int nqGauss() {
        return degree + 2;
    }

    /** NqGL^3, GL points per element. */
    public int npGauss() {
        int n = nqGauss();
        return n * n * n;
    }

    /** The Nq GLL nodes and weights. */
    public QuadratureRule gll() {
        return gll;
    }

    /** The Nq + 1 Gauss-Legendre nodes and weights. */
    public QuadratureRule gauss() {
        return gl;
    }

    /** D, Nq x Nq: (D u)_i = u'(r_i) for u of degree ≤ N given at the GLL nodes. Copy. */
    public double[] differentiation() {
        return d.clone();
    }

    /** I, (Nq+1) x Nq: (I u)_a = u(r~_a), GLL values to GL values. Copy. */
    public double[] interpolation() {
        return interp.clone();
    }

    /** D~, (Nq+1) x (Nq+1): differentiation of the Lagrange polynomials through the GL nodes. Copy. */
    public double[] gaussDifferentiation() {
        return dGl.clone();
    }

    /** Entry D_ij. */
    public double d(int i, int j) {
        return d[i * nq() + j];
    }

    /** Entry I_ai. */
    public double interpolation(int a, int i) {
        return interp[a * nq() + i];
    }

    @Override
    public String toString() {
        return "Basis1D[N=" + degree + ", Nq=" + nq() + ", GL points=" + nqGauss() + "]";
    }

    // ------------------------------------------------------------------ construction

    /** Legendre P_n(x) by the three-term recurrence; returns {P_n(x), P_{n-1}(x)}. */
    static double[] legendre(int n, double x) {
        double p0 = 1, p1 = x;
        if (n == 0) {
            return new double[] {1, 0};
        }
        for (int k = 2; k <= n; k++) {
            double p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
            p0 = p1;
            p1 = p2;
        }
        return new double[] {p1, p0};
    }

    /** GLL rule with {@code points} >= 2 points: +-1 and the roots of P'_N, N = points - 1. */
    static QuadratureRule gaussLobattoLegendre(int points) {
        int n = points - 1;
        double[] x = new double[points];
        double[] w = new double[points];
        for (int i = 0; i < points; i++) {
            // Newton on (1 - x^2) P_N'(x) in the form x <- x - (x P_N - P_{N-1}) / (Nq P_N),
            // started at the Chebyshev-Gauss-Lobatto points.
            double xi = -Math.cos(Math.PI * i / n);
            if (i == 0) {
                xi = -1;
            } else if (i == n) {
                xi = 1;
            } else {
                for (int it = 0; it < 100; it++) {
                    double[] p = legendre(n, xi);
                    double dx = (xi * p[0] - p[1]) / (points * p[0]);
                    xi -= dx;
                    if (Math.abs(dx) < 1e-16) {
                        break;
                    }
                }
            }
            x[i] = xi;
        }
        // symmetrise to remove round-off asymmetry
        for (int i = 0; i < points / 2; i++) {
            double a = 0.5 * (x[points - 1 - i] - x[i]);
            x[i] = -a;
            x[points - 1 - i] = a;
        }
        if (points % 2 == 1) {
            x[points / 2] = 0;
        }
        for (int i = 0; i < points; i++) {
            double pn = legendre(n, x[i])[0];
            w[i] = 2.0 / (n * (n + 1) * pn * pn);
        }
        return new QuadratureRule("Gauss-Lobatto-Legendre", x, w);
    }

    /**
     * GL rule with {@code points} points: Hipparchus' correctly rounded high-precision rule
     * ({@code GaussIntegratorFactory.legendreHighPrecision}), read from the table {@code gauss-legendre.txt} beside this
     * class for 1..32 points (every degree of a basis) and computed by Hipparchus beyond. Computing it took 0.1-1 s on
     * a cold JVM (decimal floating point), paid by the first solve of every process; GaussLegendreRuleTest checks the
     * table against Hipparchus bit for bit.
     */
    static QuadratureRule gaussLegendre(int points) {
        double[][] t = GaussLegendreTable.RULES.get(points);
        if (t != null) {
            return new QuadratureRule("Gauss-Legendre", t[0].clone(), t[1].clone());
        }
        org.hipparchus.analysis.integration.gauss.GaussIntegrator g =
                new org.hipparchus.analysis.integration.gauss.GaussIntegratorFactory().legendreHighPrecision(points);
        double[] x = new double[points];
        double[] w = new double[points];
        for (int i = 0; i < points; i++) {
            x[i] = g.getPoint(i);
            w[i] = g.getWeight(i);
        }
        return new QuadratureRule("Gauss-Legendre", x, w);
    }

    /** The table of Gauss-Legendre rules, read once. */
    private static final class GaussLegendreTable {
        static final java.util.Map<Integer, double[][]> RULES = read();

        private static java.util.Map<Integer, double[][]> read() {
            java.util.Map<Integer, double[][]> rules = new java.util.HashMap<>();
            try (java.io.InputStream in = Basis1D.class.getResourceAsStream("gauss-legendre.txt")) {
                if (in == null) {
                    return rules;
                }
                for (String line : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).split("\n")) {
                    if (line.isBlank() || line.startsWith("#")) {
                        continue;
                    }
                    String[] f = line.trim().split(" ");
                    int p = Integer.parseInt(f[0]);
                    int i = Integer.parseInt(f[1]);
                    double[][] r = rules.computeIfAbsent(p, k -> new double[2][k]);
                    r[0][i] = Double.parseDouble(f[2]);
                    r[1][i] = Double.parseDouble(f[3]);
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("reading the Gauss-Legendre table gauss-legendre.txt", e);
            }
            return rules;
        }
    }

    /**
     * D_ij = P_N(r_i) / (P_N(r_j)(r_i - r_j)) for i != j, and the "negative sum" diagonal D_ii = -sum_{j != i} D_ij
     * instead of the analytic one (-N(N+1)/4, N(N+1)/4, else 0): D applied to a constant is then zero to round-off
     * (row sums ~1e-15 rather than 2.5e-13 at N = 15), so derivatives do not depend on where the element sits in space.
     */
    static double[] gllDifferentiation(int n, QuadratureRule gll) {
        int nq = n + 1;
        double[] r = gll.nodes();
        double[] p = new double[nq];
        for (int i = 0; i < nq; i++) {
            p[i] = legendre(n, r[i])[0];
        }
        double[] d = new double[nq * nq];
        for (int i = 0; i < nq; i++) {
            for (int j = 0; j < nq; j++) {
                if (i != j) {
                    d[i * nq + j] = p[i] / (p[j] * (r[i] - r[j]));
                }
            }
        }
        for (int i = 0; i < nq; i++) {
            double diag = 0;
            for (int j = 0; j < nq; j++) {
                if (j != i) {
                    diag -= d[i * nq + j];
                }
            }
            d[i * nq + i] = diag;
        }
        return d;
    }

    /** Barycentric weights 1 / prod_{k != j} (x_j - x_k). */
    static double[] barycentricWeights(double[] x) {
        double[] lam = new double[x.length];
        for (int j = 0; j < x.length; j++) {
            double prod = 1;
            for (int k = 0; k < x.length; k++) {
                if (k != j) {
                    prod *= x[j] - x[k];
                }
            }
            lam[j] = 1 / prod;
        }
        return lam;
    }

    /** M_ai = l_i(y_a) for the Lagrange polynomials l_i through x, by the barycentric formula. */
    public static double[] interpolationMatrix(double[] x, double[] y) {
        double[] lam = barycentricWeights(x);
        double[] m = new double[y.length * x.length];
        for (int a = 0; a < y.length; a++) {
            int hit = -1;
            for (int i = 0; i < x.length; i++) {
                if (y[a] == x[i]) {
                    hit = i;
                }
            }
            if (hit >= 0) {
                m[a * x.length + hit] = 1;
                continue;
            }
            double denom = 0;
            for (int i = 0; i < x.length; i++) {
                denom += lam[i] / (y[a] - x[i]);
            }
            for (int i = 0; i < x.length; i++) {
                m[a * x.length + i] = lam[i] / (y[a] - x[i]) / denom;
            }
        }
        return m;
    }

    /** D_ab = l_b'(x_a) for the Lagrange polynomials through x, by the barycentric formula. */
    public static double[] differentiationMatrix(double[] x) {
        int n = x.length;
        double[] lam = barycentricWeights(x);
        double[] d = new double[n * n];
        for (int a = 0; a < n; a++) {
            double diag = 0;
            for (int b = 0; b < n; b++) {
                if (a != b) {
                    double v = lam[b] / lam[a] / (x[a] - x[b]);
                    d[a * n + b] = v;
                    diag -= v;
                }
            }
            d[a * n + a] = diag;
        }
        return d;
    }
}
