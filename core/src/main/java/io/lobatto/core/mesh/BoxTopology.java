package io.lobatto.core.mesh;

/**
 * The {@link SpectralElementMesh.Topology} of a structured box ({@link HexMesh#box}) in closed form: the same entity
 * ordinals, kinds and orientations as {@link SpectralElementMesh.Topology#walk}, without its hash tables.
 *
 * <p>On the doubled lattice an entity of element (a, b, c) is the point P with P_d = 2 a_d + 1 along the axes it spans
 * and 2 (a_d + bit_d) along the others (bit_d its side of the element). The walk visits elements in id order
 * a + nx (b + ny c) and gives an entity its ordinal in the first element that contains it, which is the smallest
 * element index along each axis: the element itself, except along an axis where the entity lies on the element's low
 * side (bit 0) and a_d &gt; 0, where it is the neighbour at a_d - 1 (the entity on its high side). So an entity is new
 * in element e exactly when a_d = 0 on every axis of its low sides; which of the 27 slots are new depends only on the
 * three flags (a = 0, b = 0, c = 0), and ordinal(e, slot) = first(e') + rank(flags(e'), slot') where e' is the first
 * element, slot' the entity's slot there, first(e') the number of entities new in the elements before e' (a prefix
 * sum over E) and rank the place of slot' among the new slots in walk order (corners, edges, faces, interior). In a
 * box every element's frame is aligned with x, y, z and vertex ids grow with x, y and z, so every element has the
 * orientations of element 0.
 */
final class BoxTopology {

    private BoxTopology() {
    }

    /** The lattice bits of slot s (per axis: 0 / 1 the low / high side, 2 spanned). */
    private static final int[][] SLOT_BITS = slotBits();

    private static int[][] slotBits() {
        int[][] out = new int[27][3];
        for (int k = 0; k < 8; k++) {
            for (int d = 0; d < 3; d++) {
                out[k][d] = HexReference.cornerBit(k, d);
            }
        }
        for (int ed = 0; ed < 12; ed++) {
            int axis = ed / 4;
            out[8 + ed][axis] = 2;
            out[8 + ed][axis == 0 ? 1 : 0] = ed % 2;
            out[8 + ed][axis == 2 ? 1 : 2] = (ed / 2) % 2;
        }
        for (int f = 0; f < 6; f++) {
            for (int d = 0; d < 3; d++) {
                out[20 + f][d] = d == f / 2 ? f % 2 : 2;
            }
        }
        out[26] = new int[] {2, 2, 2};
        return out;
    }

    /** The slot of the entity with lattice bits {@code bits} (inverse of {@link #SLOT_BITS}). */
    private static int slotOf(int b0, int b1, int b2) {
        for (int s = 0; s < 27; s++) {
            if (SLOT_BITS[s][0] == b0 && SLOT_BITS[s][1] == b1 && SLOT_BITS[s][2] == b2) {
                return s;
            }
        }
        throw new IllegalStateException("no slot of bits " + b0 + b1 + b2);
    }

    /** The kind of slot s: 0 vertex, 1 edge, 2 face, 3 interior. */
    private static int kindOf(int s) {
        return s < 8 ? 0 : s < 20 ? 1 : s < 26 ? 2 : 3;
    }

