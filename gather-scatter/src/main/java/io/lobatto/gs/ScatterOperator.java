package io.lobatto.gs;

import java.util.Arrays;

/**
 * The scatter operator Z (streaming paper, sections 2 and 5; hipBone, "DOF storage" and "Poisson operator").
 *
 * <p>Z is the N_L x N_G Boolean matrix with one 1 per unmasked row: {@code x_L = Z x_G} copies each assembled
 * value to every element-local node that shares it, and the gather {@code x_G = Z^T x_L} sums the local copies.
 * {@code Z^T Z = diag(degree)} (the multiplicity of each assembled node), and with the inverse-degree weights
 * W = diag(1 / degree) at the local nodes (0 at masked ones) {@code Z^T W = I} on the unmasked nodes, hence
 * {@code Z^T W Z = I}.
 *
 * <p>Numbering. A mesh gives {@code localToGlobal[n]}, the original global node of element-local node
 * {@code n = e * Np + i} (0 ≤ n &lt; N_L), with original ids in {@code [0, originalNodeCount)}. Nodes marked in
 * {@code masked} (Dirichlet nodes) are excluded from the assembled numbering: assembled ids 0..N_G-1 go to the
 * unmasked original nodes in ascending original order, so masked rows of Z are zero ({@code scatterIds = -1}),
 * scatter writes 0 there and gather ignores them. Every unmasked original node must be referenced by at least
 * one local node (otherwise Z^T Z would be singular), which {@link #build} checks.
 *
 * <p>Storage, as uploaded to a backend: {@link #scatterIds()} (BS7); Z^T in CSR without values,
 * {@link #gatherStarts()} / {@link #gatherIds()} (local ids ascending in each row), and {@link #blockStarts()}
 * grouping consecutive rows into blocks of at most {@code nodesPerBlock} CSR entries each, so that a GPU
 * work-group reads one block of {@code x_L} into local memory (BS6); a single row with more entries than the
 * bound is a block of its own, so size local memory with {@link #maxBlockEntries()}.
 *
 * <p>Limits: all indices are {@code int}. N_L is the length of a Java array (at most 2^31 - 1 minus a few);
 * N_G ≤ N_L since every unmasked node is referenced; the CSR has at most N_L entries. Host kernels sum each
 * row in ascending local-id order, so results are deterministic.
 *
 * <p>Immutable and thread-safe: every accessor returns a copy; host kernels allocate their own scratch.
 */
public final class ScatterOperator {

    /** Default bound on CSR entries per block of {@link #blockStarts()} (the paper's p_NODES_PER_BLOCK). */
    public static final int DEFAULT_NODES_PER_BLOCK = 512;

    /** Largest array length the JVM is guaranteed to allocate. */
    static final int MAX_ARRAY_LENGTH = Integer.MAX_VALUE - 8;

    private final int localSize;
    private final int globalSize;
    private final int originalNodeCount;
    private final int nodesPerBlock;
    private final int[] scatterIds;
    private final int[] gatherStarts;
    private final int[] gatherIds;
    private final int[] blockStarts;
    private final int[] assembledOfOriginal;
    /** The inverse of {@link #assembledOfOriginal} on the unmasked nodes, made on first use. */
    private volatile int[] originalOfAssembled;
    private final int maxRowLength;
    private final int maxBlockEntries;

    private ScatterOperator(int localSize, int globalSize, int originalNodeCount, int nodesPerBlock, int[] scatterIds,
                            int[] gatherStarts, int[] gatherIds, int[] blockStarts,
                            int[] assembledOfOriginal, int[] originalOfAssembled, int maxRowLength, int maxBlockEntries) {
        this.localSize = localSize;
        this.globalSize = globalSize;
        this.originalNodeCount = originalNodeCount;
        this.nodesPerBlock = nodesPerBlock;
        this.scatterIds = scatterIds;
        this.gatherStarts = gatherStarts;
        this.gatherIds = gatherIds;
        this.blockStarts = blockStarts;
        this.assembledOfOriginal = assembledOfOriginal;
        this.originalOfAssembled = originalOfAssembled;
        this.maxRowLength = maxRowLength;
        this.maxBlockEntries = maxBlockEntries;
    }

