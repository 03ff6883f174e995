package io.lobatto.core.mesh;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.lobatto.core.backend.HostSetup;
import io.lobatto.core.geometry.GeometricFactors;
import io.lobatto.core.pointwise.Quadrature;

/**
 * The setup kernels' geometry ({@link ElementGeometry} through {@link HostSetup}, which the Java backend runs and the
 * GPU backend mirrors) against the host {@link GeometricFactors} of the same mesh: bitwise for the vertices and point
 * maps (the same sums in the same order), to round-off for hex27 (interpolated directly instead of located per point).
 */
class ElementGeometryTest {

    private static double[] setupFactors(SpectralElementMesh m, Quadrature q, int f) {
        return HostSetup.factors(m.elementGeometry().orElseThrow(), m.basis(), q, f);
    }

    private static HexMesh box(int n, double shift) {
        return HexMesh.box(n, n + 1, n, shift, shift + 1, 0, 1, -shift, 1 - shift);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5, 7, 8, 11, 15})
    void factorsOfTrilinearAndMappedMeshesEqualTheHostFactorsBitwise(int n) {
        NodeMap[] maps = {NodeMap.identity(), NodeMap.sinusoidal(0.05, 0, 1, 0, 1, 0, 1), NodeMap.kershaw(0.3),
            NodeMap.affine(new double[] {1, 0.2, 0, 0, 1.5, 0.1, 0, 0, 0.8}, new double[] {3, -2, 1})};
        for (NodeMap map : maps) {
            boolean boxMap = map instanceof SinusoidalMap || map instanceof KershawMap; // maps of the unit cube
            for (double shift : boxMap ? new double[] {0} : new double[] {0, 1000}) {
                HexMesh mesh = map instanceof KershawMap ? HexMesh.box(6, 2, 2, 0, 1, 0, 1, 0, 1) : box(2, shift);
                SpectralElementMesh m = SpectralElementMesh.of(mesh, n, map);
                for (Quadrature q : Quadrature.values()) {
                    GeometricFactors host = q == Quadrature.GLL ? GeometricFactors.atGll(m) : GeometricFactors.atGauss(m);
                    assertArrayEquals(host.packed(), setupFactors(m, q, 7), "N = " + n + ", " + map + ", shift " + shift + ", " + q);
                    assertArrayEquals(host.jacobianWeights(), setupFactors(m, q, 1), "wJ, N = " + n + ", " + map + ", " + q);
                }
            }
        }
    }

    @Test
    void functionsAtTheNodesAreEvaluatedAtTheMeshPositions() {
        SpectralElementMesh m = SpectralElementMesh.of(box(2, 0), 4, NodeMap.sinusoidal(0.05, 0, 1, 0, 1, 0, 1));
        double[] values = HostSetup.evaluate(m.elementGeometry().orElseThrow(), m.basis(), NodeMap.kershaw(0.5));
        double[] x = m.coordinates();
        double[] want = new double[3];
        for (int l = 0; l < m.localSize(); l++) {
            NodeMap.kershaw(0.5).map(new double[] {x[3 * l], x[3 * l + 1], x[3 * l + 2]}, want);
            assertArrayEquals(want, java.util.Arrays.copyOfRange(values, 3 * l, 3 * l + 3), "local node " + l);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4, 7, 10})
    void hex27FactorsAgreeWithTheLocatedMapToRoundOff(int n) {
        GmshReader.GmshMesh g = GmshReader.load(new ByteArrayInputStream(
                GmshBinaryAndHex27Test.box(true, true).text().getBytes(StandardCharsets.US_ASCII)));
        SpectralElementMesh m = g.spectralMesh(n);
        ElementGeometry eg = m.elementGeometry().orElseThrow();
        assertEquals(2, eg.order());
        for (Quadrature q : Quadrature.values()) {
            double[] host = (q == Quadrature.GLL ? GeometricFactors.atGll(m) : GeometricFactors.atGauss(m)).packed();
            double[] dev = setupFactors(m, q, 7);
            double scale = 0, worst = 0;
            for (int i = 0; i < host.length; i++) {
                scale = Math.max(scale, Math.abs(host[i]));
                worst = Math.max(worst, Math.abs(host[i] - dev[i]));
            }
            assertTrue(worst <= 1e-13 * scale, "N = " + n + ", " + q + ": relative difference " + worst / scale);
        }
    }

    @Test
    void aLambdaMapHasNoDeviceGeometryAndAnInvertedElementIsNamed() {
        NodeMap lambda = (x0, x) -> System.arraycopy(x0, 0, x, 0, 3);
        assertTrue(SpectralElementMesh.of(box(1, 0), 2, lambda).elementGeometry().isEmpty());
        // mirror the box in x: every element is inverted
        SpectralElementMesh m = SpectralElementMesh.of(box(2, 0), 3,
                NodeMap.affine(new double[] {-1, 0, 0, 0, 1, 0, 0, 0, 1}, new double[] {0, 0, 0}));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> setupFactors(m, Quadrature.GLL, 7));
        assertTrue(e.getMessage().startsWith("element 0: Jacobian determinant |J| = "), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ElementGeometry.of(3, new double[24], null));
        assertThrows(IllegalArgumentException.class, () -> ElementGeometry.of(1, new double[25], null));
    }
}
