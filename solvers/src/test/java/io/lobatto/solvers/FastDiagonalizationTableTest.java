package io.lobatto.solvers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.lobatto.core.backend.ExtendedElementWalk;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.HexReference;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;

/**
 * The compact data of the restricted Schwarz setup: the table of distinct 1D problems ({@link FastDiagonalization#table})
 * expands to exactly the dense arrays of {@link FastDiagonalization#of}, with fewer lines than 3 E on Kershaw's mesh
 * and numbered independently of the threads; the walk from the faces alone reaches the map's nodes.
 */
class FastDiagonalizationTableTest {

    private static boolean[] extMask(SpectralElementMesh mesh) {
        return FastDiagonalization.extendedMask(mesh.boundaryMaskAllTagged(), mesh.globalNodeCount());
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

    /**
     * The walk from the face neighbours and codes alone ({@link ExtendedElementWalk#local}, what the backends run)
     * reaches the same node as the host map at every extended point, on a box whose elements sit in random frames (the
     * 24 rotations of the cube); the faces-only extended elements give the same lengths and FDM table.
     */
    @org.junit.jupiter.api.Test
    void walkFromTheFacesReachesTheMapsNodes() {
        qt().withExamples(8).forAll(integers().between(1, 4), integers().between(0, 1 << 20)).checkAssert((degree, seed) -> {
            HexMesh box = HexMesh.box(3, 2, 3, 0, 1.5, 0, 1, 0, 0.75);
            int[][] rot = HexReference.cubeRotations();
            java.util.Random rnd = new java.util.Random(seed);
            for (int e = 0; e < box.elementCount(); e++) {
                box = box.rotateElementVertices(e, rot[rnd.nextInt(rot.length)]);
            }
            SpectralElementMesh mesh = SpectralElementMesh.of(box, degree);
            ExtendedElements full = ExtendedElements.of(mesh);
            ExtendedElements faces = ExtendedElements.faces(mesh);
            assertArrayEquals(full.faceNeighbours(), faces.faceNeighbours());
            assertArrayEquals(full.faceCodes(), faces.faceCodes());
            assertThrows(IllegalStateException.class, faces::localToGlobal);
            int[] map = full.localToGlobal();
            int n = degree + 3, n3 = n * n * n, np = (degree + 1) * (degree + 1) * (degree + 1);
            int[] nb = faces.faceNeighbours(), code = faces.faceCodes();
            for (int e = 0; e < mesh.elementCount(); e++) {
                for (int d = 0; d < 3; d++) {
                    assertEquals(full.length(e, d), faces.length(e, d));
                }
                for (int p = 0; p < n3; p++) {
                    int local = ExtendedElementWalk.local(e, p % n - 1, (p / n) % n - 1, p / (n * n) - 1, degree, nb, code);
                    int g = local < 0 ? mesh.globalNodeCount() : mesh.globalId(local / np, local % np);
                    assertEquals(map[e * n3 + p], g, "N=" + degree + " element " + e + " point " + p);
                }
            }
            boolean[] masked = extMask(mesh);
            FastDiagonalization.Table a = FastDiagonalization.table(full, masked, 0), b = FastDiagonalization.table(faces, masked, 0);
            assertArrayEquals(a.lineOf(), b.lineOf());
            assertArrayEquals(a.vectors(), b.vectors());
        });
    }

    @org.junit.jupiter.api.Test
    void lengthKeysRoundOffTheLastMantissaBits() {
        double l = 0.0123456789;
        assertEquals(Double.doubleToLongBits(l), FastDiagonalization.lengthKey(l, 0));
        assertEquals(FastDiagonalization.lengthKey(l, 16), FastDiagonalization.lengthKey(Math.nextUp(l), 16));
        assertEquals(FastDiagonalization.lengthKey(l, 16), FastDiagonalization.lengthKey(l * (1 + 1e-14), 16));
        assertTrue(FastDiagonalization.lengthKey(l, 16) != FastDiagonalization.lengthKey(l * (1 + 1e-9), 16));
        assertEquals(0, FastDiagonalization.lengthKey(0, 16));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FastDiagonalization.table(null, null, 0, 19));
        assertTrue(e.getMessage().contains("lengthBits = 19"), e.getMessage());
    }