    /**
     * Builds Z with {@link #DEFAULT_NODES_PER_BLOCK} CSR entries per block.
     *
     * @see #build(int[], int, boolean[], int)
     */
    public static ScatterOperator build(int[] localToGlobal, int globalNodeCount, boolean[] masked) {
        return build(localToGlobal, globalNodeCount, masked, DEFAULT_NODES_PER_BLOCK);
    }

    /**
     * Builds Z from an element-local to original-global map.
     *
     * @param localToGlobal   for each element-local node n (length N_L = E * Np), its original global id in
     *                        {@code [0, globalNodeCount)}; not modified, not retained
     * @param globalNodeCount number of original global nodes, masked ones included
     * @param masked          length {@code globalNodeCount}, true for Dirichlet nodes (excluded from the assembled
     *                        numbering), or null for none; not modified, not retained
     * @param nodesPerBlock   bound (>= 1) on the CSR entries of Z^T per block of {@link #blockStarts()}; a single
     *                        row with more entries gets a block of its own
     * @throws NullPointerException     if {@code localToGlobal} is null
     * @throws IllegalArgumentException naming the offending index and value: a negative or too large
     *                                  {@code globalNodeCount}, a {@code nodesPerBlock} &lt; 1, a local-to-global id out
     *                                  of range, a mask of the wrong length, or an unmasked global node that no local
     *                                  node references. Nothing is built in that case.
     */
    public static ScatterOperator build(int[] localToGlobal, int globalNodeCount, boolean[] masked, int nodesPerBlock) {
        if (localToGlobal == null) {
            throw new NullPointerException("localToGlobal is null");
        }
        if (globalNodeCount < 0 || globalNodeCount > MAX_ARRAY_LENGTH) {
            throw new IllegalArgumentException("globalNodeCount = " + globalNodeCount + " is out of range [0, " + MAX_ARRAY_LENGTH + "]");
        }
        if (nodesPerBlock < 1) {
            throw new IllegalArgumentException("nodesPerBlock = " + nodesPerBlock + " must be >= 1");
        }
        if (masked != null && masked.length != globalNodeCount) {
            throw new IllegalArgumentException("masked has length " + masked.length + " but globalNodeCount = " + globalNodeCount);
        }
        // copy first so that a concurrent change of the caller's array cannot break the checks below
        return assemble(localToGlobal.clone(), globalNodeCount, masked, nodesPerBlock);
    }

    /**
     * Z of a mesh's numbering ({@link io.lobatto.core.mesh.SpectralElementMesh#localToGlobal()}) with
     * {@link #DEFAULT_NODES_PER_BLOCK}: as {@link #build(int[], int, boolean[])}, with one copy of the map fewer.
     *
     * @param masked length {@code mesh.globalNodeCount()}, true for Dirichlet nodes, or null for none
     * @throws IllegalArgumentException as {@link #build(int[], int, boolean[], int)} does
     */
    public static ScatterOperator of(io.lobatto.core.mesh.SpectralElementMesh mesh, boolean[] masked) {
        if (mesh == null) {
            throw new NullPointerException("mesh is null");
        }
        int globalNodeCount = mesh.globalNodeCount();
        if (masked != null && masked.length != globalNodeCount) {
            throw new IllegalArgumentException("masked has length " + masked.length + " but globalNodeCount = " + globalNodeCount);
        }
        return assemble(mesh.localToGlobal(), globalNodeCount, masked, DEFAULT_NODES_PER_BLOCK);
    }

