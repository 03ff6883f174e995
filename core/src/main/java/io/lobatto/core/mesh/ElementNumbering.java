package io.lobatto.core.mesh;

import java.nio.IntBuffer;

/**
 * The continuous (C0) numbering of the degree-N GLL nodes of a {@link HexMesh} as its entities give it: Z's
 * local-to-global map l2g(e, n) (the element restriction of site/src/site/markdown/design.md) without its E * Np
 * entries. Each element has 27 entities in fixed slots (8 corner vertices, 12 edges, 6 faces, its interior, in
 * {@link HexReference}'s order); each entity has an ordinal (in order of first appearance walking the elements) and a
 * first global id, the prefix sum of the node counts of the entities before it (vertex 1, edge N-1, face (N-1)^2,
 * interior (N-1)^3). Then
 * <pre>
 *   l2g(e, n) = base[ordinal(e, slot(n))] + offset(n, orientation(e))
 * </pre>
 * where the node's class (its slot and its position inside the entity) depends on n alone and the offset on the
 * orientation of the element's edges (reversed or not) and faces (the face frame). {@link #globalId} is that formula;
 * a backend evaluates it per local node where Z is built ({@code Backend.buildScatter(ElementNumbering, boolean[])}),
 * so the map need not exist on the host. The map is the one {@link SpectralElementMesh#localToGlobal()} returns,
 * entry for entry.
 *
 * <p>Immutable. The arrays are exposed as read-only views ({@link #ordinals()}, {@link #orientations()},
 * {@link #bases()}, {@link #nodeClasses()}) for uploads; p-multigrid levels of one mesh share the degree-free arrays.
 */
public final class ElementNumbering {

    /**
     * {@code -Dlobatto.numbering.device=false}: every {@link SpectralElementMesh} fills its local-to-global map on the
     * host when it is made, and Z is built from that map (the path before numbering on the device). On by default.
     */
    public static final String DEVICE_PROPERTY = "lobatto.numbering.device";
    /** Entities per element: 8 corners, 12 edges, 6 faces, 1 interior. */
    public static final int ENTITIES_PER_ELEMENT = 27;
    /** The slot of an element's first edge (edge k is slot {@code EDGE_SLOT + k}). */
    public static final int EDGE_SLOT = 8;
    /** The slot of an element's first face (face f is slot {@code FACE_SLOT + f}). */
    public static final int FACE_SLOT = 20;
    /** The slot of an element's interior. */
    public static final int INTERIOR_SLOT = 26;
    /** The bit of an element's orientation word where face f's 3-bit frame starts ({@code FACE_BITS + 3 f}). */
    public static final int FACE_BITS = 12;
    /** Node classes: the kinds of entity a local node lies on. */
    public static final int VERTEX = 0, EDGE = 1, FACE = 2, INTERIOR = 3;

    private final int degree;
    private final int elementCount;
    private final int globalNodeCount;
    private final int[] ordinals;
    private final int[] orientations;
    private final int[] bases;
    private final int[] nodeClasses;

    ElementNumbering(int degree, int elementCount, int globalNodeCount, int[] ordinals, int[] orientations, int[] bases) {
        this.degree = degree;
        this.elementCount = elementCount;
        this.globalNodeCount = globalNodeCount;
        this.ordinals = ordinals;
        this.orientations = orientations;
        this.bases = bases;
        this.nodeClasses = classes(degree);
    }

    /** Whether Z is built from this numbering where it runs ({@link #DEVICE_PROPERTY}, true unless set to false). */
    public static boolean onDevice() {
        return !"false".equalsIgnoreCase(System.getProperty(DEVICE_PROPERTY, "true").trim());
    }

