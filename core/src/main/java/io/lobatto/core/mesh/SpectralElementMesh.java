package io.lobatto.core.mesh;

import java.util.Arrays;
import java.util.HashMap;

import io.lobatto.core.basis.Basis1D;

/**
 * The GLL nodes of degree N on every element of a {@link HexMesh}, their positions, and a global (continuous,
 * C0) numbering of them: the data behind the scatter operator Z of DESIGN.md. Immutable; arrays are copied out.
 *
 * <p>Node order inside an element is {@code n = i + Nq*(j + Nq*k)} (r fastest), Nq = N+1. Positions are the
 * trilinear map of the element's 8 vertices evaluated at the GLL points, optionally followed by a {@link NodeMap}.
 *
 * <p>Global numbering uses only the mesh topology, never a structured layout: nodes at a mesh vertex are keyed
 * by the vertex id; the N-1 interior nodes of an edge by the sorted vertex pair and ordered along the edge from
 * the lower vertex id; the (N-1)^2 interior nodes of a face by the sorted 4 vertex ids and ordered in a canonical
 * frame (origin at the smallest vertex id, first axis towards its smaller-id neighbour on the face); element
 * interior nodes are unique. This makes the numbering correct for any conforming hex mesh whose elements have
 * arbitrarily rotated local frames. Global ids are handed out in order of first appearance walking the elements
 * in order (vertices, edges, faces, interior of each element), which keeps an element's nodes close together.
 *
 * <p>Limits: E * Np and 3 * E * Np must fit in a Java array ({@code < 2^31 - 8}); checked with a clear error.
 */
public final class SpectralElementMesh {

    /** Largest array length this class creates (a safe bound below the JVM limit). */
    static final long MAX_ARRAY = Integer.MAX_VALUE - 8;

    private final HexMesh mesh;
    private final Basis1D basis;
    private final int[] l2g;
    private final double[] coords;
    private final int globalCount;
    private final boolean trilinear;

    private SpectralElementMesh(HexMesh mesh, Basis1D basis, int[] l2g, double[] coords, int globalCount, boolean trilinear) {
        this.mesh = mesh;
        this.basis = basis;
        this.l2g = l2g;
        this.coords = coords;
        this.globalCount = globalCount;
        this.trilinear = trilinear;
    }

    /** The degree-N spectral-element mesh with the trilinear map from each element's 8 vertices. */
    public static SpectralElementMesh of(HexMesh mesh, int degree) {
        return of(mesh, degree, NodeMap.identity());
    }

    /**
     * The degree-N spectral-element mesh whose node positions are {@code map(trilinear position)}.
     *
     * @throws IllegalArgumentException if the degree is out of {@link Basis1D}'s range, the sizes overflow
     *     the int/array limits, or the mesh is not conforming (a face shared by more than two elements, or a
     *     shared vertex set that is a face in one element but a different quadrilateral in another)
     */
    public static SpectralElementMesh of(HexMesh mesh, int degree, NodeMap map) {
        if (mesh == null || map == null) {
            throw new IllegalArgumentException("mesh and map must not be null");
        }
        Basis1D basis = Basis1D.of(degree);
        int ne = mesh.elementCount();
        int np = basis.np();
        long local = (long) ne * np;
        if (3 * local > MAX_ARRAY) {
            throw new IllegalArgumentException("mesh too large for int indexing: E * Np = " + ne + " * " + np + " = " + local
                + " local nodes (3 * E * Np = " + 3 * local + " coordinates) exceeds the Java array limit 2^31 - 8; "
                + "use fewer elements or a lower degree");
        }
        int[] l2g = number(mesh, degree);
        int globalCount = 0;
        for (int g : l2g) {
            globalCount = Math.max(globalCount, g + 1);
        }
        double[] coords = positions(mesh, basis, map);
        return new SpectralElementMesh(mesh, basis, l2g, coords, globalCount, map == NodeMap.identity());
    }

    // ------------------------------------------------------------------ numbering

    private static final class FaceEntry {
        final int base;
        final int origin;
        final int firstAxisVertex;
        int uses = 1;

        FaceEntry(int base, int origin, int firstAxisVertex) {
            this.base = base;
            this.origin = origin;
            this.firstAxisVertex = firstAxisVertex;
        }
    }

    private static long edgeKey(int a, int b) {
        int lo = Math.min(a, b), hi = Math.max(a, b);
        return ((long) lo << 32) | (hi & 0xffffffffL);
    }

    private static String faceKey(int[] w) {
        int[] s = w.clone();
        Arrays.sort(s);
        return s[0] + ":" + s[1] + ":" + s[2] + ":" + s[3];
    }

