package io.lobatto.core.mesh;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The parallel topology ({@link ParallelTopology}) against the sequential walk ({@link SpectralElementMesh.Topology#walk}):
 * every array equal (entity kinds in order of first appearance, the ordinals of each element's corners, edges, faces
 * and interior, edge reversals and face frames) on boxes, on boxes whose elements are randomly rotated and whose
 * vertices are relabelled (reversed edges and all eight face frames), and on a mesh with unused vertices; a
 * non-conforming face gives null, and the mesh then fails with the walk's error.
 */
class ParallelTopologyTest {

    private static void assertSameTopology(HexMesh m, String what) {
        SpectralElementMesh.Topology walk = SpectralElementMesh.Topology.walk(m);
        SpectralElementMesh.Topology par = ParallelTopology.of(m);
        assertNotNull(par, what);
        assertArrayEquals(walk.kinds(), par.kinds(), what + ": kinds");
        assertArrayEquals(walk.corner(), par.corner(), what + ": corners");
        assertArrayEquals(walk.edge(), par.edge(), what + ": edges");
        assertArrayEquals(walk.edgeReversed(), par.edgeReversed(), what + ": edge reversals");
        assertArrayEquals(walk.face(), par.face(), what + ": faces");
        assertArrayEquals(walk.faceFrame(), par.faceFrame(), what + ": face frames");
        assertArrayEquals(walk.interior(), par.interior(), what + ": interiors");
        assertArrayEquals(walk.faceNeighbour(), par.faceNeighbour(), what + ": face neighbours");
    }

    @Test
    void boxes() {
        for (int[] d : new int[][] {{1, 1, 1}, {3, 2, 2}, {5, 7, 3}, {17, 16, 16}}) {
            HexMesh box = HexMesh.box(d[0], d[1], d[2], 0, 1, 0, 1, 0, 1);
            assertSameTopology(box, java.util.Arrays.toString(d));
        }
    }

    @Test
    void scrambledBoxes() {
        for (long seed = 1; seed <= 4; seed++) {
            HexMesh m = TestMeshes.scrambled(HexMesh.box(9, 8, 7, 0, 1, 0, 1, 0, 1), seed);
            assertSameTopology(m, "scrambled, seed " + seed);
        }
        HexMesh big = TestMeshes.scrambled(HexMesh.box(20, 18, 16, 0, 1, 0, 1, 0, 1), 9);
        assertTrue(big.elementCount() >= SpectralElementMesh.Topology.PARALLEL_ELEMENTS);
        assertSameTopology(big, "scrambled 20x18x16");
    }

    @Test
    void unusedVerticesAndNoElements() {
        HexMesh box = HexMesh.box(2, 2, 2, 0, 1, 0, 1, 0, 1);
        double[] v = java.util.Arrays.copyOf(box.vertices(), box.vertices().length + 6);
        assertSameTopology(new HexMesh(v, box.elements(), box.faceTags()), "two unused vertices");
        assertSameTopology(new HexMesh(new double[3], new int[0], new int[0]), "no elements");
    }

    @Test
    void nonConformingFaceGivesNullAndTheWalksError() {
        HexMesh m = TestMeshes.faceSharedByThree();
        assertNull(ParallelTopology.of(m));
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> SpectralElementMesh.Topology.of(m));
        assertTrue(ex.getMessage().contains("element 2") && ex.getMessage().contains("more than two"), ex.getMessage());
    }

    /** With the property, a mesh above the threshold is numbered through it: the same l2g at N = 3 as without. */
    @Test
    void numberingUnchangedByTheProperty() {
        HexMesh m = TestMeshes.scrambled(HexMesh.box(17, 16, 16, 0, 1, 0, 1, 0, 1), 3);
        assertTrue(m.elementCount() >= SpectralElementMesh.Topology.PARALLEL_ELEMENTS);
        int[] walked = SpectralElementMesh.of(m, 3).localToGlobal();
        HexMesh fresh = new HexMesh(m.vertices(), m.elements(), m.faceTags());   // not in the topology cache
        System.setProperty(SpectralElementMesh.Topology.PARALLEL_PROPERTY, "true");
        try {
            SpectralElementMesh s = SpectralElementMesh.of(fresh, 3);
            assertArrayEquals(walked, s.localToGlobal());
            assertEquals(52 * 49 * 49, s.globalNodeCount());
        } finally {
            System.clearProperty(SpectralElementMesh.Topology.PARALLEL_PROPERTY);
        }
    }
}
