package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.kernels.ElementOperands;
import io.lobatto.backend.aparapi.kernels.GatherRowsFusedKernel;
import io.lobatto.backend.aparapi.kernels.GatherScatterKernel;
import io.lobatto.backend.aparapi.kernels.GatherScatterRowsKernel;
import io.lobatto.backend.aparapi.kernels.HaloKernel;
import io.lobatto.backend.aparapi.kernels.StreamKernel;
import io.lobatto.backend.aparapi.runtime.ClBuffer;
import io.lobatto.backend.aparapi.runtime.ClKernel;
import io.lobatto.core.backend.DeviceHalo;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.HostHalo;

import java.util.Objects;

import static io.lobatto.backend.aparapi.AparapiBackend.GATHER_CACHE;
import static io.lobatto.backend.aparapi.AparapiBackend.REDUCE_GROUPS;
import static io.lobatto.backend.aparapi.BackendCore.checkLen;

/**
 * Gather/scatter of the {@link io.lobatto.core.backend.Backend} SPI on the Aparapi backend (BS6-BS7): Z on the device
 * ({@link ClScatter}), the scatter x_L = Z x_G and the gather x_G = Z^T x_L by {@link GatherScatterKernel} (the gather
 * with x_G . y_G reduced in its pass, and CG's p update folded in), and the halo sums of a distributed gather
 * ({@link ClHalo}, {@link HaloKernel}).
 *
 * <p>Three kinds of plain gather and scatter, picked for each Z when it is uploaded by
 * {@code -Dlobatto.aparapi.gatherScatter}: {@code blocks} (the block gather of {@link GatherScatterKernel},
 * one local node per work-item in the scatter), {@code rows} (the default since the H100 A/B at c985786: N = 7, 15M
 * local nodes, gather 0.87 and scatter 0.99 of the best copy against 0.69 and 0.86 for blocks;
 * {@link GatherScatterRowsKernel}: one work-item per row of
 * Z^T, four local nodes per work-item in the scatter, no local memory) and {@code tiles} (rows with the compact 16-bit
 * indices of {@link CompactTiles} where a tile has them). All give the same bits. The fused gathers (with the dot, with CG's p
 * update, the Chebyshev step, the halo sums, several components) are the block kernels of {@link GatherScatterKernel} in
 * the blocks kind and {@link GatherRowsFusedKernel} (one work-item per row, the same bits of y_G) in the rows and tiles
 * kinds; so is the gather of p-multigrid's transfers and of the fused operator.
 */
final class GatherScatter {

    private final BackendCore core;
    private final Vectors vectors;
    /** The built kernels of the gather/scatter ops by op code (no map lookup per launch). */
    private final ClKernel[] gatherKernels = new ClKernel[GatherScatterKernel.GATHER_HALO + 1];
    /** The built kernels of {@link GatherScatterRowsKernel} by op code + 2 tiles. */
    private final ClKernel[] rowsKernels = new ClKernel[4];
    /** The built one-component kernels of {@link GatherRowsFusedKernel} by 2 op code + tiles. */
    private final ClKernel[] fusedKernels = new ClKernel[2 * (GatherScatterKernel.GATHER_HALO + 1)];

    /** The kinds of Z on the device: block gather, rows, rows with compact tiles. */
    static final int BLOCKS = 0;
    static final int ROWS = 1;
    static final int TILES = 2;

    /** The system property that picks the plain gather/scatter kernels of a Z at its upload: blocks or rows. */
    static final String KIND_PROPERTY = AparapiBackend.GATHER_SCATTER_PROPERTY;
    private ClKernel haloKernel;

    GatherScatter(BackendCore core, Vectors vectors) {
        this.core = core;
        this.vectors = vectors;
    }

    /** The gather/scatter {@code op} built for the backend's gather group. */
    private ClKernel gatherKernel(int op) {
        ClKernel k = gatherKernels[op];
        if (k == null) {
            k = buildGather(op, core.gatherGroup());
            gatherKernels[op] = k;
        }
        return k;
    }

    private ClKernel buildGather(int op, int group) {
        return core.kernel(KernelBuilds.gather(op, group));
    }

    /** The {@link GatherScatterRowsKernel} {@code op}, with the compact tiles or not, built on first use. */
    private ClKernel rowsKernel(int op, boolean tiles) {
        int i = op + (tiles ? 2 : 0);
        ClKernel k = rowsKernels[i];
        if (k == null) {
            k = core.kernel(KernelBuilds.gatherRows(op, tiles));
            rowsKernels[i] = k;
        }
        return k;
    }

