package io.lobatto.parallel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.HexReference;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;

/**
 * One rank's part of any {@link HexMesh} (boxes, Gmsh meshes) cut by {@link RecursiveBisection}: every rank cuts the
 * whole mesh alike and keeps the elements of its part. A GLL node's key is its id in the whole mesh's
 * {@link SpectralElementMesh} numbering at the level's degree (the same on every rank: the numbering is deterministic),
 * so ranks that share a node (across a face, an edge or only a vertex) agree on it; it is owned by the lowest rank that
 * holds it. The elements with a vertex that another part uses come first ({@link #boundaryElements()}).
 */
public final class BisectionPartition implements MeshPartition {

    private final HexMesh global;
    private final int[] part;
    private final int ranks;
    private final int rank;
    /** The global element of each local element, boundary elements first, each group in global order. */
    private final int[] elements;
    private final int boundary;
    private final Map<Integer, int[]> numbering = new HashMap<>();

    private BisectionPartition(HexMesh global, int[] part, int ranks, int rank) {
        this.global = global;
        this.part = part;
        this.ranks = ranks;
        this.rank = rank;
        int nv = global.vertexCount();
        // per vertex: used by this part, used by another part
        boolean[] mine = new boolean[nv];
        boolean[] other = new boolean[nv];
        for (int e = 0; e < part.length; e++) {
            boolean[] m = part[e] == rank ? mine : other;
            for (int k = 0; k < HexReference.CORNERS; k++) {
                m[global.elementVertex(e, k)] = true;
            }
        }
        List<Integer> edge = new ArrayList<>();
        List<Integer> inner = new ArrayList<>();
        for (int e = 0; e < part.length; e++) {
            if (part[e] != rank) {
                continue;
            }
            boolean touches = false;
            for (int k = 0; k < HexReference.CORNERS && !touches; k++) {
                touches = other[global.elementVertex(e, k)];
            }
            (touches ? edge : inner).add(e);
        }
        this.boundary = edge.size();
        edge.addAll(inner);
        this.elements = edge.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * Rank {@code rank}'s part of {@code mesh} cut into {@code ranks} parts by recursive coordinate bisection.
     *
     * @throws IllegalArgumentException if {@code rank} is not in [0, ranks) or the mesh has fewer elements than ranks
     */
    public static BisectionPartition of(HexMesh mesh, int ranks, int rank) {
        if (rank < 0 || rank >= ranks) {
            throw new IllegalArgumentException("rank = " + rank + " is out of range [0, " + ranks + ")");
        }
        return new BisectionPartition(mesh, RecursiveBisection.partition(mesh, ranks), ranks, rank);
    }

    /** The number of leading local elements that touch another part (by a face, an edge or a vertex). */
    public int boundaryElements() {
        return boundary;
    }

    @Override
    public int elementCount() {
        return elements.length;
    }

    /** The part of every element of the whole mesh. */
    public int[] parts() {
        return part.clone();
    }

    /** The whole mesh every rank cuts alike. */
    @Override
    public HexMesh globalMesh() {
        return global;
    }

    /** The whole mesh's element of local element {@code e} (boundary elements first). */
    @Override
    public int globalElement(int e) {
        if (e < 0 || e >= elements.length) {
            throw new IllegalArgumentException("local element " + e + " is out of range [0, " + elements.length + ")");
        }
        return elements[e];
    }

    @Override
    public HexMesh localMesh() {
        int[] vertexMap = new int[global.vertexCount()];
        Arrays.fill(vertexMap, -1);
        int nv = 0;
        int[] conn = new int[8 * elements.length];
        int[] tags = new int[6 * elements.length];
        for (int p = 0; p < elements.length; p++) {
            int e = elements[p];
            for (int k = 0; k < HexReference.CORNERS; k++) {
                int v = global.elementVertex(e, k);
                if (vertexMap[v] < 0) {
                    vertexMap[v] = nv++;
                }
                conn[8 * p + k] = vertexMap[v];
            }
            for (int f = 0; f < 6; f++) {
                tags[6 * p + f] = global.faceTag(e, f);
            }
        }
        double[] xyz = new double[3 * nv];
        for (int v = 0; v < vertexMap.length; v++) {
            if (vertexMap[v] >= 0) {
                for (int d = 0; d < 3; d++) {
                    xyz[3 * vertexMap[v] + d] = global.vertex(v, d);
                }
            }
        }
        return new HexMesh(xyz, conn, tags);
    }

    /** The whole mesh's GLL numbering at {@code degree} (computed once per degree). */
    private synchronized int[] globalNumbering(int degree) {
        return numbering.computeIfAbsent(degree, n -> SpectralElementMesh.of(global, n).localToGlobal());
    }

    @Override
    public SharedNodes sharedNodes(SpectralElementMesh mesh, ScatterOperator z) {
        if (mesh.elementCount() != elements.length) {
            throw new IllegalArgumentException("mesh has " + mesh.elementCount() + " elements but part " + rank + " has "
                    + elements.length + " (build it from localMesh())");
        }
        int np = mesh.nodesPerElement();
        int[] g = globalNumbering(mesh.degree());
        int count = 0;
        for (int v : g) {
            count = Math.max(count, v + 1);
        }
        // this rank's nodes, then the other parts that hold each of them
        java.util.BitSet local = new java.util.BitSet(count);
        for (int e : elements) {
            for (int n = 0; n < np; n++) {
                local.set(g[e * np + n]);
            }
        }
        Map<Integer, long[]> holders = new HashMap<>();
        int words = (ranks + 63) / 64;
        for (int e = 0; e < part.length; e++) {
            if (part[e] == rank) {
                continue;
            }
            int q = part[e];
            for (int n = 0; n < np; n++) {
                int id = g[e * np + n];
                if (local.get(id)) {
                    holders.computeIfAbsent(id, k -> new long[words])[q >>> 6] |= 1L << (q & 63);
                }
            }
        }
        double[] mask = new double[z.globalSize()];
        Arrays.fill(mask, 1);
        TreeMap<Integer, TreeMap<Long, Integer>> byNeighbour = new TreeMap<>();
        for (int p = 0; p < elements.length; p++) {
            int e = elements[p];
            for (int n = 0; n < np; n++) {
                int key = g[e * np + n];
                long[] h = holders.get(key);
                if (h == null) {
                    continue;
                }
                int id = z.assembledId(mesh.globalId(p, n));
                if (id < 0) {
                    continue; // Dirichlet: in no rank's assembled vector
                }
                for (int w = 0; w < words; w++) {
                    for (long bits = h[w]; bits != 0; bits &= bits - 1) {
                        int q = 64 * w + Long.numberOfTrailingZeros(bits);
                        byNeighbour.computeIfAbsent(q, k -> new TreeMap<>()).put((long) key, id);
                        if (q < rank) {
                            mask[id] = 0; // the lowest rank that holds the node owns it
                        }
                    }
                }
            }
        }
        int m = byNeighbour.size();
        int[] neighbours = new int[m];
        int[][] ids = new int[m][];
        long[][] keys = new long[m][];
        int i = 0;
        for (Map.Entry<Integer, TreeMap<Long, Integer>> en : byNeighbour.entrySet()) {
            neighbours[i] = en.getKey();
            ids[i] = en.getValue().values().stream().mapToInt(Integer::intValue).toArray();
            keys[i++] = en.getValue().keySet().stream().mapToLong(Long::longValue).toArray();
        }
        return new SharedNodes(neighbours, ids, keys, mask);
    }

    @Override
    public String describe() {
        return "rcb";
    }

    @Override
    public String toString() {
        return "part " + rank + " of " + ranks + " by recursive bisection (" + elements.length + " elements, "
                + boundary + " touching another part)";
    }
}