    /**
     * Z of a mesh's numbering where {@code backend} runs: built by the backend itself where it can, from the mesh's
     * numbering by entities ({@link io.lobatto.core.backend.Backend#buildScatter(io.lobatto.core.mesh.ElementNumbering,
     * boolean[])}: the map is made where Z runs, the host never fills it; unless
     * {@link io.lobatto.core.mesh.ElementNumbering#DEVICE_PROPERTY} is false) or from the mesh's map
     * ({@link io.lobatto.core.backend.Backend#buildScatter(java.nio.IntBuffer, int, boolean[])}: the map and the masked
     * nodes cross), else built here ({@link #of}) and uploaded. Either way the same arrays.
     *
     * @param masked length {@code mesh.globalNodeCount()}, true for Dirichlet nodes, or null for none
     * @throws IllegalArgumentException as {@link #build(int[], int, boolean[], int)} does
     */
    public static io.lobatto.core.backend.DeviceScatter buildOn(io.lobatto.core.backend.Backend backend,
                                                                io.lobatto.core.mesh.SpectralElementMesh mesh, boolean[] masked) {
        if (backend == null) {
            throw new NullPointerException("backend is null");
        }
        if (mesh == null) {
            throw new NullPointerException("mesh is null");
        }
        if (masked != null && masked.length != mesh.globalNodeCount()) {
            throw new IllegalArgumentException("masked has length " + masked.length + " but globalNodeCount = " + mesh.globalNodeCount());
        }
        if (io.lobatto.core.mesh.ElementNumbering.onDevice()) {
            java.util.Optional<io.lobatto.core.backend.DeviceScatter> z = backend.buildScatter(mesh.numbering(), masked);
            if (z.isPresent()) {
                return z.get();
            }
        }
        return backend.buildScatter(mesh.localToGlobalView(), mesh.globalNodeCount(), masked)
                .orElseGet(() -> of(mesh, masked).upload(backend));
    }

