package io.lobatto.core.io;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

import io.lobatto.core.mesh.SpectralElementMesh;

/**
 * Writes a {@link SpectralElementMesh} and nodal fields on it as a VTK XML unstructured grid ({@code .vtu}) with one
 * high-order {@code VTK_LAGRANGE_HEXAHEDRON} cell (type 72) of degree N per element, so that ParaView (5.8 or later)
 * shows a degree-N solution on curved elements as the polynomial it is (raise "Nonlinear Subdivision Level" to see
 * it smooth).
 *
 * <p>VTK's Lagrange cells place their nodes at equispaced parametric points, not at GLL points. The writer therefore
 * evaluates every element's degree-N polynomial (its geometry and each field, through its GLL nodal values) at the
 * (N+1)^3 equispaced points of the element and writes those: the cell ParaView draws is then exactly the element's
 * polynomial geometry and field, not a reparametrised interpolant. For N &le; 2 the two point sets coincide.
 *
 * <p>Data are inline {@code format="binary"}: per array, base64 of a UInt64 byte count followed by the little-endian
 * values; points Float64 x 3, connectivity and offsets Int64, types UInt8. The file declares VTK XML version 2.2, the
 * version that means the VTK 9 node order of Lagrange hexahedra, which {@link #vtkToLocal(int)} gives: corners, then
 * edge, face and interior nodes (VTK's {@code vtkHigherOrderHexahedron::PointIndexFromIJK}).
 *
 * <p>Fields are point data, scalar ({@link #scalar}) or 3-vector ({@link #vector}), given either per global node
 * ({@code N_G} or {@code 3 N_G} values, the mesh's global numbering) or per element-local node ({@code E Np} or
 * {@code 3 E Np} values, the mesh's local order {@code e Np + i + Nq (j + Nq k)}). With global fields only, the points
 * are the N_G global nodes and neighbouring cells share them. As soon as one field is element-local, every cell gets
 * its own Np points (E Np in all) and global fields are copied to them through the local-to-global map, so that a
 * discontinuous field is shown as it is.
 */
public final class VtuWriter {

    /** VTK cell type of the arbitrary-order Lagrange hexahedron. */
    public static final int VTK_LAGRANGE_HEXAHEDRON = 72;

    private final SpectralElementMesh mesh;
    private final Map<String, Field> fields = new LinkedHashMap<>();

    private record Field(double[] values, int components, boolean local) {
    }

    /** A writer for {@code mesh} with no fields yet. */
    public VtuWriter(SpectralElementMesh mesh) {
        if (mesh == null) {
            throw new IllegalArgumentException("mesh must not be null");
        }
        this.mesh = mesh;
    }

    /** Adds a scalar point field: N_G values (per global node) or E Np values (per element-local node). */
    public VtuWriter scalar(String name, double[] values) {
        return add(name, values, 1);
    }

    /** Adds a 3-vector point field, interleaved (x, y, z per node): 3 N_G or 3 E Np values. */
    public VtuWriter vector(String name, double[] values) {
        return add(name, values, 3);
    }

    private VtuWriter add(String name, double[] values, int components) {
        if (name == null || name.isBlank() || !name.matches("[A-Za-z0-9_.\\- ]+")) {
            throw new IllegalArgumentException("field name must be non-empty letters, digits, '_', '-', '.' or spaces, got '" + name + "'");
        }
        if (fields.containsKey(name)) {
            throw new IllegalArgumentException("field '" + name + "' was already added");
        }
        if (values == null) {
            throw new IllegalArgumentException("field '" + name + "' has no values");
        }
        long global = (long) components * mesh.globalNodeCount();
        long local = (long) components * mesh.localSize();
        boolean isLocal;
        if (values.length == global) {
            isLocal = false;
        } else if (values.length == local) {
            isLocal = true;
        } else {
            throw new IllegalArgumentException("field '" + name + "' has " + values.length + " values; a "
                    + (components == 1 ? "scalar" : "3-vector") + " field needs " + global + " (per global node) or " + local
                    + " (per element-local node)");
        }
        fields.put(name, new Field(values.clone(), components, isLocal));
        return this;
    }

    /** True if the file will have one set of Np points per cell (some field is element-local). */
    public boolean pointsPerElement() {
        return fields.values().stream().anyMatch(Field::local);
    }

    /** Number of points the file will have: N_G, or E Np if {@link #pointsPerElement()}. */
    public int pointCount() {
        return pointsPerElement() ? mesh.localSize() : mesh.globalNodeCount();
    }

    /** Number of cells: one per element. */
    public int cellCount() {
        return mesh.elementCount();
    }

