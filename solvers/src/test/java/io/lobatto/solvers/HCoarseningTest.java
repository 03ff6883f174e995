package io.lobatto.solvers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.lobatto.backend.cpu.CpuBackend;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.StiffnessBp35;

/** The h-levels of {@link HCoarsening}: the map of Z_h, which boxes coarsen, and the V-cycle's levels and iterations. */
class HCoarseningTest {

    private static final Backend backend = new CpuBackend(2);

    /** auto adds h-levels from AUTO_START_SIDE elements on every side of a box, never on other meshes. */
    @Test
    void autoStartsAtTheMeasuredSide() {
        int s = HCoarsening.AUTO_START_SIDE;
        HexMesh big = HexMesh.box(s, s, s + 2, 0, 1, 0, 1, 0, 1);
        HexMesh thin = HexMesh.box(s, s, s - 2, 0, 1, 0, 1, 0, 1);
        assertTrue(HCoarsening.autoApplies(SpectralElementMesh.of(big, 1)));
        assertTrue(!HCoarsening.autoApplies(SpectralElementMesh.of(thin, 1)), "a side below " + s);
        assertTrue(!HCoarsening.autoApplies(SpectralElementMesh.of(HexMesh.box(6, 6, 6, 0, 1, 0, 1, 0, 1), 1)),
                "the README's 6^3");
    }

    @Test
    void zhMapsEachCoarseDegree2PointToTheFineVertexAtThatPlace() {
        double[] b = {-1, 2, 0.5, 1.5, 0, 3};
        for (int[] n : new int[][] {{2, 2, 2}, {4, 2, 6}, {8, 6, 4}}) {
            SpectralElementMesh fine = SpectralElementMesh.of(HexMesh.box(n[0], n[1], n[2], b[0], b[1], b[2], b[3], b[4], b[5]), 1);
            SpectralElementMesh coarse = HCoarsening.coarsen(fine, 1).orElseThrow();
            SpectralElementMesh coarse2 = coarse.atDegree(2);
            int[] ids = HCoarsening.fineIdsOfCoarsePoints(fine);
            assertEquals(coarse2.localSize(), ids.length);
            double[] fxyz = fine.globalCoordinates();
            boolean[] hit = new boolean[fine.globalNodeCount()];
            for (int e = 0; e < coarse2.elementCount(); e++) {
                for (int p = 0; p < 27; p++) {
                    int g = ids[27 * e + p];
                    hit[g] = true;
                    for (int d = 0; d < 3; d++) {
                        assertEquals(coarse2.x(e, p, d), fxyz[3 * g + d], 1e-14, "coarse element " + e + " point " + p);
                    }
                }
            }
            for (int g = 0; g < hit.length; g++) {
                assertTrue(hit[g], "fine node " + g + " is no coarse point");
            }
        }
    }

