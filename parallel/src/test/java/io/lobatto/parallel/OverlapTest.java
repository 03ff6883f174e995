package io.lobatto.parallel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The overlapped exchange (boundary elements, exchange started, interior elements, exchange finished) gives bitwise
 * the solution of the blocking one on every rank, and the fused schedule the same iterations and errors.
 */
class OverlapTest {

    private static DistributedPoisson.Result[] solve(int ranks, String schedule) throws Exception {
        return solve(ranks, schedule, "alongside");
    }

    private static DistributedPoisson.Result[] solve(int ranks, String schedule, String split) throws Exception {
        return RankThreads.solve(ranks, c -> {
            DistributedPoisson.Options o = DistributedPoisson.Options.parse(new String[]{"-N", "3", "-e", "2,3,7",
                "--threads", "1", "--backend", "cpu", "--schedule", schedule, "--split", split});
            o.quiet = true;
            return DistributedPoisson.solve(o, c);
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void overlappedIsBitwiseTheBlockingExchange(int ranks) throws Exception {
        DistributedPoisson.Result[] overlap = solve(ranks, "overlap");
        DistributedPoisson.Result[] blocking = solve(ranks, "blocking");
        DistributedPoisson.Result[] fused = solve(ranks, "fused");
        for (int r = 0; r < ranks; r++) {
            assertTrue(overlap[r].converged());
            assertEquals(blocking[r].iterations(), overlap[r].iterations());
            assertArrayEquals(blocking[r].rankSolution(), overlap[r].rankSolution(), 0.0, "rank " + r);
            assertEquals(blocking[r].maxError(), overlap[r].maxError(), 0.0);
            assertTrue(Math.abs(fused[r].iterations() - overlap[r].iterations()) <= 1);
            assertEquals(fused[r].maxError(), overlap[r].maxError(), 1e-12);
        }
    }

    /** Every split of the overlapped element launch applies each element once: bitwise the blocking exchange. */
    @ParameterizedTest
    @ValueSource(strings = {"serial", "alongside:all", "alongside:1", "first:9", "first:1000"})
    void everySplitIsBitwiseTheBlockingExchange(String split) throws Exception {
        DistributedPoisson.Result[] overlap = solve(2, "overlap", split);
        DistributedPoisson.Result[] blocking = solve(2, "blocking", split);
        for (int r = 0; r < 2; r++) {
            assertTrue(overlap[r].converged());
            assertEquals(blocking[r].iterations(), overlap[r].iterations(), split);
            assertArrayEquals(blocking[r].rankSolution(), overlap[r].rankSolution(), 0.0, split + ", rank " + r);
        }
    }

    @org.junit.jupiter.api.Test
    void splitsResolveToTheirLaunchEnds() {
        // 961 boundary elements of 29791 (a 31^3 slab's layer)
        assertArrayEquals(new int[] {961, 961}, DistributedOperator.Split.parse("serial").ends(961, 29791));
        assertArrayEquals(new int[] {961, 961 + 4 * 961}, DistributedOperator.Split.parse("alongside").ends(961, 29791));
        assertArrayEquals(new int[] {961, 29791}, DistributedOperator.Split.parse("alongside:all").ends(961, 29791));
        assertArrayEquals(new int[] {961, 2640}, DistributedOperator.Split.parse("alongside:1679").ends(961, 29791));
        assertArrayEquals(new int[] {2640, 2640}, DistributedOperator.Split.parse("first:2640").ends(961, 29791));
        assertArrayEquals(new int[] {961, 961}, DistributedOperator.Split.parse("first:10").ends(961, 29791));
        assertArrayEquals(new int[] {10, 12}, DistributedOperator.Split.parse("alongside").ends(10, 12));
        assertEquals("alongside:all", DistributedOperator.Split.parse(" Alongside:ALL ").toString());
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> DistributedOperator.Split.parse("first:-3"));
        assertTrue(e.getMessage().contains("first:-3") && e.getMessage().contains("-3"), e.getMessage());
        e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> DistributedOperator.Split.parse("halves"));
        assertTrue(e.getMessage().contains("'halves'"), e.getMessage());
    }
}