    /**
     * The VTK Lagrange-hexahedron order of an element's nodes: entry v is the local node index {@code i + Nq (j + Nq k)}
     * (the mesh's order) of VTK point v of the cell. Corners (0,0,0) (N,0,0) (N,N,0) (0,N,0), then the same at k = N;
     * edge nodes in increasing i, j or k: the four i-edges and j-edges of k = 0, i.e. (j=0), (i=N), (j=N), (i=0), then
     * those of k = N, then the four k-edges at (i,j) = (0,0) (N,0) (N,N) (0,N); face nodes of the faces i = 0, i = N
     * ((j,k), j fastest), j = 0, j = N ((i,k)), k = 0, k = N ((i,j)); then the interior, i fastest, then j, then k.
     */
    public static int[] vtkToLocal(int degree) {
        if (degree < 1) {
            throw new IllegalArgumentException("degree must be at least 1, got " + degree);
        }
        int n = degree, nq = n + 1;
        int[] out = new int[nq * nq * nq];
        for (int k = 0; k <= n; k++) {
            for (int j = 0; j <= n; j++) {
                for (int i = 0; i <= n; i++) {
                    out[pointIndexFromIjk(i, j, k, n)] = i + nq * (j + nq * k);
                }
            }
        }
        return out;
    }

    /** VTK 9's {@code PointIndexFromIJK} for an isotropic order n. */
    static int pointIndexFromIjk(int i, int j, int k, int n) {
        boolean ib = i == 0 || i == n, jb = j == 0 || j == n, kb = k == 0 || k == n;
        int nb = (ib ? 1 : 0) + (jb ? 1 : 0) + (kb ? 1 : 0);
        int m = n - 1;
        if (nb == 3) {
            return (i != 0 ? (j != 0 ? 2 : 1) : (j != 0 ? 3 : 0)) + (k != 0 ? 4 : 0);
        }
        int offset = 8;
        if (nb == 2) {
            if (!ib) {
                return (i - 1) + (j != 0 ? 2 * m : 0) + (k != 0 ? 4 * m : 0) + offset;
            }
            if (!jb) {
                return (j - 1) + (i != 0 ? m : 3 * m) + (k != 0 ? 4 * m : 0) + offset;
            }
            offset += 8 * m;
            return (k - 1) + m * (i != 0 ? (j != 0 ? 2 : 1) : (j != 0 ? 3 : 0)) + offset;
        }
        offset += 12 * m;
        if (nb == 1) {
            if (ib) {
                return (j - 1) + m * (k - 1) + (i != 0 ? m * m : 0) + offset;
            }
            offset += 2 * m * m;
            if (jb) {
                return (i - 1) + m * (k - 1) + (j != 0 ? m * m : 0) + offset;
            }
            offset += 2 * m * m;
            return (i - 1) + m * (j - 1) + (k != 0 ? m * m : 0) + offset;
        }
        offset += 6 * m * m;
        return offset + (i - 1) + m * ((j - 1) + m * (k - 1));
    }

