package io.lobatto.parallel;

import java.util.Arrays;
import java.util.TreeMap;

import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;

/**
 * One rank's slab of the unit-cube box {@link HexMesh#box} of nx x ny x nz elements, cut along z into as many slabs
 * of whole element layers as there are ranks (the first nz mod R ranks take one layer more). Rank r holds layers
 * [{@link #firstLayer()}, {@link #firstLayer()} + {@link #layers()}); it shares the GLL nodes of the plane below its
 * slab with rank r-1 and of the plane above with rank r+1. The plane between r and r+1 is owned by r (the lower
 * rank), so each shared node is counted once in dot products ({@link SharedNodes#ownerMask()}).
 */
public final class SlabPartition implements MeshPartition {

    private final int nx;
    private final int ny;
    private final int nz;
    private final int ranks;
    private final int rank;
    private final int firstLayer;
    private final int layers;
    private final boolean boundaryFirst;
    private final int[] order;

    private SlabPartition(int nx, int ny, int nz, int ranks, int rank, boolean boundaryFirst) {
        this(nx, ny, nz, ranks, rank, rank * (nz / ranks) + Math.min(rank, nz % ranks),
                nz / ranks + (rank < nz % ranks ? 1 : 0), boundaryFirst);
    }

    private SlabPartition(int nx, int ny, int nz, int ranks, int rank, int firstLayer, int layers, boolean boundaryFirst) {
        this.boundaryFirst = boundaryFirst;
        this.nx = nx;
        this.ny = ny;
        this.nz = nz;
        this.ranks = ranks;
        this.rank = rank;
        this.layers = layers;
        this.firstLayer = firstLayer;
        this.order = layerOrder(rank, ranks, layers, boundaryFirst);
    }

    /**
     * The slab of {@code rank} among {@code ranks} of the box of {@code nx x ny x nz} elements.
     *
     * @throws IllegalArgumentException if a count is below 1, {@code rank} is not in [0, ranks), or
     *                                  {@code nz < ranks} (every rank needs at least one layer)
     */
    public static SlabPartition of(int nx, int ny, int nz, int ranks, int rank) {
        if (nx < 1 || ny < 1 || nz < 1) {
            throw new IllegalArgumentException("slab partition needs nx, ny, nz >= 1, got " + nx + ", " + ny + ", " + nz);
        }
        if (ranks < 1) {
            throw new IllegalArgumentException("slab partition needs ranks >= 1, got " + ranks);
        }
        if (rank < 0 || rank >= ranks) {
            throw new IllegalArgumentException("rank = " + rank + " is out of range [0, " + ranks + ")");
        }
        if (nz < ranks) {
            throw new IllegalArgumentException("nz = " + nz + " element layers cannot be cut into " + ranks
                    + " slabs: nz must be >= the number of ranks");
        }
        return new SlabPartition(nx, ny, nz, ranks, rank, false);
    }

    /**
     * This slab with its elements in the order of a distributed operator that overlaps its exchange
     * ({@link DistributedOperator.Schedule#OVERLAP}): the layers that touch a neighbour (the first and the last, as
     * there are neighbours) first, then the interior layers in order. {@link #localMesh()} and {@link #sharedNodes}
     * follow it.
     */
    public SlabPartition boundaryFirst() {
        return new SlabPartition(nx, ny, nz, ranks, rank, true);
    }

    /**
     * Why this slab cannot be coarsened by 2 in every direction ({@link #coarsened()}), naming the rank and its slab, or
     * null where it can: nx, ny, the slab's layer count and its first layer even.
     */
    public String whyNotCoarsened() {
        if (nx % 2 != 0 || ny % 2 != 0 || layers % 2 != 0 || firstLayer % 2 != 0) {
            return "rank " + rank + "'s slab (layers " + firstLayer + ".." + (firstLayer + layers - 1) + " of " + nz + ", " + nx
                    + " x " + ny + " x " + layers + " elements) cannot be halved: nx, ny, its layer count and its first layer"
                    + " must be even";
        }
        return null;
    }

