package io.lobatto.core.mesh;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.lobatto.core.geometry.GeometricFactors;

/** Gmsh 4.1 binary files (both byte orders, 4- and 8-byte size_t) and 27-node hexahedra, from files written here. */
class GmshBinaryAndHex27Test {

    /** An element block: entity dimension and tag, Gmsh type, and per element its tag followed by its node tags. */
    record Block(int dim, int entity, int type, List<long[]> elements) {
    }

    /** A mesh to write: node i has tag i + 1; surface entities 1..k carry the given physical tags; one volume entity 1. */
    record Model(double[] xyz, int[] surfacePhysical, List<Block> blocks) {

        String text() {
            StringBuilder b = new StringBuilder("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Entities\n0 1 ")
                .append(surfacePhysical.length).append(" 1\n");
            b.append("1 0 0 0 1 1 1 0 0\n");
            for (int s = 0; s < surfacePhysical.length; s++) {
                b.append(s + 1).append(" 0 0 0 1 1 1 1 ").append(surfacePhysical[s]).append(" 0\n");
            }
            b.append("1 0 0 0 1 1 1 0 0\n$EndEntities\n");
            int n = xyz.length / 3;
            b.append("$Nodes\n1 ").append(n).append(" 1 ").append(n).append("\n3 1 0 ").append(n).append('\n');
            for (int i = 1; i <= n; i++) {
                b.append(i).append('\n');
            }
            for (int i = 0; i < n; i++) {
                b.append(xyz[3 * i]).append(' ').append(xyz[3 * i + 1]).append(' ').append(xyz[3 * i + 2]).append('\n');
            }
            b.append("$EndNodes\n$Elements\n").append(blocks.size()).append(' ').append(total()).append(" 1 ").append(total()).append('\n');
            for (Block k : blocks) {
                b.append(k.dim()).append(' ').append(k.entity()).append(' ').append(k.type()).append(' ').append(k.elements().size()).append('\n');
                for (long[] e : k.elements()) {
                    for (int i = 0; i < e.length; i++) {
                        b.append(i == 0 ? "" : " ").append(e[i]);
                    }
                    b.append('\n');
                }
            }
            return b.append("$EndElements\n").toString();
        }

        int total() {
            return blocks.stream().mapToInt(k -> k.elements().size()).sum();
        }

        byte[] binary(ByteOrder order, int sizeT) {
            Bin o = new Bin(order, sizeT);
            o.text("$MeshFormat\n4.1 1 " + sizeT + "\n");
            o.i32(1);
            o.text("\n$EndMeshFormat\n$Entities\n");
            o.size(0);
            o.size(1);
            o.size(surfacePhysical.length);
            o.size(1);
            o.i32(1);
            o.box();
            o.size(0);
            o.size(0);
            for (int s = 0; s < surfacePhysical.length; s++) {
                o.i32(s + 1);
                o.box();
                o.size(1);
                o.i32(surfacePhysical[s]);
                o.size(0);
            }
            o.i32(1);
            o.box();
            o.size(0);
            o.size(0);
            o.text("\n$EndEntities\n$Nodes\n");
            int n = xyz.length / 3;
            o.size(1);
            o.size(n);
            o.size(1);
            o.size(n);
            o.i32(3);
            o.i32(1);
            o.i32(0);
            o.size(n);
            for (int i = 1; i <= n; i++) {
                o.size(i);
            }
            for (double x : xyz) {
                o.f64(x);
            }
            o.text("\n$EndNodes\n$Elements\n");
            o.size(blocks.size());
            o.size(total());
            o.size(1);
            o.size(total());
            for (Block k : blocks) {
                o.i32(k.dim());
                o.i32(k.entity());
                o.i32(k.type());
                o.size(k.elements().size());
                for (long[] e : k.elements()) {
                    for (long v : e) {
                        o.size(v);
                    }
                }
            }
            o.text("\n$EndElements\n");
            return o.out.toByteArray();
        }
    }

