package io.lobatto.gs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

import io.lobatto.gs.Meshes.Mesh;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Example-based tests of {@link ScatterOperator}: structured meshes with known counts, edge cases, errors. */
class ScatterOperatorTest {

    @Test
    void twoLinearElementsByHand() {
        // 1D, N = 1: elements (0,1) and (1,2); node 0 is Dirichlet
        ScatterOperator z = ScatterOperator.build(new int[] {0, 1, 1, 2}, 3, new boolean[] {true, false, false});
        assertEquals(4, z.localSize());
        assertEquals(2, z.globalSize());
        assertEquals(3, z.originalNodeCount());
        assertArrayEquals(new int[] {-1, 0, 0, 1}, z.scatterIds());
        assertArrayEquals(new int[] {0, 2, 3}, z.gatherStarts());
        assertArrayEquals(new int[] {1, 2, 3}, z.gatherIds());
        assertArrayEquals(new int[] {2, 1}, z.degree());
        assertArrayEquals(new double[] {0, 0.5, 0.5, 1}, z.inverseDegree(), 0.0);
        assertArrayEquals(new int[] {0, 2}, z.blockStarts());
        assertEquals(-1, z.assembledId(0));
        assertEquals(1, z.assembledId(2));
        assertEquals(1, z.originalId(0));
        double[] xL = new double[4];
        z.scatter(new double[] {3, 5}, xL);
        assertArrayEquals(new double[] {0, 3, 3, 5}, xL, 0.0);
        double[] xG = new double[2];
        z.gather(new double[] {100, 1, 2, 4}, xG);
        assertArrayEquals(new double[] {3, 4}, xG, 0.0);
        double[] y = new double[4];
        z.gatherScatter(new double[] {100, 1, 2, 4}, y);
        assertArrayEquals(new double[] {0, 3, 3, 4}, y, 0.0);
        assertArrayEquals(new double[] {-9, 3, 5}, z.fromAssembled(new double[] {3, 5}, -9), 0.0);
        assertArrayEquals(new double[] {3, 5}, z.toAssembled(new double[] {-9, 3, 5}), 0.0);
        assertEquals(2, z.maxRowLength());
        assertEquals(3, z.maxBlockEntries());
        // nodesPerBlock = 2: rows {0} (2 entries) and {1}
        assertArrayEquals(new int[] {0, 1, 2}, ScatterOperator.build(new int[] {0, 1, 1, 2}, 3, new boolean[] {true, false, false}, 2).blockStarts());
    }

    @Test
    void chain1dDegrees() {
        int e = 10, n = 4;
        ScatterOperator z = Meshes.chain1d(e, n, false).build();
        assertEquals(e * n + 1, z.globalSize());
        int[] d = z.degree();
        for (int g = 0; g < d.length; g++) {
            boolean shared = g % n == 0 && g != 0 && g != e * n;
            assertEquals(shared ? 2 : 1, d[g], "node " + g);
        }
        ScatterOperator zd = Meshes.chain1d(e, n, true).build();
        assertEquals(e * n - 1, zd.globalSize());
        assertEquals(-1, zd.scatterIds()[0]);
        assertEquals(-1, zd.scatterIds()[e * (n + 1) - 1]);
    }

    @Test
    void box3dDegreesAreProductsOfOneDimensionalMultiplicities() {
        int ex = 3, ey = 2, ez = 4, n = 3;
        for (boolean dirichlet : new boolean[] {false, true}) {
            Mesh m = Meshes.box3d(ex, ey, ez, n, dirichlet);
            ScatterOperator z = m.build(64);
            int nx = ex * n + 1, ny = ey * n + 1, nz = ez * n + 1;
            int expectedG = dirichlet ? (nx - 2) * (ny - 2) * (nz - 2) : nx * ny * nz;
            assertEquals(expectedG, z.globalSize(), m.toString());
            assertEquals(ex * ey * ez * (n + 1) * (n + 1) * (n + 1), z.localSize());
            int[] d = z.degree();
            long total = 0;
            for (int a = 0; a < d.length; a++) {
                int g = z.originalId(a);
                int i = g % nx, j = (g / nx) % ny, k = g / (nx * ny);
                assertEquals(mult(i, n, ex) * mult(j, n, ey) * mult(k, n, ez), d[a], "node " + i + "," + j + "," + k);
                total += d[a];
            }
            assertEquals(z.unmaskedLocalCount(), total);
            if (!dirichlet) {
                assertEquals(z.localSize(), total);
                assertEquals(8, z.maxRowLength()); // an interior element vertex
            }
            assertTrue(z.maxBlockEntries() <= 64);
        }
    }

    private static int mult(int i, int n, int elements) {
        return i % n == 0 && i != 0 && i != elements * n ? 2 : 1;
    }