    /** The build of an {@code l2g} this class owns (checked arguments apart from its ids). */
    private static ScatterOperator assemble(int[] l2g, int globalNodeCount, boolean[] masked, int nodesPerBlock) {
        final int nL = l2g.length;
        final boolean[] mask = masked == null ? new boolean[globalNodeCount] : masked.clone();

        // references per original node (chunks of local nodes in parallel, atomic counts)
        int[] count = new int[globalNodeCount];
        long firstBad = parallelChunks(nL).mapToLong(c -> {
            for (int n = chunkStart(c), end = chunkEnd(c, nL); n < end; n++) {
                int g = l2g[n];
                if (g < 0 || g >= globalNodeCount) {
                    return n;
                }
                int unused = (int) COUNTS.getAndAdd(count, g, 1);
            }
            return Long.MAX_VALUE;
        }).min().orElse(Long.MAX_VALUE);
        if (firstBad != Long.MAX_VALUE) {
            int n = (int) firstBad;
            throw new IllegalArgumentException("localToGlobal[" + n + "] = " + l2g[n] + " is out of range [0, " + globalNodeCount + ")");
        }

        // assembled numbering: unmasked original nodes in ascending order. Per chunk of original nodes, its unmasked
        // nodes and their CSR entries; the offsets of the chunks are a short sequential prefix (no parallel prefix over
        // N_G: on a cold JVM that cost more than the rest of the build)
        int chunksG = chunkCount(globalNodeCount);
        long[] perChunk = new long[chunksG];
        long unreferenced = parallelChunks(globalNodeCount).mapToLong(c -> {
            int k = 0;
            long entries = 0;
            for (int g = chunkStart(c), end = chunkEnd(c, globalNodeCount); g < end; g++) {
                if (!mask[g]) {
                    if (count[g] == 0) {
                        return g;
                    }
                    k++;
                    entries += count[g];
                }
            }
            perChunk[c] = (entries << 32) | k;
            return Long.MAX_VALUE;
        }).min().orElse(Long.MAX_VALUE);
        if (unreferenced != Long.MAX_VALUE) {
            throw new IllegalArgumentException("global node " + unreferenced + " is unmasked but no local node references it"
                    + " (localToGlobal never takes the value " + unreferenced + "); mask it or remove it from the numbering");
        }
        int[] rowOffset = new int[chunksG + 1];
        int[] entryOffset = new int[chunksG + 1];
        for (int c = 0; c < chunksG; c++) {
            rowOffset[c + 1] = rowOffset[c] + (int) perChunk[c];
            entryOffset[c + 1] = entryOffset[c] + (int) (perChunk[c] >>> 32);
        }
        final int nG = rowOffset[chunksG];
        // the counts become the assembled ids of the original nodes (one array of N_G fewer: a fresh array costs its
        // page faults on first touch, about 1 GB/s on one thread)
        final int[] assembledOfOriginal = count;
        // CSR of Z^T: rows = assembled nodes, entries = local ids, ascending within each row (filled in parallel with
        // atomic row cursors, then each row sorted: the same arrays as a sequential fill). The cursors are the row
        // starts themselves: after the fill each holds the next row's start, and one shift restores them.
        int[] starts = new int[nG + 1];
        int maxRow = parallelChunks(globalNodeCount).map(c -> {
            int a = rowOffset[c];
            int entry = entryOffset[c];
            int m = 0;
            for (int g = chunkStart(c), end = chunkEnd(c, globalNodeCount); g < end; g++) {
                if (mask[g]) {
                    assembledOfOriginal[g] = -1;
                } else {
                    int d = count[g];
                    assembledOfOriginal[g] = a;
                    starts[a] = entry;
                    entry += d;
                    m = Math.max(m, d);
                    a++;
                }
            }
            return m;
        }).max().orElse(0);
        int nnz = entryOffset[chunksG];
        starts[nG] = nnz;
        int[] ids = new int[nnz];
        int[] scatterIds = new int[nL];
        // each chunk fills downwards, so a row's ids arrive mostly in descending order and the sort below always moves
        // some: a process whose first build was small and single-chunk (SetupWarmup) then compiled the sort's move too,
        // instead of a trap that every thread of the first large build would fall into
        parallelChunks(nL).forEach(c -> {
            for (int n = chunkEnd(c, nL) - 1, start = chunkStart(c); n >= start; n--) {
                int a = assembledOfOriginal[l2g[n]];
                scatterIds[n] = a;
                if (a >= 0) {
                    ids[(int) COUNTS.getAndAdd(starts, a, 1)] = n;
                }
            }
        });
        System.arraycopy(starts, 0, starts, 1, nG);     // starts[a] had become starts[a + 1]
        starts[0] = 0;
        parallelChunks(nG).forEach(c -> {
            for (int r = chunkStart(c), end = chunkEnd(c, nG); r < end; r++) {
                for (int i = starts[r] + 1; i < starts[r + 1]; i++) {
                    int v = ids[i];
                    int j = i - 1;
                    while (j >= starts[r] && ids[j] > v) {
                        ids[j + 1] = ids[j];
                        j--;
                    }
                    ids[j + 1] = v;
                }
            }
        });

        // blocks, greedy within runs of BUILD_CHUNK rows (runs in parallel, so no block spans two runs): a block takes
        // whole consecutive rows while it holds <= nodesPerBlock entries, so the next row of its run would not fit; a
        // row longer than the bound is a block of its own
        int runs = chunkCount(nG);
        int[] blocksPerRun = new int[runs + 1];
        int maxBlock = parallelChunks(nG).map(c -> {
            int m = 0;
            int k = 0;
            for (int row = chunkStart(c), end = chunkEnd(c, nG); row < end; k++) {
                int entries = starts[row + 1] - starts[row];
                row++;
                while (row < end && entries + starts[row + 1] - starts[row] <= nodesPerBlock) {
                    entries += starts[row + 1] - starts[row];
                    row++;
                }
                m = Math.max(m, entries);
            }
            blocksPerRun[c + 1] = k;
            return m;
        }).max().orElse(0);
        for (int c = 0; c < runs; c++) {
            blocksPerRun[c + 1] += blocksPerRun[c];
        }
        int[] blockStarts = new int[blocksPerRun[runs] + 1];
        parallelChunks(nG).forEach(c -> {
            int b = blocksPerRun[c];
            for (int row = chunkStart(c), end = chunkEnd(c, nG); row < end; ) {
                blockStarts[b++] = row;
                int entries = starts[row + 1] - starts[row];
                row++;
                while (row < end && entries + starts[row + 1] - starts[row] <= nodesPerBlock) {
                    entries += starts[row + 1] - starts[row];
                    row++;
                }
            }
        });
        blockStarts[blocksPerRun[runs]] = nG;

        return new ScatterOperator(nL, nG, globalNodeCount, nodesPerBlock, scatterIds, starts, ids, blockStarts,
                assembledOfOriginal, null, maxRow, maxBlock);
    }

