package io.lobatto.solvers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.SpectralElementMesh;

/**
 * The extended elements of an affine box, where the point one GLL step beyond a face is known in closed form: point -1
 * lies at x_0 - (x_1 - x_0) and point N+1 at x_N + (x_N - x_(N-1)) in each direction (the GLL points are symmetric),
 * on edges and corners too; a point beyond the box has no node.
 */
class ExtendedElementsTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5})
    void extensionPointsLieOneGllStepBeyondTheFaces(int degree) {
        SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(3, 4, 2, 0, 1.5, 0, 2, 0, 0.5), degree);
        ExtendedElements ext = ExtendedElements.of(mesh);
        int n = degree + 3, nq = degree + 1;
        double[] xyz = mesh.globalCoordinates();
        int[] l2g = ext.localToGlobal();
        double[] h = {0.5, 0.5, 0.25};
        int present = 0, missing = 0;
        for (int e = 0; e < mesh.elementCount(); e++) {
            for (int k = -1; k <= degree + 1; k++) {
                for (int j = -1; j <= degree + 1; j++) {
                    for (int i = -1; i <= degree + 1; i++) {
                        int[] c = {i, j, k};
                        double[] expect = new double[3];
                        boolean inside = true;
                        for (int d = 0; d < 3; d++) {
                            int[] cl = {Math.max(0, Math.min(degree, i)), Math.max(0, Math.min(degree, j)),
                                Math.max(0, Math.min(degree, k))};
                            double x0 = mesh.x(e, cl[0] + nq * (cl[1] + nq * cl[2]), d);
                            if (c[d] < 0 || c[d] > degree) {
                                int[] in = cl.clone();
                                in[d] = c[d] < 0 ? 1 : degree - 1;
                                double x1 = mesh.x(e, in[0] + nq * (in[1] + nq * in[2]), d);
                                expect[d] = 2 * x0 - x1;
                                double hi = d == 0 ? 1.5 : d == 1 ? 2 : 0.5;
                                inside &= expect[d] > -1e-12 && expect[d] < hi + 1e-12;
                            } else {
                                expect[d] = x0;
                            }
                        }
                        int g = l2g[e * n * n * n + (i + 1) + n * ((j + 1) + n * (k + 1))];
                        if (!inside) {
                            assertEquals(ext.globalNodeCount(), g, "element " + e + " point " + i + "," + j + "," + k);
                            missing++;
                            continue;
                        }
                        present++;
                        for (int d = 0; d < 3; d++) {
                            assertEquals(expect[d], xyz[3 * g + d], 1e-12, "element " + e + " point " + i + "," + j + "," + k + " x" + d);
                        }
                    }
                }
            }
            for (int d = 0; d < 3; d++) {
                assertEquals(h[d], ext.length(e, d), 1e-12);
            }
        }
        assertTrue(present > 0 && missing > 0, present + " present, " + missing + " missing");
    }
}