    /**
     * The same rank's slab of the box of nx/2 x ny/2 x nz/2 elements over the unit cube (geometric h-coarsening): layers
     * firstLayer/2 .. (firstLayer + layers)/2 - 1, in the same kind of order (boundary layers first where this slab has
     * them). Every rank's coarsened slab is its own halved, so the slabs still tile the box and meet at the same planes.
     *
     * @throws IllegalArgumentException where {@link #whyNotCoarsened()} says why
     */
    public SlabPartition coarsened() {
        String why = whyNotCoarsened();
        if (why != null) {
            throw new IllegalArgumentException("h-coarsening: " + why);
        }
        return new SlabPartition(nx / 2, ny / 2, nz / 2, ranks, rank, firstLayer / 2, layers / 2, boundaryFirst);
    }

    /**
     * The slab's elements as a lattice of nx x ny x layers positions (z relative to its first layer), each local element
     * at its place ({@link io.lobatto.solvers.HCoarsening#fineIdsOfCoarsePoints(SpectralElementMesh,
     * io.lobatto.solvers.HCoarsening.ElementLattice, io.lobatto.solvers.HCoarsening.ElementLattice) Z_h}'s map).
     */
    public io.lobatto.solvers.HCoarsening.ElementLattice lattice() {
        int[] position = new int[layers];
        for (int p = 0; p < layers; p++) {
            position[order[p]] = p;
        }
        return io.lobatto.solvers.HCoarsening.ElementLattice.ofLayers(nx, ny, position);
    }

    /** The slab's layer (0 = its first) of the elements at position {@code p} of the local order. */
    int layerAt(int p) {
        return order[p];
    }

    private static int[] layerOrder(int rank, int ranks, int layers, boolean boundaryFirst) {
        int[] order = new int[layers];
        boolean below = boundaryFirst && rank > 0, above = boundaryFirst && rank < ranks - 1 && layers > 1;
        int i = 0;
        if (below) {
            order[i++] = 0;
        }
        if (above) {
            order[i++] = layers - 1;
        }
        for (int l = below ? 1 : 0; l < (above ? layers - 1 : layers); l++) {
            order[i++] = l;
        }
        return order;
    }

    /** The first element layer (z index) of this slab. */
    public int firstLayer() {
        return firstLayer;
    }

    /** The number of element layers of this slab. */
    public int layers() {
        return layers;
    }

    /** The number of elements of this slab. */
    @Override
    public int elementCount() {
        return nx * ny * layers;
    }

    /** This rank. */
    public int rank() {
        return rank;
    }

    /** The number of ranks. */
    public int ranks() {
        return ranks;
    }

    /**
     * This slab as a mesh of its own: the elements of {@code HexMesh.box(nx, ny, nz, 0, 1, 0, 1, 0, 1)} in layers
     * [firstLayer, firstLayer + layers), in the same order, with the same vertex positions (bitwise) and face tags
     * (so only the faces on the cube's boundary are tagged; the cut planes are not).
     */
    @Override
    public HexMesh localMesh() {
        HexMesh global = HexMesh.box(nx, ny, nz, 0, 1, 0, 1, 0, 1);
        int vPlane = (nx + 1) * (ny + 1);
        int v0 = vPlane * firstLayer;
        int nv = vPlane * (layers + 1);
        double[] vertices = Arrays.copyOfRange(global.vertices(), 3 * v0, 3 * (v0 + nv));
        int per = nx * ny;
        int[] elements = new int[8 * elementCount()];
        int[] tags = new int[6 * elementCount()];
        for (int p = 0; p < layers; p++) {
            int g0 = per * (firstLayer + layerAt(p));
            System.arraycopy(global.elements(), 8 * g0, elements, 8 * per * p, 8 * per);
            System.arraycopy(global.faceTags(), 6 * g0, tags, 6 * per * p, 6 * per);
        }
        for (int i = 0; i < elements.length; i++) {
            elements[i] -= v0;
        }
        return new HexMesh(vertices, elements, tags);
    }

