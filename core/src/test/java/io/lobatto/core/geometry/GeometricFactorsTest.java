package io.lobatto.core.geometry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.junit.jupiter.api.Test;

import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.core.mesh.TestMeshes;
import io.lobatto.core.pointwise.PointGeometry;
import io.lobatto.core.pointwise.Quadrature;

class GeometricFactorsTest {

    private static final double LX = 2, LY = 1, LZ = 1.5;

    private static HexMesh box() {
        return HexMesh.box(2, 2, 2, 0, LX, -0.5, 0.5, 1, 1 + LZ);
    }

    @Test
    void boxVolumeIsExactAtGllAndGl() {
        for (int n = 1; n <= 8; n++) {
            SpectralElementMesh s = SpectralElementMesh.of(box(), n);
            GeometricFactors gll = GeometricFactors.atGll(s);
            GeometricFactors gl = GeometricFactors.atGauss(s);
            assertEquals(LX * LY * LZ, gll.volume(), 1e-14 * LX * LY * LZ);
            assertEquals(LX * LY * LZ, gl.volume(), 1e-14 * LX * LY * LZ);
            assertEquals((n + 1) * (n + 1) * (n + 1), gll.pointsPerElement());
            assertEquals((n + 2) * (n + 2) * (n + 2), gl.pointsPerElement());
            assertFalse(gll.gauss());
            assertTrue(gl.gauss());
            assertEquals(8, gl.elementCount());
            double[] wj = gl.jacobianWeights();
            assertEquals(8 * gl.pointsPerElement(), wj.length);
            assertEquals(gl.factor(3, 5, 6), wj[3 * gl.pointsPerElement() + 5]);
        }
    }

    @Test
    void scrambledBoxHasTheSameVolume() {
        SpectralElementMesh s = SpectralElementMesh.of(TestMeshes.scrambled(box(), 7), 4);
        assertEquals(LX * LY * LZ, GeometricFactors.atGll(s).volume(), 1e-14);
        assertEquals(LX * LY * LZ, GeometricFactors.atGauss(s).volume(), 1e-14);
    }

    /**
     * The sinusoidal map fixes the box boundary, so the deformed box has the box's volume exactly, and so does the
     * image of its degree-N interpolant; sum wJ differs from it only by quadrature error. |J| has degree 3N-1 per
     * direction, so GL (exact to 2N+3) is exact for N <= 4; GLL converges spectrally. Measured (a = 0.08, 2x2x2):
     * <pre>
     *  N   |V_GLL - V|  |V_GL - V|
     *  2   4.4e-03      8.9e-16
     *  4   2.0e-05      8.9e-16
     *  6   1.1e-08      2.0e-13
     *  8   1.5e-12      2.2e-15
     * 10+  <= 1.4e-15   <= 6.7e-15
     * </pre>
     */
    @Test
    void deformedBoxVolumeConvergesToTheBoxVolume() {
        double v = LX * LY * LZ;
        NodeMap map = NodeMap.sinusoidal(0.08, 0, LX, -0.5, 0.5, 1, 1 + LZ);
        double prevGll = Double.POSITIVE_INFINITY;
        StringBuilder table = new StringBuilder("N  |V_GLL - V|  |V_GL - V|\n");
        double[] errGll = new double[17];
        double[] errGl = new double[17];
        for (int n = 2; n <= 16; n += 2) {
            SpectralElementMesh s = SpectralElementMesh.of(box(), n, map);
            errGll[n] = Math.abs(GeometricFactors.atGll(s).volume() - v);
            errGl[n] = Math.abs(GeometricFactors.atGauss(s).volume() - v);
            table.append(String.format("%2d  %.3e  %.3e%n", n, errGll[n], errGl[n]));
            assertTrue(errGll[n] < prevGll || errGll[n] < 1e-13, "GLL volume error does not decrease at N=" + n + "\n" + table);
            prevGll = errGll[n];
        }
        System.out.println("sinusoidal (a=0.08) volume errors:\n" + table);
        assertTrue(errGll[2] > 1e-6, "the map must really deform the box\n" + table);
        assertTrue(errGll[8] < 1e-11, table.toString());
        for (int n = 10; n <= 16; n += 2) {
            assertTrue(errGll[n] < 1e-13, "GLL at N=" + n + "\n" + table);
        }
        for (int n = 2; n <= 16; n += 2) {
            assertTrue(errGl[n] < (n <= 4 ? 1e-14 : 1e-12), "GL at N=" + n + "\n" + table);
        }
        // the brief's upper amplitude still gives a valid map
        SpectralElementMesh strong = SpectralElementMesh.of(box(), 10, NodeMap.sinusoidal(0.1, 0, LX, -0.5, 0.5, 1, 1 + LZ));
        assertEquals(v, GeometricFactors.atGauss(strong).volume(), 1e-12);
    }