    /** Little helper writing binary Gmsh primitives. */
    static final class Bin {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteOrder order;
        final int sizeT;

        Bin(ByteOrder order, int sizeT) {
            this.order = order;
            this.sizeT = sizeT;
        }

        void text(String s) {
            out.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
        }

        void i32(int v) {
            out.writeBytes(ByteBuffer.allocate(4).order(order).putInt(v).array());
        }

        void f64(double v) {
            out.writeBytes(ByteBuffer.allocate(8).order(order).putDouble(v).array());
        }

        void size(long v) {
            out.writeBytes(sizeT == 8 ? ByteBuffer.allocate(8).order(order).putLong(v).array()
                : ByteBuffer.allocate(4).order(order).putInt((int) v).array());
        }

        void box() {
            for (int i = 0; i < 6; i++) {
                f64(i < 3 ? 0 : 1);
            }
        }
    }

    /** The curved map used for the hex27 test: triquadratic in each straight (affine) element, so hex27 holds it exactly. */
    static double[] bend(double x, double y, double z) {
        return new double[] {x + 0.1 * y * y - 0.05 * z, y + 0.05 * x * z + 0.08 * x * (2 - x), z + 0.1 * x * (2 - x) * y};
    }

    /**
     * A 2 x 1 x 1 box [0,2] x [0,1] x [0,1] as 27-node (or 8-node) hexahedra on the 5 x 3 x 3 grid of points, bent by
     * {@link #bend} if {@code curved}; the faces at x = 0 tagged 7 (quad9 / quad4), plus a line element to step over.
     */
    static Model box(boolean second, boolean curved) {
        int nx = 5, ny = 3, nz = 3;
        double[] xyz = new double[3 * nx * ny * nz];
        for (int k = 0; k < nz; k++) {
            for (int j = 0; j < ny; j++) {
                for (int i = 0; i < nx; i++) {
                    int id = i + nx * (j + ny * k);
                    double[] p = curved ? bend(i / 2.0, j / 2.0, k / 2.0) : new double[] {i / 2.0, j / 2.0, k / 2.0};
                    System.arraycopy(p, 0, xyz, 3 * id, 3);
                }
            }
        }
        List<long[]> hexes = new ArrayList<>();
        for (int e = 0; e < 2; e++) {
            int[][] ref = GmshReader.Hex27Map.REF;
            int count = second ? 27 : 8;
            long[] el = new long[1 + count];
            el[0] = 10 + e;
            for (int a = 0; a < count; a++) {
                int i = 2 * e + 1 + ref[a][0], j = 1 + ref[a][1], k = 1 + ref[a][2];
                el[1 + a] = 1 + i + nx * (j + ny * k);
            }
            hexes.add(el);
        }
        // the x = 0 face: corners (y,z) = (0,0) (1,0) (1,1) (0,1), then for quad9 edge midpoints and centre
        int[][] q = {{0, 0}, {2, 0}, {2, 2}, {0, 2}, {1, 0}, {2, 1}, {1, 2}, {0, 1}, {1, 1}};
        long[] quad = new long[1 + (second ? 9 : 4)];
        quad[0] = 20;
        for (int a = 0; a + 1 < quad.length; a++) {
            quad[1 + a] = 1 + nx * (q[a][0] + ny * q[a][1]);
        }
        List<Block> blocks = List.of(new Block(1, 1, 1, List.<long[]>of(new long[] {30, 1, 2})),
            new Block(2, 1, second ? 10 : 3, List.<long[]>of(quad)),
            new Block(3, 1, second ? 12 : 5, hexes));
        return new Model(xyz, new int[] {7}, blocks);
    }

    private static GmshReader.GmshMesh load(byte[] b) {
        return GmshReader.load(new ByteArrayInputStream(b));
    }