    private static int[] number(HexMesh mesh, int n) {
        int ne = mesh.elementCount();
        int nq = n + 1;
        int np = nq * nq * nq;
        int m1 = n - 1; // interior nodes per edge direction
        int[] elements = mesh.elements();
        int[] vertexGid = new int[mesh.vertexCount()];
        Arrays.fill(vertexGid, -1);
        HashMap<Long, Integer> edges = new HashMap<>();
        HashMap<String, FaceEntry> faces = new HashMap<>();
        int[] l2g = new int[ne * np];
        long next = 0;

        int[] vid = new int[8];
        int[] cornerG = new int[8];
        int[] edgeBase = new int[12];
        boolean[] edgeReversed = new boolean[12];
        int[] faceBase = new int[6];
        // per face: first axis is u (true) or v; origin u (0/1) and v (0/1)
        boolean[] faceFirstIsU = new boolean[6];
        int[] faceOu = new int[6];
        int[] faceOv = new int[6];
        int[] w = new int[4];
        final int[] cu = {0, 1, 1, 0};
        final int[] cv = {0, 0, 1, 1};

        for (int e = 0; e < ne; e++) {
            System.arraycopy(elements, 8 * e, vid, 0, 8);
            for (int k = 0; k < 8; k++) {
                if (vertexGid[vid[k]] < 0) {
                    vertexGid[vid[k]] = (int) next++;
                }
                cornerG[k] = vertexGid[vid[k]];
            }
            if (n >= 2) {
                for (int ed = 0; ed < 12; ed++) {
                    int a = vid[HexReference.edgeCorner(ed, 0)];
                    int b = vid[HexReference.edgeCorner(ed, 1)];
                    Integer base = edges.get(edgeKey(a, b));
                    if (base == null) {
                        base = (int) next;
                        next += m1;
                        edges.put(edgeKey(a, b), base);
                    }
                    edgeBase[ed] = base;
                    edgeReversed[ed] = a > b;
                }
                for (int f = 0; f < 6; f++) {
                    int o = 0;
                    for (int m = 0; m < 4; m++) {
                        w[m] = vid[HexReference.faceCorner(f, m)];
                        if (w[m] < w[o]) {
                            o = m;
                        }
                    }
                    int nb1 = (o + 1) % 4, nb3 = (o + 3) % 4;
                    int first = w[nb1] < w[nb3] ? nb1 : nb3;
                    String key = faceKey(w);
                    FaceEntry fe = faces.get(key);
                    if (fe == null) {
                        fe = new FaceEntry((int) next, w[o], w[first]);
                        next += (long) m1 * m1;
                        faces.put(key, fe);
                    } else {
                        fe.uses++;
                        if (fe.uses > 2) {
                            throw new IllegalArgumentException("element " + e + ": face " + f + " (vertices " + key.replace(':', ',')
                                + ") is shared by more than two elements; the mesh is not a valid conforming hex mesh");
                        }
                        if (fe.origin != w[o] || fe.firstAxisVertex != w[first]) {
                            throw new IllegalArgumentException("element " + e + ": face " + f + " has vertices " + key.replace(':', ',')
                                + " in a different cyclic order than the element sharing them; the mesh is not conforming");
                        }
                    }
                    faceBase[f] = fe.base;
                    faceOu[f] = cu[o];
                    faceOv[f] = cv[o];
                    faceFirstIsU[f] = cu[first] != cu[o];
                }
            }
            int interiorBase = (int) next;
            next += (long) m1 * m1 * m1;
            if (next > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("global node count exceeds 2^31 - 1 at element " + e);
            }

            int[] ijk = new int[3];
            for (int kk = 0; kk < nq; kk++) {
                for (int jj = 0; jj < nq; jj++) {
                    for (int ii = 0; ii < nq; ii++) {
                        ijk[0] = ii;
                        ijk[1] = jj;
                        ijk[2] = kk;
                        int onB = 0;
                        for (int d = 0; d < 3; d++) {
                            if (ijk[d] == 0 || ijk[d] == n) {
                                onB++;
                            }
                        }
                        int g;
                        if (onB == 3) {
                            g = cornerG[HexReference.cornerOf(ii / n, jj / n, kk / n)];
                        } else if (onB == 2) {
                            int axis = (ii != 0 && ii != n) ? 0 : (jj != 0 && jj != n) ? 1 : 2;
                            int o1 = axis == 0 ? 1 : 0, o2 = axis == 2 ? 1 : 2;
                            int ed = HexReference.edgeIndex(axis, ijk[o1] / n, ijk[o2] / n);
                            int m = ijk[axis];
                            g = edgeBase[ed] + (edgeReversed[ed] ? n - 1 - m : m - 1);
                        } else if (onB == 1) {
                            int axis = (ii == 0 || ii == n) ? 0 : (jj == 0 || jj == n) ? 1 : 2;
                            int f = 2 * axis + ijk[axis] / n;
                            int u = ijk[HexReference.faceTangentAxis(f, 0)];
                            int v = ijk[HexReference.faceTangentAxis(f, 1)];
                            int du = faceOu[f] == 0 ? u : n - u;
                            int dv = faceOv[f] == 0 ? v : n - v;
                            int p = faceFirstIsU[f] ? du : dv;
                            int q = faceFirstIsU[f] ? dv : du;
                            g = faceBase[f] + (p - 1) + m1 * (q - 1);
                        } else {
                            g = interiorBase + (ii - 1) + m1 * ((jj - 1) + m1 * (kk - 1));
                        }
                        l2g[e * np + ii + nq * (jj + nq * kk)] = g;
                    }
                }
            }
        }
        return l2g;
    }