    /**
     * The node classes of degree {@code n}, two ints per local node {@code l = i + Nq (j + Nq k)}: {@code [2 l]} is
     * {@code kind | slot << 2} (kind {@link #VERTEX}, {@link #EDGE}, {@link #FACE} or {@link #INTERIOR}; slot the entity's
     * slot 0..26), {@code [2 l + 1]} is {@code b | c << 16}: for an edge node b = its index m in 1..N-1 along the
     * element's edge, for a face node (b, c) = (u, v) in the element's face frame, for an interior node b its offset
     * (i-1) + (N-1)((j-1) + (N-1)(k-1)).
     */
    static int[] classes(int n) {
        int nq = n + 1;
        int np = nq * nq * nq;
        int m1 = n - 1;
        int[] out = new int[2 * np];
        int[] ijk = new int[3];
        for (int kk = 0; kk < nq; kk++) {
            for (int jj = 0; jj < nq; jj++) {
                for (int ii = 0; ii < nq; ii++) {
                    int l = ii + nq * (jj + nq * kk);
                    ijk[0] = ii;
                    ijk[1] = jj;
                    ijk[2] = kk;
                    int onB = 0;
                    for (int d = 0; d < 3; d++) {
                        if (ijk[d] == 0 || ijk[d] == n) {
                            onB++;
                        }
                    }
                    int kind;
                    int slot;
                    int b = 0;
                    int c = 0;
                    if (onB == 3) {
                        kind = VERTEX;
                        slot = HexReference.cornerOf(ii / n, jj / n, kk / n);
                    } else if (onB == 2) {
                        int axis = (ii != 0 && ii != n) ? 0 : (jj != 0 && jj != n) ? 1 : 2;
                        int o1 = axis == 0 ? 1 : 0, o2 = axis == 2 ? 1 : 2;
                        kind = EDGE;
                        slot = EDGE_SLOT + HexReference.edgeIndex(axis, ijk[o1] / n, ijk[o2] / n);
                        b = ijk[axis];
                    } else if (onB == 1) {
                        int axis = (ii == 0 || ii == n) ? 0 : (jj == 0 || jj == n) ? 1 : 2;
                        int f = 2 * axis + ijk[axis] / n;
                        kind = FACE;
                        slot = FACE_SLOT + f;
                        b = ijk[HexReference.faceTangentAxis(f, 0)];
                        c = ijk[HexReference.faceTangentAxis(f, 1)];
                    } else {
                        kind = INTERIOR;
                        slot = INTERIOR_SLOT;
                        b = (ii - 1) + m1 * ((jj - 1) + m1 * (kk - 1));
                    }
                    out[2 * l] = kind | slot << 2;
                    out[2 * l + 1] = b | c << 16;
                }
            }
        }
        return out;
    }

    /** Polynomial degree N. */
    public int degree() {
        return degree;
    }

    /** E. */
    public int elementCount() {
        return elementCount;
    }

    /** Np = (N+1)^3. */
    public int nodesPerElement() {
        int nq = degree + 1;
        return nq * nq * nq;
    }

    /** N_L = E * Np, the length of the map (it fits in an int: {@link SpectralElementMesh} checks that). */
    public int localSize() {
        return elementCount * nodesPerElement();
    }

    /** N_G, the number of distinct (global) nodes: the prefix sum over every entity's node count. */
    public int globalNodeCount() {
        return globalNodeCount;
    }

    /** [27 E] the ordinal of entity {@code slot} of element e at {@code 27 e + slot}; read-only. */
    public IntBuffer ordinals() {
        return IntBuffer.wrap(ordinals).asReadOnlyBuffer();
    }

    /**
     * [E] the orientation word of each element: bit k (k &lt; 12) set where edge k runs from its higher to its lower
     * vertex id; bits {@code FACE_BITS + 3 f} .. {@code + 2} face f's frame (bit 0 / bit 1: the frame's origin at u = N /
     * v = N; bit 2: its first axis is u); read-only.
     */
    public IntBuffer orientations() {
        return IntBuffer.wrap(orientations).asReadOnlyBuffer();
    }

    /** [entities] the first global id of each entity, by ordinal (the prefix sum of the node counts); read-only. */
    public IntBuffer bases() {
        return IntBuffer.wrap(bases).asReadOnlyBuffer();
    }

    /** [2 Np] the node classes of this degree (see {@link #globalId}); read-only. */
    public IntBuffer nodeClasses() {
        return IntBuffer.wrap(nodeClasses).asReadOnlyBuffer();
    }

    /**
     * l2g(e, n): the global id of local node {@code n} of element {@code e}. A node on edge k at index m gets
     * {@code base + m - 1}, or {@code base + N - 1 - m} on a reversed edge; a face node at (u, v) in the element's frame
     * is moved to the face's canonical frame (origin flips u -> N - u, v -> N - v, then the first axis (p, q)) and gets
     * {@code base + (p - 1) + (N - 1)(q - 1)}; an interior node {@code base + offset}.
     *
     * @throws IndexOutOfBoundsException if {@code e} or {@code n} is out of range
     */
    public int globalId(int e, int n) {
        if (e < 0 || e >= elementCount) {
            throw new IndexOutOfBoundsException("element " + e + " is not in [0, " + elementCount + ")");
        }
        if (n < 0 || n >= nodesPerElement()) {
            throw new IndexOutOfBoundsException("node " + n + " is not in [0, " + nodesPerElement() + ")");
        }
        return id(nodeClasses, ordinals, orientations, bases, degree, e, n);
    }