    /**
     * The {@link GatherRowsFusedKernel} {@code op} over {@code comps} component blocks for Z {@code s} (its tiles when
     * it has them), built on first use, with Z's arguments, the partials and the arguments the op does not read bound.
     */
    private ClKernel fusedKernel(ClScatter s, int op, int comps) {
        boolean tiles = s.kind == TILES;
        ClKernel k;
        if (comps == 1) {
            int i = 2 * op + (tiles ? 1 : 0);
            k = fusedKernels[i];
            if (k == null) {
                k = core.kernel(KernelBuilds.gatherRowsFused(op, 1, tiles, false));
                fusedKernels[i] = k;
            }
        } else {
            k = core.kernel(KernelBuilds.gatherRowsFused(op, comps, tiles, false));
        }
        return k.set("starts", s.gatherStarts.buffer).set("ids", s.gatherIds.buffer)
                .set("tileBase", tiles ? s.gatherTiles.buffer : core.unused)
                .set("offsets", tiles ? s.gatherOffsets.buffer : core.unused)
                .set("partials", core.partials).set("n", s.globalSize()).set("strideL", 0).set("strideG", 0)
                .set("xG", core.unused).set("dirG", core.unused).set("beta", 0.0).set("ca", 0.0).set("cb", 0.0)
                .set("haloLo", s.globalSize()).set("haloStarts", core.unused).set("haloSources", core.unused)
                .set("received", core.unused);
    }

    /**
     * Launches {@code k} of {@link GatherRowsFusedKernel} over {@code rows} rows: one work-item per row, at most
     * {@link AparapiBackend#REDUCE_GROUPS} groups (striding over the rows) for the dot ops, whose partials are then
     * summed on the host in group order and returned; else 0.
     */
    private double launchFused(ClKernel k, int op, int rows) {
        int group = KernelBuilds.fusedRowsGroup(k.workGroupSize(), core.localMemBytes);
        boolean dot = op == GatherScatterKernel.GATHER_DOT || op == GatherScatterKernel.GATHER_DOT_UPDATE
                || op == GatherScatterKernel.GATHER_DOT_HALO;
        long groups = ((long) rows + group - 1) / group;
        if (dot) {
            groups = Math.min(groups, REDUCE_GROUPS);
        }
        k.local("lds", 8L * group);
        k.launch(groups, group);
        return dot ? core.sumPartials((int) groups) : 0;
    }

    /**
     * The kind a Z uploaded now takes: {@code -Dlobatto.aparapi.gatherScatter} blocks (or no value), rows or tiles; any
     * other value is an error naming it.
     */
    static int kind() {
        String v = System.getProperty(KIND_PROPERTY, "rows").trim();
        return switch (v) {
            case "blocks" -> BLOCKS;
            case "rows" -> ROWS;
            case "tiles" -> TILES;
            default -> throw new IllegalArgumentException("-D" + KIND_PROPERTY + "=" + v + ": expected blocks, rows or tiles");
        };
    }

    DeviceScatter uploadScatter(int[] scatterIds, int[] gatherStarts, int[] gatherIds, int[] blockStarts,
                                double[] inverseDegree, int globalSize) {
        return upload(scatterIds, gatherStarts, gatherIds, blockStarts, inverseDegree, null, globalSize);
    }

    /**
     * Z with W made on the device. Given the degrees: 1 / degree per assembled node (N_G doubles, made on the host in
     * parallel) uploaded, then scattered to the local nodes by the scatter kernel itself (W = Z (1 / degree), 0 where
     * masked). Without them (null: Z's own row lengths) nothing is made on the host: the degrees are Z^T 1 (the gather
     * of ones), inverted by the reciprocal kernel and scattered, W = Z (1 / Z^T 1).
     */
    DeviceScatter uploadScatterByDegree(int[] scatterIds, int[] gatherStarts, int[] gatherIds, int[] blockStarts,
                                        int[] degree, int globalSize) {
        core.ensureOpen();
        boolean rows = degree == null;          // the row lengths of the CSR
        if (rows ? gatherStarts == null || gatherStarts.length != globalSize + 1 : degree.length != globalSize) {
            throw new IllegalArgumentException(rows ? "degree is null and gatherStarts has length "
                    + (gatherStarts == null ? "null" : gatherStarts.length) + ", not globalSize + 1 = " + (globalSize + 1)
                    : "degree has length " + degree.length + " but globalSize = " + globalSize);
        }
        if (rows) {
            return withRowDegrees(scatterIds, gatherStarts, gatherIds, blockStarts, globalSize);
        }
        double[] inverse = new double[globalSize];
        int chunk = 1 << 16;
        long bad = java.util.stream.IntStream.range(0, (globalSize + chunk - 1) / chunk).parallel().mapToLong(c -> {
            for (int a = c * chunk, end = Math.min(globalSize, (c + 1) * chunk); a < end; a++) {
                int d = rows ? gatherStarts[a + 1] - gatherStarts[a] : degree[a];
                if (d < 1) {
                    return a;
                }
                inverse[a] = 1.0 / d;
            }
            return Long.MAX_VALUE;
        }).min().orElse(Long.MAX_VALUE);
        if (bad != Long.MAX_VALUE) {
            int a = (int) bad;
            throw new IllegalArgumentException("degree[" + a + "] = " + (rows ? gatherStarts[a + 1] - gatherStarts[a] : degree[a])
                    + " must be >= 1" + (rows ? " (the length of row " + a + " of gatherStarts)" : ""));
        }
        return upload(scatterIds, gatherStarts, gatherIds, blockStarts, null, inverse, globalSize);
    }