    /** Atomic updates of int[] entries (counts and row cursors of the parallel build). */
    private static final java.lang.invoke.VarHandle COUNTS = java.lang.invoke.MethodHandles.arrayElementVarHandle(int[].class);
    /** Entries per task of the parallel build. */
    private static final int BUILD_CHUNK = 1 << 16;
    /** Rows per run of the greedy blocks of {@link #blockStarts()} (the build's chunk). */
    public static final int BLOCK_RUN = BUILD_CHUNK;

    private static int chunkCount(int n) {
        return (n + BUILD_CHUNK - 1) / BUILD_CHUNK;
    }

    private static java.util.stream.IntStream parallelChunks(int n) {
        return java.util.stream.IntStream.range(0, chunkCount(n)).parallel();
    }

    private static int chunkStart(int c) {
        return c * BUILD_CHUNK;
    }

    private static int chunkEnd(int c, int n) {
        return (int) Math.min(n, (long) (c + 1) * BUILD_CHUNK);
    }

    // ------------------------------------------------------------------ sizes and arrays

    /** N_L: length of element-local vectors (E * Np). */
    public int localSize() {
        return localSize;
    }

    /** N_G: length of assembled vectors, masked nodes excluded. */
    public int globalSize() {
        return globalSize;
    }

    /** Number of original global nodes, masked ones included. */
    public int originalNodeCount() {
        return originalNodeCount;
    }

    /** Number of masked (Dirichlet) original nodes: {@code originalNodeCount() - globalSize()}. */
    public int maskedCount() {
        return originalNodeCount - globalSize;
    }

    /** Number of element-local nodes whose original node is unmasked: the number of CSR entries of Z^T. */
    public int unmaskedLocalCount() {
        return gatherIds.length;
    }

    /** The CSR-entries-per-block bound this operator was built with. */
    public int nodesPerBlock() {
        return nodesPerBlock;
    }

    /** Number of blocks of {@link #blockStarts()}: {@code blockStarts().length - 1}. */
    public int blockCount() {
        return blockStarts.length - 1;
    }

    /** BS7 map, length N_L: assembled id of each local node, or -1 where masked. Copy. */
    public int[] scatterIds() {
        return scatterIds.clone();
    }

    /** CSR row starts of Z^T, length N_G + 1; row a holds {@code gatherIds[gatherStarts[a] .. gatherStarts[a+1])}. Copy. */
    public int[] gatherStarts() {
        return gatherStarts.clone();
    }

    /** CSR column (local) ids of Z^T, ascending within each row; each unmasked local id exactly once. Copy. */
    public int[] gatherIds() {
        return gatherIds.clone();
    }

    /**
     * Row offsets of the blocks of Z^T: block b is rows {@code blockStarts[b] .. blockStarts[b+1])};
     * {@code blockStarts[0] = 0}, the last entry is N_G ({@code [0]} when N_G = 0). Each block holds at most
     * {@link #nodesPerBlock()} CSR entries unless it is a single longer row; blocks are greedy within runs of
     * {@value #BLOCK_RUN} rows (made in parallel, a block never spans two runs): the first row of the next block would
     * not have fitted, unless it starts a run. Copy.
     */
    public int[] blockStarts() {
        return blockStarts.clone();
    }

