package io.lobatto.parallel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.lobatto.backend.cpu.CpuBackend;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.core.parallel.SingleRankCommunicator;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.StiffnessBp35;
import io.lobatto.solvers.PMultigrid;

/**
 * The p-multigrid V-cycle across ranks ({@link DistributedLevels}: distributed operators per level, the restriction
 * through the owner mask and a halo sum, Lanczos bounds, and the coarse Chebyshev solve whole on every rank or across
 * ranks) as PCG's
 * preconditioner on R ranks (threads) against the one-rank solve: the same iterations within one, the errors within
 * 1e-10; and on one rank it is bitwise the V-cycle without a distribution.
 */
class DistributedMultigridTest {

    private static DistributedPoisson.Options options() {
        return options("overlap");
    }

    private static DistributedPoisson.Options options(String levelSchedule) {
        return options(levelSchedule, "redundant");
    }

    private static DistributedPoisson.Options options(String levelSchedule, String coarse, String... more) {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("-N", "5", "-e", "2,3,4", "--threads", "1",
            "--backend", "cpu", "--pc", "pmg", "--level-schedule", levelSchedule, "--coarse", coarse));
        args.addAll(java.util.List.of(more));
        DistributedPoisson.Options o = DistributedPoisson.Options.parse(args.toArray(new String[0]));
        o.quiet = true;
        return o;
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4})
    void matchesTheOneRankSolve(int ranks) throws Exception {
        matchesTheOneRankSolve(ranks, "overlap");
    }

    /** The coarsest level solved by Chebyshev iterations across ranks (the path before the redundant coarse solve). */
    @ParameterizedTest
    @ValueSource(ints = {2, 4})
    void localCoarseSolveMatchesTheOneRankSolve(int ranks) throws Exception {
        matchesTheOneRankSolve(ranks, "overlap", "local");
    }

    /** The levels below the fine one fused or blocking (an A/B of the profile) solve as the overlapped ones do. */
    @ParameterizedTest
    @ValueSource(strings = {"fused", "blocking"})
    void coarseLevelSchedulesMatchTheOneRankSolve(String schedule) throws Exception {
        matchesTheOneRankSolve(2, schedule);
    }

    /**
     * The smoothed levels' residual completed across ranks before the restriction (the path before the partial
     * residual), and the redundant coarse solve's other links: through the host (the path before the indexed gathers)
     * and the owned entries of the complete right-hand side on the device.
     */
    @ParameterizedTest
    @ValueSource(strings = {"--partial-residual off", "--coarse-link host", "--coarse-link device"})
    void oldPathsMatchTheOneRankSolve(String option) throws Exception {
        matchesTheOneRankSolve(2, "overlap", "redundant", option.split(" "));
    }

    private static void matchesTheOneRankSolve(int ranks, String levelSchedule) throws Exception {
        matchesTheOneRankSolve(ranks, levelSchedule, "redundant");
    }

    private static void matchesTheOneRankSolve(int ranks, String levelSchedule, String coarse, String... more) throws Exception {
        DistributedPoisson.Result one = DistributedPoisson.solve(options(), SingleRankCommunicator.INSTANCE);
        assertTrue(one.converged());
        assertTrue(one.iterations() < 20, "p-multigrid PCG took " + one.iterations() + " iterations");
        for (DistributedPoisson.Result d : RankThreads.solve(ranks, c -> DistributedPoisson.solve(options(levelSchedule, coarse, more), c))) {
            assertEquals(one.dofs(), d.dofs());
            assertTrue(d.converged());
            assertTrue(Math.abs(d.iterations() - one.iterations()) <= 1, "iterations " + d.iterations() + " vs " + one.iterations());
            assertEquals(one.maxError(), d.maxError(), 1e-10);
            assertEquals(one.l2Error(), d.l2Error(), 1e-10);
        }
    }

    @Test
    void oneRankIsBitwiseTheVCycleWithoutADistribution() {
        SpectralElementMesh mesh = SpectralElementMesh.of(SlabPartition.of(2, 2, 3, 1, 0).boundaryFirst().localMesh(), 5,
                io.lobatto.core.mesh.NodeMap.identity());
        ScatterOperator z = ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), mesh.boundaryMaskAllTagged());
        SlabPartition part = SlabPartition.of(2, 2, 3, 1, 0).boundaryFirst();
        double[] r = new double[z.globalSize()];
        java.util.SplittableRandom random = new java.util.SplittableRandom(7);
        for (int i = 0; i < r.length; i++) {
            r[i] = random.nextDouble() - 0.5;
        }
        try (CpuBackend be = new CpuBackend(1);
             AssembledOperator op = AssembledOperator.bind(StiffnessBp35.on(mesh, 0), z, be);
             DistributedOperator dop = new DistributedOperator(op, part.sharedNodes(mesh, z), SingleRankCommunicator.INSTANCE);
             PMultigrid plain = PMultigrid.builder(m -> StiffnessBp35.on(m, 0), mesh, be).fineOperator(op).build();
             PMultigrid spread = PMultigrid.builder(m -> StiffnessBp35.on(m, 0), mesh, be).fineOperator(op)
                     .distribution(new DistributedLevels(SingleRankCommunicator.INSTANCE, part::sharedNodes, dop)).build();
             DeviceVector dr = be.upload(r); DeviceVector z1 = be.allocate(r.length); DeviceVector z2 = be.allocate(r.length)) {
            plain.apply(dr, z1);
            spread.apply(dr, z2);
            assertArrayEquals(be.download(z1), be.download(z2), 0.0);
        }
    }
}