    @Test
    void onlyStructuredBoxesWithEvenSidesAtN1Coarsen() {
        HexMesh box = HexMesh.box(8, 4, 6, 0, 1, 0, 1, 0, 1);
        assertTrue(HCoarsening.coarsen(SpectralElementMesh.of(box, 1), 1).isPresent());
        assertTrue(HCoarsening.coarsen(SpectralElementMesh.of(box, 2), 1).isEmpty(), "N = 2");
        assertTrue(HCoarsening.coarsen(SpectralElementMesh.of(box, 1), 4).isEmpty(), "6 -> 3 < 4");
        assertTrue(HCoarsening.coarsen(SpectralElementMesh.of(HexMesh.box(8, 5, 6, 0, 1, 0, 1, 0, 1), 1), 1).isEmpty(), "odd");
        int[] perm = new int[box.elementCount()];
        java.util.Arrays.setAll(perm, i -> perm.length - 1 - i);
        assertTrue(HCoarsening.coarsen(SpectralElementMesh.of(box.permuteElements(perm), 1), 1).isEmpty(), "permuted");
        HexMesh copy = new HexMesh(box.vertices(), box.elements(), box.faceTags());
        assertTrue(HCoarsening.coarsen(SpectralElementMesh.of(copy, 1), 1).isEmpty(), "not made by HexMesh.box");
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> HCoarsening.fineIdsOfCoarsePoints(SpectralElementMesh.of(copy, 1)));
        assertTrue(ex.getMessage().contains("structured box"), ex.getMessage());
        ex = assertThrows(IllegalArgumentException.class, () -> HCoarsening.coarsen(SpectralElementMesh.of(box, 1), 0));
        assertTrue(ex.getMessage().contains("minSide must be >= 1, got 0"), ex.getMessage());
    }

    /**
     * Z_h between two element lattices (a rank's slab, its layers in any order): the box's lattices give the box's map;
     * a lattice with its layers reversed gives the same points at the reversed elements; lattices that are not twice
     * one another, or a fine lattice of another element count, are refused.
     */
    @Test
    void zhBetweenLatticesFollowsTheirElements() {
        SpectralElementMesh fine = SpectralElementMesh.of(HexMesh.box(4, 2, 6, 0, 1, 0, 1, 0, 1), 1);
        int[] box = HCoarsening.fineIdsOfCoarsePoints(fine);
        assertArrayEquals(box, HCoarsening.fineIdsOfCoarsePoints(fine, HCoarsening.ElementLattice.box(4, 2, 6),
                HCoarsening.ElementLattice.box(2, 1, 3)));
        HCoarsening.ElementLattice reversed = new HCoarsening.ElementLattice() {
            public int nx() {
                return 2;
            }

            public int ny() {
                return 1;
            }

            public int nz() {
                return 3;
            }

            public int element(int a, int b, int c) {
                return a + 2 * (b + (2 - c));
            }
        };
        int[] ids = HCoarsening.fineIdsOfCoarsePoints(fine, HCoarsening.ElementLattice.box(4, 2, 6), reversed);
        for (int c = 0; c < 3; c++) {
            for (int a = 0; a < 2; a++) {
                int e = a + 2 * c, r = a + 2 * (2 - c);
                assertArrayEquals(java.util.Arrays.copyOfRange(box, 27 * e, 27 * e + 27),
                        java.util.Arrays.copyOfRange(ids, 27 * r, 27 * r + 27));
            }
        }
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> HCoarsening.fineIdsOfCoarsePoints(fine,
                HCoarsening.ElementLattice.box(4, 2, 6), HCoarsening.ElementLattice.box(2, 1, 2)));
        assertTrue(ex.getMessage().contains("not twice the coarse one 2 x 1 x 2"), ex.getMessage());
        ex = assertThrows(IllegalArgumentException.class, () -> HCoarsening.fineIdsOfCoarsePoints(fine,
                HCoarsening.ElementLattice.box(4, 2, 4), HCoarsening.ElementLattice.box(2, 1, 2)));
        assertTrue(ex.getMessage().contains("has 32 elements but the fine mesh 48"), ex.getMessage());
    }

    @Test
    void theMapOfTheBoxCarriesToTheHLevels() {
        SpectralElementMesh fine = SpectralElementMesh.of(HexMesh.box(4, 4, 4, 0, 1, 0, 1, 0, 1), 1,
                NodeMap.sinusoidal(0.05, 0, 1, 0, 1, 0, 1));
        SpectralElementMesh coarse = HCoarsening.coarsen(fine, 1).orElseThrow();
        assertTrue(coarse.nodeMap() == fine.nodeMap());
        // the coarse vertices are fine vertices: the same mapped positions
        int[] ids = HCoarsening.fineIdsOfCoarsePoints(fine);
        double[] fxyz = fine.globalCoordinates();
        for (int e = 0; e < coarse.elementCount(); e++) {
            for (int k = 0; k < 2; k++) {
                for (int j = 0; j < 2; j++) {
                    for (int i = 0; i < 2; i++) {
                        int g = ids[27 * e + 2 * i + 3 * (2 * j + 3 * 2 * k)];
                        for (int d = 0; d < 3; d++) {
                            assertEquals(fxyz[3 * g + d], coarse.x(e, i + 2 * (j + 2 * k), d), 1e-14);
                        }
                    }
                }
            }
        }
    }

    /** The levels of 16^3 at N = 3: 3, then 1 on 16^3, 8^3 and 4^3 (the coarsest); one level fewer with minSide 5. */
    @Test
    void levelsAndIterationsOn16CubedAtN3() {
        SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(16, 16, 16, 0, 1, 0, 1, 0, 1), 3,
                NodeMap.sinusoidal(0.05, 0, 1, 0, 1, 0, 1));
        boolean[] mask = mesh.boundaryMaskAllTagged();
        int[] iterations = new int[2];
        double[][] x = new double[2][];
        try (AssembledOperator a = AssembledOperator.bind(StiffnessBp35.on(mesh, 0), ScatterOperator.of(mesh, mask), backend);
             DeviceVector rhs = backend.allocate(a.size())) {
            backend.fill(rhs, 1);
            for (int h = 0; h < 2; h++) {
                try (PMultigrid b = PMultigrid.builder(m -> StiffnessBp35.on(m, 0), mesh, backend).fineOperator(a)
                             .hCoarsening(h == 1).build();
                     DeviceVector u = backend.allocate(a.size());
                     ConjugateGradient cg = new ConjugateGradient(a, b).relativeTolerance(1e-10)) {
                    List<PMultigrid.LevelInfo> levels = b.levels();
                    if (h == 1) {
                        assertEquals(List.of(3, 1, 1, 1), levels.stream().map(PMultigrid.LevelInfo::degree).toList());
                        assertEquals(List.of(4096, 4096, 512, 64), levels.stream().map(PMultigrid.LevelInfo::elements).toList());
                        assertEquals(27, levels.get(3).dofs(), "3^3 interior vertices of the 4^3 box");
                    } else {
                        assertEquals(2, levels.size());
                    }
                    SolveResult r = cg.solve(rhs, u);
                    assertEquals(StopReason.CONVERGED_RELATIVE, r.reason(), r.toString());
                    iterations[h] = r.iterations();
                    x[h] = backend.download(u);
                }
            }
        }
        System.out.printf("16^3, N = 3: %d iterations without h-levels, %d with%n", iterations[0], iterations[1]);
        assertTrue(iterations[1] <= iterations[0], iterations[1] + " iterations with h-levels, " + iterations[0] + " without");
        double num = 0, den = 0;
        for (int i = 0; i < x[0].length; i++) {
            num += (x[1][i] - x[0][i]) * (x[1][i] - x[0][i]);
            den += x[0][i] * x[0][i];
        }
        assertTrue(Math.sqrt(num / den) < 1e-8, "solutions differ by " + Math.sqrt(num / den));
        try (PMultigrid b = PMultigrid.builder(m -> StiffnessBp35.on(m, 0), mesh, backend).hCoarsening(true, 5).build()) {
            assertEquals(List.of(4096, 4096, 512), b.levels().stream().map(PMultigrid.LevelInfo::elements).toList(),
                    "8 -> 4 < 5 stops at 8^3");
        }
    }
}