    /** Diagonal of Z^T Z, length N_G: the number of local copies of each assembled node. Copy. */
    public int[] degree() {
        return rowLengths(gatherStarts, globalSize);
    }

    /** W at the local nodes, length N_L: 1 / degree of the node's assembled id, 0 where masked. Copy. */
    public double[] inverseDegree() {
        return inverseDegree(scatterIds, rowLengths(gatherStarts, globalSize));
    }

    /** Assembled id of an original global node, or -1 if it is masked. */
    public int assembledId(int originalGlobalId) {
        if (originalGlobalId < 0 || originalGlobalId >= originalNodeCount) {
            throw new IndexOutOfBoundsException("originalGlobalId = " + originalGlobalId + " is out of range [0, " + originalNodeCount + ")");
        }
        return assembledOfOriginal[originalGlobalId];
    }

    /** Original global id of an assembled node. */
    public int originalId(int assembledId) {
        if (assembledId < 0 || assembledId >= globalSize) {
            throw new IndexOutOfBoundsException("assembledId = " + assembledId + " is out of range [0, " + globalSize + ")");
        }
        return originalOfAssembled()[assembledId];
    }

    /** True if the original global node is masked. */
    public boolean isMasked(int originalGlobalId) {
        return assembledId(originalGlobalId) < 0;
    }

    /** Largest row of Z^T (largest degree); 0 when N_G = 0. */
    public int maxRowLength() {
        return maxRowLength;
    }

    /** Largest number of CSR entries in one block: the local-memory size a BS6 work-group needs; 0 when N_G = 0. */
    public int maxBlockEntries() {
        return maxBlockEntries;
    }

    /**
     * Uploads Z to {@code backend} ({@link io.lobatto.core.backend.Backend#uploadScatter}) from this operator's own
     * arrays, without the copies the accessors make: the backend reads them and keeps its own.
     */
    public io.lobatto.core.backend.DeviceScatter upload(io.lobatto.core.backend.Backend backend) {
        if (backend == null) {
            throw new NullPointerException("backend is null");
        }
        return backend.uploadScatterByDegree(scatterIds, gatherStarts, gatherIds, blockStarts, null, globalSize);
    }

    /** The row lengths of Z^T's CSR, which are the degrees (made on each call, in parallel). */
    private static int[] rowLengths(int[] starts, int rows) {
        int[] d = new int[rows];
        parallelChunks(rows).forEach(c -> {
            for (int a = chunkStart(c), end = chunkEnd(c, rows); a < end; a++) {
                d[a] = starts[a + 1] - starts[a];
            }
        });
        return d;
    }

    /** W = 1 / degree of each local node's assembled id, 0 where masked (made on each call, in parallel). */
    private static double[] inverseDegree(int[] scatterIds, int[] degree) {
        return io.lobatto.core.backend.ScatterWeights.inverseDegree(scatterIds, degree);
    }

    /** The original id of each assembled node (made once, in parallel, from the assembled ids of the original nodes). */
    private int[] originalOfAssembled() {
        int[] o = originalOfAssembled;
        if (o == null) {
            int[] made = new int[globalSize];
            int n = originalNodeCount;
            parallelChunks(n).forEach(c -> {
                for (int g = chunkStart(c), end = chunkEnd(c, n); g < end; g++) {
                    int a = assembledOfOriginal[g];
                    if (a >= 0) {
                        made[a] = g;
                    }
                }
            });
            originalOfAssembled = made;
            o = made;
        }
        return o;
    }

    // ------------------------------------------------------------------ host kernels

    /** BS7: {@code xL = Z xG}; masked local nodes get 0. */
    public void scatter(double[] xG, double[] xL) {
        checkLength("xG", xG, globalSize);
        checkLength("xL", xL, localSize);
        for (int n = 0; n < localSize; n++) {
            int id = scatterIds[n];
            xL[n] = id >= 0 ? xG[id] : 0.0;
        }
    }

