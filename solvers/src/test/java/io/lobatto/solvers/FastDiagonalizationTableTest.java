package io.lobatto.solvers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;

/**
 * The compact data of the restricted Schwarz setup: the table of distinct 1D problems ({@link FastDiagonalization#table})
 * expands to exactly the dense arrays of {@link FastDiagonalization#of}, with fewer lines than 3 E on Kershaw's mesh
 * and numbered independently of the threads; the extended map turned into assembled ids equals Z_ext's scatter ids.
 */
class FastDiagonalizationTableTest {

    private static boolean[] extMask(SpectralElementMesh mesh) {
        boolean[] m = java.util.Arrays.copyOf(mesh.boundaryMaskAllTagged(), mesh.globalNodeCount() + 1);
        m[mesh.globalNodeCount()] = true;
        return m;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3, 7})
    void tableExpandsToTheDenseArraysBitForBit(int degree) {
        SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(6, 4, 2, 0, 1, 0, 1, 0, 1), degree, NodeMap.kershaw(0.3));
        ExtendedElements ext = ExtendedElements.of(mesh);
        boolean[] masked = extMask(mesh);
        FastDiagonalization dense = FastDiagonalization.of(ext, masked, 0.4);
        FastDiagonalization.Table table = FastDiagonalization.table(ext, masked, 0.4);
        FastDiagonalization expanded = table.expand();
        assertEquals(dense.points(), expanded.points());
        assertEquals(dense.elements(), expanded.elements());
        assertArrayEquals(dense.eigenvectors(), expanded.eigenvectors(), "N=" + degree + " eigenvectors");
        assertArrayEquals(dense.eigenvalues(), expanded.eigenvalues(), "N=" + degree + " eigenvalues");
        int lines = table.lines();
        assertTrue(lines < 3 * mesh.elementCount(), "N=" + degree + ": " + lines + " distinct lines of " + 3 * mesh.elementCount());
        assertEquals(lines * table.points() * table.points(), table.vectors().length);
        // lines numbered by their first (e, d): each new line is the next number
        int next = 0;
        for (int q = 0; q < table.lineOf().length; q++) {
            assertTrue(table.lineOf()[q] <= next, "line " + table.lineOf()[q] + " at " + q + " before line " + next);
            if (table.lineOf()[q] == next) {
                next++;
            }
        }
        assertEquals(lines, next);
        // and again: the same table
        FastDiagonalization.Table again = FastDiagonalization.table(ext, masked, 0.4);
        assertArrayEquals(table.lineOf(), again.lineOf());
        assertArrayEquals(table.vectors(), again.vectors());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void assembledIdsAreTheScatterIdsOfZExt(int degree) {
        SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(3, 2, 2, 0, 1, 0, 1, 0, 1), degree, NodeMap.kershaw(0.3));
        ExtendedElements ext = ExtendedElements.of(mesh);
        boolean[] masked = extMask(mesh);
        int[] expected = ScatterOperator.build(ext.localToGlobal(), mesh.globalNodeCount() + 1, masked).scatterIds();
        ScatterOperator z = ScatterOperator.of(mesh, mesh.boundaryMaskAllTagged());
        int[] ids = ext.toAssembledIds(z);
        assertArrayEquals(expected, ids, "N=" + degree);
        assertTrue(java.util.Arrays.stream(ids).anyMatch(i -> i < 0) && java.util.Arrays.stream(ids).anyMatch(i -> i >= 0));
        assertThrows(IllegalStateException.class, ext::localToGlobal);
    }
}
