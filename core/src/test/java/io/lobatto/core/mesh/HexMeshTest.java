package io.lobatto.core.mesh;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

class HexMeshTest {

    @Test
    void boxHasExpectedSizesCoordinatesAndTags() {
        HexMesh m = HexMesh.box(3, 2, 1, 0, 3, -1, 1, 0, 0.5);
        assertEquals(6, m.elementCount());
        assertEquals(4 * 3 * 2, m.vertexCount());
        assertEquals(List.of(1, 2, 3, 4, 5, 6), List.copyOf(m.tags()));
        // element (2,1,0) = id 2 + 3*1 = 5: corner 6 is (+,+,+) = vertex (3,2,1)
        int v = m.elementVertex(5, 6);
        assertEquals(3.0, m.vertex(v, 0));
        assertEquals(1.0, m.vertex(v, 1));
        assertEquals(0.5, m.vertex(v, 2));
        assertEquals(HexMesh.TAG_XMAX, m.faceTag(5, 1));
        assertEquals(HexMesh.TAG_YMAX, m.faceTag(5, 3));
        assertEquals(0, m.faceTag(5, 0));
        assertEquals(0, m.faceTag(5, 2));
        assertEquals(HexMesh.TAG_ZMIN, m.faceTag(5, 4));
        assertEquals(HexMesh.TAG_ZMAX, m.faceTag(5, 5));
        // number of tagged faces = surface area in element faces
        int tagged = 0;
        for (int t : m.faceTags()) {
            tagged += t != 0 ? 1 : 0;
        }
        assertEquals(2 * (3 * 2 + 3 * 1 + 2 * 1), tagged);
    }

    @Test
    void arraysAreCopiedInAndOut() {
        double[] v = HexMesh.box(1, 1, 1, 0, 1, 0, 1, 0, 1).vertices();
        int[] el = {0, 1, 3, 2, 4, 5, 7, 6};
        int[] tags = new int[6];
        HexMesh m = new HexMesh(v, el, tags);
        v[0] = 42;
        el[0] = 7;
        tags[0] = 9;
        assertEquals(0.0, m.vertex(0, 0));
        assertEquals(0, m.elementVertex(0, 0));
        assertEquals(0, m.faceTag(0, 0));
        m.elements()[0] = 5;
        assertEquals(0, m.elementVertex(0, 0));
    }

    @Test
    void validationNamesElementAndProblem() {
        double[] v = HexMesh.box(1, 1, 1, 0, 1, 0, 1, 0, 1).vertices();
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> new HexMesh(v, new int[] {0, 1, 3, 2, 4, 5, 7, 6, 0, 1, 3, 2, 4, 5, 7, 8}, new int[12]));
        assertTrue(ex.getMessage().contains("element 1") && ex.getMessage().contains("out of range"), ex.getMessage());
        ex = assertThrows(IllegalArgumentException.class, () -> new HexMesh(v, new int[] {0, 1, 3, 2, 4, 5, 7, 0}, new int[6]));
        assertTrue(ex.getMessage().contains("element 0") && ex.getMessage().contains("twice"), ex.getMessage());
        ex = assertThrows(IllegalArgumentException.class, () -> new HexMesh(v, new int[] {0, 1, 3, 2, 4, 5, 7, 6}, new int[5]));
        assertTrue(ex.getMessage().contains("faceTags.length = 5"), ex.getMessage());
        ex = assertThrows(IllegalArgumentException.class, () -> new HexMesh(new double[7], new int[8], new int[6]));
        assertTrue(ex.getMessage().contains("vertices.length = 7"), ex.getMessage());
        ex = assertThrows(IllegalArgumentException.class, () -> new HexMesh(v, new int[9], new int[6]));
        assertTrue(ex.getMessage().contains("elements.length = 9"), ex.getMessage());
        assertThrows(IllegalArgumentException.class, () -> HexMesh.box(0, 1, 1, 0, 1, 0, 1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> HexMesh.box(1, 1, 1, 1, 0, 0, 1, 0, 1));
    }

    @Test
    void permuteElementsReorders() {
        HexMesh m = HexMesh.box(2, 1, 1, 0, 2, 0, 1, 0, 1);
        HexMesh p = m.permuteElements(new int[] {1, 0});
        for (int k = 0; k < 8; k++) {
            assertEquals(m.elementVertex(1, k), p.elementVertex(0, k));
            assertEquals(m.elementVertex(0, k), p.elementVertex(1, k));
        }
        assertEquals(HexMesh.TAG_XMAX, p.faceTag(0, 1));
        assertThrows(IllegalArgumentException.class, () -> m.permuteElements(new int[] {1, 1}));
        assertThrows(IllegalArgumentException.class, () -> m.permuteElements(new int[] {0}));
    }

