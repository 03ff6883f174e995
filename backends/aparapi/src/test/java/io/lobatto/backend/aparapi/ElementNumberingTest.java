package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.backend.aparapi.conformance.AparapiFixture;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.mesh.GmshReader;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.HexReference;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import java.io.ByteArrayInputStream;
import java.nio.IntBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The local-to-global map made on the device from a mesh's numbering by entities
 * ({@link io.lobatto.backend.aparapi.kernels.ElementNumberingKernel}) against the host's
 * {@link SpectralElementMesh#localToGlobal()}, entry for entry, at N = 1..8 on a box, on a Gmsh mesh whose elements
 * have rotated frames (reversed edges, faces in every frame) and on a mesh with a node map; and Z built from it
 * ({@code buildScatter(ElementNumbering, boolean[])}) against Z built on the device from the host map and against the
 * host's {@link ScatterOperator#of}: every array entry for entry and W bit for bit, with and without masks.
 */
@ExtendWith(io.lobatto.backend.aparapi.conformance.SkipWithoutOpenCl.class)
class ElementNumberingTest {

    @AfterEach
    void clearKind() {
        System.clearProperty(GatherScatter.KIND_PROPERTY);
    }

    private static int[] ints(AparapiBackend be, ClVector v) {
        int[] out = new int[v.length()];
        be.runtime().read(v.buffer, 0, out, 0, out.length);
        return out;
    }

    /** A box whose elements' frames are random cube rotations and whose vertex ids are shuffled. */
    static HexMesh scrambled(HexMesh box, long seed) {
        Random rnd = new Random(seed);
        int[][] rot = HexReference.cubeRotations();
        HexMesh m = box;
        for (int e = 0; e < m.elementCount(); e++) {
            m = m.rotateElementVertices(e, rot[rnd.nextInt(rot.length)]);
        }
        int nv = m.vertexCount();
        int[] perm = new int[nv];
        for (int i = 0; i < nv; i++) {
            perm[i] = i;
        }
        for (int i = nv - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        double[] v = m.vertices();
        double[] nvtx = new double[v.length];
        for (int i = 0; i < nv; i++) {
            System.arraycopy(v, 3 * i, nvtx, 3 * perm[i], 3);
        }
        int[] el = m.elements();
        for (int k = 0; k < el.length; k++) {
            el[k] = perm[el[k]];
        }
        return new HexMesh(nvtx, el, m.faceTags());
    }

    /** {@code mesh} as a Gmsh 4.1 text file of 8-node hexahedra (one volume entity), read back by {@link GmshReader}. */
    static GmshReader.GmshMesh throughGmsh(HexMesh mesh) {
        int n = mesh.vertexCount();
        int ne = mesh.elementCount();
        StringBuilder b = new StringBuilder("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Entities\n0 0 0 1\n1 0 0 0 1 1 1 0 0\n"
                + "$EndEntities\n$Nodes\n1 " + n + " 1 " + n + "\n3 1 0 " + n + "\n");
        for (int i = 1; i <= n; i++) {
            b.append(i).append('\n');
        }
        for (int i = 0; i < n; i++) {
            b.append(mesh.vertex(i, 0)).append(' ').append(mesh.vertex(i, 1)).append(' ').append(mesh.vertex(i, 2)).append('\n');
        }
        b.append("$EndNodes\n$Elements\n1 ").append(ne).append(" 1 ").append(ne).append("\n3 1 5 ").append(ne).append('\n');
        for (int e = 0; e < ne; e++) {
            b.append(e + 1);
            for (int c = 0; c < 8; c++) {
                b.append(' ').append(mesh.elementVertex(e, c) + 1);
            }
            b.append('\n');
        }
        b.append("$EndElements\n");
        return GmshReader.load(new ByteArrayInputStream(b.toString().getBytes(StandardCharsets.US_ASCII)));
    }

    /** The meshes of the test at degree {@code n}: a box, a Gmsh mesh of rotated frames, a mesh with a node map. */
    static List<SpectralElementMesh> meshes(int n) {
        List<SpectralElementMesh> out = new ArrayList<>();
        out.add(SpectralElementMesh.of(HexMesh.box(3, 2, 2, 0, 1, 0, 1, 0, 1), n));
        out.add(throughGmsh(scrambled(HexMesh.box(3, 3, 2, 0, 1, 0, 2, 0, 1), 17 + n)).spectralMesh(n));
        out.add(SpectralElementMesh.of(scrambled(HexMesh.box(2, 3, 3, 0, 1, 0, 2, 0, 1.5), 5 + n), n,
                NodeMap.sinusoidal(0.08, 0, 1, 0, 2, 0, 1.5)));
        return out;
    }

    @Test
    void deviceMapEqualsTheHostMapAtDegreesOneToEight() {
        AparapiBackend be = (AparapiBackend) AparapiFixture.backend();
        for (int n = 1; n <= 8; n++) {
            for (SpectralElementMesh mesh : meshes(n)) {
                int[] device = be.numberOnDevice(mesh.numbering());
                int[] host = mesh.localToGlobal();
                assertEquals(mesh.localSize(), device.length, mesh + ": N_L");
                assertArrayEquals(host, device, mesh + ": l2g made on the device");
            }
        }
    }

    /** A wrong entry of the map shows: the test can fail (a face frame's first-axis bit flipped). */
    @Test
    void aWrongOrientationChangesTheMap() {
        AparapiBackend be = (AparapiBackend) AparapiFixture.backend();
        SpectralElementMesh mesh = throughGmsh(scrambled(HexMesh.box(2, 2, 2, 0, 1, 0, 1, 0, 1), 3)).spectralMesh(4);
        int[] host = mesh.localToGlobal();
        assertArrayEquals(host, be.numberOnDevice(mesh.numbering()));
        boolean rotatedSomewhere = false;
        IntBuffer o = mesh.numbering().orientations();
        for (int e = 0; e < mesh.elementCount(); e++) {
            rotatedSomewhere |= o.get(e) != 0;
        }
        assertTrue(rotatedSomewhere, "the scrambled mesh has reversed edges or rotated face frames");
        SpectralElementMesh plain = SpectralElementMesh.of(HexMesh.box(2, 2, 2, 0, 1, 0, 1, 0, 1), 4);
        assertNotEquals(java.util.Arrays.hashCode(plain.localToGlobal()), java.util.Arrays.hashCode(host));
    }

    /** Z from the numbering equals Z from the host map (device build and host build), every array. */
    @Test
    void zFromTheNumberingEqualsZFromTheHostMap() {
        AparapiBackend be = (AparapiBackend) AparapiFixture.backend();
        for (int n = 1; n <= 8; n++) {
            for (SpectralElementMesh mesh : meshes(n)) {
                boolean[][] masks = {null, mesh.boundaryMaskAllTagged(), mesh.boundaryMask(HexMesh.TAG_XMIN, HexMesh.TAG_ZMAX)};
                for (int mk = 0; mk < masks.length; mk++) {
                    boolean[] masked = masks[mk];
                    ScatterOperator host = ScatterOperator.of(mesh, masked);
                    for (String kind : new String[] {"blocks", "rows"}) {
                        System.setProperty(GatherScatter.KIND_PROPERTY, kind);
                        String w = mesh + ", mask " + mk + ", " + kind;
                        try (DeviceScatter d1 = be.buildScatter(mesh.numbering(), masked).orElseThrow();
                             DeviceScatter d2 = be.buildScatter(mesh.localToGlobalView(), mesh.globalNodeCount(), masked)
                                     .orElseThrow()) {
                            ClScatter a = (ClScatter) d1;
                            ClScatter b = (ClScatter) d2;
                            assertEquals(host.globalSize(), a.globalSize(), w + ": N_G");
                            assertEquals(host.localSize(), a.localSize(), w + ": N_L");
                            assertArrayEquals(host.scatterIds(), ints(be, a.scatterIds), w + ": scatter ids");
                            assertArrayEquals(ints(be, b.scatterIds), ints(be, a.scatterIds), w + ": scatter ids (device)");
                            assertArrayEquals(host.gatherStarts(), ints(be, a.gatherStarts), w + ": row starts");
                            assertArrayEquals(host.gatherIds(), java.util.Arrays.copyOf(ints(be, a.gatherIds),
                                    host.unmaskedLocalCount()), w + ": rows' local ids");
                            assertArrayEquals(ints(be, b.gatherIds), ints(be, a.gatherIds), w + ": rows' local ids (device)");
                            assertArrayEquals(host.blockStarts(), ints(be, a.blockStarts), w + ": block starts");
                            assertEquals(b.blocks, a.blocks, w + ": blocks");
                            assertArrayEquals(host.inverseDegree(), be.download(a.inverseDegree), 0.0, w + ": W");
                            double[] w1 = be.download(a.inverseDegree);
                            double[] w2 = be.download(b.inverseDegree);
                            for (int i = 0; i < w1.length; i++) {
                                assertEquals(Double.doubleToRawLongBits(w2[i]), Double.doubleToRawLongBits(w1[i]), w + ": W bits");
                            }
                        } finally {
                            System.clearProperty(GatherScatter.KIND_PROPERTY);
                        }
                    }
                }
            }
        }
    }

    /** ScatterOperator.buildOn takes the numbering's path by default and the host map's with the switch off: same Z x. */
    @Test
    void buildOnWithAndWithoutTheSwitch() {
        AparapiBackend be = (AparapiBackend) AparapiFixture.backend();
        SpectralElementMesh mesh = throughGmsh(scrambled(HexMesh.box(3, 2, 2, 0, 1, 0, 1, 0, 1), 9)).spectralMesh(5);
        Random rnd = new Random(1);
        try (DeviceScatter z1 = ScatterOperator.buildOn(be, mesh, null)) {
            System.setProperty(io.lobatto.core.mesh.ElementNumbering.DEVICE_PROPERTY, "false");
            double[] v = new double[z1.globalSize()];
            for (int i = 0; i < v.length; i++) {
                v[i] = rnd.nextDouble() - 0.5;
            }
            try (DeviceScatter z2 = ScatterOperator.buildOn(be, mesh, null);
                 var xg = be.upload(v); var y1 = be.allocate(z1.localSize()); var y2 = be.allocate(z1.localSize())) {
                be.scatter(z1, xg, y1);
                be.scatter(z2, xg, y2);
                assertArrayEquals(be.download(y2), be.download(y1), 0.0, "Z x the same");
            } finally {
                System.clearProperty(io.lobatto.core.mesh.ElementNumbering.DEVICE_PROPERTY);
            }
        }
    }
}