    // ------------------------------------------------------------------ positions

    /** The 1D linear shape functions at the GLL nodes, lin[i][0] = (1 - r_i)/2, lin[i][1] = (1 + r_i)/2, exact at the ends. */
    private static double[][] linearFactors(Basis1D basis) {
        int nq = basis.nq();
        double[] r = basis.gll().nodes();
        double[][] lin = new double[nq][2];
        for (int i = 0; i < nq; i++) {
            lin[i][0] = 0.5 * (1 - r[i]);
            lin[i][1] = 0.5 * (1 + r[i]);
        }
        // exact endpoint factors
        lin[0][0] = 1;
        lin[0][1] = 0;
        lin[nq - 1][0] = 0;
        lin[nq - 1][1] = 1;
        return lin;
    }

    private static double[] positions(HexMesh mesh, Basis1D basis, NodeMap map) {
        int ne = mesh.elementCount();
        int nq = basis.nq();
        int np = basis.np();
        double[][] lin = linearFactors(basis);
        double[] out = new double[3 * ne * np];
        double[] vx = new double[24];
        double[] x0 = new double[3];
        double[] x = new double[3];
        for (int e = 0; e < ne; e++) {
            for (int c = 0; c < 8; c++) {
                int v = mesh.elementVertex(e, c);
                for (int d = 0; d < 3; d++) {
                    vx[3 * c + d] = mesh.vertex(v, d);
                }
            }
            for (int k = 0; k < nq; k++) {
                for (int j = 0; j < nq; j++) {
                    for (int i = 0; i < nq; i++) {
                        x0[0] = 0;
                        x0[1] = 0;
                        x0[2] = 0;
                        for (int c = 0; c < 8; c++) {
                            double phi = lin[i][HexReference.cornerBit(c, 0)] * lin[j][HexReference.cornerBit(c, 1)]
                                * lin[k][HexReference.cornerBit(c, 2)];
                            if (phi != 0) {
                                x0[0] += phi * vx[3 * c];
                                x0[1] += phi * vx[3 * c + 1];
                                x0[2] += phi * vx[3 * c + 2];
                            }
                        }
                        map.map(x0, x);
                        int base = 3 * (e * np + i + nq * (j + nq * k));
                        out[base] = x[0];
                        out[base + 1] = x[1];
                        out[base + 2] = x[2];
                    }
                }
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ accessors

    /** The underlying hexahedral mesh. */
    public HexMesh hexMesh() {
        return mesh;
    }

    /** The 1D GLL/GL basis of this degree. */
    public Basis1D basis() {
        return basis;
    }

    /** Polynomial degree N. */
    public int degree() {
        return basis.degree();
    }

    /** E. */
    public int elementCount() {
        return mesh.elementCount();
    }

    /** Np = (N+1)^3. */
    public int nodesPerElement() {
        return basis.np();
    }

    /** N_L = E * Np, the length of element-local vectors. */
    public int localSize() {
        return l2g.length;
    }

    /** N_G, the number of distinct (global) nodes. */
    public int globalNodeCount() {
        return globalCount;
    }

    /** Copy of the local-to-global map, [E][Np]: entry e*Np + n is the global id of node n of element e. */
    public int[] localToGlobal() {
        return l2g.clone();
    }

    /** Global id of local node {@code n} of element {@code e}. */
    public int globalId(int e, int n) {
        return l2g[localIndex(e, n)];
    }

    /** Copy of the node positions, [E][Np][3]. */
    public double[] coordinates() {
        return coords.clone();
    }

    /** Coordinate {@code d} of local node {@code n} of element {@code e}. */
    public double x(int e, int n, int d) {
        if (d < 0 || d > 2) {
            throw new IndexOutOfBoundsException("coordinate " + d + " is not in [0, 3)");
        }
        return coords[3 * localIndex(e, n) + d];
    }

    /**
     * The node positions of element {@code e} relative to its first node (its origin, {@link #x}{@code (e, 0, d)}),
     * written as [Np][3] into {@code dst} from {@code offset}: x(e, n) - x(e, 0). Geometry that depends on
     * differences of positions (the Jacobian of the element map, hence {@code GeometricFactors}) uses these, so
     * that it does not lose digits to where the mesh sits in space. With the identity map the positions are the
     * trilinear map of the vertex differences v_c - v_0, taken from the {@link HexMesh} without ever forming an
     * absolute position (a translated mesh gives the same values up to the rounding of its vertices); with another
     * {@link NodeMap} they are differences of the mapped positions.
     *
     * @throws IndexOutOfBoundsException if {@code e} is out of range or {@code dst} is too short
     */
    public void relativeCoordinates(int e, double[] dst, int offset) {
        int np = nodesPerElement();
        if (e < 0 || e >= elementCount()) {
            throw new IndexOutOfBoundsException("element " + e + " is not in [0, " + elementCount() + ")");
        }
        if (offset < 0 || (long) offset + 3L * np > dst.length) {
            throw new IndexOutOfBoundsException("dst of length " + dst.length + " cannot hold 3 * " + np + " values from " + offset);
        }
        if (!trilinear) {
            int base = 3 * e * np;
            for (int n = 0; n < np; n++) {
                for (int d = 0; d < 3; d++) {
                    dst[offset + 3 * n + d] = coords[base + 3 * n + d] - coords[base + d];
                }
            }
            return;
        }
        int nq = basis.nq();
        double[][] lin = linearFactors(basis);
        double[] dv = new double[24];
        int v0 = mesh.elementVertex(e, 0);
        for (int c = 1; c < 8; c++) {
            int v = mesh.elementVertex(e, c);
            for (int d = 0; d < 3; d++) {
                dv[3 * c + d] = mesh.vertex(v, d) - mesh.vertex(v0, d);
            }
        }
        for (int k = 0; k < nq; k++) {
            for (int j = 0; j < nq; j++) {
                for (int i = 0; i < nq; i++) {
                    double x = 0, y = 0, z = 0;
                    for (int c = 1; c < 8; c++) {
                        double phi = lin[i][HexReference.cornerBit(c, 0)] * lin[j][HexReference.cornerBit(c, 1)]
                            * lin[k][HexReference.cornerBit(c, 2)];
                        if (phi != 0) {
                            x += phi * dv[3 * c];
                            y += phi * dv[3 * c + 1];
                            z += phi * dv[3 * c + 2];
                        }
                    }
                    int o = offset + 3 * (i + nq * (j + nq * k));
                    dst[o] = x;
                    dst[o + 1] = y;
                    dst[o + 2] = z;
                }
            }
        }
    }

    /** Node positions per global id, [N_G][3] (the first local copy's position; all copies agree to round-off). */
    public double[] globalCoordinates() {
        double[] out = new double[3 * globalCount];
        boolean[] done = new boolean[globalCount];
        for (int l = 0; l < l2g.length; l++) {
            int g = l2g[l];
            if (!done[g]) {
                done[g] = true;
                System.arraycopy(coords, 3 * l, out, 3 * g, 3);
            }
        }
        return out;
    }

    /** Per global node: true if the node lies on an element face whose tag is one of {@code tags}. */
    public boolean[] boundaryMask(int... tags) {
        int[] t = tags == null ? new int[0] : tags.clone();
        return mask(tag -> {
            for (int x : t) {
                if (x == tag) {
                    return true;
                }
            }
            return false;
        });
    }

    /** Per global node: true if the node lies on an element face with a non-zero tag. */
    public boolean[] boundaryMaskAllTagged() {
        return mask(tag -> tag != 0);
    }

    private boolean[] mask(java.util.function.IntPredicate selected) {
        boolean[] out = new boolean[globalCount];
        int np = nodesPerElement();
        int n = degree();
        int[][] faceNodes = new int[6][];
        for (int f = 0; f < 6; f++) {
            faceNodes[f] = HexReference.faceNodes(n, f);
        }
        for (int e = 0; e < elementCount(); e++) {
            for (int f = 0; f < 6; f++) {
                if (selected.test(mesh.faceTag(e, f))) {
                    for (int ln : faceNodes[f]) {
                        out[l2g[e * np + ln]] = true;
                    }
                }
            }
        }
        return out;
    }

    private int localIndex(int e, int n) {
        int np = nodesPerElement();
        if (e < 0 || e >= elementCount()) {
            throw new IndexOutOfBoundsException("element " + e + " is not in [0, " + elementCount() + ")");
        }
        if (n < 0 || n >= np) {
            throw new IndexOutOfBoundsException("node " + n + " is not in [0, " + np + ")");
        }
        return e * np + n;
    }

    @Override
    public String toString() {
        return "SpectralElementMesh[N=" + degree() + ", E=" + elementCount() + ", N_L=" + localSize() + ", N_G=" + globalCount + "]";
    }
}
