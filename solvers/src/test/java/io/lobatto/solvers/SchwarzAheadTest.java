package io.lobatto.solvers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.Test;

import io.lobatto.backend.cpu.CpuBackend;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.operators.StiffnessBp35;

/**
 * The Schwarz host setup run ahead on a host thread ({@link SchwarzHostSetup#ahead}, p-multigrid's
 * {@code schwarzAhead}) gives the same bits as the setup made level by level on the caller's thread: the same extended
 * elements and FDM tables, the same eigenvalue bounds and the same V-cycle.
 */
class SchwarzAheadTest {

    private static final Backend backend = new CpuBackend(2);

    private static SpectralElementMesh kershaw(int degree) {
        return SpectralElementMesh.of(HexMesh.box(6, 4, 4, 0, 1, 0, 1, 0, 1), degree, NodeMap.kershaw(0.3));
    }

    @Test
    void aheadMakesTheInlineTablesBitForBit() {
        ExecutorService host = Executors.newSingleThreadExecutor();
        try {
            for (int degree : new int[] {2, 3, 5, 7}) {
                for (boolean compactRas : new boolean[] {true, false}) {
                    SpectralElementMesh mesh = kershaw(degree);
                    boolean[] mask = mesh.boundaryMaskAllTagged();
                    SchwarzHostSetup a = SchwarzHostSetup.ahead(host, mesh, mask, 0.25, compactRas);
                    SchwarzHostSetup b = SchwarzHostSetup.inline(mesh, mask, 0.25, compactRas);
                    String at = "N=" + degree + (compactRas ? " faces" : " with map");
                    FastDiagonalization.Table ta = a.table(), tb = b.table();
                    assertArrayEquals(tb.vectors(), ta.vectors(), at);
                    assertArrayEquals(tb.values(), ta.values(), at);
                    assertArrayEquals(tb.lineOf(), ta.lineOf(), at);
                    ExtendedElements ea = a.parts().extended(), eb = b.parts().extended();
                    assertArrayEquals(eb.faceCodes(), ea.faceCodes(), at);
                    assertEquals(compactRas, !ea.hasMap(), at);
                    if (!compactRas) {
                        assertArrayEquals(eb.localToGlobal(), ea.localToGlobal(), at);
                    }
                    for (int e = 0; e < ea.elements(); e++) {
                        for (int d = 0; d < 3; d++) {
                            assertEquals(Double.doubleToRawLongBits(eb.length(e, d)), Double.doubleToRawLongBits(ea.length(e, d)), at);
                        }
                    }
                    assertArrayEquals(b.parts().extendedMask(), a.parts().extendedMask(), at);
                    assertEquals(b.parts().unmasked(), a.parts().unmasked(), at);
                    assertSame(a.table(), a.table(), "made once");
                    assertSame(b.table(), b.table(), "made once");
                }
            }
        } finally {
            host.shutdown();
        }
    }

    @Test
    void aSetupIsTakenOnlyForItsMeshMaskLambdaAndChoice() {
        SpectralElementMesh mesh = kershaw(3);
        boolean[] mask = mesh.boundaryMaskAllTagged();
        SchwarzHostSetup s = SchwarzHostSetup.inline(mesh, mask, 0, true);
        assertTrue(s.isFor(mesh, mask, 0, true));
        assertTrue(!s.isFor(mesh, mask.clone(), 0, true), "another mask array");
        assertTrue(!s.isFor(kershaw(3), mask, 0, true), "another mesh");
        assertTrue(!s.isFor(mesh, mask, 1e-300, true), "another lambda");
        assertTrue(!s.isFor(mesh, mask, 0, false), "the setup with the map");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SchwarzHostSetup.inline(mesh, new boolean[3], 0, true));
        assertTrue(e.getMessage().contains("length 3") && e.getMessage().contains("" + mesh.globalNodeCount()), e.getMessage());
    }

    /** The V-cycle of p-multigrid with ASM and RAS on Kershaw's mesh: ahead and level by level, bit for bit. */
    @Test
    void pMultigridAheadIsTheLevelByLevelVCycleBitForBit() {
        for (String smoother : new String[] {"cheb4opt-ras", "cheb4-asm"}) {
            SpectralElementMesh mesh = kershaw(5);
            double[][] z = new double[2][];
            List<List<PMultigrid.LevelInfo>> info = new java.util.ArrayList<>(List.of(List.of(), List.of()));
            for (int c = 0; c < 2; c++) {
                try (PMultigrid pmg = PMultigrid.builder(m -> StiffnessBp35.on(m, 0.0), mesh, backend)
                        .smoother(Smoother.parse(smoother)).smootherOrder(4).schwarzAhead(c == 0).build()) {
                    int n = pmg.levels().get(0).dofs();
                    double[] r = SpectrumBounds.randomStart(n, 42);
                    try (DeviceVector dr = backend.upload(r); DeviceVector dz = backend.allocate(n)) {
                        pmg.apply(dr, dz);
                        z[c] = backend.download(dz);
                    }
                    info.set(c, pmg.levels());
                }
            }
            assertEquals(info.get(1).size(), info.get(0).size(), smoother);
            for (int l = 0; l < info.get(0).size(); l++) {
                PMultigrid.LevelInfo a = info.get(0).get(l), b = info.get(1).get(l);
                assertEquals(b.degree(), a.degree(), smoother);
                assertEquals(b.smoother(), a.smoother(), smoother);
                assertEquals(Double.doubleToRawLongBits(b.lambdaMax()), Double.doubleToRawLongBits(a.lambdaMax()),
                        smoother + " N=" + a.degree() + " lambda_max");
                assertEquals(Double.doubleToRawLongBits(b.lambdaMin()), Double.doubleToRawLongBits(a.lambdaMin()),
                        smoother + " N=" + a.degree() + " lambda_min");
            }
            assertTrue(info.get(0).get(0).smoother().contains(smoother.endsWith("ras") ? "RAS" : "ASM"), info.get(0).get(0).smoother());
            assertArrayEquals(z[1], z[0], smoother + ": the V-cycle ahead and level by level");
        }
    }
}
