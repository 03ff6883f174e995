package io.lobatto.core.mesh;

import java.util.Arrays;

import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.concurrent.Once;

/**
 * The GLL nodes of degree N on every element of a {@link HexMesh}, their positions, and a global (continuous,
 * C0) numbering of them: the data behind the scatter operator Z of site/src/site/markdown/design.md. Immutable; arrays are copied out.
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
 * That walk is sequential (open-addressing hash tables of primitive keys for edges and faces) and runs once per
 * {@link HexMesh} (its entity order and orientations are kept for every degree: p-multigrid levels number by a prefix
 * sum, {@link ElementNumbering}). The local-to-global map and the node positions are filled on first use, element by
 * element in parallel (fork-join common pool), with the same result as a sequential loop; a backend that builds Z from
 * {@link #numbering()} makes the map where Z runs and the host never fills it ({@link ElementNumbering#DEVICE_PROPERTY}
 * = false fills it when the mesh is made, the path before).
 *
 * <p>Limits: E * Np and 3 * E * Np must fit in a Java array ({@code < 2^31 - 8}); checked with a clear error.
 */
public final class SpectralElementMesh {

    /** Largest array length this class creates (a safe bound below the JVM limit). */
    static final long MAX_ARRAY = Integer.MAX_VALUE - 8;

    private final HexMesh mesh;
    private final Basis1D basis;
    /** The numbering by entities (its map is {@link #l2g}'s, entry for entry). */
    private final ElementNumbering numbering;
    /**
     * The local-to-global map [E][Np], filled on first use ({@link #localToGlobal()}, {@link #globalCoordinates()}, ...)
     * or when the mesh is made where {@link ElementNumbering#DEVICE_PROPERTY} is false; a backend that builds Z from
     * {@link #numbering()} never needs it.
     */
    private volatile int[] l2g;
    /** Node positions [E][Np][3], made on first use (a solve on a backend with device setup never needs them). */
    private volatile double[] coords;
    private final Once<int[]> l2gOnce = new Once<>();
    private final Once<double[]> coordsOnce = new Once<>();
    /** {@link #elementGeometry()}, made on first use. */
    private volatile java.util.Optional<ElementGeometry> geometry;
    private final int globalCount;
    private final boolean trilinear;
    private final double[] phi;
    private final NodeMap map;

    private SpectralElementMesh(HexMesh mesh, Basis1D basis, ElementNumbering numbering, int[] l2g, int globalCount,
                                NodeMap map) {
        this.mesh = mesh;
        this.map = map;
        boolean trilinear = map == NodeMap.identity();
        this.basis = basis;
        this.numbering = numbering;
        this.l2g = l2g;
        this.globalCount = globalCount;
        this.trilinear = trilinear;
        this.phi = trilinearShapes(basis);
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
        ElementNumbering numbering = meshTopology(mesh).entities().at(degree);
        int[] l2g = ElementNumbering.onDevice() ? null : fill(numbering);   // the host map up front: the path before
        return new SpectralElementMesh(mesh, basis, numbering, l2g, numbering.globalNodeCount(), map);
    }

    // ------------------------------------------------------------------ numbering

    /** Elements per task of the parallel loops (per-element work is independent; results do not depend on it). */
    private static final int CHUNK = 64;

    /** Runs {@code body.accept(first, end)} over [0, count) in chunks of {@link #CHUNK}, on the common fork-join pool. */
    static void forEachChunk(int count, java.util.function.IntBinaryOperator body) {
        int chunks = (count + CHUNK - 1) / CHUNK;
        java.util.stream.IntStream.range(0, chunks).parallel()
            .forEach(c -> body.applyAsInt(c * CHUNK, Math.min(count, (c + 1) * CHUNK)));
    }

    /** 64-bit finaliser of MurmurHash3: a well-mixed hash of a long. */
    static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    /**
     * Open-addressing hash table keyed by one or two longs (an edge's sorted vertex pair, a face's sorted four
     * vertex ids), with {@code valueWords} int values per key; primitive arrays only. Slot lookups are linear probes.
     */
    private static final class KeyTable {
        private final int keyWords;
        private final int valueWords;
        private long[] keys;
        private int[] values;
        private boolean[] used;
        private int size;
        private int mask;