    /** The checks and uploads of Z, with W given ({@code inverseDegree}) or scattered from {@code inverseDegreeG}. */
    private DeviceScatter upload(int[] scatterIds, int[] gatherStarts, int[] gatherIds, int[] blockStarts,
                                 double[] inverseDegree, double[] inverseDegreeG, int globalSize) {
        core.ensureOpen();
        int nl = scatterIds.length;
        if (globalSize < 0) {
            throw new IllegalArgumentException("globalSize " + globalSize + " < 0");
        }
        if (gatherStarts.length != globalSize + 1 || gatherStarts[0] != 0 || gatherStarts[globalSize] != gatherIds.length) {
            throw new IllegalArgumentException("gatherStarts must have length globalSize + 1 = " + (globalSize + 1)
                    + ", start at 0 and end at gatherIds.length = " + gatherIds.length);
        }
        for (int g = 0; g < globalSize; g++) {
            if (gatherStarts[g + 1] < gatherStarts[g]) {
                throw new IllegalArgumentException("gatherStarts not ascending at row " + g);
            }
        }
        if (inverseDegree != null && inverseDegree.length != nl) {
            throw new IllegalArgumentException("inverseDegree has length " + inverseDegree.length + " but scatterIds has length " + nl);
        }
        int[] blocks = blockStarts;
        if (blocks == null || blocks.length == 0) {
            blocks = makeBlocks(gatherStarts, globalSize);
        }
        if (blocks[0] != 0 || blocks[blocks.length - 1] != globalSize) {
            throw new IllegalArgumentException("blockStarts must start at 0 and end at globalSize = " + globalSize);
        }
        int maxEntries = 0;
        for (int b = 0; b + 1 < blocks.length; b++) {
            if (blocks[b + 1] < blocks[b]) {
                throw new IllegalArgumentException("blockStarts not ascending at block " + b);
            }
            maxEntries = Math.max(maxEntries, gatherStarts[blocks[b + 1]] - gatherStarts[blocks[b]]);
        }
        int kind = kind();
        if (kind != BLOCKS && (long) nl + (long) GatherScatterRowsKernel.ENTRIES * AparapiBackend.STREAM_GROUP > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("-D" + KIND_PROPERTY + "=" + (kind == ROWS ? "rows" : "tiles") + ": N_L = " + nl
                    + " is above the rows scatter's limit "
                    + (Integer.MAX_VALUE - GatherScatterRowsKernel.ENTRIES * AparapiBackend.STREAM_GROUP) + " (int work-item ids)");
        }
        // the ids are range-checked by the min and max their upload finds (one pass each); the first bad one is
        // looked for only when a range is wrong
        java.util.List<ClVector> made = new java.util.ArrayList<>(9);
        ClScatter z;
        try {
            ClVector sIds = keep(made, vectors.upload(scatterIds));
            requireIdsIn("scatterIds", scatterIds, sIds, -1, globalSize);
            ClVector gIds = keep(made, vectors.upload(gatherIds));
            requireIdsIn("gatherIds", gatherIds, gIds, 0, nl);
            ClVector starts = keep(made, vectors.upload(gatherStarts));
            ClVector blockVector = keep(made, vectors.upload(blocks));
            ClVector w = keep(made, inverseDegree != null ? vectors.upload(inverseDegree) : vectors.allocate(nl));
            z = new ClScatter(this, sIds, starts, gIds, blockVector, w, blocks.length - 1, globalSize, kind);
            if (kind != BLOCKS && Boolean.getBoolean(AparapiBackend.ONE_KERNEL_PROPERTY)) {
                z.directIds = keep(made, vectors.upload(directIds(scatterIds, gatherStarts, globalSize)));
            }
            if (kind == TILES) {
                CompactTiles l = CompactTiles.ofScatter(scatterIds);
                CompactTiles g = CompactTiles.ofGather(gatherStarts, gatherIds, globalSize);
                z.scatterTiles = keep(made, vectors.upload(l.bases()));
                z.scatterOffsets = keep(made, vectors.upload(l.offsets()));
                z.gatherTiles = keep(made, vectors.upload(g.bases()));
                z.gatherOffsets = keep(made, vectors.upload(g.offsets()));
            }
        } catch (RuntimeException e) {
            for (ClVector v : made) {
                v.close();
            }
            throw e;
        }
        if (inverseDegreeG != null) {
            try (DeviceVector g = vectors.upload(inverseDegreeG)) {
                scatter(z, g, z.inverseDegree);
            }
        }
        return z;
    }

