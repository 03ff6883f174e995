package io.lobatto.gs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import org.junit.jupiter.api.Test;
import java.util.Random;

import io.lobatto.gs.Meshes.Mesh;
import org.quicktheories.core.Gen;

/** Algebraic properties of Z on random surjective maps with random masks and on structured chains. */
class ScatterOperatorProperties {

    /** A mesh and a block bound. */
    record Case(Mesh mesh, int nodesPerBlock, long seed) {
        ScatterOperator z() {
            return mesh.build(nodesPerBlock);
        }
    }

    /**
     * Random surjective maps with random masks (6 in 9), structured 1D chains (1 in 9) and 3D boxes (2 in 9),
     * each with a block bound and a seed for the vectors.
     */
    static Gen<Case> meshes() {
        Gen<Mesh> random = longs().all().zip(integers().between(0, 300), integers().between(0, 900),
                arbitrary().pick(0.0, 0.1, 0.5, 1.0), booleans().all(),
                (seed, g, extra, p, maskNull) -> Meshes.random(seed, g, extra, p, maskNull && p == 0.0));
        Gen<Mesh> chains = integers().between(1, 20).zip(integers().between(1, 8), booleans().all(), Meshes::chain1d);
        Gen<Mesh> boxes = integers().between(1, 3).zip(integers().between(1, 3), integers().between(1, 3),
                integers().between(1, 4), booleans().all(), (a, b, c, n, d) -> Meshes.box3d(a, b, c, n, d));
        Gen<Mesh> mesh = integers().between(1, 9).flatMap(k -> k <= 6 ? random : k == 7 ? chains : boxes);
        return mesh.zip(arbitrary().pick(1, 2, 3, 7, 16, 64, 512), longs().all(), Case::new);
    }

