package io.lobatto.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.parallel.SingleRankCommunicator;

/**
 * The distributed solve on parts cut by recursive coordinate bisection ({@link BisectionPartition}): on 2 and 4 ranks,
 * with Jacobi and with p-multigrid, the one-rank iterations (within one) and errors (within 1e-10), on the box and on
 * a Gmsh mesh; and the parts' shared nodes: each node owned by exactly one rank.
 */
class BisectionSolveTest {

    private static final String GMSH = "../examples/src/main/resources/meshes/cube-2x2x2.msh";

    private static DistributedPoisson.Options options(String... extra) {
        String[] base = {"-N", "4", "-e", "3,4,2", "--threads", "1", "--backend", "cpu"};
        String[] args = new String[base.length + extra.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        DistributedPoisson.Options o = DistributedPoisson.Options.parse(args);
        o.quiet = true;
        return o;
    }

    private static DistributedPoisson.Result[] solve(int ranks, String... extra) throws Exception {
        return RankThreads.solve(ranks, c -> DistributedPoisson.solve(options(extra), c));
    }

    @ParameterizedTest
    @CsvSource({"2, jacobi, box", "4, jacobi, box", "2, pmg, box", "4, pmg, box", "2, jacobi, gmsh", "4, jacobi, gmsh"})
    void bisectedPartsGiveTheOneRankSolve(int ranks, String pc, String mesh) throws Exception {
        String[] extra = mesh.equals("box") ? new String[] {"--pc", pc, "--partition", "rcb"}
                : new String[] {"--pc", pc, "--mesh", GMSH, "-N", "5"};
        DistributedPoisson.Result one = DistributedPoisson.solve(options(extra), SingleRankCommunicator.INSTANCE);
        assertTrue(one.converged());
        assertTrue(one.maxError() < 1e-2 && one.maxError() > 1e-9, "one-rank max error " + one.maxError());
        for (DistributedPoisson.Result d : solve(ranks, extra)) {
            assertEquals(one.dofs(), d.dofs());
            assertTrue(d.converged());
            assertTrue(Math.abs(d.iterations() - one.iterations()) <= 1, "iterations " + d.iterations() + " vs " + one.iterations());
            assertEquals(one.maxError(), d.maxError(), 1e-10);
            assertEquals(one.l2Error(), d.l2Error(), 1e-10);
        }
    }

    @Test
    void everySharedNodeIsOwnedOnceAndTheKeysMatch() {
        HexMesh box = HexMesh.box(3, 4, 5, 0, 1, 0, 1, 0, 1);
        int ranks = 5;
        int degree = 3;
        double owned = 0;
        int shared = 0;
        for (int r = 0; r < ranks; r++) {
            BisectionPartition p = BisectionPartition.of(box, ranks, r);
            io.lobatto.core.mesh.SpectralElementMesh m = io.lobatto.core.mesh.SpectralElementMesh.of(p.localMesh(), degree);
            io.lobatto.gs.ScatterOperator z = io.lobatto.gs.ScatterOperator.build(m.localToGlobal(), m.globalNodeCount(),
                    m.boundaryMaskAllTagged());
            SharedNodes s = p.sharedNodes(m, z);
            owned += s.ownedCount();
            shared += s.sharedCount();
            assertTrue(p.boundaryElements() > 0 && p.boundaryElements() <= p.elementCount());
        }
        // the interior GLL nodes of the 3x4x5 box at N = 3: (9-1)(12-1)(15-1)
        assertEquals(8 * 11 * 14, owned, 0.0);
        assertTrue(shared > 0);
    }
}
