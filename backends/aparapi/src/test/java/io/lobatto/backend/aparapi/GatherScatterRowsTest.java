package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.backend.aparapi.conformance.AparapiFixture;
import io.lobatto.conformance.BackendFixture;
import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The rows and tiles kinds of Z on the device ({@code -Dlobatto.aparapi.gatherScatter=rows|tiles}, {@link
 * io.lobatto.backend.aparapi.kernels.GatherScatterRowsKernel}, {@link CompactTiles}) against the Java backend and the
 * block kernels, bit for bit: x_L = Z x_G and x_G = Z^T x_L summed in the same order.
 */
@ExtendWith(io.lobatto.backend.aparapi.conformance.SkipWithoutOpenCl.class)
class GatherScatterRowsTest {

    @AfterEach
    void clearKind() {
        System.clearProperty(GatherScatter.KIND_PROPERTY);
    }

    private static DeviceScatter upload(Backend be, ScatterOperator z, String kind) {
        System.setProperty(GatherScatter.KIND_PROPERTY, kind);
        try {
            return be.uploadScatter(z.scatterIds(), z.gatherStarts(), z.gatherIds(), z.blockStarts(), z.inverseDegree(),
                    z.globalSize());
        } finally {
            System.clearProperty(GatherScatter.KIND_PROPERTY);
        }
    }

    /** Scatter and gather of both kinds on the device and on the Java backend: every bit equal. */
    private static void assertKindsAgree(ScatterOperator z, long seed, String what) {
        Backend gpu = AparapiFixture.backend();
        Backend cpu = BackendFixture.shared("cpu");
        double[] xg = TestProblems.random(z.globalSize(), seed);
        double[] xl = TestProblems.random(z.localSize(), seed + 1);
        double[] refL = new double[z.localSize()];
        double[] refG = new double[z.globalSize()];
        try (DeviceScatter cz = cpu.uploadScatter(z.scatterIds(), z.gatherStarts(), z.gatherIds(), z.blockStarts(),
                z.inverseDegree(), z.globalSize()); DeviceVector cg = cpu.upload(xg); DeviceVector cl = cpu.upload(xl);
             DeviceVector cyl = cpu.allocate(z.localSize()); DeviceVector cyg = cpu.allocate(z.globalSize())) {
            cpu.scatter(cz, cg, cyl);
            cpu.gather(cz, cl, cyg);
            refL = cpu.download(cyl);
            refG = cpu.download(cyg);
        }
        for (String kind : new String[] {"rows", "tiles", "blocks"}) {
            try (DeviceScatter dz = upload(gpu, z, kind); DeviceVector dg = gpu.upload(xg); DeviceVector dl = gpu.upload(xl);
                 DeviceVector yl = gpu.allocate(z.localSize()); DeviceVector yg = gpu.allocate(z.globalSize())) {
                gpu.fill(yl, 7);
                gpu.fill(yg, 7);
                gpu.scatter(dz, dg, yl);
                gpu.gather(dz, dl, yg);
                assertArrayEquals(refL, gpu.download(yl), 0.0, what + ", " + kind + " scatter");
                assertArrayEquals(refG, gpu.download(yg), 0.0, what + ", " + kind + " gather");
            }
        }
    }

    @Test
    void meshNumberingsAtEveryDegreeAndMask() {
        long seed = 11;
        for (int degree = 1; degree <= 7; degree++) {
            SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
            assertKindsAgree(TestProblems.unmasked(mesh), seed++, "N = " + degree + " unmasked");
            assertKindsAgree(TestProblems.partlyMasked(mesh), seed++, "N = " + degree + " partly masked");
            assertKindsAgree(TestProblems.dirichlet(mesh), seed++, "N = " + degree + " Dirichlet");
        }
    }

