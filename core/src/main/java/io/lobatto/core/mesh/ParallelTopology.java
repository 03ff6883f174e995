package io.lobatto.core.mesh;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The mesh topology of {@link SpectralElementMesh.Topology#of} (vertices, edges, faces and interiors numbered in order of
 * first appearance in the element walk) made in parallel, O(E) work: every entity occurrence has a position
 * {@code 27 e + s} in the walk (slots 0..7 vertices, 8..19 edges, 20..25 faces, 26 the interior); an entity's ordinal is
 * the rank of its first position among all first positions. The first positions come from atomic minima, per vertex in
 * an array and per edge and face in concurrent hash tables (open addressing, keys claimed by compare-and-set); the
 * ranks from a prefix sum over the positions. The same arrays as the sequential walk, entry for entry. A face used more
 * than twice or in two cyclic orders returns null: the caller then runs the sequential walk, which names the element.
 */
final class ParallelTopology {

    private static final VarHandle INTS = MethodHandles.arrayElementVarHandle(int[].class);
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    /** Positions per element: 8 vertices, 12 edges, 6 faces, the interior. */
    static final int SLOTS = 27;
    private static final int EDGE0 = 8;
    private static final int FACE0 = 20;
    private static final int INTERIOR = 26;
    private static final int NONE = Integer.MAX_VALUE;

    private ParallelTopology() {
    }

    /** The topology of {@code mesh}, or null where a face is not conforming (see the class comment). */
    static SpectralElementMesh.Topology of(HexMesh mesh) {
        int ne = mesh.elementCount();
        if ((long) SLOTS * ne > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("elementCount = " + ne + " is above the limit " + (Integer.MAX_VALUE - 16) / SLOTS
                    + " of the parallel topology");
        }
        int[] elements = mesh.elements();
        int[] vertexFirst = new int[mesh.vertexCount()];
        Arrays.fill(vertexFirst, NONE);
        int edgeCap = capacity(6L * ne + 16);
        int faceCap = capacity(3L * ne + 16);
        long[] edgeKeys = new long[edgeCap];
        int[] edgeFirst = new int[edgeCap];
        long[] faceKeys = new long[2 * faceCap];
        int[] faceFirst = new int[faceCap];
        int[] faceUses = new int[faceCap];
        Arrays.fill(edgeFirst, NONE);
        Arrays.fill(faceFirst, NONE);
        int[] edgeSlot = new int[12 * ne];
        int[] faceSlot = new int[6 * ne];
        boolean[] edgeReversed = new boolean[12 * ne];
        byte[] faceFrame = new byte[6 * ne];
        final int[] cu = {0, 1, 1, 0};
        final int[] cv = {0, 0, 1, 1};

        // first positions: vertices, edges and faces of each chunk of elements
        SpectralElementMesh.forEachChunk(ne, (e0, e1) -> {
            int[] w = new int[4];
            int[] sorted = new int[4];
            for (int e = e0; e < e1; e++) {
                int ve = 8 * e;
                int p = SLOTS * e;
                for (int k = 0; k < 8; k++) {
                    minimum(vertexFirst, elements[ve + k], p + k);
                }
                for (int ed = 0; ed < 12; ed++) {
                    int a = elements[ve + HexReference.edgeCorner(ed, 0)];
                    int b = elements[ve + HexReference.edgeCorner(ed, 1)];
                    int s = edgeSlot(edgeKeys, ((Math.min(a, b) + 1L) << 32) | (Math.max(a, b) + 1L));
                    minimum(edgeFirst, s, p + EDGE0 + ed);
                    edgeSlot[12 * e + ed] = s;
                    edgeReversed[12 * e + ed] = a > b;
                }
                for (int f = 0; f < 6; f++) {
                    int frame = SpectralElementMesh.faceCorners(elements, e, f, w, sorted);
                    int o = frame & 3;
                    int first = frame >>> 2;
                    int s = faceSlot(faceKeys, ((sorted[0] + 1L) << 32) | (sorted[1] + 1L),
                            ((sorted[2] + 1L) << 32) | (sorted[3] + 1L));
                    minimum(faceFirst, s, p + FACE0 + f);
                    INTS.getAndAdd(faceUses, s, 1);
                    faceSlot[6 * e + f] = s;
                    faceFrame[6 * e + f] = (byte) (cu[o] | cv[o] << 1 | (cu[first] != cu[o] ? 4 : 0));
                }
            }
            return 0;
        });

        // conformity: each face used at most twice, both times in the first use's cyclic order (its frame's origin and
        // first axis are the same two vertices)
        long bad = java.util.stream.IntStream.range(0, (ne + 4095) / 4096).parallel().filter(c -> {
            for (int e = c * 4096, end = Math.min(ne, (c + 1) * 4096); e < end; e++) {
                for (int f = 0; f < 6; f++) {
                    int s = faceSlot[6 * e + f];
                    if (faceUses[s] > 2) {
                        return true;
                    }
                    int p = faceFirst[s];
                    int e2 = p / SLOTS;
                    int f2 = p % SLOTS - FACE0;
                    if (e2 != e && !sameFrame(elements, e, f, e2, f2)) {
                        return true;
                    }
                }
            }
            return false;
        }).count();
        if (bad > 0) {
            return null;
        }

        // the first positions flagged, then ranked
        int positions = SLOTS * ne;
        boolean[] isFirst = new boolean[positions];
        SpectralElementMesh.forEachChunk(vertexFirst.length, (v0, v1) -> {
            for (int v = v0; v < v1; v++) {
                if (vertexFirst[v] != NONE) {
                    isFirst[vertexFirst[v]] = true;
                }
            }
            return 0;
        });
        markFirsts(edgeFirst, isFirst);
        markFirsts(faceFirst, isFirst);
        int chunk = 1 << 16;
        int chunks = (positions + chunk - 1) / chunk;
        int[] chunkBase = new int[chunks + 1];
        java.util.stream.IntStream.range(0, chunks).parallel().forEach(c -> {
            int k = 0;
            for (int q = c * chunk, end = Math.min(positions, (c + 1) * chunk); q < end; q++) {
                if (isFirst[q] || q % SLOTS == INTERIOR) {
                    k++;
                }
            }
            chunkBase[c + 1] = k;
        });
        for (int c = 0; c < chunks; c++) {
            chunkBase[c + 1] += chunkBase[c];
        }
        int entities = chunkBase[chunks];
        int[] rank = new int[positions];
        byte[] kinds = new byte[entities];
        java.util.stream.IntStream.range(0, chunks).parallel().forEach(c -> {
            int k = chunkBase[c];
            for (int q = c * chunk, end = Math.min(positions, (c + 1) * chunk); q < end; q++) {
                int s = q % SLOTS;
                if (isFirst[q] || s == INTERIOR) {
                    rank[q] = k;
                    kinds[k] = (byte) (s < EDGE0 ? 0 : s < FACE0 ? 1 : s < INTERIOR ? 2 : 3);
                    k++;
                }
            }
        });

        // each occurrence's ordinal from its entity's first position
        int[] corner = new int[8 * ne];
        int[] edge = new int[12 * ne];
        int[] face = new int[6 * ne];
        int[] interior = new int[ne];
        SpectralElementMesh.forEachChunk(ne, (e0, e1) -> {
            for (int e = e0; e < e1; e++) {
                for (int k = 0; k < 8; k++) {
                    corner[8 * e + k] = rank[vertexFirst[elements[8 * e + k]]];
                }
                for (int ed = 0; ed < 12; ed++) {
                    edge[12 * e + ed] = rank[edgeFirst[edgeSlot[12 * e + ed]]];
                }
                for (int f = 0; f < 6; f++) {
                    face[6 * e + f] = rank[faceFirst[faceSlot[6 * e + f]]];
                }
                interior[e] = rank[SLOTS * e + INTERIOR];
            }
            return 0;
        });
        return new SpectralElementMesh.Topology(kinds, corner, edge, edgeReversed, face, faceFrame, interior,
                SpectralElementMesh.Topology.faceNeighbours(face, entities));
    }

