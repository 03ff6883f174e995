package io.lobatto.core.mesh;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@link BoxTopology}'s closed form against {@link SpectralElementMesh.Topology#walk}: every array, entry for entry. */
class BoxTopologyTest {

    static void assertSameTopology(HexMesh box) {
        SpectralElementMesh.Topology walk = SpectralElementMesh.Topology.walk(box);
        SpectralElementMesh.Topology closed = BoxTopology.of(box);
        String w = box.structuredBox().orElseThrow().toString();
        assertArrayEquals(walk.kinds(), closed.kinds(), w + ": kinds");
        assertArrayEquals(walk.corner(), closed.corner(), w + ": corner ordinals");
        assertArrayEquals(walk.edge(), closed.edge(), w + ": edge ordinals");
        assertArrayEquals(walk.edgeReversed(), closed.edgeReversed(), w + ": edges reversed");
        assertArrayEquals(walk.face(), closed.face(), w + ": face ordinals");
        assertArrayEquals(walk.faceFrame(), closed.faceFrame(), w + ": face frames");
        assertArrayEquals(walk.interior(), closed.interior(), w + ": interior ordinals");
        assertArrayEquals(walk.faceNeighbour(), closed.faceNeighbour(), w + ": face neighbours");
    }

    @Test
    void sameArraysAsTheWalk() {
        int[][] sizes = {{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {1, 1, 2}, {3, 2, 4}, {5, 1, 2}, {1, 4, 3}, {4, 4, 4}, {7, 3, 2},
            {2, 6, 5}, {16, 16, 16}};
        for (int[] n : sizes) {
            assertSameTopology(HexMesh.box(n[0], n[1], n[2], 0, 1, -1, 2, 0, 0.5));
        }
    }

    /** The mesh's numbering goes through the closed form; the switch off walks it: the same maps. */
    @Test
    void numberingWithAndWithoutTheClosedForm() {
        HexMesh box = HexMesh.box(3, 4, 2, 0, 1, 0, 1, 0, 1);
        int[] closed = SpectralElementMesh.of(box, 5).localToGlobal();
        System.setProperty(SpectralElementMesh.Topology.BOX_PROPERTY, "false");
        try {
            int[] walked = SpectralElementMesh.of(HexMesh.box(3, 4, 2, 0, 1, 0, 1, 0, 1), 5).localToGlobal();
            assertArrayEquals(walked, closed);
        } finally {
            System.clearProperty(SpectralElementMesh.Topology.BOX_PROPERTY);
        }
    }

    /** A mesh that is not a structured box (a rotated element) has no closed form. */
    @Test
    void onlyForStructuredBoxes() {
        HexMesh rotated = HexMesh.box(2, 1, 1, 0, 1, 0, 1, 0, 1).rotateElementVertices(1, HexReference.cubeRotations()[5]);
        assertTrue(rotated.structuredBox().isEmpty());
        assertThrows(IllegalArgumentException.class, () -> BoxTopology.of(rotated));
    }
}
