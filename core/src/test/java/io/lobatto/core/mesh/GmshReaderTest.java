package io.lobatto.core.mesh;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.lobatto.core.geometry.GeometricFactors;

class GmshReaderTest {

    private static String text() throws IOException {
        try (InputStream in = GmshReaderTest.class.getResourceAsStream("two-hexes.msh")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static Path path() throws URISyntaxException {
        return Path.of(GmshReaderTest.class.getResource("two-hexes.msh").toURI());
    }

    @Test
    void readsTheTwoHexFile() throws Exception {
        HexMesh m = GmshReader.read(path());
        assertEquals(2, m.elementCount());
        assertEquals(12, m.vertexCount());
        // nodes renumbered in file order: tags 101..104, 5..8, 15..18
        double[] expected = {0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 2, 0, 0, 2, 1, 0, 2, 1, 1, 2, 0, 1};
        assertArrayEquals(expected, m.vertices(), 0.0);
        assertArrayEquals(new int[] {0, 4, 5, 1, 3, 7, 6, 2, 4, 8, 9, 5, 7, 11, 10, 6}, m.elements());
        // faces: r-, r+, s-, s+, t-, t+; inlet 11 at x=0, outlet 12 at x=2, wall 13 elsewhere, interior x=1 untagged
        assertArrayEquals(new int[] {11, 0, 13, 13, 13, 13, 0, 12, 13, 13, 13, 13}, m.faceTags());
        assertEquals(List.of(11, 12, 13), List.copyOf(m.tags()));
        // and it is a usable mesh
        SpectralElementMesh s = SpectralElementMesh.of(m, 3);
        assertEquals(7 * 4 * 4, s.globalNodeCount());
        assertEquals(2.0, GeometricFactors.atGauss(s).volume(), 1e-14);
        assertEquals(16, SpectralElementMeshTest.count(s.boundaryMask(11)));
        // reading from a Reader gives the same mesh
        HexMesh r = GmshReader.read(new StringReader(text()));
        assertArrayEquals(m.elements(), r.elements());
        assertArrayEquals(m.faceTags(), r.faceTags());
    }

    private static MeshFormatException malformed(String content) {
        return assertThrows(MeshFormatException.class, () -> GmshReader.read(new StringReader(content)));
    }

    private static void assertMessage(MeshFormatException ex, int line, String... parts) {
        assertEquals(line, ex.line(), ex.getMessage());
        for (String p : parts) {
            assertTrue(ex.getMessage().contains(p), "'" + ex.getMessage() + "' should mention '" + p + "'");
        }
    }

    @Test
    void rejectsBadHeaders() throws IOException {
        String t = text();
        assertMessage(malformed(t.replace("4.1 0 8", "2.2 0 8")), 2, "version 2.2", "4.1");
        assertMessage(malformed(t.replace("4.1 0 8", "4.1 1 8")), 2, "binary");
        assertMessage(malformed("$Nodes\n" + t), 1, "expected $MeshFormat");
        assertMessage(malformed(""), 1, "empty");
        assertMessage(malformed(t.replace("4.1 0 8\n", "4.1 0 8\n0 0\n")), 3, "expected $EndMeshFormat");
    }

    @Test
    void rejectsMissingSections() throws IOException {
        String t = text();
        String noElements = t.substring(0, t.indexOf("$Elements"));
        assertTrue(malformed(noElements).getMessage().contains("missing $Elements"));
        String noNodes = t.substring(0, t.indexOf("$Nodes")) + t.substring(t.indexOf("$Elements"));
        assertTrue(malformed(noNodes).getMessage().contains("$Elements before $Nodes"));
        String unclosed = t.replace("$EndPhysicalNames\n", "");
        assertTrue(malformed(unclosed).getMessage().contains("expected $EndPhysicalNames"), malformed(unclosed).getMessage());
    }

    @Test
    void rejectsBadCounts() throws IOException {
        String t = text();
        // header announces 13 nodes, blocks hold 12 (line 24 is the $Nodes header; the check fires after the last block)
        assertTrue(malformed(t.replace("2 12 5 104", "2 13 5 104")).getMessage().contains("announces 13 nodes but the blocks hold 12"));
        // header announces 11 nodes: the second block overflows it
        MeshFormatException ex = malformed(t.replace("2 12 5 104", "2 11 5 104"));
        assertTrue(ex.getMessage().contains("more nodes than the 11"), ex.getMessage());
        // a block announcing more elements than the header
        ex = malformed(t.replace("3 1 5 2\n", "3 1 5 3\n"));
        assertTrue(ex.getMessage().contains("more elements than the 14"), ex.getMessage());
        // header and block both announce one element too many: a section marker appears where an element was expected
        ex = malformed(t.replace("3 1 5 2\n", "3 1 5 3\n").replace("6 14 1 14", "6 15 1 15"));
        assertTrue(ex.getMessage().contains("8-node hexahedron") && ex.getMessage().contains("$EndElements"), ex.getMessage());
        // hexahedron with 7 nodes
        ex = malformed(t.replace("14 5 15 16 6 8 18 17 7", "14 5 15 16 6 8 18 17"));
        assertTrue(ex.getMessage().contains("8-node hexahedron"), ex.getMessage());
        // a non-numeric coordinate
        ex = malformed(t.replace("2 1 1\n2 0 1\n$EndNodes", "2 1 one\n2 0 1\n$EndNodes"));
        assertTrue(ex.getMessage().contains("'one'"), ex.getMessage());
    }

    private static final String TINY = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n";

    /** A count in a header is checked against the rest of the file and the int range before anything is allocated for it. */
    @Test
    void hugeCountsInATinyFileAreOneLineErrors() throws IOException {
        // 999999999 nodes: 3 * that overflowed an int (NegativeArraySizeException) before
        assertMessage(malformed(TINY + "$Nodes\n1 999999999 1 999999999\n$EndNodes\n"), 5,
            "number of nodes 999999999 in the $Nodes header exceeds the limit 1:", "remaining 10 bytes", "8 bytes or more per node");
        assertMessage(malformed(TINY + "$Nodes\n1 2147483647 1 2147483647\n$EndNodes\n"), 5,
            "number of nodes 2147483647 in the $Nodes header exceeds the limit 2147483639 (int indexing)");
        assertMessage(malformed(TINY + "$Nodes\n999999999 1 1 1\n$EndNodes\n"), 5,
            "number of entity blocks 999999999 in the $Nodes header exceeds the limit 1:");
        assertMessage(malformed(TINY + "$Nodes\n1 1 1 1\n3 1 0 999999999\n1\n0 0 0\n$EndNodes\n"), 6,
            "number of nodes 999999999 in the node block header exceeds the limit 2:");
        String node = "$Nodes\n1 1 1 1\n3 1 0 1\n1\n0 0 0\n$EndNodes\n";
        assertMessage(malformed(TINY + node + "$Elements\n1 999999999 1 999999999\n$EndElements\n"), 11,
            "number of elements 999999999 in the $Elements header exceeds the limit 3:", "4 bytes or more per element line");
        assertMessage(malformed(TINY + node + "$Elements\n999999999 1 1 1\n$EndElements\n"), 11,
            "number of entity blocks 999999999 in the $Elements header exceeds the limit 1:");
        assertMessage(malformed(TINY + node + "$Elements\n1 1 1 1\n3 1 5 999999999\n1 1 1 1 1 1 1 1 1\n$EndElements\n"), 12,
            "number of elements 999999999 in the element block header exceeds the limit");
        assertMessage(malformed(TINY + "$Entities\n0 0 999999999 0\n$EndEntities\n"), 5,
            "number of surface entities 999999999 in the $Entities header exceeds the limit 0:");
        assertMessage(malformed(TINY + "$PhysicalNames\n999999999\n$EndPhysicalNames\n"), 5,
            "number of physical names 999999999 in the $PhysicalNames header exceeds the limit 3:");
        // a count the rest of the file can hold still reads as before
        assertEquals(2, GmshReader.read(new StringReader(text())).elementCount());
    }

    @Test
    void rejectsUnknownNodeTagAndUnmatchedQuad() throws IOException {
        String t = text();
        int line = 1 + (int) t.substring(0, t.indexOf("14 5 15 16")).chars().filter(c -> c == '\n').count();
        MeshFormatException ex = malformed(t.replace("14 5 15 16 6 8 18 17 7", "14 5 15 16 6 8 18 17 99"));
        assertMessage(ex, line, "unknown node tag 99");
        int qline = 1 + (int) t.substring(0, t.indexOf("3 15 16 17 18")).chars().filter(c -> c == '\n').count();
        ex = malformed(t.replace("3 15 16 17 18", "3 15 16 17 8"));
        assertMessage(ex, qline, "does not match any hexahedron face");
        // the quad on the untagged surface 4 is ignored even if it matches nothing
        HexMesh m = GmshReader.read(new StringReader(t.replace("12 5 6 7 8", "12 5 6 7 101")));
        assertEquals(2, m.elementCount());
    }

    @Test
    void unknownSectionsAreSkippedAndIoErrorsAreUnchecked() throws IOException {
        String t = text() + "$NodeData\n1\n\"T\"\n$EndNodeData\n";
        assertEquals(2, GmshReader.read(new StringReader(t)).elementCount());
        assertThrows(UncheckedIOException.class, () -> GmshReader.read(Path.of("does/not/exist.msh")));
    }
}