    @Test
    void affineMapGivesExactConstantFactors() {
        double[] a = {1.2, 0.3, -0.1, 0.2, 0.9, 0.25, -0.15, 0.1, 1.1};
        NodeMap map = NodeMap.affine(a, new double[] {0.5, -1, 2});
        double hx = LX / 2, hy = LY / 2, hz = LZ / 2; // element sizes of box()
        // J = A diag(h/2): reference element [-1,1]^3 to a box element, then A
        DMatrixRMaj jac = new DMatrixRMaj(3, 3, true, a);
        DMatrixRMaj scale = CommonOps_DDRM.diag(hx / 2, hy / 2, hz / 2);
        DMatrixRMaj j = new DMatrixRMaj(3, 3);
        CommonOps_DDRM.mult(jac, scale, j);
        double det = CommonOps_DDRM.det(j);
        DMatrixRMaj ji = new DMatrixRMaj(3, 3);
        assertTrue(CommonOps_DDRM.invert(j, ji));
        DMatrixRMaj g = new DMatrixRMaj(3, 3);
        CommonOps_DDRM.multTransB(ji, ji, g);
        int[][] entries = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
        for (int n : new int[] {1, 3, 6}) {
            Basis1D b = Basis1D.of(n);
            SpectralElementMesh s = SpectralElementMesh.of(box(), n, map);
            for (boolean gauss : new boolean[] {false, true}) {
                GeometricFactors f = gauss ? GeometricFactors.atGauss(s) : GeometricFactors.atGll(s);
                double[] w = gauss ? b.gauss().weights() : b.gll().weights();
                int q = w.length;
                double[] packed = f.packed();
                assertEquals(8 * q * q * q * 7, packed.length);
                for (int e = 0; e < 8; e++) {
                    for (int p = 0; p < q * q * q; p++) {
                        double wt = w[p % q] * w[(p / q) % q] * w[p / (q * q)];
                        double scaleW = wt * Math.abs(det);
                        int o = 7 * (e * q * q * q + p);
                        for (int c = 0; c < 6; c++) {
                            double expect = scaleW * g.get(entries[c][0], entries[c][1]);
                            assertEquals(expect, packed[o + c], 1e-13 * Math.max(1, Math.abs(expect)), "G entry " + c + " N=" + n);
                        }
                        assertEquals(scaleW, packed[o + 6], 1e-14, "wJ N=" + n);
                    }
                }
                assertEquals(Math.abs(CommonOps_DDRM.det(jac)) * LX * LY * LZ, f.volume(), 1e-13);
            }
        }
    }

    /** The box of {@link #invertedElementIsNamed()} with element 1 mirrored in r. */
    private static HexMesh withInvertedElement() {
        HexMesh b = HexMesh.box(2, 1, 1, 0, 2, 0, 1, 0, 1);
        int[] el = b.elements();
        // mirror element 1 in r: swap corners 0<->1, 3<->2, 4<->5, 7<->6
        int[] mirror = {1, 0, 3, 2, 5, 4, 7, 6};
        int[] e1 = new int[8];
        for (int k = 0; k < 8; k++) {
            e1[k] = el[8 + mirror[k]];
        }
        System.arraycopy(e1, 0, el, 8, 8);
        return new HexMesh(b.vertices(), el, b.faceTags());
    }

    @Test
    void invertedElementIsNamed() {
        SpectralElementMesh s = SpectralElementMesh.of(withInvertedElement(), 3);
        for (boolean gauss : new boolean[] {false, true}) {
            IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> {
                    if (gauss) {
                        GeometricFactors.atGauss(s);
                    } else {
                        GeometricFactors.atGll(s);
                    }
                });
            String msg = ex.getMessage();
            assertTrue(msg.startsWith("element 1:") && msg.contains(gauss ? "GL point" : "GLL point") && msg.contains("(i,j,k) = (0,0,0)")
                && msg.contains("x = ("), msg);
        }
    }

    @Test
    void tooStrongDeformationIsRejected() {
        NodeMap fold = NodeMap.sinusoidal(0.5, 0, LX, -0.5, 0.5, 1, 1 + LZ);
        SpectralElementMesh s = SpectralElementMesh.of(box(), 4, fold);
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> GeometricFactors.atGll(s));
        assertTrue(ex.getMessage().contains("not positive"), ex.getMessage());
    }

    /** The user-operator point data of the diffusion setup are the packed factors, at GLL and GL points. */
    @Test
    void pointDataOfTheDiffusionSetupAreThePackedFactors() {
        SpectralElementMesh s = SpectralElementMesh.of(box(), 4, NodeMap.sinusoidal(0.05, 0, LX, -0.5, 0.5, 1, 1 + LZ));
        for (Quadrature quad : Quadrature.values()) {
            double[] packed = (quad == Quadrature.GAUSS ? GeometricFactors.atGauss(s) : GeometricFactors.atGll(s)).packed();
            double[] data = GeometricFactors.pointData(s, quad, 7, (x, dxdr, w, q) -> {
                q[6] = PointGeometry.diffusion(dxdr, w, 1, q, 0);
            });
            assertEquals(packed.length, data.length);
            for (int i = 0; i < data.length; i++) {
                assertEquals(packed[i], data[i], 1e-13 * Math.max(1, Math.abs(packed[i])), quad + " entry " + i);
            }
        }
    }

    /** pointData names the first point with |J| <= 0 as the factors do, at both quadratures. */
    @Test
    void pointDataNamesAnInvertedElement() {
        SpectralElementMesh s = SpectralElementMesh.of(withInvertedElement(), 3);
        for (Quadrature quad : Quadrature.values()) {
            String msg = assertThrows(IllegalArgumentException.class,
                () -> GeometricFactors.pointData(s, quad, 1, (x, dxdr, w, q) -> q[0] = w)).getMessage();
            assertTrue(msg.startsWith("element 1:") && msg.contains(quad == Quadrature.GAUSS ? "GL point" : "GLL point")
                && msg.contains("(i,j,k) = (0,0,0)"), msg);
        }
    }
}
