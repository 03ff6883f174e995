package io.lobatto.core.basis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.doubles;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * D, I and D~ reproduce derivatives / values of random polynomials exactly (to round-off) on the spaces
 * they are built for; rows of the differentiation matrices sum to zero (constants have zero derivative).
 */
class OperatorExactnessProperties {

    /** A degree N in [1, 20] and a polynomial of degree <= N + extra with coefficients in [-1, 1]. */
    record Case(int n, double[] c) {
        double value(double x) {
            double p = 0;
            for (int k = c.length - 1; k >= 0; k--) {
                p = p * x + c[k];
            }
            return p;
        }

        double derivative(double x) {
            double p = 0;
            for (int k = c.length - 1; k >= 1; k--) {
                p = p * x + k * c[k];
            }
            return p;
        }

        @Override
        public String toString() {
            return "N=" + n + ", c=" + java.util.Arrays.toString(c);
        }

        /** Bound on |p| on [-1, 1]; used to scale tolerances. */
        double scale() {
            double s = 0;
            for (double v : c) {
                s += Math.abs(v);
            }
            return Math.max(s, 1e-300);
        }
    }

    static Gen<Case> cases(int extraDegree) {
        return integers().between(1, 20).flatMap(n -> lists().of(doubles().between(-1, 1)).ofSize(n + 1 + extraDegree)
                .map(c -> new Case(n, c.stream().mapToDouble(Double::doubleValue).toArray())));
    }

    static Gen<Case> degreeN() {
        return cases(0);
    }

    static Gen<Case> degreeNPlus1() {
        return cases(1);
    }

    static double[] matVec(double[] m, int rows, int cols, double[] x) {
        double[] y = new double[rows];
        for (int a = 0; a < rows; a++) {
            double s = 0;
            for (int i = 0; i < cols; i++) {
                s += m[a * cols + i] * x[i];
            }
            y[a] = s;
        }
        return y;
    }

    @Test
    void gllDifferentiationExactOnDegreeN() {
        qt().withExamples(300).forAll(degreeN()).checkAssert(p -> {
            Basis1D b = Basis1D.of(p.n());
            double[] r = b.gll().nodes();
            int nq = b.nq();
            double[] u = new double[nq];
            for (int i = 0; i < nq; i++) {
                u[i] = p.value(r[i]);
            }
            double[] du = matVec(b.differentiation(), nq, nq, u);
            double tol = 1e-14 * nq * nq * p.scale() * 4;
            for (int i = 0; i < nq; i++) {
                assertEquals(p.derivative(r[i]), du[i], tol, "N=" + p.n() + " node " + i);
            }
        });
    }

    @Test
    void interpolationExactOnDegreeN() {
        qt().withExamples(300).forAll(degreeN()).checkAssert(p -> {
            Basis1D b = Basis1D.of(p.n());
            double[] r = b.gll().nodes();
            double[] g = b.gauss().nodes();
            int nq = b.nq();
            double[] u = new double[nq];
            for (int i = 0; i < nq; i++) {
                u[i] = p.value(r[i]);
            }
            double[] iu = matVec(b.interpolation(), nq + 1, nq, u);
            double tol = 1e-14 * nq * p.scale() * 4;
            for (int a = 0; a <= nq; a++) {
                assertEquals(p.value(g[a]), iu[a], tol, "N=" + p.n() + " GL point " + a);
                assertEquals(p.value(g[a]), sum(b, a, u), tol, "entry accessor, GL point " + a);
            }
        });
    }

    private static double sum(Basis1D b, int a, double[] u) {
        double s = 0;
        for (int i = 0; i < u.length; i++) {
            s += b.interpolation(a, i) * u[i];
        }
        return s;
    }

    @Test
    void gaussDifferentiationExactOnDegreeNPlus1() {
        qt().withExamples(300).forAll(degreeNPlus1()).checkAssert(p -> {
            Basis1D b = Basis1D.of(p.n());
            double[] g = b.gauss().nodes();
            int m = b.nqGauss();
            double[] u = new double[m];
            for (int a = 0; a < m; a++) {
                u[a] = p.value(g[a]);
            }
            double[] du = matVec(b.gaussDifferentiation(), m, m, u);
            double tol = 1e-14 * m * m * p.scale() * 4;
            for (int a = 0; a < m; a++) {
                assertEquals(p.derivative(g[a]), du[a], tol, "N=" + p.n() + " GL point " + a);
            }
        });
    }

    @Test
    void differentiationRowsSumToZero() {
        qt().withExamples(240).forAll(integers().between(1, 30)).checkAssert(n -> {
            Basis1D b = Basis1D.of(n);
            assertRowSumsZero(b.differentiation(), b.nq(), "D");
            assertRowSumsZero(b.gaussDifferentiation(), b.nqGauss(), "D~");
            double[] im = b.interpolation();
            for (int a = 0; a < b.nqGauss(); a++) {
                double s = 0;
                for (int i = 0; i < b.nq(); i++) {
                    s += im[a * b.nq() + i];
                }
                assertEquals(1.0, s, 1e-13 * b.nq(), "I rows sum to one (constants interpolate exactly), row " + a);
            }
        });
    }

    /**
     * The GLL D has the "negative sum" diagonal, so its rows sum to zero to a few units of round-off of the row's
     * magnitude, independently of N (the analytic diagonal gave 2.5e-13 = 1e-15 of the row at N = 15): derivatives
     * of a translated element then do not pick up the translation.
     */
    @Test
    void gllDifferentiationRowsSumToZeroToRoundOff() {
        qt().withExamples(240).forAll(integers().between(1, 30)).checkAssert(n -> {
            Basis1D b = Basis1D.of(n);
            int nq = b.nq();
            double[] d = b.differentiation();
            for (int i = 0; i < nq; i++) {
                double s = 0, abs = 0;
                for (int j = 0; j < nq; j++) {
                    s += d[i * nq + j];
                    abs += Math.abs(d[i * nq + j]);
                }
                assertEquals(0.0, s, 2 * Math.ulp(1.0) * abs, "D row " + i + " of N = " + n);
            }
        });
    }

    private static void assertRowSumsZero(double[] m, int n, String what) {
        for (int i = 0; i < n; i++) {
            double s = 0, abs = 0;
            for (int j = 0; j < n; j++) {
                s += m[i * n + j];
                abs += Math.abs(m[i * n + j]);
            }
            assertEquals(0.0, s, 1e-15 * abs * n, what + " row " + i + " of " + n);
        }
    }

    @Test
    void differentiationAntisymmetryOfGll() {
        qt().withExamples(20).forAll(integers().between(1, 30)).checkAssert(n -> {
            // GLL nodes are symmetric, so D_ij = -D_{N-i, N-j}
            Basis1D b = Basis1D.of(n);
            int nq = b.nq();
            for (int i = 0; i < nq; i++) {
                for (int j = 0; j < nq; j++) {
                    assertEquals(-b.d(nq - 1 - i, nq - 1 - j), b.d(i, j), 1e-13 * n * n, "D(" + i + "," + j + ")");
                }
            }
        });
    }

}