    /** Z uploaded with W = Z (1 / Z^T 1), all of it made on the device (see {@link #uploadScatterByDegree}). */
    private DeviceScatter withRowDegrees(int[] scatterIds, int[] gatherStarts, int[] gatherIds, int[] blockStarts,
                                         int globalSize) {
        ClScatter z = (ClScatter) upload(scatterIds, gatherStarts, gatherIds, blockStarts, null, null, globalSize);
        try {
            if (globalSize == 0) {
                vectors.fill(z.inverseDegree, 0.0);
                return z;
            }
            try (DeviceVector degreeG = vectors.allocate(globalSize)) {
                vectors.fill(z.inverseDegree, 1.0);
                gather(z, z.inverseDegree, degreeG);            // Z^T 1: each row's length, exactly (small integers)
                if (vectors.reciprocal(degreeG, degreeG) != 0) {
                    for (int a = 0; a < globalSize; a++) {
                        if (gatherStarts[a + 1] - gatherStarts[a] < 1) {
                            throw new IllegalArgumentException("degree[" + a + "] = " + (gatherStarts[a + 1] - gatherStarts[a])
                                    + " must be >= 1 (the length of row " + a + " of gatherStarts)");
                        }
                    }
                    throw new IllegalStateException("aparapi: the gather of ones gave a degree below 1 where gatherStarts has none");
                }
                scatter(z, degreeG, z.inverseDegree);
            }
            return z;
        } catch (RuntimeException e) {
            z.close();
            throw e;
        }
    }

    /**
     * Attaches the one-kernel operator's flagged ids ({@link ClScatter#directIds}) to {@code z} built on the device
     * ({@link ScatterBuild}) when {@link AparapiBackend#ONE_KERNEL_PROPERTY} is true and z is not of the blocks kind:
     * its scatter ids and row starts read back, flagged on the host, uploaded (an A/B switch's setup, not a fast one).
     */
    void attachDirectIds(ClScatter z) {
        if (z.kind == BLOCKS || !Boolean.getBoolean(AparapiBackend.ONE_KERNEL_PROPERTY)) {
            return;
        }
        int nl = z.localSize();
        int ng = z.globalSize();
        int[] ids = new int[nl];
        int[] starts = new int[ng + 1];
        if (nl > 0) {
            core.cl.read(z.scatterIds.buffer, 0, ids, 0, nl);
        }
        core.cl.read(z.gatherStarts.buffer, 0, starts, 0, ng + 1);
        z.directIds = (ClVector) vectors.upload(directIds(ids, starts, ng));
    }

    /**
     * The one-kernel operator's scatter ids: scatterIds[i] + {@link ElementOperands#DIRECT_FLAG} where local node i is
     * the only entry of its row of Z^T, else scatterIds[i].
     */
    static int[] directIds(int[] scatterIds, int[] gatherStarts, int globalSize) {
        if (globalSize > ElementOperands.DIRECT_FLAG) {
            throw new IllegalArgumentException("-D" + AparapiBackend.ONE_KERNEL_PROPERTY + "=true: globalSize " + globalSize
                    + " is above the one-kernel operator's limit " + ElementOperands.DIRECT_FLAG);
        }
        int[] out = new int[scatterIds.length];
        for (int i = 0; i < out.length; i++) {
            int a = scatterIds[i];
            out[i] = a >= 0 && gatherStarts[a + 1] - gatherStarts[a] == 1 ? a + ElementOperands.DIRECT_FLAG : a;
        }
        return out;
    }

    private static ClVector keep(java.util.List<ClVector> made, Object v) {
        made.add((ClVector) v);
        return (ClVector) v;
    }

