package io.lobatto.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * The closed-form derivatives of the diffusion and elasticity manufactured solutions against finite differences
 * at random points of the unit cube: gradients against central differences of u, and the loads f against central
 * differences of the flux kappa grad u and of the stress sigma(u).
 */
class ManufacturedFieldsTest {

    private static final double H = 1e-5;

    /** Central difference along direction j of g at p. */
    private static double central(java.util.function.ToDoubleFunction<double[]> g, double[] p, int j, double h) {
        double[] a = p.clone(), b = p.clone();
        a[j] += h;
        b[j] -= h;
        return (g.applyAsDouble(a) - g.applyAsDouble(b)) / (2 * h);
    }

    @Test
    void diffusionGradientAndLoad() {
        DiffusionSolution s = DiffusionSolution.standard();
        Random rnd = new Random(5);
        for (int t = 0; t < 50; t++) {
            double[] p = {rnd.nextDouble(), rnd.nextDouble(), rnd.nextDouble()};
            double[] g = s.gradient(p[0], p[1], p[2]);
            for (int j = 0; j < 3; j++) {
                assertEquals(central(q -> s.u(q[0], q[1], q[2]), p, j, H), g[j], 1e-8, "du/dx_" + j);
            }
            // -div(kappa grad u) with the flux from the analytic gradient
            double div = 0;
            for (int j = 0; j < 3; j++) {
                int jj = j;
                div += central(q -> s.kappa(q[0], q[1], q[2]) * s.gradient(q[0], q[1], q[2])[jj], p, j, H);
            }
            assertEquals(-div, s.f(p[0], p[1], p[2]), 1e-6 * (1 + Math.abs(div)), "f at " + java.util.Arrays.toString(p));
            assertEquals(s.f(p[0], p[1], p[2]), s.f(0, p[0], p[1], p[2]), 0);
        }
        // a fully finite-difference check with kappa and u only (second differences, h = 1e-3)
        double[] p = {0.3, 0.6, 0.45};
        double h = 1e-3, fd = 0;
        for (int j = 0; j < 3; j++) {
            double[] a = p.clone(), b = p.clone(), ma = p.clone(), mb = p.clone();
            a[j] += h;
            b[j] -= h;
            ma[j] += h / 2;
            mb[j] -= h / 2;
            fd += (s.kappa(ma[0], ma[1], ma[2]) * (s.u(a[0], a[1], a[2]) - s.u(p[0], p[1], p[2]))
                    - s.kappa(mb[0], mb[1], mb[2]) * (s.u(p[0], p[1], p[2]) - s.u(b[0], b[1], b[2]))) / (h * h);
        }
        assertEquals(-fd, s.f(p[0], p[1], p[2]), 1e-4 * Math.abs(fd));
    }

    @Test
    void diffusionSolutionVanishesOnTheBoundary() {
        DiffusionSolution s = DiffusionSolution.standard();
        assertEquals(0, s.u(0, 0.3, 0.7), 1e-15);
        assertEquals(0, s.u(0.2, 1, 0.7), 1e-15);
        assertEquals(1, s.kappa(0.5, 1, 0.5), 1e-15);
    }

    @Test
    void elasticityGradientAndLoad() {
        ElasticitySolution s = new ElasticitySolution(2, 1);
        Random rnd = new Random(7);
        for (int t = 0; t < 50; t++) {
            double[] p = {rnd.nextDouble(), rnd.nextDouble(), rnd.nextDouble()};
            for (int c = 0; c < 3; c++) {
                int cc = c;
                for (int j = 0; j < 3; j++) {
                    double fd = central(q -> s.u(cc, q[0], q[1], q[2]), p, j, H);
                    assertEquals(fd, s.gradient(c, j, p[0], p[1], p[2]), 1e-8 * (1 + Math.abs(fd)), "du_" + c + "/dx_" + j);
                }
            }
            for (int i = 0; i < 3; i++) {
                int ii = i;
                double div = 0;
                for (int j = 0; j < 3; j++) {
                    int jj = j;
                    div += central(q -> s.stress(ii, jj, q[0], q[1], q[2]), p, j, H);
                }
                double f = s.f(i, p[0], p[1], p[2]);
                assertEquals(-div, f, 1e-6 * (1 + Math.abs(div)), "f_" + i + " at " + java.util.Arrays.toString(p));
            }
        }
    }

    @Test
    void elasticityStressIsSymmetricAndSolutionVanishesOnTheBoundary() {
        ElasticitySolution s = new ElasticitySolution(2, 1);
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                assertEquals(s.stress(i, j, 0.2, 0.4, 0.7), s.stress(j, i, 0.2, 0.4, 0.7), 1e-14);
            }
            for (double t : new double[] {0, 1}) {
                assertEquals(0, s.u(i, t, 0.3, 0.6), 1e-14);
                assertEquals(0, s.u(i, 0.3, t, 0.6), 1e-14);
                assertEquals(0, s.u(i, 0.3, 0.6, t), 1e-14);
            }
        }
    }
}