    @Test
    void binaryFilesReadAsTheSameMeshAsText(@TempDir Path dir) throws Exception {
        for (boolean second : new boolean[] {false, true}) {
            Model m = box(second, second);
            GmshReader.GmshMesh text = load(m.text().getBytes(StandardCharsets.US_ASCII));
            assertEquals(2, text.hexMesh().elementCount());
            assertEquals(7, text.hexMesh().faceTag(0, 0), "the quad on x = 0 tags face r- of element 0");
            for (ByteOrder order : new ByteOrder[] {ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN}) {
                for (int sizeT : new int[] {4, 8}) {
                    byte[] bin = m.binary(order, sizeT);
                    Path f = dir.resolve("m-" + second + order + sizeT + ".msh");
                    Files.write(f, bin);
                    GmshReader.GmshMesh b = GmshReader.load(f);
                    String what = order + ", size_t " + sizeT + ", hex27 " + second;
                    assertArrayEquals(text.hexMesh().vertices(), b.hexMesh().vertices(), 0.0, what);
                    assertArrayEquals(text.hexMesh().elements(), b.hexMesh().elements(), what);
                    assertArrayEquals(text.hexMesh().faceTags(), b.hexMesh().faceTags(), what);
                    assertEquals(second, b.curved(), what);
                    assertArrayEquals(text.spectralMesh(3).coordinates(), b.spectralMesh(3).coordinates(), 0.0, what);
                    assertArrayEquals(text.hexMesh().elements(), GmshReader.read(f).elements(), what);
                }
            }
        }
    }

    @Test
    void hex27NodesPutTheGllNodesOnTheCurvedElement() {
        Model curved = box(true, true);
        GmshReader.GmshMesh g = load(curved.text().getBytes(StandardCharsets.US_ASCII));
        assertTrue(g.curved());
        // corners of the straight mesh are the bent grid's corners
        HexMesh hex = g.hexMesh();
        for (int n : new int[] {4, 7}) {
            SpectralElementMesh s = g.spectralMesh(n);
            SpectralElementMesh straight = load(box(false, false).text().getBytes(StandardCharsets.US_ASCII)).spectralMesh(n);
            int np = s.nodesPerElement();
            double worst = 0;
            for (int e = 0; e < s.elementCount(); e++) {
                for (int p = 0; p < np; p++) {
                    // the same GLL node of the unbent 2x1x1 box, bent exactly
                    double[] want = bend(straight.x(e, p, 0), straight.x(e, p, 1), straight.x(e, p, 2));
                    for (int d = 0; d < 3; d++) {
                        worst = Math.max(worst, Math.abs(want[d] - s.x(e, p, d)));
                    }
                }
            }
            assertTrue(worst < 1e-13, "N = " + n + ": GLL nodes off the curved element by " + worst);
            // the map bends the interior: some node moves well away from the straight-sided position
            SpectralElementMesh flat = SpectralElementMesh.of(hex, n);
            double moved = 0;
            double[] a = s.coordinates(), b = flat.coordinates();
            for (int i = 0; i < a.length; i++) {
                moved = Math.max(moved, Math.abs(a[i] - b[i]));
            }
            assertTrue(moved > 1e-3, "hex27 geometry is curved: moved " + moved);
            assertEquals((n + 1) * (n + 1), SpectralElementMeshTest.count(s.boundaryMask(7)));
            assertTrue(GeometricFactors.atGauss(s).volume() > 1.9);
        }
    }

    @Test
    void hex8OnlyFilesKeepTheIdentityMap() {
        GmshReader.GmshMesh g = load(box(false, false).text().getBytes(StandardCharsets.US_ASCII));
        assertFalse(g.curved());
        assertSame(NodeMap.identity(), g.nodeMap());
    }