        KeyTable(int keyWords, int valueWords, int expected) {
            this.keyWords = keyWords;
            this.valueWords = valueWords;
            int cap = Integer.highestOneBit(Math.max(16, 2 * expected - 1)) << 1;
            allocate(cap);
        }

        private void allocate(int cap) {
            keys = new long[keyWords * cap];
            values = new int[valueWords * cap];
            used = new boolean[cap];
            mask = cap - 1;
        }

        private int slotOf(long k0, long k1) {
            long h = mix(k0 * 0x9e3779b97f4a7c15L + k1);
            int s = (int) h & mask;
            while (used[s] && (keys[keyWords * s] != k0 || (keyWords == 2 && keys[2 * s + 1] != k1))) {
                s = (s + 1) & mask;
            }
            return s;
        }

        /** The slot of the key: found (>= 0) or, after inserting it, {@code -1 - slot} (values to be set by the caller). */
        int findOrInsert(long k0, long k1) {
            int s = slotOf(k0, k1);
            if (used[s]) {
                return s;
            }
            if (2 * (size + 1) > used.length) {
                rehash();
                s = slotOf(k0, k1);
            }
            used[s] = true;
            keys[keyWords * s] = k0;
            if (keyWords == 2) {
                keys[2 * s + 1] = k1;
            }
            size++;
            return -1 - s;
        }

        int value(int slot, int which) {
            return values[valueWords * slot + which];
        }

        void setValue(int slot, int which, int v) {
            values[valueWords * slot + which] = v;
        }

        private void rehash() {
            long[] oldKeys = keys;
            int[] oldValues = values;
            boolean[] oldUsed = used;
            allocate(2 * oldUsed.length);
            for (int s = 0; s < oldUsed.length; s++) {
                if (oldUsed[s]) {
                    long k0 = oldKeys[keyWords * s];
                    long k1 = keyWords == 2 ? oldKeys[2 * s + 1] : 0;
                    int t = slotOf(k0, k1);
                    used[t] = true;
                    keys[keyWords * t] = k0;
                    if (keyWords == 2) {
                        keys[2 * t + 1] = k1;
                    }
                    System.arraycopy(oldValues, valueWords * s, values, valueWords * t, valueWords);
                }
            }
        }
    }

    private static long edgeKey(int a, int b) {
        int lo = Math.min(a, b), hi = Math.max(a, b);
        return ((long) lo << 32) | (hi & 0xffffffffL);
    }

    /**
     * The corners of face {@code f} of element {@code e}: their vertex ids into {@code w} (in the face's corner order) and
     * ascending into {@code sorted}; returns the face frame's origin corner o (the smallest vertex) and the corner its
     * first axis points to (the smaller of o's two neighbours on the face) as {@code o | first << 2}.
     */
    static int faceCorners(int[] elements, int e, int f, int[] w, int[] sorted) {
        int o = 0;
        for (int m = 0; m < 4; m++) {
            w[m] = elements[8 * e + HexReference.faceCorner(f, m)];
            sorted[m] = w[m];
            if (w[m] < w[o]) {
                o = m;
            }
        }
        int nb1 = (o + 1) % 4, nb3 = (o + 3) % 4;
        int first = w[nb1] < w[nb3] ? nb1 : nb3;
        sort4(sorted);
        return o | first << 2;
    }

    /** Sorts 4 ints in place (a sorting network). */
    static void sort4(int[] s) {
        swapIfGreater(s, 0, 1);
        swapIfGreater(s, 2, 3);
        swapIfGreater(s, 0, 2);
        swapIfGreater(s, 1, 3);
        swapIfGreater(s, 1, 2);
    }

    private static void swapIfGreater(int[] s, int i, int j) {
        if (s[i] > s[j]) {
            int t = s[i];
            s[i] = s[j];
            s[j] = t;
        }
    }

