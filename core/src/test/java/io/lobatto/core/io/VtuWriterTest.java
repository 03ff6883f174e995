package io.lobatto.core.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.core.mesh.TestMeshes;

class VtuWriterTest {

    /** A sheared affine map, so that no element is axis-aligned. */
    private static final double[] A = {1.0, 0.3, 0.1, -0.2, 1.1, 0.25, 0.05, -0.15, 0.9};
    private static final double[] B = {0.5, -1.0, 2.0};

    /** VTK's edge table of the hexahedron (vtkHigherOrderInterpolation: start and end corner of edges 0..11). */
    private static final int[][] VTK_EDGES = {{0, 1}, {1, 2}, {3, 2}, {0, 3}, {4, 5}, {5, 6}, {7, 6}, {4, 7},
        {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    /** VTK's face table: corners c0 c1 c2 c3; c0->c1 is the fastest in-face axis, c0->c3 the other. */
    private static final int[][] VTK_FACES = {{0, 3, 7, 4}, {1, 2, 6, 5}, {0, 1, 5, 4}, {3, 2, 6, 7}, {0, 1, 2, 3},
        {4, 5, 6, 7}};

    private static SpectralElementMesh mesh(int degree) {
        HexMesh box = TestMeshes.scrambled(HexMesh.box(2, 2, 1, 0, 2, 0, 1, 0, 1), 7);
        return SpectralElementMesh.of(box, degree, NodeMap.affine(A, B));
    }

    private static double[] mapped(double[] p) {
        double[] x = new double[3];
        NodeMap.affine(A, B).map(p, x);
        return x;
    }

    /** The parsed file: its DataArrays by name (decoded), and the Piece attributes. */
    private record Vtu(Document doc, Map<String, ByteBuffer> arrays, Map<String, Element> elements) {
        double[] doubles(String name) {
            ByteBuffer b = arrays.get(name);
            double[] v = new double[b.remaining() / 8];
            b.duplicate().order(ByteOrder.LITTLE_ENDIAN).asDoubleBuffer().get(v);
            return v;
        }

        long[] longs(String name) {
            ByteBuffer b = arrays.get(name);
            long[] v = new long[b.remaining() / 8];
            b.duplicate().order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(v);
            return v;
        }

        int attribute(String tag, String name) {
            return Integer.parseInt(((Element) doc.getElementsByTagName(tag).item(0)).getAttribute(name));
        }
    }

    private static Vtu parse(byte[] file) throws Exception {
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(file));
        Element root = doc.getDocumentElement();
        assertEquals("VTKFile", root.getTagName());
        assertEquals("UnstructuredGrid", root.getAttribute("type"));
        assertEquals("2.2", root.getAttribute("version"));
        assertEquals("LittleEndian", root.getAttribute("byte_order"));
        assertEquals("UInt64", root.getAttribute("header_type"));
        NodeList list = doc.getElementsByTagName("DataArray");
        Map<String, ByteBuffer> arrays = new HashMap<>();
        Map<String, Element> elements = new HashMap<>();
        for (int i = 0; i < list.getLength(); i++) {
            Element a = (Element) list.item(i);
            assertEquals("binary", a.getAttribute("format"));
            byte[] raw = Base64.getDecoder().decode(a.getTextContent().strip());
            ByteBuffer b = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN);
            long count = b.getLong();
            assertEquals(raw.length - 8, count, "byte count header of " + a.getAttribute("Name"));
            arrays.put(a.getAttribute("Name"), b.slice());
            elements.put(a.getAttribute("Name"), a);
        }
        return new Vtu(doc, arrays, elements);
    }