    @Test
    void badBinaryHeadersAreOneLineErrors() {
        Model m = box(false, false);
        byte[] ok = m.binary(ByteOrder.LITTLE_ENDIAN, 8);
        String s = new String(ok, StandardCharsets.ISO_8859_1);
        byte[] badSize = s.replace("4.1 1 8", "4.1 1 2").getBytes(StandardCharsets.ISO_8859_1);
        assertTrue(assertThrows(MeshFormatException.class, () -> load(badSize)).getMessage().contains("data-size"));
        byte[] badOne = ok.clone();
        int at = s.indexOf("4.1 1 8\n") + 8;
        badOne[at] = 7;
        assertTrue(assertThrows(MeshFormatException.class, () -> load(badOne)).getMessage().contains("endianness"));
        byte[] truncated = java.util.Arrays.copyOf(ok, ok.length - 40);
        assertThrows(MeshFormatException.class, () -> load(truncated));
    }

    /** A binary file whose header counts exceed the file: one-line errors naming the count, its value and the limit. */
    @Test
    void hugeBinaryCountsInATinyFileAreOneLineErrors() {
        for (int sizeT : new int[] {4, 8}) {
            // $Nodes: 1 block of 999999999 nodes, then nothing
            Bin o = header(sizeT);
            o.text("$Nodes\n");
            o.size(1);
            o.size(999_999_999);
            o.size(1);
            o.size(999_999_999);
            o.text("\n$EndNodes\n");
            MeshFormatException ex = assertThrows(MeshFormatException.class, () -> load(o.out.toByteArray()));
            assertTrue(ex.getMessage().contains("number of nodes 999999999 in the $Nodes header exceeds the limit 0:"), ex.getMessage());
            assertEquals(5, ex.line(), ex.getMessage());
            // a size_t beyond the int range (8-byte data-size only)
            if (sizeT == 8) {
                Bin big = header(sizeT);
                big.text("$Nodes\n");
                big.size(1);
                big.size(1L << 40);
                big.size(1);
                big.size(1);
                big.text("\n$EndNodes\n");
                MeshFormatException e2 = assertThrows(MeshFormatException.class, () -> load(big.out.toByteArray()));
                assertTrue(e2.getMessage().contains("number of nodes 1099511627776 in the $Nodes header exceeds the limit 2147483639"),
                    e2.getMessage());
            }
            // $Elements after one node: a block announcing 999999999 hexahedra
            Bin e = header(sizeT);
            e.text("$Nodes\n");
            e.size(1);
            e.size(1);
            e.size(1);
            e.size(1);
            e.i32(3);
            e.i32(1);
            e.i32(0);
            e.size(1);
            e.size(1);
            e.f64(0);
            e.f64(0);
            e.f64(0);
            e.text("\n$EndNodes\n$Elements\n");
            e.size(1);
            e.size(1);
            e.size(1);
            e.size(1);
            e.i32(3);
            e.i32(1);
            e.i32(5);
            e.size(999_999_999);
            e.text("\n$EndElements\n");
            MeshFormatException ex3 = assertThrows(MeshFormatException.class, () -> load(e.out.toByteArray()));
            assertTrue(ex3.getMessage().contains("number of elements 999999999 in the element block header exceeds the limit "),
                ex3.getMessage());
            // $Entities announcing 999999999 volumes
            Bin v = header(sizeT);
            v.text("$Entities\n");
            v.size(0);
            v.size(0);
            v.size(0);
            v.size(999_999_999);
            v.text("\n$EndEntities\n");
            MeshFormatException ex4 = assertThrows(MeshFormatException.class, () -> load(v.out.toByteArray()));
            assertTrue(ex4.getMessage().contains("number of volume entities 999999999 in the $Entities header exceeds the limit 0:"),
                ex4.getMessage());
        }
    }

    private static Bin header(int sizeT) {
        Bin o = new Bin(ByteOrder.LITTLE_ENDIAN, sizeT);
        o.text("$MeshFormat\n4.1 1 " + sizeT + "\n");
        o.i32(1);
        o.text("\n$EndMeshFormat\n");
        return o;
    }
}
