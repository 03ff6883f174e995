package io.lobatto.core.mesh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.lobatto.core.geometry.GeometricFactors;

/** Kershaw's distortion: identity at epsilon = 1, continuous across its layers, a valid mesh at epsilon = 0.3. */
class KershawMapTest {

    private static double[] map(NodeMap m, double x, double y, double z) {
        double[] out = new double[3];
        m.map(new double[] {x, y, z}, out);
        return out;
    }

    @Test
    void epsilonOneIsTheIdentityAndTheBoundaryStaysPut() {
        NodeMap id = NodeMap.kershaw(1);
        NodeMap k = NodeMap.kershaw(0.3);
        java.util.Random rnd = new java.util.Random(3);
        for (int i = 0; i < 200; i++) {
            double x = rnd.nextDouble(), y = rnd.nextDouble(), z = rnd.nextDouble();
            double[] p = map(id, x, y, z);
            assertEquals(x, p[0], 1e-15);
            assertEquals(y, p[1], 1e-15);
            assertEquals(z, p[2], 1e-15);
            // the faces of the cube map onto themselves
            assertEquals(0, map(k, x, 0, z)[1], 1e-15);
            assertEquals(1, map(k, x, 1, z)[1], 1e-15);
            assertEquals(1, map(k, x, y, 1)[2], 1e-15);
        }
    }

    @Test
    void continuousAcrossTheSixLayers() {
        NodeMap k = NodeMap.kershaw(0.3);
        for (int layer = 1; layer < 6; layer++) {
            double x = layer / 6.0;
            for (double y : new double[] {0.1, 0.3, 0.5, 0.77}) {
                double[] below = map(k, Math.nextDown(x), y, 1 - y);
                double[] above = map(k, Math.nextUp(x), y, 1 - y);
                assertEquals(below[1], above[1], 1e-12, "y at x = " + layer + "/6");
                assertEquals(below[2], above[2], 1e-12, "z at x = " + layer + "/6");
            }
        }
    }

    @Test
    void sixCubedMeshAtEpsilonPoint3HasPositiveJacobians() {
        SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(6, 6, 6, 0, 1, 0, 1, 0, 1), 3, NodeMap.kershaw(0.3));
        GeometricFactors g = GeometricFactors.atGauss(mesh); // throws on a non-positive |J|
        double volume = 0;
        for (double wj : g.jacobianWeights()) {
            assertTrue(wj > 0);
            volume += wj;
        }
        assertEquals(1, volume, 1e-12, "the map keeps the unit cube's volume");
        assertThrows(IllegalArgumentException.class, () -> NodeMap.kershaw(0));
        assertThrows(IllegalArgumentException.class, () -> NodeMap.kershaw(1.5));
    }

    @Test
    void elementCountsMustPutTheKinksOnFaces() {
        NodeMap.requireKershawElements("-e", 6, 2, 2);
        NodeMap.requireKershawElements("-e", 30, 30, 30);
        NodeMap.requireKershawElements("-e", 12, 4, 8);
        for (int[] bad : new int[][] {{8, 8, 8}, {3, 2, 2}, {6, 3, 2}, {6, 2, 5}, {0, 2, 2}, {9, 6, 6}}) {
            IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                    () -> NodeMap.requireKershawElements("--elements", bad[0], bad[1], bad[2]));
            assertTrue(ex.getMessage().startsWith("--elements " + bad[0] + "," + bad[1] + "," + bad[2] + " does not fit"), ex.getMessage());
        }
    }
}