    /** Face f of element e and face f2 of element e2 have the same frame origin and first-axis vertex. */
    private static boolean sameFrame(int[] elements, int e, int f, int e2, int f2) {
        return frameVertices(elements, e, f) == frameVertices(elements, e2, f2);
    }

    /** The face's smallest vertex and the smaller of its two neighbours on the face, packed. */
    private static long frameVertices(int[] elements, int e, int f) {
        int[] w = new int[4];
        int frame = SpectralElementMesh.faceCorners(elements, e, f, w, new int[4]);
        return ((long) w[frame & 3] << 32) | (w[frame >>> 2] & 0xffffffffL);
    }

    private static void markFirsts(int[] first, boolean[] isFirst) {
        SpectralElementMesh.forEachChunk(first.length, (s0, s1) -> {
            for (int s = s0; s < s1; s++) {
                if (first[s] != NONE) {
                    isFirst[first[s]] = true;
                }
            }
            return 0;
        });
    }

    /** a[i] = min(a[i], v), atomically. */
    private static void minimum(int[] a, int i, int v) {
        int cur = (int) INTS.getVolatile(a, i);
        while (v < cur) {
            int seen = (int) INTS.compareAndExchange(a, i, cur, v);
            if (seen == cur) {
                return;
            }
            cur = seen;
        }
    }

    private static int capacity(long expected) {
        long cap = Long.highestOneBit(Math.max(16, 2 * expected - 1)) << 1;
        if (cap > 1 << 30) {
            throw new IllegalArgumentException("the topology's hash table would need " + cap + " slots, above 2^30");
        }
        return (int) cap;
    }

    /** The slot of edge {@code key} (its two vertices + 1: never 0), claimed if new. */
    private static int edgeSlot(long[] keys, long key) {
        int mask = keys.length - 1;
        int s = (int) SpectralElementMesh.mix(key) & mask;
        while (true) {
            long k = (long) LONGS.getVolatile(keys, s);
            if (k == 0) {
                k = (long) LONGS.compareAndExchange(keys, s, 0L, key);
                if (k == 0) {
                    return s;
                }
            }
            if (k == key) {
                return s;
            }
            s = (s + 1) & mask;
        }
    }

    /**
     * The slot of face (k0, k1) (its sorted vertices + 1 in pairs: never 0), claimed if new: k0 by
     * compare-and-set, then k1; a reader that finds k0 waits for k1.
     */
    private static int faceSlot(long[] keys, long k0, long k1) {
        int mask = keys.length / 2 - 1;
        int s = (int) SpectralElementMesh.mix(k0 * 0x9e3779b97f4a7c15L + k1) & mask;
        while (true) {
            long a = (long) LONGS.getVolatile(keys, 2 * s);
            if (a == 0) {
                a = (long) LONGS.compareAndExchange(keys, 2 * s, 0L, k0);
                if (a == 0) {
                    LONGS.setVolatile(keys, 2 * s + 1, k1);
                    return s;
                }
            }
            if (a == k0) {
                long b;
                while ((b = (long) LONGS.getVolatile(keys, 2 * s + 1)) == 0) {
                    Thread.onSpinWait();
                }
                if (b == k1) {
                    return s;
                }
            }
            s = (s + 1) & mask;
        }
    }
}
