package io.lobatto.parallel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.lobatto.core.mesh.HexMesh;

class RecursiveBisectionTest {

    @Test
    void twoPartsOfALongBoxAreTheTwoHalvesAlongItsLongAxis() {
        HexMesh mesh = HexMesh.box(4, 4, 8, 0, 1, 0, 1, 0, 2);
        int[] part = RecursiveBisection.partition(mesh, 2);
        for (int e = 0; e < mesh.elementCount(); e++) {
            int layer = e / 16;
            assertEquals(layer < 4 ? 0 : 1, part[e], "element " + e);
        }
        RecursiveBisection.Stats s = RecursiveBisection.stats(mesh, part, 2);
        assertArrayEquals(new int[] {64, 64}, s.elements());
        assertArrayEquals(new int[] {16, 16}, s.sharedFaces());
        assertEquals(0.25, s.maxSurfaceToVolume(), 0);
        assertEquals(1.0, s.imbalance(), 0);
    }

    @Test
    void eightPartsOfACubeAreOctantsWithThreeCutPlanes() {
        HexMesh mesh = HexMesh.box(6, 6, 6, 0, 1, 0, 1, 0, 1);
        int[] part = RecursiveBisection.partition(mesh, 8);
        RecursiveBisection.Stats s = RecursiveBisection.stats(mesh, part, 8);
        for (int p = 0; p < 8; p++) {
            assertEquals(27, s.elements()[p]);
            assertEquals(3 * 9, s.sharedFaces()[p], "an octant shares three 3x3 faces");
        }
        // slabs of the same cube: 8 slabs cannot be cut from 6 layers, and 6 slabs share 2 x 36 faces each
        assertTrue(s.maxSurfaceToVolume() < 72.0 / 36);
    }

    @Test
    void anyPartCountIsBalancedToOneElement() {
        HexMesh mesh = HexMesh.box(5, 3, 7, 0, 1, 0, 1, 0, 1);
        for (int parts : new int[] {1, 3, 5, 7, 11}) {
            int[] part = RecursiveBisection.partition(mesh, parts);
            RecursiveBisection.Stats s = RecursiveBisection.stats(mesh, part, parts);
            int min = java.util.Arrays.stream(s.elements()).min().orElseThrow();
            int max = java.util.Arrays.stream(s.elements()).max().orElseThrow();
            assertTrue(max - min <= 1, parts + " parts: " + min + ".." + max);
            assertEquals(105, java.util.Arrays.stream(s.elements()).sum());
        }
        assertThrows(IllegalArgumentException.class, () -> RecursiveBisection.partition(mesh, 106));
    }
}
