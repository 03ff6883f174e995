package io.lobatto.solvers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

class SetupWarmupTest {

    @Test
    void warmsTheDegreesOfBothDefaultSchedules() {
        assertEquals(List.of(1, 2, 3, 5, 7), List.copyOf(SetupWarmup.degrees(7)));
        assertEquals(List.of(1, 2, 4, 6, 8), List.copyOf(SetupWarmup.degrees(8)));
        assertEquals(List.of(1), List.copyOf(SetupWarmup.degrees(1)));
    }

    @Test
    void oneRoundBuildsTheMaskedZOfEachDegreeAndAStartVector() {
        // a 2 x 2 x 2 box with every face Dirichlet keeps the (2N - 1)^3 interior nodes; blocks of 512 entries
        long expected = 0;
        for (int n : SetupWarmup.degrees(3)) {
            long interior = (long) (2 * n - 1) * (2 * n - 1) * (2 * n - 1);
            io.lobatto.gs.ScatterOperator z = io.lobatto.gs.ScatterOperator.of(
                    io.lobatto.core.mesh.SpectralElementMesh.of(io.lobatto.core.mesh.HexMesh.box(2, 2, 2, 0, 1, 0, 1, 0, 1), n),
                    null);
            assertTrue(z.globalSize() > interior, "the unmasked Z has the boundary nodes too");
            io.lobatto.gs.ScatterOperator masked = io.lobatto.gs.ScatterOperator.of(
                    io.lobatto.core.mesh.SpectralElementMesh.of(io.lobatto.core.mesh.HexMesh.box(2, 2, 2, 0, 1, 0, 1, 0, 1), n),
                    io.lobatto.core.mesh.SpectralElementMesh.of(io.lobatto.core.mesh.HexMesh.box(2, 2, 2, 0, 1, 0, 1, 0, 1), n)
                            .boundaryMaskAllTagged());
            assertEquals(interior, masked.globalSize());
            expected += masked.globalSize() + masked.blockCount();
        }
        expected += Double.doubleToRawLongBits(SpectrumBounds.randomStart(4096, 0)[0]);
        assertEquals(expected, SetupWarmup.run(3, 1));
    }

    @Test
    void topologyRoundsNumberTheEightCubedBoxAndItsMask() {
        int side = SetupWarmup.TOPOLOGY_SIDE;
        long nodes = (long) (3 * side + 1) * (3 * side + 1) * (3 * side + 1);   // N = 3: 3 side + 1 nodes a direction
        assertEquals(2 * (nodes + 1), SetupWarmup.runTopology(3, 2), "two rounds, each N_G and node 0 (a corner) masked");
        assertEquals(0, SetupWarmup.runTopology(3, 0));
        assertThrows(IllegalArgumentException.class, () -> SetupWarmup.runTopology(3, -1));
        assertThrows(IllegalArgumentException.class, () -> SetupWarmup.runTopology(0, 1));
    }

    @Test
    void highDegreesRunFewerRoundsWithinTheNodeBudget() {
        assertEquals(100, SetupWarmup.rounds(SetupWarmup.degrees(7), 100));
        int atFifteen = SetupWarmup.rounds(SetupWarmup.degrees(15), 100);
        assertTrue(atFifteen >= 20 && atFifteen < 100, "rounds at N = 15: " + atFifteen);
        assertEquals(20, SetupWarmup.rounds(SetupWarmup.degrees(30), 100));
        assertEquals(5, SetupWarmup.rounds(SetupWarmup.degrees(30), 5));
        assertEquals(0, SetupWarmup.rounds(Set.of(7), 0));
    }

    @Test
    void refusesBadArgumentsNamingThem() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SetupWarmup.start(0));
        assertTrue(e.getMessage().contains("degree = 0"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> SetupWarmup.run(31, 1));
        assertTrue(e.getMessage().contains("degree = 31") && e.getMessage().contains("30"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> SetupWarmup.run(7, -1));
        assertTrue(e.getMessage().contains("rounds = -1"), e.getMessage());
    }

    @Test
    void startReturnsARunningDaemonThatEnds() throws InterruptedException {
        Thread t = SetupWarmup.start(2);
        assertTrue(t.isDaemon());
        assertEquals("lobatto-warmup", t.getName());
        t.join(60_000);
        assertTrue(!t.isAlive(), "the warm-up of N = 2 ends");
    }

    @Test
    void schwarzRoundsBuildTheFacesAndFdmTablesOfTheSmoothedLevels() {
        long expected = 0;
        for (int n : new int[] {3, 2}) { // stepsOfTwo(3) = 3, 2, 1; the coarsest level has no smoother
            io.lobatto.core.mesh.SpectralElementMesh mesh = io.lobatto.core.mesh.SpectralElementMesh.of(
                    io.lobatto.core.mesh.HexMesh.box(6, 2, 2, 0, 1, 0, 1, 0, 1), n, io.lobatto.core.mesh.NodeMap.kershaw(0.3));
            boolean[] masked = FastDiagonalization.extendedMask(mesh.boundaryMaskAllTagged(), mesh.globalNodeCount());
            FastDiagonalization.Table t = FastDiagonalization.table(ExtendedElements.faces(mesh), masked, 0);
            assertTrue(t.lines() > 1 && t.lines() < 3 * 24, "N=" + n + ": " + t.lines() + " lines");
            expected += t.lines() + Double.doubleToRawLongBits(t.values()[0]);
        }
        assertEquals(expected, SetupWarmup.runSchwarz(3, 1));
        assertEquals(0, SetupWarmup.runSchwarz(3, 0));
        assertThrows(IllegalArgumentException.class, () -> SetupWarmup.runSchwarz(3, -1));
    }
}