    @Test
    void rowLongerThanBlockBoundGetsItsOwnBlock() {
        // a "star": global node 1 shared by 1000 local nodes, nodes 0 and 2..11 once each
        int[] l2g = new int[1011];
        Arrays.fill(l2g, 1);
        l2g[0] = 0;
        for (int g = 2; g < 12; g++) {
            l2g[1000 + g - 1] = g;
        }
        ScatterOperator z = ScatterOperator.build(l2g, 12, null, 16);
        assertArrayEquals(new int[] {0, 1, 2, 12}, z.blockStarts());
        assertEquals(1000, z.maxRowLength());
        assertEquals(1000, z.maxBlockEntries());
        double[] xL = new double[l2g.length];
        Arrays.fill(xL, 0.5);
        double[] xG = new double[12];
        z.gather(xL, xG);
        assertEquals(500.0, xG[1], 0.0);
        assertEquals(0.5, xG[0], 0.0);
        assertEquals(0.5, xG[11], 0.0);
    }

    @Test
    void nodesPerBlockOneGivesOneRowPerBlock() {
        ScatterOperator z = Meshes.box3d(2, 2, 1, 2, false).build(1);
        assertEquals(z.globalSize(), z.blockCount());
        int[] b = z.blockStarts();
        for (int i = 0; i < b.length; i++) {
            assertEquals(i, b[i]);
        }
        assertEquals(1, z.nodesPerBlock());
        assertEquals(ScatterOperator.DEFAULT_NODES_PER_BLOCK, Meshes.chain1d(3, 2, false).build().nodesPerBlock());
        assertEquals(512, ScatterOperator.DEFAULT_NODES_PER_BLOCK);
    }

    @Test
    void everythingMaskedAndEmptyMesh() {
        ScatterOperator z = ScatterOperator.build(new int[] {0, 1, 1, 0}, 2, new boolean[] {true, true});
        assertEquals(0, z.globalSize());
        assertArrayEquals(new int[] {-1, -1, -1, -1}, z.scatterIds());
        assertArrayEquals(new int[] {0}, z.gatherStarts());
        assertArrayEquals(new int[0], z.gatherIds());
        assertArrayEquals(new int[] {0}, z.blockStarts());
        assertEquals(0, z.blockCount());
        assertEquals(0, z.maxRowLength());
        assertEquals(0, z.maxBlockEntries());
        double[] xL = {1, 2, 3, 4};
        z.scatter(new double[0], xL);
        assertArrayEquals(new double[4], xL, 0.0);
        z.gather(new double[] {1, 2, 3, 4}, new double[0]);
        assertArrayEquals(new double[] {2, 2}, z.fromAssembled(new double[0], 2), 0.0);

        ScatterOperator empty = ScatterOperator.build(new int[0], 0, null);
        assertEquals(0, empty.localSize());
        assertEquals(0, empty.globalSize());
        assertArrayEquals(new int[] {0}, empty.blockStarts());
        empty.gather(new double[0], new double[0]);
    }

    @Test
    void maskedNodesNeedNoReference() {
        // node 2 is masked and never referenced: allowed; assembled ids skip it
        ScatterOperator z = ScatterOperator.build(new int[] {0, 1, 3, 1}, 4, new boolean[] {false, false, true, false});
        assertEquals(3, z.globalSize());
        assertArrayEquals(new int[] {0, 1, 2, 1}, z.scatterIds());
        assertEquals(2, z.assembledId(3));
        assertEquals(3, z.originalId(2));
    }

    // ------------------------------------------------------------------ errors