    /**
     * The degree-independent part of the numbering of a {@link HexMesh}: its entities (vertices, edges, faces, element
     * interiors) in order of first appearance walking the elements (per element: its new vertices in corner order, its
     * new edges, its new faces, its interior), and per element the ordinal of each of its entities with the
     * orientation of its edges and faces. A degree's numbering is then a prefix sum over the entities' node counts and
     * a parallel fill: the walk with its hash tables runs once per mesh, not once per p-multigrid level.
     *
     * @param kinds       the kind of each entity in order of first appearance: 0 vertex, 1 edge, 2 face, 3 interior
     * @param corner      [8E] the ordinal of each element's corner vertex
     * @param edge        [12E] the ordinal of each element's edge
     * @param edgeReversed [12E] true where the edge runs from its higher to its lower vertex id in the element
     * @param face        [6E] the ordinal of each element's face
     * @param faceFrame   [6E] bit 0 / bit 1: the face frame's origin at u = 1 / v = 1; bit 2: its first axis is u
     * @param interior    [E] the ordinal of each element's interior
     * @param faceNeighbour [6E] 6 e' + f' of the element e' and its face f' across face f of element e, -1 on the boundary
     */
    record Topology(byte[] kinds, int[] corner, int[] edge, boolean[] edgeReversed, int[] face, byte[] faceFrame,
                    int[] interior, int[] faceNeighbour) {

        /**
         * {@code -Dlobatto.mesh.parallelTopology=true}: meshes of at least {@link #PARALLEL_ELEMENTS} elements get
         * {@link ParallelTopology}. Off by default: on the H100 machine's 16 cores it is 2.6-4x faster in a warm JVM (32^3
         * elements 17 ms against 43-60, 67^3 143-194 ms against 583-818), but in a fresh one (the CLI) it made "mesh and
         * numbering" slower (0.24-0.28 s against 0.18 at 32^3, 1.08 against 0.85 at 67^3), its atomics and tables running
         * unoptimised code on every core; so it is for programs that build many large meshes in one JVM.
         */
        static final String PARALLEL_PROPERTY = "lobatto.mesh.parallelTopology";
        /**
         * {@code -Dlobatto.mesh.boxTopology=false}: a structured box ({@link HexMesh#structuredBox()}) is walked like any
         * mesh instead of getting {@link BoxTopology}'s closed form (the same arrays).
         */
        static final String BOX_PROPERTY = "lobatto.mesh.boxTopology";
        /** The smallest mesh that {@link #PARALLEL_PROPERTY} sends to {@link ParallelTopology}. */
        static final int PARALLEL_ELEMENTS = 4096;

        /**
         * The topology of {@code mesh}: {@link BoxTopology} for a structured box, else {@link #walk}, or
         * {@link ParallelTopology} where {@link #PARALLEL_PROPERTY} asks.
         */
        static Topology of(HexMesh mesh) {
            if (mesh.structuredBox().isPresent() && !"false".equalsIgnoreCase(System.getProperty(BOX_PROPERTY, "true").trim())) {
                return BoxTopology.of(mesh);
            }
            if (mesh.elementCount() >= PARALLEL_ELEMENTS && Boolean.getBoolean(PARALLEL_PROPERTY)) {
                Topology t = ParallelTopology.of(mesh);
                if (t != null) {
                    return t;
                }
            }
            return walk(mesh);
        }

        /** The walk over {@code mesh}'s elements (sequential, hash tables of primitive keys). */
        static Topology walk(HexMesh mesh) {
            int ne = mesh.elementCount();
            int[] elements = mesh.elements();
            int[] vertexOrd = new int[mesh.vertexCount()];
            Arrays.fill(vertexOrd, -1);
            KeyTable edges = new KeyTable(1, 1, 3 * ne + 16);
            KeyTable faces = new KeyTable(2, 4, 3 * ne + 16);
            int[] corner = new int[8 * ne];
            int[] edge = new int[12 * ne];
            boolean[] edgeReversed = new boolean[12 * ne];
            int[] face = new int[6 * ne];
            byte[] faceFrame = new byte[6 * ne];
            int[] interior = new int[ne];
            byte[] kinds = new byte[Math.max(16, 4 * ne)];
            int next = 0;
            int[] w = new int[4];
            int[] sorted = new int[4];
            final int[] cu = {0, 1, 1, 0};
            final int[] cv = {0, 0, 1, 1};
            for (int e = 0; e < ne; e++) {
                if (kinds.length < next + 27) {
                    kinds = Arrays.copyOf(kinds, Math.max(next + 27, kinds.length + kinds.length / 2));
                }
                int ve = 8 * e;
                for (int k = 0; k < 8; k++) {
                    int v = elements[ve + k];
                    if (vertexOrd[v] < 0) {
                        vertexOrd[v] = next;
                        kinds[next++] = 0;
                    }
                    corner[ve + k] = vertexOrd[v];
                }
                for (int ed = 0; ed < 12; ed++) {
                    int a = elements[ve + HexReference.edgeCorner(ed, 0)];
                    int b = elements[ve + HexReference.edgeCorner(ed, 1)];
                    int slot = edges.findOrInsert(edgeKey(a, b), 0);
                    int ord;
                    if (slot < 0) {
                        ord = next;
                        kinds[next++] = 1;
                        edges.setValue(-1 - slot, 0, ord);
                    } else {
                        ord = edges.value(slot, 0);
                    }
                    edge[12 * e + ed] = ord;
                    edgeReversed[12 * e + ed] = a > b;
                }
                for (int f = 0; f < 6; f++) {
                    int frame = faceCorners(elements, e, f, w, sorted);
                    int o = frame & 3;
                    int first = frame >>> 2;
                    int slot = faces.findOrInsert(((long) sorted[0] << 32) | (sorted[1] & 0xffffffffL),
                        ((long) sorted[2] << 32) | (sorted[3] & 0xffffffffL));
                    int ord;
                    if (slot < 0) {
                        slot = -1 - slot;
                        ord = next;
                        kinds[next++] = 2;
                        faces.setValue(slot, 0, ord);
                        faces.setValue(slot, 1, w[o]);      // the face frame's origin vertex
                        faces.setValue(slot, 2, w[first]);  // the vertex its first axis points to
                        faces.setValue(slot, 3, 1);         // elements using the face
                    } else {
                        int uses = faces.value(slot, 3) + 1;
                        faces.setValue(slot, 3, uses);
                        if (uses > 2) {
                            throw new IllegalArgumentException("element " + e + ": face " + f + " (vertices " + Arrays.toString(sorted).replaceAll("[\\[\\] ]", "")
                                + ") is shared by more than two elements; the mesh is not a valid conforming hex mesh");
                        }
                        if (faces.value(slot, 1) != w[o] || faces.value(slot, 2) != w[first]) {
                            throw new IllegalArgumentException("element " + e + ": face " + f + " has vertices " + Arrays.toString(sorted).replaceAll("[\\[\\] ]", "")
                                + " in a different cyclic order than the element sharing them; the mesh is not conforming");
                        }
                        ord = faces.value(slot, 0);
                    }
                    face[6 * e + f] = ord;
                    faceFrame[6 * e + f] = (byte) (cu[o] | cv[o] << 1 | (cu[first] != cu[o] ? 4 : 0));
                }
                interior[e] = next;
                kinds[next++] = 3;
            }
            return new Topology(Arrays.copyOf(kinds, next), corner, edge, edgeReversed, face, faceFrame, interior,
                    faceNeighbours(face, next));
        }

        /**
         * The face neighbours from the faces' ordinals ({@code entities} of them at most): the two uses of each face
         * entity pair up (an array over the entities, no hash), -1 where a face has one use.
         */
        static int[] faceNeighbours(int[] face, int entities) {
            int[] firstUse = new int[entities];
            Arrays.fill(firstUse, -1);
            int[] faceNeighbour = new int[face.length];
            Arrays.fill(faceNeighbour, -1);
            for (int q = 0; q < face.length; q++) {
                int ord = face[q];
                int other = firstUse[ord];
                if (other < 0) {
                    firstUse[ord] = q;
                } else {
                    faceNeighbour[q] = other;
                    faceNeighbour[other] = q;
                }
            }
            return faceNeighbour;
        }
    }