    /** The formula of {@link #globalId} (the device kernel's arithmetic, in the same order). */
    private static int id(int[] classes, int[] ordinals, int[] orientations, int[] bases, int n, int e, int l) {
        int cls = classes[2 * l];
        int kind = cls & 3;
        int slot = cls >>> 2;
        int bc = classes[2 * l + 1];
        int b = bc & 0xffff;
        int g = bases[ordinals[ENTITIES_PER_ELEMENT * e + slot]];
        if (kind == EDGE) {
            g += ((orientations[e] >>> (slot - EDGE_SLOT)) & 1) != 0 ? n - 1 - b : b - 1;
        } else if (kind == FACE) {
            int c = bc >>> 16;
            int frame = (orientations[e] >>> (FACE_BITS + 3 * (slot - FACE_SLOT))) & 7;
            int du = (frame & 1) == 0 ? b : n - b;
            int dv = (frame & 2) == 0 ? c : n - c;
            int p = (frame & 4) != 0 ? du : dv;
            int q = (frame & 4) != 0 ? dv : du;
            g += (p - 1) + (n - 1) * (q - 1);
        } else if (kind == INTERIOR) {
            g += b;
        }
        return g;
    }

    /**
     * The map on the host: entries {@code e0 * Np} .. {@code e1 * Np} of {@code l2g} for elements [e0, e1). The fill of
     * {@link SpectralElementMesh#localToGlobal()}.
     */
    void fill(int[] l2g, int e0, int e1) {
        // the arrays as locals: on a cold JVM this loop runs interpreted at first, where every field read costs
        final int[] classes = nodeClasses;
        final int[] ords = ordinals;
        final int[] orient = orientations;
        final int[] base = bases;
        final int n = degree;
        final int np = nodesPerElement();
        for (int e = e0; e < e1; e++) {
            int out = e * np;
            for (int l = 0; l < np; l++) {
                l2g[out + l] = id(classes, ords, orient, base, n, e, l);
            }
        }
    }

    /**
     * The degree-free part of the numbering of a mesh in the slots of {@link ElementNumbering}: [27 E] entity ordinals
     * and [E] orientation words, packed once per {@link HexMesh} from its {@link SpectralElementMesh.Topology}.
     */
    record Entities(int[] ordinals, int[] orientations, byte[] kinds) {

        static Entities of(SpectralElementMesh.Topology topo) {
            int ne = topo.interior().length;
            if ((long) ENTITIES_PER_ELEMENT * ne > SpectralElementMesh.MAX_ARRAY) {
                throw new IllegalArgumentException("mesh too large for its entity table: 27 * E = 27 * " + ne
                        + " exceeds the Java array limit 2^31 - 8");
            }
            int[] ordinals = new int[ENTITIES_PER_ELEMENT * ne];
            int[] orientations = new int[ne];
            int[] corner = topo.corner();
            int[] edge = topo.edge();
            boolean[] reversed = topo.edgeReversed();
            int[] face = topo.face();
            byte[] frames = topo.faceFrame();
            int[] interior = topo.interior();
            SpectralElementMesh.forEachChunk(ne, (e0, e1) -> {
                for (int e = e0; e < e1; e++) {
                    int o = ENTITIES_PER_ELEMENT * e;
                    System.arraycopy(corner, 8 * e, ordinals, o, 8);
                    System.arraycopy(edge, 12 * e, ordinals, o + EDGE_SLOT, 12);
                    System.arraycopy(face, 6 * e, ordinals, o + FACE_SLOT, 6);
                    ordinals[o + INTERIOR_SLOT] = interior[e];
                    int word = 0;
                    for (int k = 0; k < 12; k++) {
                        if (reversed[12 * e + k]) {
                            word |= 1 << k;
                        }
                    }
                    for (int f = 0; f < 6; f++) {
                        word |= (frames[6 * e + f] & 7) << (FACE_BITS + 3 * f);
                    }
                    orientations[e] = word;
                }
                return 0;
            });
            return new Entities(ordinals, orientations, topo.kinds());
        }

        /** The numbering at degree {@code n}: the bases by the prefix sum over the entities' node counts. */
        ElementNumbering at(int n) {
            int m1 = n - 1;
            long[] sizes = {1, m1, (long) m1 * m1, (long) m1 * m1 * m1};
            int[] base = new int[kinds.length];
            long next = 0;
            for (int k = 0; k < kinds.length; k++) {
                base[k] = (int) next;
                next += sizes[kinds[k]];
                if (next > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException("global node count exceeds 2^31 - 1 at degree " + n + " (entity " + k
                            + " of " + kinds.length + ")");
                }
            }
            return new ElementNumbering(n, orientations.length, (int) next, ordinals, orientations, base);
        }
    }

    @Override
    public String toString() {
        return "ElementNumbering[N=" + degree + ", E=" + elementCount + ", entities=" + bases.length + ", N_G="
                + globalNodeCount + "]";
    }
}