    private static IllegalArgumentException assertIae(Executable e, String... fragments) {
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, e);
        for (String f : fragments) {
            assertTrue(ex.getMessage().contains(f), "message '" + ex.getMessage() + "' lacks '" + f + "'");
        }
        return ex;
    }

    @Test
    void badInputIsRejectedWithTheOffendingIndexAndValue() {
        int[] l2g = {0, 1, 5, 2};
        int[] copy = l2g.clone();
        assertIae(() -> ScatterOperator.build(l2g, 3, null), "localToGlobal[2] = 5", "[0, 3)");
        assertArrayEquals(copy, l2g, "input untouched");
        assertIae(() -> ScatterOperator.build(new int[] {0, -1, 1}, 2, null), "localToGlobal[1] = -1");
        assertIae(() -> ScatterOperator.build(new int[] {0, 1}, 2, new boolean[3]), "masked has length 3", "globalNodeCount = 2");
        assertIae(() -> ScatterOperator.build(new int[] {0, 2, 2}, 3, null), "global node 1", "unmasked", "no local node references it");
        assertIae(() -> ScatterOperator.build(new int[] {0, 2, 2}, 4, new boolean[] {false, true, false, false}), "global node 3");
        assertIae(() -> ScatterOperator.build(new int[] {0}, -1, null), "globalNodeCount = -1");
        assertIae(() -> ScatterOperator.build(new int[] {0}, Integer.MAX_VALUE, null), "globalNodeCount = " + Integer.MAX_VALUE);
        assertIae(() -> ScatterOperator.build(new int[] {0}, 1, null, 0), "nodesPerBlock = 0");
        assertIae(() -> ScatterOperator.build(new int[] {0}, 1, null, -5), "nodesPerBlock = -5");
        assertThrows(NullPointerException.class, () -> ScatterOperator.build(null, 1, null));
    }

    @Test
    void kernelsCheckLengths() {
        ScatterOperator z = ScatterOperator.build(new int[] {0, 1, 1, 2}, 3, new boolean[] {true, false, false});
        assertIae(() -> z.scatter(new double[3], new double[4]), "xG", "3", "2");
        assertIae(() -> z.scatter(new double[2], new double[5]), "xL", "5", "4");
        assertIae(() -> z.gather(new double[3], new double[2]), "xL", "3", "4");
        assertIae(() -> z.gather(new double[4], new double[1]), "xG", "1", "2");
        assertIae(() -> z.gatherScatter(new double[4], new double[3]), "yL", "3", "4");
        assertIae(() -> z.toAssembled(new double[2]), "originalValues", "2", "3");
        assertIae(() -> z.fromAssembled(new double[3], 0), "xG", "3", "2");
        assertThrows(NullPointerException.class, () -> z.scatter(null, new double[4]));
        ScatterOperator square = ScatterOperator.build(new int[] {0, 1}, 2, null);
        double[] v = {1, 2};
        assertIae(() -> square.gather(v, v), "in place");
        assertThrows(IndexOutOfBoundsException.class, () -> z.assembledId(3));
        assertThrows(IndexOutOfBoundsException.class, () -> z.originalId(2));
        assertThrows(IndexOutOfBoundsException.class, () -> z.originalId(-1));
    }

    /**
     * Many chunks of the parallel build (65536 entries each) on both sides: a random mesh of 400k global and 900k local
     * nodes, 10% masked, gives the arrays of a sequential build written out here (ascending assembled ids over the
     * unmasked nodes, CSR rows filled by ascending local id, blocks greedy within runs of {@link ScatterOperator#BLOCK_RUN}
     * rows).
     */
    @Test
    void parallelBuildEqualsASequentialBuild() {
        Meshes.Mesh m = Meshes.random(11, 400_000, 500_000, 0.1, false);
        int[] l2g = m.localToGlobal();
        int g = m.globalNodeCount();
        ScatterOperator z = m.build(512);
        int[] count = new int[g];
        for (int v : l2g) {
            count[v]++;
        }
        int[] assembled = new int[g];
        int nG = 0;
        for (int i = 0; i < g; i++) {
            assembled[i] = m.isMasked(i) ? -1 : nG++;
        }
        int[] starts = new int[nG + 1];
        int[] degree = new int[nG];
        for (int i = 0; i < g; i++) {
            if (assembled[i] >= 0) {
                degree[assembled[i]] = count[i];
            }
        }
        for (int a = 0; a < nG; a++) {
            starts[a + 1] = starts[a] + degree[a];
        }
        int[] ids = new int[starts[nG]];
        int[] fill = java.util.Arrays.copyOf(starts, nG);
        int[] scatter = new int[l2g.length];
        double[] w = new double[l2g.length];
        for (int n = 0; n < l2g.length; n++) {
            int a = assembled[l2g[n]];
            scatter[n] = a;
            if (a >= 0) {
                ids[fill[a]++] = n;
                w[n] = 1.0 / degree[a];
            }
        }
        java.util.List<Integer> blocks = new java.util.ArrayList<>();
        for (int row = 0; row < nG; ) {
            blocks.add(row);
            int end = Math.min(nG, (row / ScatterOperator.BLOCK_RUN + 1) * ScatterOperator.BLOCK_RUN);
            int entries = degree[row++];
            while (row < end && entries + degree[row] <= 512) {
                entries += degree[row++];
            }
        }
        blocks.add(nG);
        assertTrue(z.localSize() > 10 * 65536 && nG > 5 * ScatterOperator.BLOCK_RUN, "several chunks and runs: " + z);
        assertArrayEquals(scatter, z.scatterIds());
        assertArrayEquals(starts, z.gatherStarts());
        assertArrayEquals(ids, z.gatherIds());
        assertArrayEquals(degree, z.degree());
        assertArrayEquals(w, z.inverseDegree());
        assertArrayEquals(blocks.stream().mapToInt(Integer::intValue).toArray(), z.blockStarts());
        assertEquals(java.util.Arrays.stream(degree).max().orElse(0), z.maxRowLength());
    }

    @Test
    void immutable() {
        int[] l2g = {0, 1, 1, 2};
        boolean[] mask = {false, false, true};
        ScatterOperator z = ScatterOperator.build(l2g, 3, mask);
        l2g[0] = 2;
        mask[0] = true;
        z.scatterIds()[0] = 99;
        z.gatherIds()[0] = 99;
        z.gatherStarts()[1] = 99;
        z.blockStarts()[0] = 99;
        z.degree()[0] = 99;
        z.inverseDegree()[0] = 99;
        assertArrayEquals(new int[] {0, 1, 1, -1}, z.scatterIds());
        assertArrayEquals(new int[] {0, 1, 2}, z.gatherIds());
        assertArrayEquals(new int[] {0, 1, 3}, z.gatherStarts());
        assertArrayEquals(new int[] {0, 2}, z.blockStarts());
        assertArrayEquals(new int[] {1, 2}, z.degree());
        assertArrayEquals(new double[] {1, 0.5, 0.5, 0}, z.inverseDegree(), 0.0);
        assertTrue(z.toString().contains("N_L=4"));
    }
}
