package io.lobatto.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.InputStream;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.lobatto.core.mesh.GmshReader;
import io.lobatto.core.mesh.HexMesh;

/** The example mesh shipped in the examples jar (meshes/cube-2x2x2.msh) reads as the 2x2x2 unit cube with every boundary face tagged. */
class ExampleMeshTest {

    @Test
    void cubeMeshHasEightElementsAndTaggedBoundary() throws Exception {
        GmshReader.GmshMesh g;
        try (InputStream in = ExampleMeshTest.class.getResourceAsStream("/meshes/cube-2x2x2.msh")) {
            g = GmshReader.load(in);
        }
        HexMesh m = g.hexMesh();
        assertFalse(g.curved());
        assertEquals(8, m.elementCount());
        assertEquals(27, m.vertexCount());
        assertEquals(List.of(1, 2, 3, 4, 5, 6), List.copyOf(m.tags()));
        int tagged = 0;
        for (int e = 0; e < m.elementCount(); e++) {
            for (int f = 0; f < 6; f++) {
                if (m.faceTag(e, f) != 0) {
                    tagged++;
                    // a tagged face lies on the cube's boundary plane of its tag: xmin 1, xmax 2, ymin 3, ymax 4, zmin 5, zmax 6
                    int tag = m.faceTag(e, f), axis = (tag - 1) / 2;
                    double plane = (tag - 1) % 2;
                    for (int c = 0; c < 4; c++) {
                        int v = m.elementVertex(e, io.lobatto.core.mesh.HexReference.faceCorner(f, c));
                        assertEquals(plane, m.vertex(v, axis), 0.0);
                    }
                }
            }
        }
        assertEquals(24, tagged, "4 faces on each of the 6 sides");
    }
}