    /**
     * Rows of every degree 1..11 (each path of the gather's four/two/one loads) from a random local-to-global map, with
     * N_L not a multiple of the scatter's four local nodes per work-item.
     */
    @Test
    void everyRowDegreeAndATail() {
        Random rnd = new Random(5);
        for (int nl : new int[] {1, 3, 1027, 40_001}) {
            int ng = Math.max(1, nl / 6);
            int[] l2g = new int[nl];
            for (int i = 0; i < nl; i++) {
                l2g[i] = i < ng ? i : rnd.nextInt(ng);
            }
            ScatterOperator z = ScatterOperator.build(l2g, ng, null);
            if (nl == 40_001) {
                int[] deg = z.degree();
                for (int d = 1; d <= 11; d++) {
                    final int want = d;
                    assertTrue(java.util.Arrays.stream(deg).anyMatch(x -> x == want), "a row of degree " + d + " in the test");
                }
            }
            assertKindsAgree(z, nl, "N_L = " + nl);
        }
    }

    @Test
    void aScatterOfOnesGatheredIsTheDegree() {
        Backend gpu = AparapiFixture.backend();
        ScatterOperator z = TestProblems.partlyMasked(TestProblems.deformedBox(2, 2, 3, 5));
        double[] ones = new double[z.globalSize()];
        java.util.Arrays.fill(ones, 1);
        try (DeviceScatter dz = upload(gpu, z, "rows"); DeviceVector o = gpu.upload(ones);
             DeviceVector l = gpu.allocate(z.localSize()); DeviceVector g = gpu.allocate(z.globalSize())) {
            gpu.scatter(dz, o, l);
            gpu.gather(dz, l, g);
            double[] got = gpu.download(g);
            int[] deg = z.degree();
            for (int i = 0; i < deg.length; i++) {
                assertEquals(deg[i], got[i], 0.0, "degree of assembled node " + i);
            }
        }
    }

    /**
     * The compact tiles of a mesh's Z: at N = 7 most tiles of rows (element interiors) and of local nodes are compact, and
     * each compact tile's base + offset is the index it stands for.
     */
    @Test
    void compactTilesStandForTheirIndices() {
        ScatterOperator z = TestProblems.unmasked(TestProblems.deformedBox(4, 4, 4, 7));
        int[] ids = z.scatterIds();
        CompactTiles l = CompactTiles.ofScatter(ids);
        CompactTiles g = CompactTiles.ofGather(z.gatherStarts(), z.gatherIds(), z.globalSize());
        int tile = io.lobatto.backend.aparapi.kernels.GatherScatterRowsKernel.TILE;
        for (int i = 0; i < ids.length; i++) {
            int base = l.bases()[i / tile];
            if (base >= 0) {
                assertEquals(ids[i], base + ((l.offsets()[i >> 1] >> ((i & 1) * 16)) & 0xFFFF), "local node " + i);
            }
        }
        int[] starts = z.gatherStarts();
        int[] gids = z.gatherIds();
        for (int r = 0; r < z.globalSize(); r++) {
            int base = g.bases()[r / tile];
            if (base >= 0) {
                assertEquals(1, starts[r + 1] - starts[r], "row " + r);
                assertEquals(gids[starts[r]], base + ((g.offsets()[r >> 1] >> ((r & 1) * 16)) & 0xFFFF), "row " + r);
            }
        }
        int tilesL = (ids.length + tile - 1) / tile;
        int tilesG = (z.globalSize() + tile - 1) / tile;
        assertTrue(l.compactTiles() > tilesL / 2, l.compactTiles() + " of " + tilesL + " local tiles compact");
        assertTrue(g.compactTiles() > tilesG / 3, g.compactTiles() + " of " + tilesG + " row tiles compact");
    }

    @Test
    void anUnknownKindIsNamed() {
        Backend gpu = AparapiFixture.backend();
        ScatterOperator z = TestProblems.unmasked(TestProblems.deformedBox(1, 1, 1, 2));
        System.setProperty(GatherScatter.KIND_PROPERTY, "fast");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> gpu.uploadScatter(z.scatterIds(),
                z.gatherStarts(), z.gatherIds(), z.blockStarts(), z.inverseDegree(), z.globalSize()));
        assertEquals("-Dlobatto.aparapi.gatherScatter=fast: expected blocks, rows or tiles", e.getMessage());
    }
}
