package io.lobatto.solvers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.HexReference;
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

    /**
     * Every element in a random local frame (one of the 24 rotations of the cube): the face maps and frames that the
     * extension goes through must follow. In an affine box the extended point p (in e's frame, clamped to c) lies at
     * x(c) + sum over the coordinates d outside 0..N of (x(c) - x(c one step inward in d)), as a vector, whatever the
     * frames; and the length in e's direction d is |x(c with c_d = N) - x(c with c_d = 0)|.
     */
    @org.junit.jupiter.api.Test
    void extensionFollowsRotatedElementFrames() {
        qt().withExamples(12).forAll(integers().between(1, 4), integers().between(0, 1 << 20)).checkAssert((degree, seed) -> {
            HexMesh box = HexMesh.box(3, 2, 3, 0, 1.5, 0, 1, 0, 0.75);
            int[][] rot = HexReference.cubeRotations();
            Random rnd = new Random(seed);
            for (int e = 0; e < box.elementCount(); e++) {
                box = box.rotateElementVertices(e, rot[rnd.nextInt(rot.length)]);
            }
            SpectralElementMesh mesh = SpectralElementMesh.of(box, degree);
            ExtendedElements ext = ExtendedElements.of(mesh);
            int n = degree + 3, nq = degree + 1;
            double[] xyz = mesh.globalCoordinates();
            int[] l2g = ext.localToGlobal();
            double[] hi = {1.5, 1, 0.75};
            int present = 0, missing = 0, across = 0;
            for (int e = 0; e < mesh.elementCount(); e++) {
                for (int k = -1; k <= degree + 1; k++) {
                    for (int j = -1; j <= degree + 1; j++) {
                        for (int i = -1; i <= degree + 1; i++) {
                            int[] p = {i, j, k};
                            int[] c = {clamp(i, degree), clamp(j, degree), clamp(k, degree)};
                            double[] expect = new double[3];
                            for (int a = 0; a < 3; a++) {
                                expect[a] = mesh.x(e, c[0] + nq * (c[1] + nq * c[2]), a);
                            }
                            int outside = 0;
                            for (int d = 0; d < 3; d++) {
                                if (p[d] >= 0 && p[d] <= degree) {
                                    continue;
                                }
                                outside++;
                                int[] in = c.clone();
                                in[d] = p[d] < 0 ? 1 : degree - 1;
                                for (int a = 0; a < 3; a++) {
                                    expect[a] += mesh.x(e, c[0] + nq * (c[1] + nq * c[2]), a)
                                            - mesh.x(e, in[0] + nq * (in[1] + nq * in[2]), a);
                                }
                            }
                            boolean inside = true;
                            for (int a = 0; a < 3; a++) {
                                inside &= expect[a] > -1e-12 && expect[a] < hi[a] + 1e-12;
                            }
                            int g = l2g[e * n * n * n + (i + 1) + n * ((j + 1) + n * (k + 1))];
                            String where = "seed " + seed + " N " + degree + " element " + e + " point " + i + "," + j + "," + k;
                            if (!inside) {
                                assertEquals(ext.globalNodeCount(), g, where);
                                missing++;
                                continue;
                            }
                            present++;
                            across += outside;
                            for (int a = 0; a < 3; a++) {
                                assertEquals(expect[a], xyz[3 * g + a], 1e-12, where + " x" + a);
                            }
                        }
                    }
                }
                for (int d = 0; d < 3; d++) {
                    int[] lo = new int[3], up = new int[3];
                    up[d] = degree;
                    double s = 0;
                    for (int a = 0; a < 3; a++) {
                        double dx = mesh.x(e, up[0] + nq * (up[1] + nq * up[2]), a) - mesh.x(e, lo[0] + nq * (lo[1] + nq * lo[2]), a);
                        s += dx * dx;
                    }
                    assertEquals(Math.sqrt(s), ext.length(e, d), 1e-12, "seed " + seed + " element " + e + " length " + d);
                }
            }
            // 3 x 2 x 3 elements: points across faces, edges and corners all occur, and so do points beyond the box
            assertTrue(present > 0 && missing > 0 && across > present / 10, present + " present, " + missing + " missing, "
                    + across + " crossings");
        });
    }

    @org.junit.jupiter.api.Test
    void neighboursAndTheirLengthsAcrossOneSharedFace() {
        HexMesh one = HexMesh.box(2, 1, 1, 0, 1, 0, 1, 0, 1);
        SpectralElementMesh mesh = SpectralElementMesh.of(one, 2);
        ExtendedElements ext = ExtendedElements.of(mesh);
        assertTrue(ext.hasNeighbour(0, 1) && ext.hasNeighbour(1, 0));
        assertTrue(!ext.hasNeighbour(0, 0) && !ext.hasNeighbour(1, 1));
        assertEquals(0.5, ext.neighbourLength(0, 1), 1e-15);
        assertThrows(NullPointerException.class, () -> ExtendedElements.of(null));
    }

    private static int clamp(int v, int degree) {
        return Math.max(0, Math.min(degree, v));
    }

    /**
     * The faster faces-only build (face codes read from an earlier build on the same hexahedral mesh, each shared face's
     * centroid computed once) gives the neighbours and codes of the build from scratch and its mean lengths to rounding
     * (1e-13 relative): on Kershaw's box and on a box whose elements sit in random frames, at a first degree (codes
     * computed) and a second (codes read back).
     */
    @org.junit.jupiter.api.Test
    void sharedFacesGiveTheSameCodesAndLengthsToRounding() {
        HexMesh rotated = HexMesh.box(3, 2, 3, 0, 1.5, 0, 1, 0, 0.75);
        int[][] rot = HexReference.cubeRotations();
        Random rnd = new Random(5);
        for (int e = 0; e < rotated.elementCount(); e++) {
            rotated = rotated.rotateElementVertices(e, rot[rnd.nextInt(rot.length)]);
        }
        HexMesh kershawBox = HexMesh.box(6, 4, 4, 0, 1, 0, 1, 0, 1);
        for (HexMesh box : new HexMesh[] {rotated, kershawBox}) {
            io.lobatto.core.mesh.NodeMap map = box == kershawBox ? io.lobatto.core.mesh.NodeMap.kershaw(0.3)
                    : io.lobatto.core.mesh.NodeMap.identity();
            for (int degree : new int[] {5, 2, 1}) {
                SpectralElementMesh mesh = SpectralElementMesh.of(box, degree, map);
                ExtendedElements fast = ExtendedElements.faces(mesh, true);
                ExtendedElements fresh = ExtendedElements.faces(mesh, false);
                org.junit.jupiter.api.Assertions.assertArrayEquals(fresh.faceNeighbours(), fast.faceNeighbours());
                org.junit.jupiter.api.Assertions.assertArrayEquals(fresh.faceCodes(), fast.faceCodes(), "N=" + degree + " face codes");
                for (int e = 0; e < mesh.elementCount(); e++) {
                    for (int d = 0; d < 3; d++) {
                        double l = fresh.length(e, d);
                        assertTrue(l > 0);
                        assertEquals(l, fast.length(e, d), 1e-13 * l, "N=" + degree + " element " + e + " length " + d);
                        for (int side = 0; side < 2; side++) {
                            double nl = fresh.neighbourLength(e, 2 * d + side);
                            assertEquals(nl, fast.neighbourLength(e, 2 * d + side), 1e-13 * nl);
                        }
                    }
                }
            }
        }
    }
}