    /** The topology of each mesh numbered so far, with its entities packed for {@link ElementNumbering} (weakly held: they go with their mesh). */
    private static final java.util.Map<HexMesh, MeshTopology> TOPOLOGIES =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    /** A mesh's {@link Topology} and its {@link ElementNumbering.Entities}, made together once per mesh. */
    private record MeshTopology(Topology topology, ElementNumbering.Entities entities) {
    }

    private static MeshTopology meshTopology(HexMesh mesh) {
        MeshTopology t = TOPOLOGIES.get(mesh);
        if (t == null) {
            Topology topo = Topology.of(mesh);
            t = new MeshTopology(topo, ElementNumbering.Entities.of(topo));
            TOPOLOGIES.put(mesh, t);
        }
        return t;
    }

    private static Topology topology(HexMesh mesh) {
        return meshTopology(mesh).topology();
    }

    /**
     * The local-to-global map of {@code numbering}, element by element in parallel ({@link ElementNumbering#fill}; the
     * same result as a sequential loop).
     */
    private static int[] fill(ElementNumbering numbering) {
        int[] l2g = new int[numbering.localSize()];
        forEachChunk(numbering.elementCount(), (e0, e1) -> {
            numbering.fill(l2g, e0, e1);
            return 0;
        });
        return l2g;
    }

