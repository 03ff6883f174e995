package io.lobatto.core.basis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Exactness of the GLL (N+1 points) and GL (N+2 points) rules on monomials, and -- to prove the test can
 * fail -- that each rule is NOT exact one degree higher: the error on x^(top+1) must equal the classical
 * remainder constant (Abramowitz and Stegun 25.4.30 / 25.4.32 with f = x^(2n) resp. x^(2n-2)).
 */
class QuadratureExactnessTest {

    /** Exact integral of x^k over [-1, 1]. */
    static double monomialIntegral(int k) {
        return k % 2 == 1 ? 0.0 : 2.0 / (k + 1);
    }

    static double quadrature(QuadratureRule q, int k) {
        return q.integrate(x -> Math.pow(x, k));
    }

    static void assertExact(QuadratureRule q, int k, String what) {
        double exact = monomialIntegral(k);
        double got = quadrature(q, k);
        // relative 1e-14 for even k; odd k integrate to 0, so scale by the size of the summands (sum of w = 2)
        double tol = 1e-14 * Math.max(Math.abs(exact), 2.0 / (k + 1)) + 4e-16;
        assertEquals(exact, got, tol, what + ": x^" + k);
    }

    static double factorial(int n) {
        double f = 1;
        for (int i = 2; i <= n; i++) {
            f *= i;
        }
        return f;
    }

    @ParameterizedTest(name = "N = {0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
    void gllExactToDegree2NMinus1(int n) {
        QuadratureRule gll = Basis1D.of(n).gll();
        assertEquals(n + 1, gll.size());
        for (int k = 0; k <= 2 * n - 1; k++) {
            assertExact(gll, k, "GLL N=" + n);
        }
    }

    @ParameterizedTest(name = "N = {0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
    void gllNotExactAtDegree2N(int n) {
        // n+1 GLL points, m = n+1: integral - quadrature = -m (m-1)^3 2^(2m-1) ((m-2)!)^4 / ((2m-1) ((2m-2)!)^2) for x^(2m-2)
        int m = n + 1;
        double c = m * Math.pow(m - 1, 3) * Math.pow(2, 2 * m - 1) * Math.pow(factorial(m - 2), 4)
                / ((2 * m - 1) * Math.pow(factorial(2 * m - 2), 2));
        QuadratureRule gll = Basis1D.of(n).gll();
        double error = quadrature(gll, 2 * n) - monomialIntegral(2 * n);
        assertTrue(error > 0, "GLL over-integrates x^2N, N=" + n + ": error " + error);
        assertEquals(c, error, 1e-3 * c, "GLL remainder for x^" + (2 * n) + ", N=" + n);
        assertTrue(error > 1e3 * 1e-14 * monomialIntegral(2 * n), "the exactness test tolerance would catch this error");
    }

    @ParameterizedTest(name = "N = {0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
    void glExactToDegree2NPlus3(int n) {
        QuadratureRule gl = Basis1D.of(n).gauss();
        assertEquals(n + 2, gl.size());
        for (int k = 0; k <= 2 * (n + 2) - 1; k++) {
            assertExact(gl, k, "GL N=" + n);
        }
    }

    @ParameterizedTest(name = "N = {0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
    void glNotExactAtDegree2NPlus4(int n) {
        // m Gauss points: integral - quadrature = 2^(2m+1) (m!)^4 / ((2m+1) ((2m)!)^2) for x^(2m)
        int m = n + 2;
        double c = Math.pow(2, 2 * m + 1) * Math.pow(factorial(m), 4) / ((2 * m + 1) * Math.pow(factorial(2 * m), 2));
        QuadratureRule gl = Basis1D.of(n).gauss();
        double error = monomialIntegral(2 * m) - quadrature(gl, 2 * m);
        assertTrue(error > 0, "GL under-integrates x^(2N+4), N=" + n + ": error " + error);
        assertEquals(c, error, 1e-3 * c, "GL remainder for x^" + (2 * m) + ", N=" + n);
        assertTrue(error > 1e2 * 1e-14 * monomialIntegral(2 * m), "the exactness test tolerance would catch this error");
    }
}