    /** The whole box {@code HexMesh.box(nx, ny, nz, 0, 1, 0, 1, 0, 1)}. */
    @Override
    public HexMesh globalMesh() {
        return HexMesh.box(nx, ny, nz, 0, 1, 0, 1, 0, 1);
    }

    /** The box's element of local element {@code e}: same (x, y) position, layer firstLayer + its layer in the local order. */
    @Override
    public int globalElement(int e) {
        if (e < 0 || e >= elementCount()) {
            throw new IllegalArgumentException("local element " + e + " is out of range [0, " + elementCount() + ")");
        }
        int per = nx * ny;
        return per * (firstLayer + layerAt(e / per)) + e % per;
    }

    /**
     * The shared nodes of this slab's assembled vector: for each neighbour slab, the assembled ids (of {@code z}) of
     * the unmasked GLL nodes on the common plane, in an order both ranks agree on (the node's (x, y) position in the
     * global GLL lattice), and the owner mask.
     *
     * @param mesh the spectral-element mesh of {@link #localMesh()} (any node map)
     * @param z    its scatter operator (Dirichlet nodes masked)
     */
    @Override
    public SharedNodes sharedNodes(SpectralElementMesh mesh, ScatterOperator z) {
        if (mesh.elementCount() != elementCount()) {
            throw new IllegalArgumentException("mesh has " + mesh.elementCount() + " elements but slab " + rank + " has "
                    + elementCount() + " (build it from localMesh())");
        }
        int n = mesh.degree(), nq = n + 1;
        long latticeX = (long) nx * n + 1;
        int below = firstLayer * n, above = (firstLayer + layers) * n;
        TreeMap<Long, Integer> lower = new TreeMap<>();
        TreeMap<Long, Integer> upper = new TreeMap<>();
        for (int e = 0; e < mesh.elementCount(); e++) {
            int a = e % nx, b = (e / nx) % ny, c = firstLayer + layerAt(e / (nx * ny));
            for (int k = 0; k < nq; k++) {
                int zLattice = c * n + k;
                boolean onLower = rank > 0 && zLattice == below;
                boolean onUpper = rank < ranks - 1 && zLattice == above;
                if (!onLower && !onUpper) {
                    continue;
                }
                for (int j = 0; j < nq; j++) {
                    for (int i = 0; i < nq; i++) {
                        int id = z.assembledId(mesh.globalId(e, i + nq * (j + nq * k)));
                        if (id < 0) {
                            continue; // Dirichlet: not in the assembled vector on either side
                        }
                        long key = (a * n + i) + latticeX * (b * n + j);
                        (onLower ? lower : upper).put(key, id);
                    }
                }
            }
        }
        double[] mask = new double[z.globalSize()];
        Arrays.fill(mask, 1);
        for (int id : lower.values()) {
            mask[id] = 0; // the plane below is owned by rank - 1
        }
        int count = (rank > 0 ? 1 : 0) + (rank < ranks - 1 ? 1 : 0);
        int[] neighbours = new int[count];
        int[][] ids = new int[count][];
        long[][] keys = new long[count][];
        int i = 0;
        if (rank > 0) {
            neighbours[i] = rank - 1;
            ids[i] = lower.values().stream().mapToInt(Integer::intValue).toArray();
            keys[i++] = lower.keySet().stream().mapToLong(Long::longValue).toArray();
        }
        if (rank < ranks - 1) {
            neighbours[i] = rank + 1;
            ids[i] = upper.values().stream().mapToInt(Integer::intValue).toArray();
            keys[i] = upper.keySet().stream().mapToLong(Long::longValue).toArray();
        }
        return new SharedNodes(neighbours, ids, keys, mask);
    }

    /** "layers a..b" (z indices of the element layers). */
    @Override
    public String describe() {
        return "layers " + firstLayer + ".." + (firstLayer + layers - 1);
    }

    @Override
    public String toString() {
        return "slab " + rank + " of " + ranks + ": layers " + firstLayer + ".." + (firstLayer + layers - 1) + " of " + nz
                + " (" + elementCount() + " elements)";
    }
}
