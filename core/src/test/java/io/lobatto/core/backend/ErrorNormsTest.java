package io.lobatto.core.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.mesh.ElementGeometry;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.pointwise.PointFunction;
import org.junit.jupiter.api.Test;

/** {@link HostSetup#errorNorms}: the definition every backend's {@link Backend#errorNorms} is checked against. */
class ErrorNormsTest {

    /** u = x^a y^b z^c + 0.25. */
    static final class Monomial extends PointFunction {
        Monomial(int a, int b, int c) {
            super(1, a, b, c);
        }

        @Override
        public void evaluate(double[] x, double[] c, double[] out) {
            out[0] = Math.pow(x[0], c[0]) * Math.pow(x[1], c[1]) * Math.pow(x[2], c[2]) + 0.25;
        }
    }

    /** A 2 x 3 x 2 box of volume 1.05. */
    private static ElementGeometry box() {
        return ElementGeometry.trilinear(HexMesh.box(2, 3, 2, 0.5, 1.5, 0, 1.5, -0.2, 0.5), null);
    }

    @Test
    void aFieldThatInterpolatesAPolynomialOfDegreeNHasNoError() {
        // on affine elements u_h = I_N u = u for a polynomial of degree <= N per direction: both norms vanish
        for (int n : new int[] {2, 4}) {
            Basis1D basis = Basis1D.of(n);
            ElementGeometry g = box();
            PointFunction u = new Monomial(n, n - 1, 1);
            ErrorNorms e = HostSetup.errorNorms(g, basis, HostSetup.evaluate(g, basis, u), u);
            assertEquals(0, e.max(), 1e-14, "max at N = " + n);
            assertEquals(0, e.l2(), 1e-13, "L2 at N = " + n);
        }
    }

    @Test
    void aConstantOffsetGivesItselfAndItsL2NormOverTheVolume() {
        // u_h = u + delta at every node: max = delta, L2^2 = delta^2 |Omega| (the GL rule integrates |J| exactly)
        double delta = 3e-3;
        Basis1D basis = Basis1D.of(3);
        ElementGeometry g = box();
        PointFunction u = new Monomial(3, 2, 1);
        double[] uh = HostSetup.evaluate(g, basis, u);
        for (int i = 0; i < uh.length; i++) {
            uh[i] += delta;
        }
        ErrorNorms e = HostSetup.errorNorms(g, basis, uh, u);
        assertEquals(delta, e.max(), 1e-15);
        assertEquals(delta * delta * 1.05, e.l2Squared(), 1e-13 * delta * delta);
    }

    @Test
    void theL2ErrorOfTheInterpolantConvergesAtOrderNPlusOne() {
        // u = sin(pi x) sin(pi y) sin(pi z) + 0.25 on a smoothly deformed cube: ||u - I_N u|| ~ h^(N+1)
        PointFunction u = new PointFunction(1) {
            @Override
            public void evaluate(double[] x, double[] c, double[] out) {
                out[0] = Math.sin(Math.PI * x[0]) * Math.sin(Math.PI * x[1]) * Math.sin(Math.PI * x[2]) + 0.25;
            }
        };
        int n = 3;
        Basis1D basis = Basis1D.of(n);
        double[] l2 = new double[2];
        for (int i = 0; i < 2; i++) {
            int k = 4 * (i + 1);
            ElementGeometry g = ElementGeometry.trilinear(HexMesh.box(k, k, k, 0, 1, 0, 1, 0, 1),
                    NodeMap.sinusoidal(0.05, 0, 1, 0, 1, 0, 1));
            l2[i] = HostSetup.errorNorms(g, basis, HostSetup.evaluate(g, basis, u), u).l2();
        }
        double rate = Math.log(l2[0] / l2[1]) / Math.log(2);
        assertEquals(n + 1, rate, 0.3, "rate from " + l2[0] + " to " + l2[1]);
    }

    @Test
    void aFieldOfTheWrongLengthIsNamed() {
        Basis1D basis = Basis1D.of(2);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HostSetup.errorNorms(box(), basis, new double[5], new Monomial(1, 1, 1)));
        assertEquals("uL has length 5, expected E * Np = 12 * 27", e.getMessage());
    }
}