    static double[] randomVector(Random rnd, int n) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = rnd.nextDouble() * 2 - 1;
        }
        return v;
    }

    static double dot(double[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    static double absDot(double[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += Math.abs(a[i] * b[i]);
        }
        return s;
    }

    @Test
    void scatterAndGatherAreAdjoint() {
        qt().withExamples(300).forAll(meshes()).checkAssert(c -> {
            ScatterOperator z = c.z();
            Random rnd = new Random(c.seed());
            double[] xG = randomVector(rnd, z.globalSize());
            double[] xL = randomVector(rnd, z.localSize());
            double[] zxG = new double[z.localSize()];
            double[] ztxL = new double[z.globalSize()];
            z.scatter(xG, zxG);
            z.gather(xL, ztxL);
            double lhs = dot(xL, zxG);
            double rhs = dot(ztxL, xG);
            assertEquals(lhs, rhs, 1e-13 * (absDot(xL, zxG) + 1e-300), c.mesh() + ": x_L.(Z x_G) vs (Z^T x_L).x_G");
        });
    }

    @Test
    void gatherOfScatteredOnesIsDegree() {
        qt().withExamples(300).forAll(meshes()).checkAssert(c -> {
            Mesh m = c.mesh();
            ScatterOperator z = c.z();
            double[] ones = new double[z.globalSize()];
            java.util.Arrays.fill(ones, 1.0);
            double[] l = new double[z.localSize()];
            double[] g = new double[z.globalSize()];
            z.scatter(ones, l);
            z.gather(l, g);
            int[] degree = z.degree();
            // independent count from the input map
            int[] expected = new int[m.globalNodeCount()];
            for (int v : m.localToGlobal()) {
                expected[v]++;
            }
            for (int a = 0; a < z.globalSize(); a++) {
                assertEquals(expected[z.originalId(a)], degree[a], "degree of assembled node " + a);
                assertEquals(degree[a], g[a], 0.0, "Z^T Z 1 at assembled node " + a);
                assertTrue(degree[a] >= 1);
            }
        });
    }

    @Test
    void weightedGatherInvertsScatter() {
        qt().withExamples(300).forAll(meshes()).checkAssert(c -> {
            ScatterOperator z = c.z();
            double[] xG = randomVector(new Random(c.seed()), z.globalSize());
            double[] xL = new double[z.localSize()];
            z.scatter(xG, xL);
            double[] w = z.inverseDegree();
            for (int n = 0; n < xL.length; n++) {
                xL[n] *= w[n];
            }
            double[] back = new double[z.globalSize()];
            z.gather(xL, back);
            int[] degree = z.degree();
            for (int a = 0; a < xG.length; a++) {
                // d additions of x/d: round-off grows like d ulps
                assertEquals(xG[a], back[a], 2.3e-16 * (degree[a] + 1) * Math.abs(xG[a]), "Z^T W Z = I at row " + a + ", degree " + degree[a]);
            }
            // and Z^T W = I on each row: the weights of a row sum to one
            int[] s = z.gatherStarts();
            int[] ids = z.gatherIds();
            for (int a = 0; a < z.globalSize(); a++) {
                double sum = 0;
                for (int i = s[a]; i < s[a + 1]; i++) {
                    sum += w[ids[i]];
                }
                assertEquals(1.0, sum, 2.3e-16 * (degree[a] + 1), "row " + a + " of Z^T W");
            }
        });
    }

    @Test
    void maskedNodesAreZeroAfterScatterAndAbsentFromGather() {
        qt().withExamples(300).forAll(meshes()).checkAssert(c -> {
            Mesh m = c.mesh();
            ScatterOperator z = c.z();
            Random rnd = new Random(c.seed());
            double[] xL = new double[z.localSize()];
            java.util.Arrays.fill(xL, Double.NaN); // scatter must overwrite every entry
            z.scatter(randomVector(rnd, z.globalSize()), xL);
            int[] l2g = m.localToGlobal();
            int[] sid = z.scatterIds();
            double[] w = z.inverseDegree();
            double[] poisoned = randomVector(rnd, z.localSize());
            double[] clean = poisoned.clone();
            for (int n = 0; n < xL.length; n++) {
                boolean masked = m.isMasked(l2g[n]);
                assertEquals(masked, sid[n] < 0, "scatterIds at " + n);
                assertEquals(masked ? -1 : z.assembledId(l2g[n]), sid[n]);
                if (masked) {
                    assertEquals(0.0, xL[n], 0.0, "scattered value at masked local node " + n);
                    assertEquals(0.0, w[n], 0.0, "W at masked local node " + n);
                    poisoned[n] = Double.NaN;
                    clean[n] = 0;
                } else {
                    assertTrue(w[n] > 0);
                }
            }
            double[] gp = new double[z.globalSize()];
            double[] gc = new double[z.globalSize()];
            z.gather(poisoned, gp);
            z.gather(clean, gc);
            assertArrayEquals(gc, gp, 0.0, "gather must not read masked local nodes");
            double[] yp = new double[z.localSize()];
            z.gatherScatter(poisoned, yp);
            for (int n = 0; n < yp.length; n++) {
                assertTrue(!Double.isNaN(yp[n]), "Z Z^T must not read masked local nodes");
            }
        });
    }

    @Test
    void gatherMatchesNaiveReferenceBitForBit() {
        qt().withExamples(300).forAll(meshes()).checkAssert(c -> {
            Mesh m = c.mesh();
            ScatterOperator z = c.z();
            double[] xL = randomVector(new Random(c.seed()), z.localSize());
            double[] ref = new double[z.globalSize()];
            int[] l2g = m.localToGlobal();
            for (int n = 0; n < xL.length; n++) { // ascending n, the same order as the CSR rows
                if (!m.isMasked(l2g[n])) {
                    ref[z.assembledId(l2g[n])] += xL[n];
                }
            }
            double[] xG = new double[z.globalSize()];
            java.util.Arrays.fill(xG, Double.NaN);
            z.gather(xL, xG);
            assertArrayEquals(ref, xG, 0.0);
        });
    }

    @Test
    void gatherScatterIsScatterOfGather() {
        qt().withExamples(200).forAll(meshes()).checkAssert(c -> {
            ScatterOperator z = c.z();
            double[] xL = randomVector(new Random(c.seed()), z.localSize());
            double[] g = new double[z.globalSize()];
            double[] expected = new double[z.localSize()];
            z.gather(xL, g);
            z.scatter(g, expected);
            double[] y = new double[z.localSize()];
            z.gatherScatter(xL, y);
            assertArrayEquals(expected, y, 0.0);
            z.gatherScatter(xL, xL); // in place
            assertArrayEquals(expected, xL, 0.0);
        });
    }

    @Test
    void csrAndBlocksCoverEveryRowAndEntryOnce() {
        qt().withExamples(300).forAll(meshes()).checkAssert(c -> {
            ScatterOperator z = c.z();
            int nG = z.globalSize();
            int[] starts = z.gatherStarts();
            int[] ids = z.gatherIds();
            int[] blocks = z.blockStarts();
            int[] sid = z.scatterIds();
            int[] degree = z.degree();
            assertEquals(nG + 1, starts.length);
            assertEquals(0, starts[0]);
            assertEquals(ids.length, starts[nG]);
            int unmaskedLocal = 0;
            for (int v : sid) {
                unmaskedLocal += v >= 0 ? 1 : 0;
            }
            assertEquals(unmaskedLocal, ids.length, "gatherIds length = number of unmasked local nodes");
            assertEquals(unmaskedLocal, z.unmaskedLocalCount());

            // each unmasked local id exactly once, in the row of its assembled id, ascending in the row
            int[] seen = new int[z.localSize()];
            int maxRow = 0;
            for (int a = 0; a < nG; a++) {
                assertEquals(degree[a], starts[a + 1] - starts[a], "row length = degree, row " + a);
                maxRow = Math.max(maxRow, degree[a]);
                for (int i = starts[a]; i < starts[a + 1]; i++) {
                    int n = ids[i];
                    seen[n]++;
                    assertEquals(a, sid[n], "gatherIds[" + i + "] = " + n + " belongs to row " + sid[n] + ", found in row " + a);
                    if (i > starts[a]) {
                        assertTrue(ids[i - 1] < n, "ascending in row " + a);
                    }
                }
            }
            for (int n = 0; n < seen.length; n++) {
                assertEquals(sid[n] >= 0 ? 1 : 0, seen[n], "occurrences of local id " + n);
            }
            assertEquals(maxRow, z.maxRowLength());

            // blocks: start at 0, end at N_G, strictly increasing (so every row in exactly one block), bounded, greedy within runs
            assertEquals(0, blocks[0]);
            assertEquals(nG, blocks[blocks.length - 1]);
            assertEquals(blocks.length - 1, z.blockCount());
            int maxBlock = 0;
            int[] rowsCovered = new int[nG];
            for (int b = 0; b + 1 < blocks.length; b++) {
                assertTrue(blocks[b] < blocks[b + 1], "block " + b + " is empty or reversed");
                int entries = starts[blocks[b + 1]] - starts[blocks[b]];
                maxBlock = Math.max(maxBlock, entries);
                if (entries > c.nodesPerBlock()) {
                    assertEquals(1, blocks[b + 1] - blocks[b], "only a single row may exceed nodesPerBlock, block " + b);
                }
                if (b + 2 < blocks.length && blocks[b + 1] % ScatterOperator.BLOCK_RUN != 0) {
                    int withNext = starts[blocks[b + 1] + 1] - starts[blocks[b]];
                    assertTrue(withNext > c.nodesPerBlock(), "block " + b + " is not greedy: the next row would fit");
                }
                for (int r = blocks[b]; r < blocks[b + 1]; r++) {
                    rowsCovered[r]++;
                }
            }
            for (int r = 0; r < nG; r++) {
                assertEquals(1, rowsCovered[r], "row " + r + " in exactly one block");
            }
            assertEquals(maxBlock, z.maxBlockEntries());
            assertTrue(z.maxBlockEntries() <= Math.max(c.nodesPerBlock(), z.maxRowLength()));
        });
    }

    @Test
    void numberingIsAscendingOverUnmaskedNodes() {
        qt().withExamples(200).forAll(meshes()).checkAssert(c -> {
            Mesh m = c.mesh();
            ScatterOperator z = c.z();
            assertEquals(m.localToGlobal().length, z.localSize());
            assertEquals(m.globalNodeCount(), z.originalNodeCount());
            int next = 0;
            for (int g = 0; g < m.globalNodeCount(); g++) {
                if (m.isMasked(g)) {
                    assertEquals(-1, z.assembledId(g));
                    assertTrue(z.isMasked(g));
                } else {
                    assertEquals(next, z.assembledId(g));
                    assertEquals(g, z.originalId(next));
                    next++;
                }
            }
            assertEquals(next, z.globalSize());
            assertEquals(m.globalNodeCount() - next, z.maskedCount());

            Random rnd = new Random(c.seed());
            double[] orig = randomVector(rnd, m.globalNodeCount());
            double[] xG = z.toAssembled(orig);
            double[] back = z.fromAssembled(xG, 7.5);
            for (int g = 0; g < orig.length; g++) {
                assertEquals(m.isMasked(g) ? 7.5 : orig[g], back[g], 0.0);
            }
            assertArrayEquals(xG, z.toAssembled(back), 0.0);
        });
    }
}