    /** The uploaded {@code ids} lie in {@code [lo, hi)} by their min and max, else the error naming the first that does not. */
    private static void requireIdsIn(String name, int[] ids, ClVector uploaded, int lo, int hi) {
        if (ids.length == 0 || (uploaded.minIndex >= lo && uploaded.maxIndex < hi)) {
            return;
        }
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] < lo || ids[i] >= hi) {
                throw new IllegalArgumentException(name + "[" + i + "] = " + ids[i] + " not in [" + lo + ", " + hi + ")");
            }
        }
    }

    /** Rows blocked so that each block has at most {@link AparapiBackend#GATHER_CACHE} CSR entries (or one long row). */
    static int[] makeBlocks(int[] starts, int rows) {
        java.util.ArrayList<Integer> b = new java.util.ArrayList<>();
        b.add(0);
        int blockStart = 0;
        for (int row = 0; row < rows; row++) {
            if (row > blockStart && starts[row + 1] - starts[blockStart] > GATHER_CACHE) {
                b.add(row);
                blockStart = row;
            }
        }
        if (rows > 0) {
            b.add(rows);
        }
        return b.stream().mapToInt(Integer::intValue).toArray();
    }

    /** {@code z} as an open scatter of this backend, else the error. */
    ClScatter scat(DeviceScatter z) {
        return BackendCore.own(z, ClScatter.class, this, "z", "a scatter operator");
    }

    void scatter(DeviceScatter z, DeviceVector xG, DeviceVector xL) {
        ClScatter s = scat(z);
        ClVector g = core.vec(xG, "xG");
        ClVector l = core.vec(xL, "xL");
        checkLen("scatter", "xG", g.length(), s.globalSize());
        checkLen("scatter", "xL", l.length(), s.localSize());
        if (l.length() == 0) {
            return;
        }
        if (s.kind != BLOCKS) {
            boolean tiles = s.kind == TILES;
            ClKernel k = rowsKernel(GatherScatterRowsKernel.SCATTER, tiles);
            k.set("scatterIds", s.scatterIds.buffer).set("starts", core.unused).set("ids", core.unused).set("xG", g.buffer)
                    .set("xL", l.buffer).set("yG", core.unused).set("n", l.length())
                    .set("tileBase", tiles ? s.scatterTiles.buffer : core.unused)
                    .set("offsets", tiles ? s.scatterOffsets.buffer : core.unused);
            int group = KernelBuilds.perEntryGroup(k.workGroupSize());
            long perGroup = (long) GatherScatterRowsKernel.ENTRIES * group;
            k.launch((l.length() + perGroup - 1) / perGroup, group);
            return;
        }
        ClKernel k = gatherKernel(GatherScatterKernel.SCATTER);
        bindScatter(k, s);
        k.set("xG", g.buffer).set("xL", l.buffer).set("yG", core.unused).set("dirG", core.unused).set("beta", 0.0)
                .set("n", l.length()).local("lds", KernelBuilds.gatherLocalBytes(GatherScatterKernel.SCATTER, core.gatherGroup()));
        core.launchPerEntry(k, l.length());
    }

    /** Binds the arguments of a gather/scatter kernel that come from Z (and the partials; strides 0). */
    void bindScatter(ClKernel k, ClScatter s) {
        k.set("scatterIds", s.scatterIds.buffer).set("starts", s.gatherStarts.buffer).set("ids", s.gatherIds.buffer)
                .set("blocks", s.blockStarts.buffer).set("partials", core.partials).set("strideL", 0).set("strideG", 0).set("ca", 0.0).set("cb", 0.0)
                .bindIfUsed("haloLo", s.globalSize()).bindIfUsed("haloStarts", core.unused)
                .bindIfUsed("haloSources", core.unused).bindIfUsed("received", core.unused)
                .bindIfUsed("w", core.unused).bindIfUsed("wa", 0.0).bindIfUsed("wb", 0.0);
    }

    void gather(DeviceScatter z, DeviceVector xL, DeviceVector xG) {
        ClScatter s = scat(z);
        ClVector l = core.vec(xL, "xL");
        ClVector g = core.vec(xG, "xG");
        checkLen("gather", "xL", l.length(), s.localSize());
        checkLen("gather", "xG", g.length(), s.globalSize());
        runGather(s, l, g, null, null, 0);
    }

    /** The plain gather of the rows and tiles kinds ({@link GatherScatterRowsKernel#GATHER}). */
    private void rowsGather(ClScatter s, ClVector l, ClVector g) {
        if (s.globalSize() > 0) {
            boolean tiles = s.kind == TILES;
            ClKernel k = rowsKernel(GatherScatterRowsKernel.GATHER, tiles);
            k.set("scatterIds", core.unused).set("starts", s.gatherStarts.buffer).set("ids", s.gatherIds.buffer)
                    .set("xG", core.unused).set("xL", l.buffer).set("yG", g.buffer).set("n", s.globalSize())
                    .set("tileBase", tiles ? s.gatherTiles.buffer : core.unused)
                    .set("offsets", tiles ? s.gatherOffsets.buffer : core.unused);
            core.launchPerEntry(k, s.globalSize());
        }
    }

    /**
     * The gather. Blocks kind: at most {@link AparapiBackend#REDUCE_GROUPS} work-groups stride over the row blocks; rows
     * and tiles kinds: one work-item per row ({@link GatherScatterRowsKernel}, with a dot {@link GatherRowsFusedKernel}).
     * With {@code x} not null each group also reduces its rows' g[row] x[row] into one partial, summed on the host in
     * group order (deterministic: the grid depends only on the number of blocks or rows), and that sum is
     * returned; else 0 and nothing is read back. With {@code dir} not null each row first updates
     * x[row] = dir[row] + beta x[row] (CG's p update, folded in).
     */
    double runGather(ClScatter s, ClVector l, ClVector g, ClVector x, ClVector dir, double beta) {
        if (s.kind != BLOCKS) {
            if (x == null) {
                rowsGather(s, l, g);
                return 0;
            }
            if (s.globalSize() == 0) {
                return 0;
            }
            int op = dir == null ? GatherScatterKernel.GATHER_DOT : GatherScatterKernel.GATHER_DOT_UPDATE;
            ClKernel k = fusedKernel(s, op, 1);
            k.set("xG", x.buffer).set("xL", l.buffer).set("yG", g.buffer).set("dirG", dir == null ? core.unused : dir.buffer)
                    .set("beta", beta);
            return launchFused(k, op, s.globalSize());
        }
        if (s.blocks == 0) {
            if (dir != null) {
                vectors.runStream(StreamKernel.AXPBY, dir.buffer, core.unused, x, 1, beta);
            }
            return 0;
        }
        int groups = Math.min(REDUCE_GROUPS, s.blocks);
        int op = x == null ? GatherScatterKernel.GATHER
                : dir == null ? GatherScatterKernel.GATHER_DOT : GatherScatterKernel.GATHER_DOT_UPDATE;
        ClKernel k = gatherKernel(op);
        bindScatter(k, s);
        k.set("xG", x == null ? core.unused : x.buffer).set("xL", l.buffer).set("yG", g.buffer).set("n", s.blocks)
                .set("dirG", dir == null ? core.unused : dir.buffer).set("beta", beta)
                .local("lds", KernelBuilds.gatherLocalBytes(op, core.gatherGroup()));
        k.launch(groups, core.gatherGroup());
        return x == null ? 0 : core.sumPartials(groups);
    }

    /**
     * The gather of an operator apply folded into a residual update ({@link GatherScatterKernel#GATHER_RESIDUAL}, or
     * {@link GatherScatterKernel#GATHER_RESIDUAL2} when {@code s} is not null): with g = Z^T yL, r = c1 g + r and
     * s = c2 g + s, one launch; g is not stored.
     */
    void runGatherResidual(ClScatter z, ClVector yL, double c1, ClVector r, double c2, ClVector s) {
        if (z.blocks == 0) {
            return;
        }
        int op = s == null ? GatherScatterKernel.GATHER_RESIDUAL : GatherScatterKernel.GATHER_RESIDUAL2;
        ClKernel k = gatherKernel(op);
        bindScatter(k, z);
        k.set("xG", core.unused).set("xL", yL.buffer).set("yG", r.buffer).set("n", z.blocks)
                .set("dirG", s == null ? core.unused : s.buffer).set("beta", c2).set("ca", c1).set("cb", 1.0)
                .local("lds", KernelBuilds.gatherLocalBytes(op, core.gatherGroup()));
        k.launch(Math.min(REDUCE_GROUPS, z.blocks), core.gatherGroup());
    }

    /**
     * t = c1 Z^T yL + (mask o r) in one launch of {@link GatherScatterKernel#GATHER_MASKED_RESIDUAL} (a distributed
     * level's partial residual); false, with nothing done, where Z has no row blocks (the caller makes the calls in turn).
     */
    boolean runGatherMaskedResidual(ClScatter z, ClVector yL, double c1, ClVector mask, ClVector r, ClVector t) {
        if (z.blocks == 0) {
            return false;
        }
        int op = GatherScatterKernel.GATHER_MASKED_RESIDUAL;
        ClKernel k = gatherKernel(op);
        bindScatter(k, z);
        k.set("xL", yL.buffer).set("yG", t.buffer).set("n", z.blocks).bindIfUsed("xG", core.unused)
                .bindIfUsed("dirG", r.buffer).bindIfUsed("w", mask.buffer).bindIfUsed("beta", 0.0).bindIfUsed("ca", c1)
                .bindIfUsed("cb", 1.0).local("lds", KernelBuilds.gatherLocalBytes(op, core.gatherGroup()));
        k.launch(Math.min(REDUCE_GROUPS, z.blocks), core.gatherGroup());
        return true;
    }

    /**
     * The residual update r = -Z^T yL + r with the next Chebyshev-Jacobi step folded in
     * ({@link GatherScatterKernel#GATHER_RESIDUAL_CHEBYSHEV}): d = a d + b (w o r), then x += d; one launch.
     */
    void runGatherResidualChebyshev(ClScatter z, ClVector yL, ClVector r, double a, double b, ClVector w, ClVector d,
                                    ClVector x) {
        if (z.blocks == 0) {
            return;
        }
        int op = GatherScatterKernel.GATHER_RESIDUAL_CHEBYSHEV;
        ClKernel k = gatherKernel(op);
        bindScatter(k, z);
        k.set("xG", x.buffer).set("xL", yL.buffer).set("yG", r.buffer).set("n", z.blocks).set("dirG", d.buffer)
                .set("beta", 0.0).set("ca", -1.0).set("cb", 1.0).set("w", w.buffer).set("wa", a).set("wb", b)
                .local("lds", KernelBuilds.gatherLocalBytes(op, core.gatherGroup()));
        k.launch(Math.min(REDUCE_GROUPS, z.blocks), core.gatherGroup());
    }

    /**
     * The gather folded into a Chebyshev step ({@link GatherScatterKernel#GATHER_CHEBYSHEV}): d = a d + b Z^T uL, then
     * x += beta d, one launch.
     */
    void gatherChebyshevStep(DeviceScatter z, DeviceVector uL, double a, double b, double beta, DeviceVector d, DeviceVector x) {
        ClScatter s = scat(z);
        ClVector l = core.vec(uL, "uL");
        ClVector dv = core.vec(d, "d");
        ClVector xv = core.vec(x, "x");
        checkLen("gatherChebyshevStep", "uL", l.length(), s.localSize());
        checkLen("gatherChebyshevStep", "d", dv.length(), s.globalSize());
        checkLen("gatherChebyshevStep", "x", xv.length(), s.globalSize());
        if (d == x) {
            throw new IllegalArgumentException("gatherChebyshevStep: d and x must be distinct");
        }
        if (s.blocks == 0 || s.globalSize() == 0) {
            return;
        }
        int op = GatherScatterKernel.GATHER_CHEBYSHEV;
        if (s.kind != BLOCKS) {
            ClKernel k = fusedKernel(s, op, 1);
            k.set("xG", xv.buffer).set("xL", l.buffer).set("yG", dv.buffer).set("beta", beta).set("ca", a).set("cb", b);
            launchFused(k, op, s.globalSize());
            return;
        }
        ClKernel k = gatherKernel(op);
        bindScatter(k, s);
        k.set("xG", xv.buffer).set("xL", l.buffer).set("yG", dv.buffer).set("n", s.blocks).set("dirG", core.unused)
                .set("beta", beta).set("ca", a).set("cb", b).local("lds", KernelBuilds.gatherLocalBytes(op, core.gatherGroup()));
        k.launch(Math.min(REDUCE_GROUPS, s.blocks), core.gatherGroup());
    }

    /**
     * {@link #gatherDot}, then {@link #sumHalo}, in one launch of {@link GatherScatterKernel#GATHER_DOT_HALO} where the
     * halo's rows are the last rows of y_G in ascending order (a distributed rank's shared rows numbered last); else
     * the two launches. Bitwise the same values either way.
     */
    double gatherDotHalo(DeviceScatter z, DeviceVector yL, DeviceVector xG, DeviceVector yG, DeviceHalo halo,
                         DeviceVector received) {
        return gatherWithHalo("gatherDotHalo", z, yL, Objects.requireNonNull(xG, "xG"), yG, halo, received);
    }

    /**
     * {@link #gather} then {@link #sumHalo}, in one launch of {@link GatherScatterKernel#GATHER_HALO} where the halo's rows
     * are the last rows of y_G in ascending order (as {@link #gatherDotHalo}); else the two launches. Bitwise the same
     * values either way.
     */
    void gatherHalo(DeviceScatter z, DeviceVector yL, DeviceVector yG, DeviceHalo halo, DeviceVector received) {
        gatherWithHalo("gatherHalo", z, yL, null, yG, halo, received);
    }

    /**
     * y_G = Z^T y_L completed at the halo's rows: with {@code xG} the dot x_G . y_G of the partial y_G
     * ({@link GatherScatterKernel#GATHER_DOT_HALO}, returned), without it none ({@link GatherScatterKernel#GATHER_HALO},
     * 0); one launch where the halo's rows are the last rows, else the gather and {@link #sumHalo}.
     */
    private double gatherWithHalo(String what, DeviceScatter z, DeviceVector yL, DeviceVector xG, DeviceVector yG,
                                  DeviceHalo halo, DeviceVector received) {
        ClHalo h = BackendCore.own(halo, ClHalo.class, this, "halo", "a halo");
        ClScatter s = scat(z);
        ClVector l = core.vec(yL, "yL");
        ClVector x = xG == null ? null : core.vec(xG, "xG");
        ClVector g = core.vec(yG, "yG");
        ClVector r = core.vec(received, "received");
        checkLen(what, "yL", l.length(), s.localSize());
        if (x != null) {
            checkLen(what, "xG", x.length(), s.globalSize());
        }
        checkLen(what, "yG", g.length(), s.globalSize());
        checkLen(what, "received", r.length(), h.receivedSize());
        checkLen(what, "halo.globalSize", h.globalSize(), s.globalSize());
        if (x == g) {
            throw new IllegalArgumentException(what + ": xG and yG must be distinct");
        }
        boolean last = h.rows() > 0 && h.rowIds.contiguous && h.rowIds.maxIndex == s.globalSize() - 1;
        if (!last || s.blocks == 0) {
            double dot = 0;
            if (x != null) {
                dot = runGather(s, l, g, x, null, 0);
            } else {
                gather(z, yL, yG);
            }
            sumHalo(halo, received, yG);
            return dot;
        }
        int op = x != null ? GatherScatterKernel.GATHER_DOT_HALO : GatherScatterKernel.GATHER_HALO;
        ClBuffer xb = x != null ? x.buffer : core.unused;
        ClBuffer rb = r.length() == 0 ? core.unused : r.buffer;
        if (s.kind != BLOCKS) {
            ClKernel k = fusedKernel(s, op, 1);
            k.set("xG", xb).set("xL", l.buffer).set("yG", g.buffer).set("haloLo", h.rowIds.minIndex)
                    .set("haloStarts", h.starts.buffer).set("haloSources", h.sources.buffer).set("received", rb);
            return launchFused(k, op, s.globalSize());
        }
        int groups = Math.min(REDUCE_GROUPS, s.blocks);
        ClKernel k = gatherKernel(op);
        bindScatter(k, s);
        k.set("xL", l.buffer).set("yG", g.buffer).set("n", s.blocks).bindIfUsed("xG", xb)
                .bindIfUsed("dirG", core.unused).bindIfUsed("beta", 0.0)
                .set("haloLo", h.rowIds.minIndex).set("haloStarts", h.starts.buffer).set("haloSources", h.sources.buffer)
                .set("received", rb).local("lds", KernelBuilds.gatherLocalBytes(op, core.gatherGroup()));
        k.launch(groups, core.gatherGroup());
        return x != null ? core.sumPartials(groups) : 0;
    }

    /** The gather with x_G . y_G reduced in its pass (one launch, one read-back), as in the fused operator. */
    double gatherDot(DeviceScatter z, DeviceVector yL, DeviceVector xG, DeviceVector yG) {
        ClScatter s = scat(z);
        ClVector l = core.vec(yL, "yL");
        ClVector x = core.vec(xG, "xG");
        ClVector g = core.vec(yG, "yG");
        checkLen("gatherDot", "yL", l.length(), s.localSize());
        checkLen("gatherDot", "xG", x.length(), s.globalSize());
        checkLen("gatherDot", "yG", g.length(), s.globalSize());
        if (x == g) {
            throw new IllegalArgumentException("gatherDot: xG and yG must be distinct");
        }
        return runGather(s, l, g, x, null, 0);
    }

    /**
     * The gather of the one-kernel operator ({@link ClScatter#directIds}): the shared rows summed from x_L into y_G, the
     * rows of degree 1 already there (the element kernel wrote them); with {@code x} not null the dot x_G . y_G over all
     * rows, returned (else 0).
     */
    double directGather(ClScatter s, ClVector l, ClVector g, ClVector x) {
        if (s.globalSize() == 0) {
            return 0;
        }
        int op = x == null ? GatherScatterKernel.GATHER : GatherScatterKernel.GATHER_DOT;
        ClKernel k = core.kernel(KernelBuilds.gatherRowsFused(op, 1, false, true));
        k.set("starts", s.gatherStarts.buffer).set("ids", s.gatherIds.buffer).set("tileBase", core.unused)
                .set("offsets", core.unused).set("partials", core.partials).set("n", s.globalSize()).set("strideL", 0)
                .set("strideG", 0).set("dirG", core.unused).set("beta", 0.0).set("ca", 0.0).set("cb", 0.0)
                .set("haloLo", s.globalSize()).set("haloStarts", core.unused).set("haloSources", core.unused)
                .set("received", core.unused).set("xG", x == null ? core.unused : x.buffer).set("xL", l.buffer).set("yG", g.buffer);
        return launchFused(k, op, s.globalSize());
    }

    /**
     * The gather of {@code comps} component blocks ([comps][N_L] to [comps][N_G], Z applied to each; user operators),
     * with the dot of y_G and x_G over all blocks when {@code x} is not null (returned; else 0): the block kernel of
     * {@link GatherScatterKernel} or {@link GatherRowsFusedKernel} by Z's kind.
     */
    double gatherComponents(ClScatter s, int comps, ClVector l, ClVector g, ClVector x) {
        if (s.blocks == 0 || s.globalSize() == 0) {
            // no rows, or no local nodes: Z^T of nothing is zero
            vectors.fill(g, 0);
            return 0;
        }
        boolean withDot = x != null;
        int op = withDot ? GatherScatterKernel.GATHER_DOT : GatherScatterKernel.GATHER;
        if (s.kind != BLOCKS) {
            ClKernel k = fusedKernel(s, op, comps);
            k.set("xG", withDot ? x.buffer : core.unused).set("xL", l.buffer).set("yG", g.buffer)
                    .set("strideL", s.localSize()).set("strideG", s.globalSize());
            return launchFused(k, op, s.globalSize());
        }
        int groups = Math.min(REDUCE_GROUPS, s.blocks);
        ClKernel k = core.kernel(KernelBuilds.gather(op, core.gatherGroup(), comps));
        bindScatter(k, s);
        k.set("xG", withDot ? x.buffer : core.unused).set("xL", l.buffer).set("yG", g.buffer).set("n", s.blocks)
                .set("dirG", core.unused).set("beta", 0.0).set("strideL", s.localSize()).set("strideG", s.globalSize())
                .local("lds", KernelBuilds.gatherLocalBytes(op, core.gatherGroup()));
        k.launch(groups, core.gatherGroup());
        return withDot ? core.sumPartials(groups) : 0;
    }

    // ------------------------------------------------------------------ distributed gather (HaloKernel)

    DeviceHalo uploadHalo(int[] rows, int[] starts, int[] sources, int receivedSize, int globalSize) {
        core.ensureOpen();
        HostHalo.validate(rows, starts, sources, receivedSize, globalSize);
        return new ClHalo(this, (ClVector) vectors.upload(rows), (ClVector) vectors.upload(starts),
                (ClVector) vectors.upload(sources), rows.length, receivedSize, globalSize);
    }

    /** One work-item per shared row sums its sources in their order ({@link HaloKernel}). */
    void sumHalo(DeviceHalo halo, DeviceVector received, DeviceVector yG) {
        ClHalo h = BackendCore.own(halo, ClHalo.class, this, "halo", "a halo");
        ClVector r = core.vec(received, "received");
        ClVector g = core.vec(yG, "yG");
        checkLen("sumHalo", "received", r.length(), h.receivedSize());
        checkLen("sumHalo", "yG", g.length(), h.globalSize());
        if (h.rows() == 0) {
            return;
        }
        ClKernel k = haloKernel;
        if (k == null) {
            k = core.kernel(KernelBuilds.halo());
            haloKernel = k;
        }
        k.set("rows", h.rowIds.buffer).set("starts", h.starts.buffer).set("sources", h.sources.buffer)
                .set("received", r.length() == 0 ? core.unused : r.buffer).set("y", g.buffer).set("n", h.rows());
        core.launchPerEntry(k, h.rows());
    }
}