    private static byte[] write(VtuWriter w) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        w.write(out);
        return out.toByteArray();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5})
    void connectivityFollowsVtkLagrangeOrderByCoordinates(int degree) throws Exception {
        SpectralElementMesh m = mesh(degree);
        double[] g = m.globalCoordinates();
        double[] u = new double[m.globalNodeCount()];
        for (int i = 0; i < u.length; i++) {
            u[i] = linear(g, i);
        }
        Vtu vtu = parse(write(new VtuWriter(m).scalar("u", u).vector("x", g)));
        int ne = m.elementCount(), nq = degree + 1, np = nq * nq * nq, mm = degree - 1;
        assertEquals(m.globalNodeCount(), vtu.attribute("Piece", "NumberOfPoints"));
        assertEquals(ne, vtu.attribute("Piece", "NumberOfCells"));
        double[] points = vtu.doubles("Points");
        assertEquals(g.length, points.length);
        long[] conn = vtu.longs("connectivity");
        assertEquals(ne * np, conn.length);
        long[] offsets = vtu.longs("offsets");
        for (int e = 0; e < ne; e++) {
            assertEquals((long) (e + 1) * np, offsets[e]);
        }
        byte[] types = new byte[ne];
        vtu.arrays().get("types").get(types);
        for (byte t : types) {
            assertEquals(72, t);
        }
        // a field linear in x is linear in the element's reference coordinates (affine map): exact at the new points
        double[] uw = vtu.doubles("u");
        for (int i = 0; i < uw.length; i++) {
            assertEquals(linear(points, i), uw[i], 1e-12, "point " + i);
        }
        assertArrayEquals(points, vtu.doubles("x"), 1e-12);
        assertEquals("3", vtu.elements().get("x").getAttribute("NumberOfComponents"));
        assertEquals("u", ((Element) vtu.doc().getElementsByTagName("PointData").item(0)).getAttribute("Scalars"));

        // independent positions from VTK's corner, edge and face tables and VTK's equispaced parameters a/N in [0, 1]
        double[] t = new double[nq];
        for (int i = 0; i < nq; i++) {
            t[i] = i / (double) degree;
        }
        HexMesh hex = m.hexMesh();
        double tol = 1e-13;
        for (int e = 0; e < ne; e++) {
            double[][] c = new double[8][];
            for (int k = 0; k < 8; k++) {
                int v = hex.elementVertex(e, k);
                c[k] = mapped(new double[] {hex.vertex(v, 0), hex.vertex(v, 1), hex.vertex(v, 2)});
            }
            double[][] expect = new double[np][];
            int p = 0;
            for (int k = 0; k < 8; k++) {
                expect[p++] = c[k];
            }
            for (int[] edge : VTK_EDGES) {
                for (int a = 1; a <= mm; a++) {
                    expect[p++] = lerp(c[edge[0]], c[edge[1]], t[a]);
                }
            }
            for (int[] f : VTK_FACES) {
                for (int b = 1; b <= mm; b++) {
                    for (int a = 1; a <= mm; a++) {
                        double[] d1 = sub(c[f[1]], c[f[0]]), d3 = sub(c[f[3]], c[f[0]]);
                        expect[p++] = new double[] {c[f[0]][0] + t[a] * d1[0] + t[b] * d3[0],
                            c[f[0]][1] + t[a] * d1[1] + t[b] * d3[1], c[f[0]][2] + t[a] * d1[2] + t[b] * d3[2]};
                    }
                }
            }
            for (int kk = 1; kk <= mm; kk++) {
                for (int jj = 1; jj <= mm; jj++) {
                    for (int ii = 1; ii <= mm; ii++) {
                        double[] d1 = sub(c[1], c[0]), d3 = sub(c[3], c[0]), d4 = sub(c[4], c[0]);
                        double[] q = new double[3];
                        for (int d = 0; d < 3; d++) {
                            q[d] = c[0][d] + t[ii] * d1[d] + t[jj] * d3[d] + t[kk] * d4[d];
                        }
                        expect[p++] = q;
                    }
                }
            }
            assertEquals(np, p);
            for (int v = 0; v < np; v++) {
                int id = (int) conn[e * np + v];
                for (int d = 0; d < 3; d++) {
                    assertEquals(expect[v][d], points[3 * id + d], tol, "element " + e + ", VTK point " + v + ", coordinate " + d);
                }
            }
        }
    }

    private static double linear(double[] xyz, int i) {
        return 1 + 2 * xyz[3 * i] - xyz[3 * i + 1] + 0.5 * xyz[3 * i + 2];
    }

    private static double[] lerp(double[] a, double[] b, double s) {
        return new double[] {a[0] + s * (b[0] - a[0]), a[1] + s * (b[1] - a[1]), a[2] + s * (b[2] - a[2])};
    }

    private static double[] sub(double[] a, double[] b) {
        return new double[] {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    }

    @Test
    void vtkOrderIsAPermutationStartingWithTheCorners() {
        for (int n = 1; n <= 15; n++) {
            int nq = n + 1;
            int[] o = VtuWriter.vtkToLocal(n);
            int[] sorted = o.clone();
            Arrays.sort(sorted);
            for (int i = 0; i < sorted.length; i++) {
                assertEquals(i, sorted[i]);
            }
            int[] corners = {0, n, n + nq * n, nq * n, 0, n, n + nq * n, nq * n};
            for (int k = 0; k < 8; k++) {
                assertEquals(corners[k] + (k >= 4 ? nq * nq * n : 0), o[k]);
            }
        }
        // degree 2 by hand: VTK_TRIQUADRATIC_HEXAHEDRON-like layout, (i,j,k) of points 8..26
        int[][] ijk = {{1, 0, 0}, {2, 1, 0}, {1, 2, 0}, {0, 1, 0}, {1, 0, 2}, {2, 1, 2}, {1, 2, 2}, {0, 1, 2},
            {0, 0, 1}, {2, 0, 1}, {2, 2, 1}, {0, 2, 1}, {0, 1, 1}, {2, 1, 1}, {1, 0, 1}, {1, 2, 1}, {1, 1, 0}, {1, 1, 2},
            {1, 1, 1}};
        int[] o = VtuWriter.vtkToLocal(2);
        for (int p = 0; p < ijk.length; p++) {
            assertEquals(ijk[p][0] + 3 * (ijk[p][1] + 3 * ijk[p][2]), o[8 + p], "VTK point " + (8 + p));
        }
    }

    @Test
    void elementLocalFieldsGiveOnePointSetPerCell(@TempDir Path dir) throws Exception {
        SpectralElementMesh m = mesh(3);
        int nl = m.localSize();
        double[] xl = m.coordinates();
        double[] local = new double[nl];
        for (int l = 0; l < nl; l++) {
            local[l] = linear(xl, l) + l / m.nodesPerElement(); // plus the element index: discontinuous
        }
        double[] global = new double[m.globalNodeCount()];
        Arrays.setAll(global, i -> 3.0 * i);
        VtuWriter w = new VtuWriter(m).scalar("global", global).scalar("elementwise", local);
        assertTrue(w.pointsPerElement());
        Path f = dir.resolve("local.vtu");
        w.write(f);
        Vtu vtu = parse(Files.readAllBytes(f));
        assertEquals(nl, vtu.attribute("Piece", "NumberOfPoints"));
        double[] points = vtu.doubles("Points");
        double[] el = vtu.doubles("elementwise");
        for (int l = 0; l < nl; l++) {
            assertEquals(linear(points, l) + l / m.nodesPerElement(), el[l], 1e-12);
        }
        // corners are not moved by the resampling: the global field's corner values are copied exactly
        int[] l2g = m.localToGlobal();
        double[] g = vtu.doubles("global");
        int nq = 4;
        for (int e = 0; e < m.elementCount(); e++) {
            for (int corner : new int[] {0, nq - 1, nq * nq * nq - 1}) {
                int l = e * m.nodesPerElement() + corner;
                assertEquals(3.0 * l2g[l], g[l], 0.0);
                assertEquals(xl[3 * l], points[3 * l], 0.0);
            }
        }
        long[] conn = vtu.longs("connectivity");
        int[] order = VtuWriter.vtkToLocal(3);
        int np = m.nodesPerElement();
        for (int e = 0; e < m.elementCount(); e++) {
            for (int v = 0; v < np; v++) {
                assertEquals(e * np + order[v], conn[e * np + v]);
            }
        }
    }

    @Test
    void rejectsWrongSizesAndNames() {
        SpectralElementMesh m = mesh(2);
        VtuWriter w = new VtuWriter(m);
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> w.scalar("u", new double[5]));
        assertTrue(ex.getMessage().contains("" + m.globalNodeCount()), ex.getMessage());
        assertThrows(IllegalArgumentException.class, () -> w.vector("v", new double[m.globalNodeCount()]));
        assertThrows(IllegalArgumentException.class, () -> w.scalar("a\"b", new double[m.globalNodeCount()]));
        w.scalar("u", new double[m.globalNodeCount()]);
        assertThrows(IllegalArgumentException.class, () -> w.scalar("u", new double[m.globalNodeCount()]));
        assertEquals(Basis1D.of(2).np(), m.nodesPerElement());
    }
}
