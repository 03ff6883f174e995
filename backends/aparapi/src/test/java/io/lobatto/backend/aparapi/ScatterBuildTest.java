package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.backend.aparapi.conformance.AparapiFixture;
import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import java.nio.IntBuffer;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Z built on the device ({@link ScatterBuild}, {@link Backend#buildScatter}) against the host's
 * {@link ScatterOperator#build}: every array equal entry for entry (scatter ids, row starts, the rows' local ids in
 * ascending order, the greedy blocks) and W bit for bit, on mesh numberings with and without masks, on maps of random
 * order and degree up to 12, across several chunks and block runs; and the host's errors for bad maps.
 */
@ExtendWith(io.lobatto.backend.aparapi.conformance.SkipWithoutOpenCl.class)
class ScatterBuildTest {

    @AfterEach
    void clearKind() {
        System.clearProperty(GatherScatter.KIND_PROPERTY);
    }

    private static int[] ints(Backend be, ClVector v) {
        int[] out = new int[v.length()];
        ((AparapiBackend) be).runtime().read(v.buffer, 0, out, 0, out.length);
        return out;
    }

    /** The device build of (l2g, count, masked) equals the host build, array for array. */
    private static void assertSameZ(int[] l2g, int count, boolean[] masked, String what) {
        Backend be = AparapiFixture.backend();
        ScatterOperator host = ScatterOperator.build(l2g, count, masked);
        for (String kind : new String[] {"rows", "blocks"}) {
            System.setProperty(GatherScatter.KIND_PROPERTY, kind);
            try (DeviceScatter dz = be.buildScatter(IntBuffer.wrap(l2g).asReadOnlyBuffer(), count, masked).orElseThrow()) {
                ClScatter z = (ClScatter) dz;
                String w = what + ", " + kind;
                assertEquals(host.globalSize(), z.globalSize(), w + ": N_G");
                assertEquals(host.localSize(), z.localSize(), w + ": N_L");
                assertArrayEquals(host.scatterIds(), ints(be, z.scatterIds), w + ": scatter ids");
                assertArrayEquals(host.gatherStarts(), ints(be, z.gatherStarts), w + ": row starts");
                assertArrayEquals(host.gatherIds(), java.util.Arrays.copyOf(ints(be, z.gatherIds), host.unmaskedLocalCount()),
                        w + ": rows' local ids");
                assertArrayEquals(host.blockStarts(), ints(be, z.blockStarts), w + ": block starts");
                assertEquals(host.blockCount(), z.blocks, w + ": blocks");
                assertArrayEquals(host.inverseDegree(), be.download(z.inverseDegree), 0.0, w + ": W");
            } finally {
                System.clearProperty(GatherScatter.KIND_PROPERTY);
            }
        }
    }

    @Test
    void meshNumberingsAtSeveralDegreesAndMasks() {
        for (int degree : new int[] {1, 2, 3, 7}) {
            SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
            int[] l2g = mesh.localToGlobal();
            int n = mesh.globalNodeCount();
            assertSameZ(l2g, n, null, "N = " + degree + " unmasked");
            assertSameZ(l2g, n, mesh.boundaryMaskAllTagged(), "N = " + degree + " Dirichlet");
            assertSameZ(l2g, n, mesh.boundaryMask(HexMesh.TAG_XMIN, HexMesh.TAG_ZMAX), "N = " + degree + " partly masked");
        }
    }

    /** 10^3 elements at N = 4: 68921 rows, two runs of blocks, 1077 chunks. */
    @Test
    void severalBlockRunsAndChunks() {
        SpectralElementMesh mesh = TestProblems.deformedBox(10, 10, 10, 4);
        assertTrue(mesh.globalNodeCount() > io.lobatto.backend.aparapi.kernels.ScatterBuildKernel.RUN);
        assertSameZ(mesh.localToGlobal(), mesh.globalNodeCount(), null, "10^3, N = 4, unmasked");
        assertSameZ(mesh.localToGlobal(), mesh.globalNodeCount(), mesh.boundaryMaskAllTagged(), "10^3, N = 4, Dirichlet");
    }

    /** Maps of random order with degrees 1..12 (unstructured meshes have high-valence vertices), masked nodes unreferenced too. */
    @Test
    void randomMapsOfHighDegree() {
        Random rnd = new Random(5);
        for (int trial = 0; trial < 4; trial++) {
            int count = 500 + rnd.nextInt(3000);
            int[] degree = new int[count];
            boolean[] masked = new boolean[count];
            int nl = 0;
            for (int g = 0; g < count; g++) {
                masked[g] = rnd.nextInt(7) == 0;
                degree[g] = masked[g] && rnd.nextBoolean() ? 0 : 1 + rnd.nextInt(12);
                nl += degree[g];
            }
            int[] l2g = new int[nl];
            int k = 0;
            for (int g = 0; g < count; g++) {
                for (int c = 0; c < degree[g]; c++) {
                    l2g[k++] = g;
                }
            }
            for (int i = nl - 1; i > 0; i--) {
                int j = rnd.nextInt(i + 1);
                int t = l2g[i];
                l2g[i] = l2g[j];
                l2g[j] = t;
            }
            assertSameZ(l2g, count, masked, "random map " + trial);
        }
    }

    @Test
    void emptyAndAllMasked() {
        assertSameZ(new int[0], 0, null, "empty");
        assertSameZ(new int[] {0, 1, 1, 0}, 2, new boolean[] {true, true}, "all masked");
    }

    @Test
    void badMapsFailAsOnTheHost() {
        Backend be = AparapiFixture.backend();
        IllegalArgumentException range = assertThrows(IllegalArgumentException.class,
                () -> be.buildScatter(IntBuffer.wrap(new int[] {0, 1, 5, 2}), 3, null));
        assertEquals("localToGlobal[2] = 5 is out of range [0, 3)", range.getMessage());
        IllegalArgumentException unreferenced = assertThrows(IllegalArgumentException.class,
                () -> be.buildScatter(IntBuffer.wrap(new int[] {0, 2, 2, 0}), 3, null));
        assertTrue(unreferenced.getMessage().startsWith("global node 1 is unmasked but no local node references it"),
                unreferenced.getMessage());
        IllegalArgumentException mask = assertThrows(IllegalArgumentException.class,
                () -> be.buildScatter(IntBuffer.wrap(new int[] {0, 1}), 2, new boolean[3]));
        assertEquals("masked has length 3 but originalNodeCount = 2", mask.getMessage());
        // the masked, unreferenced node is no error
        try (DeviceScatter z = be.buildScatter(IntBuffer.wrap(new int[] {0, 2, 2, 0}), 3, new boolean[] {false, true, false})
                .orElseThrow()) {
            assertEquals(2, z.globalSize());
        }
    }

    /** The tiles kind keeps its host build (its compact indices are made there). */
    @Test
    void tilesKindBuildsOnTheHost() {
        System.setProperty(GatherScatter.KIND_PROPERTY, "tiles");
        assertFalse(AparapiFixture.backend().buildScatter(IntBuffer.wrap(new int[] {0, 1}), 2, null).isPresent());
    }
}
