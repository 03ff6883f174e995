package io.lobatto.parallel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.lobatto.backend.cpu.CpuBackend;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.core.parallel.SingleRankCommunicator;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.StiffnessBp35;
import io.lobatto.solvers.HCoarsening;
import io.lobatto.solvers.PMultigrid;

/**
 * Geometric h-coarsening across ranks ({@link DistributedLevels#hCoarsen}): each rank halves its z-slab below N = 1, the
 * h-level's operator is distributed on the halved slab's shared nodes, and the redundant coarse solve gathers the whole
 * h-coarsened problem. On one rank the V-cycle is bitwise the one without a distribution with the same levels; on 2 and
 * 4 ranks (threads; 2 on PoCL too) PCG takes the one-rank iterations (within one) with errors within 1e-12; a slab that cannot be halved
 * is refused by name when h-levels are asked for, and gives the N = 1 coarse level with a note under auto.
 */
class DistributedHCoarseningTest {

    private static final NodeMap MAP = NodeMap.sinusoidal(0.05, 0, 1, 0, 1, 0, 1);

    /** The same levels with and without a distribution (one rank): 6x6x12 at N = 3, then N = 1, then the 3x3x6 h-level. */
    @ParameterizedTest
    @CsvSource({"true", "false"})
    void oneRankIsBitwiseTheVCycleWithoutADistribution(boolean asked) {
        SlabPartition part = SlabPartition.of(6, 6, 12, 1, 0).boundaryFirst();
        SpectralElementMesh mesh = SpectralElementMesh.of(part.localMesh(), 3, MAP);
        SpectralElementMesh box = SpectralElementMesh.of(HexMesh.box(6, 6, 12, 0, 1, 0, 1, 0, 1), 3, MAP);
        assertArrayEquals(box.localToGlobal(), mesh.localToGlobal(), "the slab of one rank is numbered as the box");
        ScatterOperator z = ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), mesh.boundaryMaskAllTagged());
        double[] r = new double[z.globalSize()];
        java.util.SplittableRandom random = new java.util.SplittableRandom(11);
        for (int i = 0; i < r.length; i++) {
            r[i] = random.nextDouble() - 0.5;
        }
        try (CpuBackend be = new CpuBackend(1);
             AssembledOperator op = AssembledOperator.bind(StiffnessBp35.on(mesh, 0), z, be);
             AssembledOperator boxOp = AssembledOperator.bind(StiffnessBp35.on(box, 0), z, be);
             DistributedOperator dop = new DistributedOperator(op, part.sharedNodes(mesh, z), SingleRankCommunicator.INSTANCE);
             PMultigrid plain = PMultigrid.builder(m -> StiffnessBp35.on(m, 0), box, be).fineOperator(boxOp)
                     .hCoarsening(true, 2).build();
             PMultigrid spread = distributed(mesh, be, op, asked, new DistributedLevels(SingleRankCommunicator.INSTANCE, part, dop,
                     DistributedLevels.Coarse.REDUNDANT).hLevels(asked ? -1 : 1, DistributedLevels.DEFAULT_GATHER_MAX));
             DeviceVector dr = be.upload(r); DeviceVector z1 = be.allocate(r.length); DeviceVector z2 = be.allocate(r.length)) {
            List<PMultigrid.LevelInfo> a = plain.levels(), b = spread.levels();
            assertEquals(3, a.size(), "N = 3, N = 1 and the 3x3x6 h-level: " + plain.describe());
            assertEquals(a.size(), b.size(), spread.describe());
            for (int l = 0; l < a.size(); l++) {
                assertEquals(a.get(l).elements(), b.get(l).elements());
                assertEquals(a.get(l).dofs(), b.get(l).dofs());
                assertEquals(a.get(l).smootherOrder(), b.get(l).smootherOrder());
            }
            assertEquals(54, b.get(2).elements(), "the h-level is the 3x3x6 box");
            plain.apply(dr, z1);
            spread.apply(dr, z2);
            assertArrayEquals(be.download(z1), be.download(z2), 0.0);
        }
    }

    private static PMultigrid distributed(SpectralElementMesh mesh, CpuBackend be, AssembledOperator op, boolean asked,
                                          DistributedLevels levels) {
        PMultigrid.Builder b = PMultigrid.builder(m -> StiffnessBp35.on(m, 0), mesh, be).fineOperator(op).distribution(levels);
        return asked ? b.hCoarsening(true, 2).build() : b.build();
    }

    private static DistributedPoisson.Options options(String elements, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("-N", "3", "-e", elements, "--threads", "1", "--backend", "cpu",
                "--pc", "pmg"));
        args.addAll(List.of(more));
        DistributedPoisson.Options o = DistributedPoisson.Options.parse(args.toArray(new String[0]));
        o.quiet = true;
        return o;
    }

    private static DistributedPoisson.Result[] solve(int ranks, DistributedPoisson.Options o) throws Exception {
        return RankThreads.solve(ranks, c -> DistributedPoisson.solve(o, c));
    }

    /**
     * 8x8x16 at N = 3 (slabs of 8 and 4 layers): one h-level (4x4x8) by count and by auto with a gather size of 100
     * unknowns (the whole N = 1 problem has 735, the h-level's 63); PCG on R ranks against one rank with the same schedule.
     */
    @ParameterizedTest
    @CsvSource({"2, --h-levels, 1", "4, --h-levels, 1", "2, --gather-max, 100", "4, --gather-max, 100"})
    void matchesTheOneRankSolve(int ranks, String option, String value) throws Exception {
        DistributedPoisson.Options o = options("8,8,16", option, value);
        DistributedPoisson.Result one = DistributedPoisson.solve(o, SingleRankCommunicator.INSTANCE);
        assertTrue(one.converged());
        assertTrue(one.iterations() < 20, "p-multigrid PCG took " + one.iterations() + " iterations");
        assertTrue(one.pmgSchedule().contains("h N = 1 (128 elements); 1 h-level(s)"), one.pmgSchedule());
        for (DistributedPoisson.Result d : solve(ranks, o)) {
            assertTrue(d.pmgSchedule().contains("h N = 1 (128 elements); 1 h-level(s)"), d.pmgSchedule());
            assertTrue(d.pmgSchedule().contains("whole on every rank (63 DOFs)"), d.pmgSchedule());
            assertEquals(one.dofs(), d.dofs());
            assertTrue(d.converged());
            assertTrue(Math.abs(d.iterations() - one.iterations()) <= 1, "iterations " + d.iterations() + " vs " + one.iterations());
            assertEquals(one.maxError(), d.maxError(), 1e-12);
            assertEquals(one.l2Error(), d.l2Error(), 1e-12);
        }
    }

    /**
     * The same on OpenCL (PoCL here; skipped without OpenCL unless LOBATTO_REQUIRE_OPENCL=1): 2 ranks on the Aparapi
     * backend with one h-level against the Java backend's one-rank solve.
     */
    @Test
    void onOpenClMatchesTheOneRankSolve() throws Exception {
        try (io.lobatto.core.backend.Backend b = DistributedPoisson.rankBackend("aparapi", 0, 1)) {
            if (!b.name().equals("aparapi")) {
                if ("1".equals(System.getenv("LOBATTO_REQUIRE_OPENCL"))) {
                    throw new AssertionError("LOBATTO_REQUIRE_OPENCL=1 but the aparapi backend did not start (got " + b.name() + ")");
                }
                org.junit.jupiter.api.Assumptions.abort("no OpenCL: got the " + b.name() + " backend");
            }
        } catch (RuntimeException e) {
            if ("1".equals(System.getenv("LOBATTO_REQUIRE_OPENCL"))) {
                throw new AssertionError("LOBATTO_REQUIRE_OPENCL=1 but the aparapi backend did not start: " + e.getMessage(), e);
            }
            org.junit.jupiter.api.Assumptions.abort("aparapi backend did not start: " + e.getMessage());
        }
        DistributedPoisson.Result one = DistributedPoisson.solve(options("8,8,16", "--h-levels", "1"), SingleRankCommunicator.INSTANCE);
        for (DistributedPoisson.Result d : solve(2, options("8,8,16", "--h-levels", "1", "--backend", "aparapi"))) {
            assertTrue(d.pmgSchedule().contains("1 h-level(s)"), d.pmgSchedule());
            assertTrue(d.converged());
            assertTrue(Math.abs(d.iterations() - one.iterations()) <= 1, "iterations " + d.iterations() + " vs " + one.iterations());
            assertEquals(one.maxError(), d.maxError(), 1e-12);
            assertEquals(one.l2Error(), d.l2Error(), 1e-12);
        }
    }

    /** The schedule that auto chooses: h-levels until the whole coarse problem has at most the gather size. */
    @Test
    void autoGoesDownToTheGatherSize() throws Exception {
        // 8x8x16 on 2 ranks: the whole N = 1 problem has 7 x 7 x 15 = 735 unknowns, 4x4x8 has 3 x 3 x 7 = 63
        assertEquals(List.of(0, 0), hLevelsOf(2, 8, 8, 16, -1, 735));
        assertEquals(List.of(1, 1), hLevelsOf(2, 8, 8, 16, -1, 734));
        assertEquals(List.of(1, 1), hLevelsOf(2, 8, 8, 16, -1, 63));
        assertEquals(List.of(0, 0), hLevelsOf(2, 8, 8, 16, 0, 1));
        // a smaller gather size lets 4x4x8 go on to 2x2x4 (3 unknowns; minSide 2 here)
        assertEquals(List.of(2, 2), hLevelsOf(2, 8, 8, 16, -1, 62));
    }

    /** The h-levels that {@link DistributedLevels#hCoarsen} gives each rank (minSide 2, not asked). */
    private static List<Integer> hLevelsOf(int ranks, int nx, int ny, int nz, int count, long gather) throws Exception {
        ThreadCommunicator[] comms = ThreadCommunicator.group(ranks);
        ExecutorService pool = Executors.newFixedThreadPool(ranks);
        try {
            List<Future<Integer>> f = new java.util.ArrayList<>();
            for (ThreadCommunicator c : comms) {
                f.add(pool.submit(() -> {
                    SlabPartition part = SlabPartition.of(nx, ny, nz, c.size(), c.rank()).boundaryFirst();
                    DistributedLevels levels = new DistributedLevels(c, part, null, DistributedLevels.Coarse.REDUNDANT)
                            .hLevels(count, gather);
                    SpectralElementMesh m = SpectralElementMesh.of(part.localMesh(), 1, MAP);
                    int depth = 0;
                    while (true) {
                        Optional<HCoarsening.Step> s = levels.hCoarsen(m, m.boundaryMaskAllTagged(), depth, 2, false);
                        if (s.isEmpty()) {
                            return depth;
                        }
                        m = s.get().coarse();
                        depth++;
                    }
                }));
            }
            List<Integer> out = new java.util.ArrayList<>();
            for (Future<Integer> x : f) {
                out.add(x.get());
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * 6x6x10 on 2 ranks: slabs of 5 layers cannot be halved. Asked for (hCoarsening(true)), the builder refuses, naming
     * the rank and its slab; under auto the coarse level stays at N = 1 and the note says why.
     */
    @Test
    void slabsThatCannotBeHalvedAreRefusedOrLeftAtNOne() throws Exception {
        ThreadCommunicator[] comms = ThreadCommunicator.group(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<String[]>> f = new java.util.ArrayList<>();
            for (ThreadCommunicator c : comms) {
                f.add(pool.submit(() -> {
                    SlabPartition part = SlabPartition.of(6, 6, 10, 2, c.rank()).boundaryFirst();
                    SpectralElementMesh m = SpectralElementMesh.of(part.localMesh(), 1, MAP);
                    DistributedLevels levels = new DistributedLevels(c, part, null, DistributedLevels.Coarse.REDUNDANT)
                            .hLevels(-1, 1);
                    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                            () -> levels.hCoarsen(m, m.boundaryMaskAllTagged(), 0, 2, true));
                    Optional<HCoarsening.Step> auto = levels.hCoarsen(m, m.boundaryMaskAllTagged(), 0, 2, false);
                    assertTrue(auto.isEmpty());
                    return new String[] {e.getMessage(), levels.hCoarseningNote()};
                }));
            }
            String[] r0 = f.get(0).get(), r1 = f.get(1).get();
            assertTrue(r0[0].contains("rank 0's slab (layers 0..4 of 10, 6 x 6 x 5 elements)"), r0[0]);
            assertTrue(r1[0].contains("rank 1's slab (layers 5..9 of 10, 6 x 6 x 5 elements)"), r1[0]);
            assertNotNull(r0[1]);
            assertTrue(r0[1].startsWith("no h-levels below N = 1"), r0[1]);
        } finally {
            pool.shutdownNow();
        }
    }

    /** The halved slab: half the box, half the layers from half the first layer, the same kind of order. */
    @Test
    void aSlabHalves() {
        SlabPartition s = SlabPartition.of(8, 6, 16, 2, 1).boundaryFirst();
        assertNull(s.whyNotCoarsened());
        SlabPartition h = s.coarsened();
        assertEquals(4, h.firstLayer());
        assertEquals(4, h.layers());
        assertEquals(4 * 3 * 4, h.elementCount());
        assertEquals(HexMesh.box(4, 3, 8, 0, 1, 0, 1, 0, 1).elementCount(), h.globalMesh().elementCount());
        // the boundary layer first: local element 0 is at the slab's first layer, the whole box's layer 4
        assertEquals(4 * 3 * 4, h.globalElement(0));
        // Z_h between the slabs: every coarse point lands on a fine node at the same position
        SpectralElementMesh fine = SpectralElementMesh.of(s.localMesh(), 1, NodeMap.identity());
        SpectralElementMesh coarse2 = SpectralElementMesh.of(h.localMesh(), 2, NodeMap.identity());
        int[] ids = HCoarsening.fineIdsOfCoarsePoints(fine, s.lattice(), h.lattice());
        double[] xyz = fine.globalCoordinates();
        for (int e = 0; e < h.elementCount(); e++) {
            for (int p = 0; p < 27; p++) {
                int g = ids[27 * e + p];
                for (int d = 0; d < 3; d++) {
                    assertEquals(coarse2.x(e, p, d), xyz[3 * g + d], 1e-14, "coarse element " + e + " point " + p);
                }
            }
        }
        assertThrows(IllegalArgumentException.class, () -> SlabPartition.of(8, 6, 10, 2, 0).coarsened());
    }
}