    /** The topology of {@code mesh}, which must be a {@link HexMesh#structuredBox()}. */
    static SpectralElementMesh.Topology of(HexMesh mesh) {
        HexMesh.Box box = mesh.structuredBox().orElseThrow(() -> new IllegalArgumentException("not a structured box"));
        final int nx = box.nx(), ny = box.ny(), nz = box.nz();
        final int ne = mesh.elementCount();
        // per flags (bit d set: a_d = 0): rank of each new slot (-1 where the entity is not new) and the count
        final int[][] rank = new int[8][27];
        final int[] count = new int[8];
        // per slot: the mask of the axes on whose low side the entity lies
        final int[] low = new int[27];
        for (int s = 0; s < 27; s++) {
            for (int d = 0; d < 3; d++) {
                if (SLOT_BITS[s][d] == 0) {
                    low[s] |= 1 << d;
                }
            }
        }
        for (int flags = 0; flags < 8; flags++) {
            int r = 0;
            for (int s = 0; s < 27; s++) {
                rank[flags][s] = (low[s] & ~flags) == 0 ? r++ : -1;
            }
            count[flags] = r;
        }
        // per slot and per "moved" mask (the low-side axes where a_d > 0): the slot in the first element
        final int[][] movedSlot = new int[27][8];
        for (int s = 0; s < 27; s++) {
            for (int moved = 0; moved < 8; moved++) {
                int[] b = SLOT_BITS[s].clone();
                for (int d = 0; d < 3; d++) {
                    if ((moved >> d & 1) != 0 && b[d] == 0) {
                        b[d] = 1;
                    }
                }
                movedSlot[s][moved] = slotOf(b[0], b[1], b[2]);
            }
        }
        // first[e]: the entities new in the elements before e
        final int[] first = new int[ne];
        long next = 0;
        for (int c = 0, e = 0; c < nz; c++) {
            for (int b = 0; b < ny; b++) {
                for (int a = 0; a < nx; a++, e++) {
                    first[e] = (int) next;
                    next += count[(a == 0 ? 1 : 0) | (b == 0 ? 2 : 0) | (c == 0 ? 4 : 0)];
                    if (next > Integer.MAX_VALUE - 8) {
                        throw new IllegalArgumentException("box " + nx + " x " + ny + " x " + nz + ": more than 2^31 - 8 entities");
                    }
                }
            }
        }
        final int entities = (int) next;
        final byte[] kinds = new byte[entities];
        final int[] corner = new int[8 * ne];
        final int[] edge = new int[12 * ne];
        final int[] face = new int[6 * ne];
        final int[] interior = new int[ne];
        final int[] steps = {1, nx, nx * ny};
        SpectralElementMesh.forEachChunk(ne, (e0, e1) -> {
            for (int e = e0; e < e1; e++) {
                int a = e % nx;
                int b = (e / nx) % ny;
                int c = e / (nx * ny);
                int flags = (a == 0 ? 1 : 0) | (b == 0 ? 2 : 0) | (c == 0 ? 4 : 0);
                for (int s = 0; s < 27; s++) {
                    int moved = low[s] & ~flags;
                    int ord;
                    if (moved == 0) {
                        ord = first[e] + rank[flags][s];
                        kinds[ord] = (byte) kindOf(s);
                    } else {
                        int f = e;
                        int ff = flags;
                        for (int d = 0; d < 3; d++) {
                            if ((moved >> d & 1) != 0) {
                                f -= steps[d];
                                int ad = d == 0 ? a : d == 1 ? b : c;
                                if (ad - 1 == 0) {
                                    ff |= 1 << d;
                                }
                            }
                        }
                        ord = first[f] + rank[ff][movedSlot[s][moved]];
                    }
                    if (s < 8) {
                        corner[8 * e + s] = ord;
                    } else if (s < 20) {
                        edge[12 * e + s - 8] = ord;
                    } else if (s < 26) {
                        face[6 * e + s - 20] = ord;
                    } else {
                        interior[e] = ord;
                    }
                }
            }
            return 0;
        });
        // the orientations of element 0 (the walk's rules), the same in every element of a box
        int[] elements = mesh.elements();
        boolean[] reversed0 = new boolean[12];
        for (int ed = 0; ed < 12; ed++) {
            reversed0[ed] = elements[HexReference.edgeCorner(ed, 0)] > elements[HexReference.edgeCorner(ed, 1)];
        }
        byte[] frame0 = new byte[6];
        int[] w = new int[4];
        int[] sorted = new int[4];
        final int[] cu = {0, 1, 1, 0};
        final int[] cv = {0, 0, 1, 1};
        for (int f = 0; f < 6; f++) {
            int fr = SpectralElementMesh.faceCorners(elements, 0, f, w, sorted);
            int o = fr & 3;
            int firstCorner = fr >>> 2;
            frame0[f] = (byte) (cu[o] | cv[o] << 1 | (cu[firstCorner] != cu[o] ? 4 : 0));
        }
        boolean[] edgeReversed = new boolean[12 * ne];
        byte[] faceFrame = new byte[6 * ne];
        for (int e = 0; e < ne; e++) {
            System.arraycopy(reversed0, 0, edgeReversed, 12 * e, 12);
            System.arraycopy(frame0, 0, faceFrame, 6 * e, 6);
        }
        return new SpectralElementMesh.Topology(kinds, corner, edge, edgeReversed, face, faceFrame, interior,
                SpectralElementMesh.Topology.faceNeighbours(face, entities));
    }
}