    // ------------------------------------------------------------------ positions

    /** phi[8 n + c]: the trilinear shape function of corner c at GLL node n, exact at the corners. */
    private static double[] trilinearShapes(Basis1D basis) {
        return ElementGeometry.shapes(1, basis);
    }

    /** The trilinear map of each element's vertices at its GLL nodes, then the node map; elements in parallel. */
    private static double[] positions(HexMesh mesh, Basis1D basis, NodeMap map) {
        int ne = mesh.elementCount();
        int nq = basis.nq();
        int np = basis.np();
        double[] phi = trilinearShapes(basis);
        double[] vertices = mesh.vertices();
        int[] elements = mesh.elements();
        double[] out = new double[3 * ne * np];
        forEachChunk(ne, (e0, e1) -> {
            double[] vx = new double[24];
            double[] x0 = new double[3];
            double[] x = new double[3];
            for (int e = e0; e < e1; e++) {
                for (int c = 0; c < 8; c++) {
                    System.arraycopy(vertices, 3 * elements[8 * e + c], vx, 3 * c, 3);
                }
                for (int n = 0; n < np; n++) {
                    double a = 0, b = 0, d = 0;
                    for (int c = 0; c < 8; c++) {
                        double f = phi[8 * n + c];
                        if (f != 0) {
                            a += f * vx[3 * c];
                            b += f * vx[3 * c + 1];
                            d += f * vx[3 * c + 2];
                        }
                    }
                    x0[0] = a;
                    x0[1] = b;
                    x0[2] = d;
                    map.map(x0, x);
                    int base = 3 * (e * np + n);
                    out[base] = x[0];
                    out[base + 1] = x[1];
                    out[base + 2] = x[2];
                }
            }
            return 0;
        });
        return out;
    }

    // ------------------------------------------------------------------ accessors

    /** The node positions, computed once on first use (the trilinear map of the vertices, then the node map). */
    private double[] coords() {
        double[] c = coords;
        if (c == null) {
            c = coordsOnce.get(() -> positions(mesh, basis, map));   // a parallel loop: made with no lock held (Once)
            coords = c;
        }
        return c;
    }

    /**
     * What defines this mesh's geometry for a backend to compute positions and geometric factors from: the vertices
     * and the node map when it is a {@link PointMap} (or the identity), the 27 nodes per element of a Gmsh
     * second-order mesh; empty for a plain {@link NodeMap} (a lambda), whose positions only the host can evaluate.
     */
    public java.util.Optional<ElementGeometry> elementGeometry() {
        java.util.Optional<ElementGeometry> g = geometry;
        if (g == null) {
            synchronized (this) {
                g = geometry;
                if (g == null) {
                    g = describeGeometry();
                    geometry = g;
                }
            }
        }
        return g;
    }

    /** The element geometry of {@link #elementGeometry()}, made once (it is immutable). */
    private java.util.Optional<ElementGeometry> describeGeometry() {
        if (map == NodeMap.identity()) {
            return java.util.Optional.of(ElementGeometry.trilinear(mesh, null));
        }
        if (map instanceof PointMap pm) {
            return java.util.Optional.of(ElementGeometry.trilinear(mesh, pm));
        }
        if (map instanceof GmshReader.Hex27Map h) {
            return java.util.Optional.of(h.elementGeometry());
        }
        return java.util.Optional.empty();
    }

    /**
     * The face neighbours of the elements, the same at every degree: {@code [E][6]}, for face f = 2 axis + side of
     * element e ({@link HexReference}) the value 6 e' + f' of the element e' sharing that face and its face f', or -1
     * on the boundary. From the degree-independent numbering of the {@link HexMesh} (made once per mesh, shared by
     * the p-multigrid levels); a copy.
     */
    public int[] faceNeighbours() {
        return topology(mesh).faceNeighbour().clone();
    }