    /**
     * BS6: {@code xG = Z^T xL}, the sum over the local copies of each assembled node; masked local nodes are
     * ignored. Runs block by block like the GPU kernel: a block's CSR entries of xL are first loaded into a
     * scratch ("local memory") array of {@link #maxBlockEntries()}, then each row of the block is summed there.
     * {@code xL} and {@code xG} must be different arrays.
     */
    public void gather(double[] xL, double[] xG) {
        checkLength("xL", xL, localSize);
        checkLength("xG", xG, globalSize);
        if (xL == xG) {
            throw new IllegalArgumentException("gather cannot run in place: xL and xG are the same array");
        }
        double[] temp = new double[maxBlockEntries];
        for (int b = 0; b < blockStarts.length - 1; b++) {
            int rowBegin = blockStarts[b];
            int rowEnd = blockStarts[b + 1];
            int base = gatherStarts[rowBegin];
            int end = gatherStarts[rowEnd];
            for (int i = base; i < end; i++) {
                temp[i - base] = xL[gatherIds[i]];
            }
            for (int row = rowBegin; row < rowEnd; row++) {
                double s = 0.0;
                for (int i = gatherStarts[row] - base; i < gatherStarts[row + 1] - base; i++) {
                    s += temp[i];
                }
                xG[row] = s;
            }
        }
    }

    /**
     * {@code yL = Z Z^T xL}: each local node gets the sum over all local copies of its assembled node
     * (the classic direct-stiffness summation); masked local nodes get 0. {@code yL} may be {@code xL}.
     */
    public void gatherScatter(double[] xL, double[] yL) {
        checkLength("xL", xL, localSize);
        checkLength("yL", yL, localSize);
        // masked local nodes are never read by a row, so zeroing them first is safe in place too
        for (int n = 0; n < localSize; n++) {
            if (scatterIds[n] < 0) {
                yL[n] = 0.0;
            }
        }
        // rows are disjoint sets of local ids: read a row, then write it (safe when yL == xL)
        for (int row = 0; row < globalSize; row++) {
            double s = 0.0;
            for (int i = gatherStarts[row]; i < gatherStarts[row + 1]; i++) {
                s += xL[gatherIds[i]];
            }
            for (int i = gatherStarts[row]; i < gatherStarts[row + 1]; i++) {
                yL[gatherIds[i]] = s;
            }
        }
    }

    /** The assembled vector (length N_G) of a vector in original global numbering (length originalNodeCount): drops masked nodes. */
    public double[] toAssembled(double[] originalValues) {
        checkLength("originalValues", originalValues, originalNodeCount);
        double[] xG = new double[globalSize];
        int[] ofAssembled = originalOfAssembled();
        for (int a = 0; a < globalSize; a++) {
            xG[a] = originalValues[ofAssembled[a]];
        }
        return xG;
    }

    /** The vector in original global numbering (length originalNodeCount) of an assembled vector; masked nodes get {@code maskedValue}. */
    public double[] fromAssembled(double[] xG, double maskedValue) {
        checkLength("xG", xG, globalSize);
        double[] out = new double[originalNodeCount];
        for (int g = 0; g < originalNodeCount; g++) {
            int a = assembledOfOriginal[g];
            out[g] = a >= 0 ? xG[a] : maskedValue;
        }
        return out;
    }

    private static void checkLength(String name, double[] v, int expected) {
        if (v == null) {
            throw new NullPointerException(name + " is null");
        }
        if (v.length != expected) {
            throw new IllegalArgumentException(name + " has length " + v.length + ", expected " + expected);
        }
    }

    @Override
    public String toString() {
        return "ScatterOperator[N_L=" + localSize + ", N_G=" + globalSize + ", masked=" + maskedCount() + ", blocks="
                + blockCount() + ", nodesPerBlock=" + nodesPerBlock + ", maxRowLength=" + maxRowLength
                + ", maxBlockEntries=" + maxBlockEntries + "]";
    }
}