    /**
     * Keyed by 36 of their lengths' mantissa bits, Kershaw's lines fall into far fewer classes than bit-for-bit equal
     * lengths give, and each line's table entry diagonalises its own 1D problem to 1e-10 relative: V^T M V = I and
     * V^T S V = diag(lambda) with its own S and M, though the entry was computed from its class's first line.
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 7})
    void linesKeyedByTheirLeadingLengthBitsSolveTheirOwnProblems(int degree) {
        SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(12, 6, 6, 0, 1, 0, 1, 0, 1), degree, NodeMap.kershaw(0.3));
        ExtendedElements ext = ExtendedElements.faces(mesh);
        boolean[] masked = extMask(mesh);
        FastDiagonalization.Table exact = FastDiagonalization.table(ext, masked, 0, FastDiagonalization.EXACT_LENGTH_BITS);
        FastDiagonalization.Table keyed = FastDiagonalization.table(ext, masked, 0);
        assertTrue(keyed.lines() < exact.lines(), "N=" + degree + ": " + keyed.lines() + " classes, " + exact.lines() + " exact lines");
        int n = keyed.points();
        for (int q = 0; q < keyed.lineOf().length; q++) {
            int l = keyed.lineOf()[q];
            FastDiagonalization.Line line = FastDiagonalization.line(ext, masked, q / 3, q % 3);
            int m = 0;
            for (boolean k : line.kept()) {
                m += k ? 1 : 0;
            }
            double scale = keyed.values()[l * n]; // the largest eigenvalue
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < m; j++) {
                    double vmv = 0, vsv = 0;
                    for (int p = 0; p < n; p++) {
                        double vpi = keyed.vectors()[l * n * n + p * n + i];
                        vmv += vpi * line.mass()[p] * keyed.vectors()[l * n * n + p * n + j];
                        for (int r = 0; r < n; r++) {
                            vsv += vpi * line.stiffness()[p][r] * keyed.vectors()[l * n * n + r * n + j];
                        }
                    }
                    assertEquals(i == j ? 1 : 0, vmv, 1e-10, "N=" + degree + " (e, d) = " + q + " V^T M V (" + i + ", " + j + ")");
                    assertEquals(i == j ? keyed.values()[l * n + i] : 0, vsv, 1e-10 * scale,
                            "N=" + degree + " (e, d) = " + q + " V^T S V (" + i + ", " + j + ")");
                }
            }
        }
        assertTrue(keyed.lines() <= exact.lines());
    }

    /**
     * The table's parallel parts (the kept points per (e, d), the eigensolves per line) and the shared faces' centroids
     * give the same bits on one thread as on the common pool: parallel streams started inside a one-thread ForkJoinPool
     * run on it.
     */
    @org.junit.jupiter.api.Test
    void oneThreadGivesTheSameTableBitForBit() throws Exception {
        SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(12, 6, 6, 0, 1, 0, 1, 0, 1), 5, NodeMap.kershaw(0.3));
        boolean[] masked = extMask(mesh);
        FastDiagonalization.Table parallel = FastDiagonalization.table(ExtendedElements.faces(mesh, true), masked, 0.1);
        java.util.concurrent.ForkJoinPool one = new java.util.concurrent.ForkJoinPool(1);
        try {
            FastDiagonalization.Table serial = one.submit(
                    () -> FastDiagonalization.table(ExtendedElements.faces(mesh, true), masked, 0.1)).get();
            assertArrayEquals(parallel.lineOf(), serial.lineOf());
            assertArrayEquals(parallel.vectors(), serial.vectors());
            assertArrayEquals(parallel.values(), serial.values());
        } finally {
            one.shutdown();
        }
    }
}
