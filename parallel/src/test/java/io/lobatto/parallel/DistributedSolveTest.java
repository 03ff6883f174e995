package io.lobatto.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.lobatto.core.parallel.SingleRankCommunicator;

/**
 * The distributed Jacobi PCG on R ranks (threads, no MPI) against the one-rank solve of the same problem: the same
 * unknowns, iterations within one, errors within 1e-10 of the solution's size (|u| ≤ 1).
 */
class DistributedSolveTest {

    private static DistributedPoisson.Options options() {
        DistributedPoisson.Options o = DistributedPoisson.Options.parse(new String[]{"-N", "4", "-e", "3,2,5", "--threads", "1"});
        o.quiet = true;
        return o;
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5})
    void matchesTheOneRankSolve(int ranks) throws Exception {
        DistributedPoisson.Result one = DistributedPoisson.solve(options(), SingleRankCommunicator.INSTANCE);
        assertTrue(one.converged());
        assertEquals((long) (3 * 4 - 1) * (2 * 4 - 1) * (5 * 4 - 1), one.dofs());
        assertTrue(one.maxError() < 1e-3 && one.maxError() > 1e-8, "one-rank max error " + one.maxError());

        for (DistributedPoisson.Result d : RankThreads.solve(ranks, c -> DistributedPoisson.solve(options(), c))) {
            assertEquals(one.dofs(), d.dofs());
            assertTrue(d.converged());
            assertTrue(Math.abs(d.iterations() - one.iterations()) <= 1, "iterations " + d.iterations() + " vs " + one.iterations());
            assertEquals(one.maxError(), d.maxError(), 1e-10);
            assertEquals(one.l2Error(), d.l2Error(), 1e-10);
        }
    }
}