    @Test
    void cubeRotationsAreTheTwentyFourProperRotations() {
        int[][] rot = HexReference.cubeRotations();
        assertEquals(24, rot.length);
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, rot[0]);
        Set<List<Integer>> distinct = new HashSet<>();
        for (int[] r : rot) {
            distinct.add(java.util.Arrays.stream(r).boxed().toList());
        }
        assertEquals(24, distinct.size());
    }

    @Test
    void rotationKeepsFaceTagsOnTheirFacesAndRejectsReflections() {
        HexMesh m = HexMesh.box(1, 1, 1, 0, 1, 0, 1, 0, 1);
        for (int[] rot : HexReference.cubeRotations()) {
            HexMesh r = m.rotateElementVertices(0, rot);
            for (int f = 0; f < 6; f++) {
                // the face's tag must describe where the face is: check via its vertices' mean position
                double[] c = new double[3];
                for (int k = 0; k < 4; k++) {
                    int v = r.elementVertex(0, HexReference.faceCorner(f, k));
                    for (int d = 0; d < 3; d++) {
                        c[d] += 0.25 * r.vertex(v, d);
                    }
                }
                int expected = c[0] == 0 ? 1 : c[0] == 1 ? 2 : c[1] == 0 ? 3 : c[1] == 1 ? 4 : c[2] == 0 ? 5 : 6;
                assertEquals(expected, r.faceTag(0, f));
            }
        }
        int[] mirror = {1, 0, 3, 2, 5, 4, 7, 6};
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> m.rotateElementVertices(0, mirror));
        assertTrue(ex.getMessage().contains("reflection"), ex.getMessage());
        int[] notSymmetry = {0, 1, 2, 3, 4, 5, 7, 6};
        assertThrows(IllegalArgumentException.class, () -> m.rotateElementVertices(0, notSymmetry));
    }

    @Test
    void faceNodesLieOnTheFace() {
        int n = 3, nq = 4;
        for (int f = 0; f < 6; f++) {
            int[] nodes = HexReference.faceNodes(n, f);
            assertEquals(nq * nq, nodes.length);
            for (int node : nodes) {
                int[] ijk = {node % nq, (node / nq) % nq, node / (nq * nq)};
                assertEquals(HexReference.faceSide(f) * n, ijk[HexReference.faceAxis(f)]);
            }
            // corner (u,v) = (N,0) is faceCorner(f, 1)
            int c = HexReference.faceCorner(f, 1);
            int node = nodes[n];
            int[] ijk = {node % nq, (node / nq) % nq, node / (nq * nq)};
            for (int d = 0; d < 3; d++) {
                assertEquals(HexReference.cornerBit(c, d) * n, ijk[d]);
            }
        }
    }

    @Test
    void boxRemembersItsShapeAndCoarsens() {
        HexMesh m = HexMesh.box(4, 6, 2, -1, 1, 0, 3, 0.5, 1);
        HexMesh.Box b = m.structuredBox().orElseThrow();
        assertEquals(new HexMesh.Box(4, 6, 2, -1, 1, 0, 3, 0.5, 1), b);
        HexMesh.Box c = b.coarsened();
        assertEquals(new HexMesh.Box(2, 3, 1, -1, 1, 0, 3, 0.5, 1), c);
        HexMesh cm = c.mesh();
        assertEquals(6, cm.elementCount());
        assertEquals(cm.vertex(cm.vertexCount() - 1, 1), 3.0);
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, c::coarsened);
        assertTrue(ex.getMessage().contains("2 x 3 x 1"), ex.getMessage());
        int[] perm = new int[m.elementCount()];
        java.util.Arrays.setAll(perm, i -> i);
        assertTrue(m.permuteElements(perm).structuredBox().isEmpty(), "a permuted box is not numbered as a box");
        assertTrue(m.rotateElementVertices(0, new int[] {0, 1, 2, 3, 4, 5, 6, 7}).structuredBox().isEmpty());
        assertTrue(new HexMesh(m.vertices(), m.elements(), m.faceTags()).structuredBox().isEmpty());
    }
}
