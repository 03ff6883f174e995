package io.lobatto.core.mesh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;


class SpectralElementMeshTest {

    /** Every local copy of a global id sits at the global position; distinct ids sit at distinct positions. */
    static void assertConsistent(SpectralElementMesh s) {
        double[] g = s.globalCoordinates();
        int np = s.nodesPerElement();
        int[] l2g = s.localToGlobal();
        double[] x = s.coordinates();
        boolean[] hit = new boolean[s.globalNodeCount()];
        double worst = 0;
        for (int l = 0; l < l2g.length; l++) {
            hit[l2g[l]] = true;
            for (int d = 0; d < 3; d++) {
                worst = Math.max(worst, Math.abs(x[3 * l + d] - g[3 * l2g[l] + d]));
            }
            assertEquals(s.globalId(l / np, l % np), l2g[l]);
        }
        assertTrue(worst <= 1e-13, "local copies of a global node differ by " + worst);
        for (boolean h : hit) {
            assertTrue(h, "a global id has no local copy");
        }
        // no two global ids at the same position
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < s.globalNodeCount(); i++) {
            Integer prev = seen.put(key(g, i), i);
            assertTrue(prev == null, "global nodes " + prev + " and " + i + " coincide at " + key(g, i));
        }
    }

    static String key(double[] g, int i) {
        return Math.round(g[3 * i] * 1e9) + "," + Math.round(g[3 * i + 1] * 1e9) + "," + Math.round(g[3 * i + 2] * 1e9);
    }

    @Test
    void dofCountOfABox() {
        qt().withExamples(40)
                .forAll(integers().between(1, 3), integers().between(1, 3), integers().between(1, 3), integers().between(1, 5))
                .checkAssert((nx, ny, nz, n) -> {
            SpectralElementMesh s = SpectralElementMesh.of(HexMesh.box(nx, ny, nz, 0, 1, 0, 2, 0, 3), n);
            assertEquals((nx * n + 1) * (ny * n + 1) * (nz * n + 1), s.globalNodeCount());
            assertEquals(nx * ny * nz * (n + 1) * (n + 1) * (n + 1), s.localSize());
            assertConsistent(s);
        });
    }

    @Test
    void rotatedAndRelabelledElementsShareNodesCorrectly() {
        qt().withExamples(30).forAll(integers().between(1, 3).zip(integers().between(1, 3), integers().between(1, 3), Box::new),
                integers().between(1, 6), longs().all()).checkAssert((box3, n, seed) -> {
            int nx = box3.nx(), ny = box3.ny(), nz = box3.nz();
            HexMesh box = HexMesh.box(nx, ny, nz, 0, 1, 0, 2, 0, 3);
            SpectralElementMesh ref = SpectralElementMesh.of(box, n);
            SpectralElementMesh s = SpectralElementMesh.of(TestMeshes.scrambled(box, seed), n);
            assertEquals(ref.globalNodeCount(), s.globalNodeCount());
            assertConsistent(s);
            // same node positions as the plain box, as sets
            assertEquals(positionSet(ref), positionSet(s));
            // boundary masks agree as sets of positions too
            assertEquals(maskedPositions(ref, ref.boundaryMask(HexMesh.TAG_XMIN, HexMesh.TAG_ZMAX)),
                maskedPositions(s, s.boundaryMask(HexMesh.TAG_XMIN, HexMesh.TAG_ZMAX)));
        });
    }

    @Test
    void rotatedMeshAtHighDegreeEveryRotationUsed() {
        HexMesh box = HexMesh.box(4, 3, 2, -1, 1, -1, 1, -1, 1);
        int[][] rot = HexReference.cubeRotations();
        HexMesh m = box;
        for (int e = 0; e < m.elementCount(); e++) {
            m = m.rotateElementVertices(e, rot[e % 24]);
        }
        SpectralElementMesh s = SpectralElementMesh.of(m, 7);
        assertEquals((4 * 7 + 1) * (3 * 7 + 1) * (2 * 7 + 1), s.globalNodeCount());
        assertConsistent(s);
    }

    @Test
    void numberingIndependentOfElementOrder() {
        qt().withExamples(20).forAll(integers().between(1, 5), longs().all()).checkAssert((n, seed) -> {
            Random rnd = new Random(seed);
            HexMesh mesh = TestMeshes.scrambled(HexMesh.box(3, 2, 2, 0, 3, 0, 2, 0, 2), seed);
            int[] perm = TestMeshes.shuffled(mesh.elementCount(), rnd);
            SpectralElementMesh a = SpectralElementMesh.of(mesh, n);
            SpectralElementMesh b = SpectralElementMesh.of(mesh.permuteElements(perm), n);
            assertEquals(a.globalNodeCount(), b.globalNodeCount());
            // the numberings differ only by a relabelling: gid_b(i, n) <-> gid_a(perm[i], n) is a bijection
            int[] bToA = new int[b.globalNodeCount()];
            Arrays.fill(bToA, -1);
            int[] aToB = new int[a.globalNodeCount()];
            Arrays.fill(aToB, -1);
            for (int i = 0; i < mesh.elementCount(); i++) {
                for (int node = 0; node < a.nodesPerElement(); node++) {
                    int gb = b.globalId(i, node), ga = a.globalId(perm[i], node);
                    assertTrue(bToA[gb] == -1 || bToA[gb] == ga);
                    assertTrue(aToB[ga] == -1 || aToB[ga] == gb);
                    bToA[gb] = ga;
                    aToB[ga] = gb;
                }
            }
            assertEquals(positionSet(a), positionSet(b));
        });
    }

    @Test
    void boundaryMasksOfABox() {
        int n = 3;
        SpectralElementMesh s = SpectralElementMesh.of(HexMesh.box(2, 2, 2, 0, 1, 0, 1, 0, 1), n);
        int nx = 2 * n + 1;
        assertEquals(nx * nx, count(s.boundaryMask(HexMesh.TAG_XMIN)));
        assertEquals(2 * nx * nx - nx, count(s.boundaryMask(HexMesh.TAG_XMIN, HexMesh.TAG_YMIN)));
        assertEquals(nx * nx * nx - (nx - 2) * (nx - 2) * (nx - 2), count(s.boundaryMaskAllTagged()));
        assertEquals(0, count(s.boundaryMask()));
        boolean[] xmin = s.boundaryMask(HexMesh.TAG_XMIN);
        double[] g = s.globalCoordinates();
        for (int i = 0; i < xmin.length; i++) {
            assertEquals(g[3 * i] == 0.0, xmin[i]);
        }
    }

    @Test
    void accessorsAndLayout() {
        HexMesh box = HexMesh.box(2, 1, 1, 0, 2, 0, 1, 0, 1);
        SpectralElementMesh s = SpectralElementMesh.of(box, 2);
        assertEquals(2, s.degree());
        assertEquals(27, s.nodesPerElement());
        assertEquals(54, s.localSize());
        assertEquals(5 * 3 * 3, s.globalNodeCount());
        assertEquals(2, s.elementCount());
        assertEquals(box, s.hexMesh());
        // node i + 3(j + 3k) of element 1 is at (1 + i/2, j/2, k/2)
        for (int k = 0; k < 3; k++) {
            for (int j = 0; j < 3; j++) {
                for (int i = 0; i < 3; i++) {
                    int node = i + 3 * (j + 3 * k);
                    assertEquals(1 + 0.5 * i, s.x(1, node, 0), 1e-15);
                    assertEquals(0.5 * j, s.x(1, node, 1), 1e-15);
                    assertEquals(0.5 * k, s.x(1, node, 2), 1e-15);
                }
            }
        }
        // the node between the two elements is shared
        assertEquals(s.globalId(0, 2 + 3 * (1 + 3 * 1)), s.globalId(1, 0 + 3 * (1 + 3 * 1)));
        assertNotEquals(s.globalId(0, 1 + 3 * (1 + 3 * 1)), s.globalId(1, 1 + 3 * (1 + 3 * 1)));
        int[] l2g = s.localToGlobal();
        l2g[0] = -5;
        assertEquals(s.globalId(0, 0), s.localToGlobal()[0]);
    }

    @Test
    void nodeMapIsApplied() {
        NodeMap shift = NodeMap.affine(new double[] {2, 0, 0, 0, 1, 0, 0, 0, 1}, new double[] {10, 0, 0});
        SpectralElementMesh s = SpectralElementMesh.of(HexMesh.box(1, 1, 1, 0, 1, 0, 1, 0, 1), 2, shift);
        assertEquals(12.0, s.x(0, 26, 0), 1e-15);
        assertEquals(11.0, s.x(0, 13, 0), 1e-15);
    }

    @Test
    void degreeOutOfRangeAndOverflowAreRejected() {
        HexMesh box = HexMesh.box(1, 1, 1, 0, 1, 0, 1, 0, 1);
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> SpectralElementMesh.of(box, 0));
        assertTrue(ex.getMessage().contains("degree"), ex.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SpectralElementMesh.of(box, 31));
        HexMesh big = HexMesh.box(100, 100, 100, 0, 1, 0, 1, 0, 1);
        ex = assertThrows(IllegalArgumentException.class, () -> SpectralElementMesh.of(big, 30));
        assertTrue(ex.getMessage().contains("2^31"), ex.getMessage());
    }

    @Test
    void nonConformingFaceIsRejected() {
        HexMesh m = TestMeshes.faceSharedByThree();
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> SpectralElementMesh.of(m, 2));
        assertTrue(ex.getMessage().contains("element 2") && ex.getMessage().contains("more than two"), ex.getMessage());
    }

    static Map<String, Integer> positionSet(SpectralElementMesh s) {
        double[] g = s.globalCoordinates();
        Map<String, Integer> m = new HashMap<>();
        for (int i = 0; i < s.globalNodeCount(); i++) {
            m.merge(key(g, i), 1, Integer::sum);
        }
        return m;
    }

    static Map<String, Integer> maskedPositions(SpectralElementMesh s, boolean[] mask) {
        double[] g = s.globalCoordinates();
        Map<String, Integer> m = new HashMap<>();
        for (int i = 0; i < mask.length; i++) {
            if (mask[i]) {
                m.merge(key(g, i), 1, Integer::sum);
            }
        }
        return m;
    }

    static int count(boolean[] b) {
        int c = 0;
        for (boolean x : b) {
            c += x ? 1 : 0;
        }
        return c;
    }

    /** Elements in x, y and z of one case (one generator: QuickTheories takes at most four). */
    private record Box(int nx, int ny, int nz) {
    }

    /**
     * The face neighbours of a box: every interior face pairs with the neighbour's face across the same axis on the
     * other side, sharing its four corner vertices; the boundary faces (-1) number 2 (nx ny + ny nz + nz nx); the
     * same array at every degree.
     */
    @org.junit.jupiter.api.Test
    void faceNeighboursPairTheFacesThatShareTheirCorners() {
        int nx = 3, ny = 4, nz = 2;
        HexMesh box = HexMesh.box(nx, ny, nz, 0, 1, 0, 1, 0, 1);
        SpectralElementMesh mesh = SpectralElementMesh.of(box, 3);
        int[] nb = mesh.faceNeighbours();
        int[] el = box.elements();
        assertEquals(6 * box.elementCount(), nb.length);
        int boundary = 0;
        for (int q = 0; q < nb.length; q++) {
            if (nb[q] < 0) {
                boundary++;
                continue;
            }
            int e = q / 6, f = q % 6, e2 = nb[q] / 6, f2 = nb[q] % 6;
            assertEquals(q, nb[nb[q]], "symmetric at " + q);
            assertNotEquals(e, e2);
            assertEquals(HexReference.faceAxis(f), HexReference.faceAxis(f2), "axis of face " + q);
            assertEquals(1 - HexReference.faceSide(f), HexReference.faceSide(f2), "side of face " + q);
            int[] a = new int[4], b = new int[4];
            for (int m = 0; m < 4; m++) {
                a[m] = el[8 * e + HexReference.faceCorner(f, m)];
                b[m] = el[8 * e2 + HexReference.faceCorner(f2, m)];
            }
            Arrays.sort(a);
            Arrays.sort(b);
            assertTrue(Arrays.equals(a, b), "corners of face " + q);
        }
        assertEquals(2 * (nx * ny + ny * nz + nz * nx), boundary);
        assertTrue(Arrays.equals(nb, SpectralElementMesh.of(box, 1).faceNeighbours()));
    }
}
