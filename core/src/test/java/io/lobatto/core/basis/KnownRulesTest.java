package io.lobatto.core.basis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Closed-form nodes and weights, symmetry, ordering, range checks and caching of {@link Basis1D}. */
class KnownRulesTest {

    private static final double TOL = 1e-15;

    @Test
    void degree1() {
        Basis1D b = Basis1D.of(1);
        assertArrayEquals(new double[] {-1, 1}, b.gll().nodes(), TOL);
        assertArrayEquals(new double[] {1, 1}, b.gll().weights(), TOL);
        double s = Math.sqrt(3.0 / 5.0);
        assertArrayEquals(new double[] {-s, 0, s}, b.gauss().nodes(), TOL);
        assertArrayEquals(new double[] {5.0 / 9, 8.0 / 9, 5.0 / 9}, b.gauss().weights(), TOL);
        assertArrayEquals(new double[] {-0.5, 0.5, -0.5, 0.5}, b.differentiation(), TOL);
    }

    @Test
    void degree2() {
        Basis1D b = Basis1D.of(2);
        assertArrayEquals(new double[] {-1, 0, 1}, b.gll().nodes(), TOL);
        assertArrayEquals(new double[] {1.0 / 3, 4.0 / 3, 1.0 / 3}, b.gll().weights(), TOL);
        // D for nodes -1, 0, 1: derivatives of the quadratic Lagrange basis
        assertArrayEquals(new double[] {-1.5, 2, -0.5, -0.5, 0, 0.5, 0.5, -2, 1.5}, b.differentiation(), 1e-14);
        double a = Math.sqrt(3.0 / 7 - 2.0 / 7 * Math.sqrt(6.0 / 5));
        double c = Math.sqrt(3.0 / 7 + 2.0 / 7 * Math.sqrt(6.0 / 5));
        assertArrayEquals(new double[] {-c, -a, a, c}, b.gauss().nodes(), TOL);
        double wa = (18 + Math.sqrt(30)) / 36, wc = (18 - Math.sqrt(30)) / 36;
        assertArrayEquals(new double[] {wc, wa, wa, wc}, b.gauss().weights(), TOL);
    }

    @Test
    void degree3() {
        Basis1D b = Basis1D.of(3);
        double s = 1 / Math.sqrt(5);
        assertArrayEquals(new double[] {-1, -s, s, 1}, b.gll().nodes(), TOL);
        assertArrayEquals(new double[] {1.0 / 6, 5.0 / 6, 5.0 / 6, 1.0 / 6}, b.gll().weights(), TOL);
    }

    @Test
    void degree4() {
        Basis1D b = Basis1D.of(4);
        double s = Math.sqrt(3.0 / 7);
        assertArrayEquals(new double[] {-1, -s, 0, s, 1}, b.gll().nodes(), TOL);
        assertArrayEquals(new double[] {0.1, 49.0 / 90, 32.0 / 45, 49.0 / 90, 0.1}, b.gll().weights(), TOL);
    }

    @ParameterizedTest(name = "N = {0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 7, 8, 12, 15, 16, 20, 25, 29, 30})
    void nodesSymmetricAscendingAndWeightsPositive(int n) {
        Basis1D b = Basis1D.of(n);
        for (QuadratureRule q : new QuadratureRule[] {b.gll(), b.gauss()}) {
            int m = q.size();
            for (int i = 0; i < m; i++) {
                assertEquals(-q.node(m - 1 - i), q.node(i), 1e-15, q + " node " + i);
                assertEquals(q.weight(m - 1 - i), q.weight(i), 1e-15, q + " weight " + i);
                assertTrue(q.weight(i) > 0, q + " weight " + i);
                if (i > 0) {
                    assertTrue(q.node(i) > q.node(i - 1), q + " ascending at " + i);
                }
            }
            double sum = 0;
            for (double w : q.weights()) {
                sum += w;
            }
            assertEquals(2.0, sum, 1e-14, q + " weights sum to |[-1,1]|");
        }
        assertEquals(-1.0, b.gll().node(0));
        assertEquals(1.0, b.gll().node(n));
        assertTrue(b.gauss().node(0) > -1 && b.gauss().node(n + 1) < 1, "GL nodes are interior");
        if (n % 2 == 0) {
            assertEquals(0.0, b.gll().node(n / 2));
        }
    }

    @Test
    void sizes() {
        Basis1D b = Basis1D.of(7);
        assertEquals(7, b.degree());
        assertEquals(8, b.nq());
        assertEquals(512, b.np());
        assertEquals(9, b.nqGauss());
        assertEquals(729, b.npGauss());
        assertEquals(64, b.differentiation().length);
        assertEquals(72, b.interpolation().length);
        assertEquals(81, b.gaussDifferentiation().length);
    }

    @ParameterizedTest(name = "N = {0}")
    @ValueSource(ints = {0, 31, -1, Integer.MIN_VALUE, Integer.MAX_VALUE})
    void degreeOutOfRangeThrows(int n) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Basis1D.of(n));
        assertTrue(e.getMessage().contains(Integer.toString(n)), e.getMessage());
    }

    @Test
    void cachedPerDegree() {
        assertSame(Basis1D.of(5), Basis1D.of(5));
        assertSame(Basis1D.of(Basis1D.MIN_DEGREE), Basis1D.of(1));
        assertSame(Basis1D.of(Basis1D.MAX_DEGREE), Basis1D.of(30));
    }

    @Test
    void accessorsReturnCopies() {
        Basis1D b = Basis1D.of(3);
        b.differentiation()[0] = 42;
        b.interpolation()[0] = 42;
        b.gaussDifferentiation()[0] = 42;
        b.gll().nodes()[0] = 42;
        b.gll().weights()[0] = 42;
        assertEquals(-3.0, b.d(0, 0), 1e-14); // -N(N+1)/4, as the negative sum of the row
        assertEquals(-1.0, b.gll().node(0));
        assertEquals(1.0 / 6, b.gll().weight(0), TOL);
        assertTrue(b.interpolation()[0] != 42 && b.gaussDifferentiation()[0] != 42);
    }
}