    /** The underlying hexahedral mesh. */
    public HexMesh hexMesh() {
        return mesh;
    }

    /** The map applied to the trilinear node positions ({@link NodeMap#identity()} for straight-sided elements). */
    public NodeMap nodeMap() {
        return map;
    }

    /**
     * The same hexahedral mesh and node map at another degree (the levels of p-multigrid): node positions are
     * {@code map(trilinear position)} of the GLL nodes of degree {@code degree}.
     */
    public SpectralElementMesh atDegree(int degree) {
        return degree == degree() ? this : of(mesh, degree, map);
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
        return numbering.localSize();
    }

    /** N_G, the number of distinct (global) nodes. */
    public int globalNodeCount() {
        return globalCount;
    }

    /** Copy of the local-to-global map, [E][Np]: entry e*Np + n is the global id of node n of element e. */
    public int[] localToGlobal() {
        return l2g().clone();
    }

    /**
     * The numbering by entities that {@link #localToGlobal()} is filled from: what a backend needs to make the map where
     * Z is built ({@code Backend.buildScatter(ElementNumbering, boolean[])}), O(E) ints.
     */
    public ElementNumbering numbering() {
        return numbering;
    }

    /** The local-to-global map, filled once on first use. */
    private int[] l2g() {
        int[] m = l2g;
        if (m == null) {
            m = l2gOnce.get(() -> fill(numbering));   // a parallel loop: filled with no lock held (Once)
            l2g = m;
        }
        return m;
    }

    /**
     * The local-to-global map as {@link #localToGlobal()} orders it, read-only and without a copy (for uploads: a copy
     * of E * Np ints costs its page faults on the host).
     */
    public java.nio.IntBuffer localToGlobalView() {
        return java.nio.IntBuffer.wrap(l2g()).asReadOnlyBuffer();
    }

    /** Global id of local node {@code n} of element {@code e}. */
    public int globalId(int e, int n) {
        int i = localIndex(e, n);
        int[] m = l2g;
        return m != null ? m[i] : numbering.globalId(e, n);
    }

    /** Copy of the node positions, [E][Np][3]. */
    public double[] coordinates() {
        return coords().clone();
    }

    /** Coordinate {@code d} of local node {@code n} of element {@code e}. */
    public double x(int e, int n, int d) {
        if (d < 0 || d > 2) {
            throw new IndexOutOfBoundsException("coordinate " + d + " is not in [0, 3)");
        }
        return coords()[3 * localIndex(e, n) + d];
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
            double[] coords = coords();
            for (int n = 0; n < np; n++) {
                for (int d = 0; d < 3; d++) {
                    dst[offset + 3 * n + d] = coords[base + 3 * n + d] - coords[base + d];
                }
            }
            return;
        }
        double[] dv = new double[24];
        int v0 = mesh.elementVertex(e, 0);
        for (int c = 1; c < 8; c++) {
            int v = mesh.elementVertex(e, c);
            for (int d = 0; d < 3; d++) {
                dv[3 * c + d] = mesh.vertex(v, d) - mesh.vertex(v0, d);
            }
        }
        for (int n = 0; n < np; n++) {
            double x = 0, y = 0, z = 0;
            for (int c = 1; c < 8; c++) {
                double f = phi[8 * n + c];
                if (f != 0) {
                    x += f * dv[3 * c];
                    y += f * dv[3 * c + 1];
                    z += f * dv[3 * c + 2];
                }
            }
            int o = offset + 3 * n;
            dst[o] = x;
            dst[o + 1] = y;
            dst[o + 2] = z;
        }
    }

    /** Node positions per global id, [N_G][3] (the first local copy's position; all copies agree to round-off). */
    public double[] globalCoordinates() {
        double[] out = new double[3 * globalCount];
        boolean[] done = new boolean[globalCount];
        double[] coords = coords();
        int[] l2g = l2g();
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
        int[] filled = l2g;
        for (int e = 0; e < elementCount(); e++) {
            for (int f = 0; f < 6; f++) {
                if (selected.test(mesh.faceTag(e, f))) {
                    if (filled != null) {
                        for (int ln : faceNodes[f]) {
                            out[filled[e * np + ln]] = true;
                        }
                    } else {
                        for (int ln : faceNodes[f]) {
                            out[numbering.globalId(e, ln)] = true;   // from the entities: no map needed
                        }
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