    /** Writes the file (created or replaced). */
    public void write(Path file) throws IOException {
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            write(out);
        }
    }

    /** Writes the document to {@code out}, which is flushed but not closed. */
    public void write(OutputStream out) throws IOException {
        boolean perElement = pointsPerElement();
        int ne = mesh.elementCount();
        int np = mesh.nodesPerElement();
        int[] l2g = mesh.localToGlobal();
        int points = pointCount();
        int[] order = vtkToLocal(mesh.degree());
        Resampler resampler = new Resampler(mesh);
        text(out, "<?xml version=\"1.0\"?>\n"
                + "<VTKFile type=\"UnstructuredGrid\" version=\"2.2\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
                + "  <UnstructuredGrid>\n"
                + "    <Piece NumberOfPoints=\"" + points + "\" NumberOfCells=\"" + ne + "\">\n");
        String firstScalar = null, firstVector = null;
        for (Map.Entry<String, Field> f : fields.entrySet()) {
            if (f.getValue().components() == 1 && firstScalar == null) {
                firstScalar = f.getKey();
            }
            if (f.getValue().components() == 3 && firstVector == null) {
                firstVector = f.getKey();
            }
        }
        text(out, "      <PointData" + (firstScalar == null ? "" : " Scalars=\"" + firstScalar + "\"")
                + (firstVector == null ? "" : " Vectors=\"" + firstVector + "\"") + ">\n");
        for (Map.Entry<String, Field> f : fields.entrySet()) {
            Field field = f.getValue();
            int c = field.components();
            double[] local = field.local() ? field.values() : toLocal(field.values(), c, l2g);
            double[] v = resampler.apply(local, c);
            if (!perElement) {
                v = toGlobal(v, c, l2g, mesh.globalNodeCount());
            }
            text(out, "        <DataArray type=\"Float64\" Name=\"" + f.getKey() + "\" NumberOfComponents=\"" + c
                    + "\" format=\"binary\">\n");
            doubles(out, v);
            text(out, "\n        </DataArray>\n");
        }
        double[] xyz = resampler.apply(mesh.coordinates(), 3);
        if (!perElement) {
            xyz = toGlobal(xyz, 3, l2g, mesh.globalNodeCount());
        }
        text(out, "      </PointData>\n      <Points>\n"
                + "        <DataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\" format=\"binary\">\n");
        doubles(out, xyz);
        text(out, "\n        </DataArray>\n      </Points>\n      <Cells>\n"
                + "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"binary\">\n");
        long[] conn = new long[ne * np];
        for (int e = 0; e < ne; e++) {
            for (int v = 0; v < np; v++) {
                int l = e * np + order[v];
                conn[e * np + v] = perElement ? l : l2g[l];
            }
        }
        longs(out, conn);
        text(out, "\n        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" format=\"binary\">\n");
        long[] offsets = new long[ne];
        for (int e = 0; e < ne; e++) {
            offsets[e] = (long) (e + 1) * np;
        }
        longs(out, offsets);
        text(out, "\n        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" format=\"binary\">\n");
        ByteBuffer types = header(ne);
        for (int e = 0; e < ne; e++) {
            types.put((byte) VTK_LAGRANGE_HEXAHEDRON);
        }
        base64(out, types);
        text(out, "\n        </DataArray>\n      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
        out.flush();
    }

    /** Global values (c per node) copied to every element-local node. */
    private static double[] toLocal(double[] global, int c, int[] l2g) {
        double[] out = new double[c * l2g.length];
        for (int l = 0; l < l2g.length; l++) {
            System.arraycopy(global, c * l2g[l], out, c * l, c);
        }
        return out;
    }

    /** Element-local values (c per node) to global ones: each global node takes its first local copy's value. */
    private static double[] toGlobal(double[] local, int c, int[] l2g, int globalCount) {
        double[] out = new double[c * globalCount];
        boolean[] done = new boolean[globalCount];
        for (int l = 0; l < l2g.length; l++) {
            int g = l2g[l];
            if (!done[g]) {
                done[g] = true;
                System.arraycopy(local, c * l, out, c * g, c);
            }
        }
        return out;
    }

    /**
     * Evaluates each element's degree-N polynomial, given at its GLL nodes, at its equispaced nodes
     * -1 + 2a/N (a = 0..N per direction): three 1D sweeps with M_ai = l_i(y_a).
     */
    static final class Resampler {
        private final int nq;
        private final int np;
        private final double[] m;

        Resampler(SpectralElementMesh mesh) {
            int n = mesh.degree();
            nq = n + 1;
            np = nq * nq * nq;
            double[] y = new double[nq];
            for (int a = 0; a <= n; a++) {
                y[a] = a == n ? 1.0 : -1.0 + 2.0 * a / n;
            }
            double[] x = mesh.basis().gll().nodes();
            m = io.lobatto.core.basis.Basis1D.interpolationMatrix(x, y);
        }

        /** The element-local array {@code local} (c values per node) at the equispaced nodes, same layout. */
        double[] apply(double[] local, int c) {
            if (nq <= 3) {
                return local; // N <= 2: the GLL nodes are equispaced
            }
            int ne = local.length / (c * np);
            double[] out = new double[local.length];
            double[] a0 = new double[np], a1 = new double[np], a2 = new double[np];
            for (int e = 0; e < ne; e++) {
                for (int d = 0; d < c; d++) {
                    for (int n = 0; n < np; n++) {
                        a0[n] = local[c * (e * np + n) + d];
                    }
                    sweep(a0, a1, 1);
                    sweep(a1, a2, nq);
                    sweep(a2, a0, nq * nq);
                    for (int n = 0; n < np; n++) {
                        out[c * (e * np + n) + d] = a0[n];
                    }
                }
            }
            return out;
        }

        /** dst = M applied along the direction whose index has stride {@code stride}. */
        private void sweep(double[] src, double[] dst, int stride) {
            for (int n = 0; n < np; n++) {
                int along = (n / stride) % nq;
                int base = n - along * stride;
                double s = 0;
                for (int i = 0; i < nq; i++) {
                    s += m[along * nq + i] * src[base + i * stride];
                }
                dst[n] = s;
            }
        }
    }

    private static void text(OutputStream out, String s) throws IOException {
        out.write(s.getBytes(StandardCharsets.UTF_8));
    }

    /** A little-endian buffer holding the UInt64 byte count of {@code bytes} data bytes, positioned after it. */
    private static ByteBuffer header(long bytes) {
        if (bytes + 8 > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a data array of " + bytes + " bytes is too large for one .vtu array");
        }
        ByteBuffer b = ByteBuffer.allocate((int) (8 + bytes)).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(bytes);
        return b;
    }

    private static void doubles(OutputStream out, double[] v) throws IOException {
        ByteBuffer b = header(8L * v.length);
        b.asDoubleBuffer().put(v);
        base64(out, b);
    }

    private static void longs(OutputStream out, long[] v) throws IOException {
        ByteBuffer b = header(8L * v.length);
        b.asLongBuffer().put(v);
        base64(out, b);
    }

    private static void base64(OutputStream out, ByteBuffer b) throws IOException {
        OutputStream enc = Base64.getEncoder().wrap(new NonClosing(out));
        enc.write(b.array(), 0, b.capacity());
        enc.close(); // writes the padding; leaves out open
    }

    /** Passes writes through and ignores close. */
    private static final class NonClosing extends OutputStream {
        private final OutputStream out;

        NonClosing(OutputStream out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() {
        }
    }
}
