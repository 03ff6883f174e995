package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.kernels.GatherScatterKernel;
import io.lobatto.backend.aparapi.kernels.HaloKernel;
import io.lobatto.backend.aparapi.kernels.StreamKernel;
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
 */
final class GatherScatter {

    private final BackendCore core;
    private final Vectors vectors;
    /** The built kernels of the gather/scatter ops by op code (no map lookup per launch). */
    private final ClKernel[] gatherKernels = new ClKernel[5];
    private ClKernel haloKernel;

    GatherScatter(BackendCore core, Vectors vectors) {
        this.core = core;
        this.vectors = vectors;
    }

    /** The gather/scatter {@code op} built for the backend's gather group. */
    private ClKernel gatherKernel(int op) {
        ClKernel k = gatherKernels[op];
        if (k == null) {
            k = buildGather(op, core.gatherGroup);
            gatherKernels[op] = k;
        }
        return k;
    }

    private ClKernel buildGather(int op, int group) {
        return core.kernel(KernelBuilds.gather(op, group));
    }

    DeviceScatter uploadScatter(int[] scatterIds, int[] gatherStarts, int[] gatherIds, int[] blockStarts,
                                double[] inverseDegree, int globalSize) {
        return upload(scatterIds, gatherStarts, gatherIds, blockStarts, inverseDegree, null, globalSize);
    }

    /**
     * Z with W made on the device: 1 / degree per assembled node (N_G doubles, made on the host in parallel) uploaded,
     * then scattered to the local nodes by the scatter kernel itself (W = Z (1 / degree), 0 where masked).
     */
    DeviceScatter uploadScatterByDegree(int[] scatterIds, int[] gatherStarts, int[] gatherIds, int[] blockStarts,
                                        int[] degree, int globalSize) {
        core.ensureOpen();
        if (degree == null || degree.length != globalSize) {
            throw new IllegalArgumentException("degree has length " + (degree == null ? "null" : degree.length)
                    + " but globalSize = " + globalSize);
        }
        double[] inverse = new double[globalSize];
        int chunk = 1 << 16;
        long bad = java.util.stream.IntStream.range(0, (globalSize + chunk - 1) / chunk).parallel().mapToLong(c -> {
            for (int a = c * chunk, end = Math.min(globalSize, (c + 1) * chunk); a < end; a++) {
                if (degree[a] < 1) {
                    return a;
                }
                inverse[a] = 1.0 / degree[a];
            }
            return Long.MAX_VALUE;
        }).min().orElse(Long.MAX_VALUE);
        if (bad != Long.MAX_VALUE) {
            throw new IllegalArgumentException("degree[" + bad + "] = " + degree[(int) bad] + " must be >= 1");
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
        for (int n = 0; n < nl; n++) {
            if (scatterIds[n] < -1 || scatterIds[n] >= globalSize) {
                throw new IllegalArgumentException("scatterIds[" + n + "] = " + scatterIds[n] + " not in [-1, " + globalSize + ")");
            }
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
        for (int i = 0; i < gatherIds.length; i++) {
            if (gatherIds[i] < 0 || gatherIds[i] >= nl) {
                throw new IllegalArgumentException("gatherIds[" + i + "] = " + gatherIds[i] + " not in [0, " + nl + ")");
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
        ClVector w = (ClVector) (inverseDegree != null ? vectors.upload(inverseDegree) : vectors.allocate(nl));
        ClScatter z = new ClScatter(this, (ClVector) vectors.upload(scatterIds), (ClVector) vectors.upload(gatherStarts),
                (ClVector) vectors.upload(gatherIds), (ClVector) vectors.upload(blocks), w, blocks.length - 1, globalSize);
        if (inverseDegreeG != null) {
            try (DeviceVector g = vectors.upload(inverseDegreeG)) {
                scatter(z, g, w);
            }
        }
        return z;
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
        Objects.requireNonNull(z, "z");
        if (!(z instanceof ClScatter s) || s.owner != this) {
            throw new IllegalArgumentException("z is not a scatter operator of this aparapi backend");
        }
        if (z.isClosed()) {
            throw new IllegalStateException("z is closed");
        }
        return s;
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
        ClKernel k = gatherKernel(GatherScatterKernel.SCATTER);
        bindScatter(k, s);
        k.set("xG", g.buffer).set("xL", l.buffer).set("yG", core.unused).set("dirG", core.unused).set("beta", 0.0)
                .set("n", l.length()).local("lds", KernelBuilds.gatherLocalBytes(GatherScatterKernel.SCATTER, core.gatherGroup));
        core.launchPerEntry(k, l.length());
    }

    /** Binds the arguments of a gather/scatter kernel that come from Z (and the partials; strides 0). */
    void bindScatter(ClKernel k, ClScatter s) {
        k.set("scatterIds", s.scatterIds.buffer).set("starts", s.gatherStarts.buffer).set("ids", s.gatherIds.buffer)
                .set("blocks", s.blockStarts.buffer).set("partials", core.partials).set("strideL", 0).set("strideG", 0)
                .bindIfUsed("haloLo", s.globalSize()).bindIfUsed("haloStarts", core.unused)
                .bindIfUsed("haloSources", core.unused).bindIfUsed("received", core.unused);
    }

    void gather(DeviceScatter z, DeviceVector xL, DeviceVector xG) {
        ClScatter s = scat(z);
        ClVector l = core.vec(xL, "xL");
        ClVector g = core.vec(xG, "xG");
        checkLen("gather", "xL", l.length(), s.localSize());
        checkLen("gather", "xG", g.length(), s.globalSize());
        runGather(s, l, g, null, null, 0);
    }

    /**
     * The gather: at most {@link AparapiBackend#REDUCE_GROUPS} work-groups stride over the row blocks. With {@code x}
     * not null each group also reduces its rows' g[row] x[row] into one partial, summed on the host in
     * group order (deterministic: the grid depends only on the number of blocks), and that sum is
     * returned; else 0 and nothing is read back. With {@code dir} not null each row first updates
     * x[row] = dir[row] + beta x[row] (CG's p update, folded in).
     */
    double runGather(ClScatter s, ClVector l, ClVector g, ClVector x, ClVector dir, double beta) {
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
                .local("lds", KernelBuilds.gatherLocalBytes(op, core.gatherGroup));
        k.launch(groups, core.gatherGroup);
        return x == null ? 0 : core.sumPartials(groups);
    }

    /**
     * {@link #gatherDot}, then {@link #sumHalo}, in one launch of {@link GatherScatterKernel#GATHER_DOT_HALO} where the
     * halo's rows are the last rows of y_G in ascending order (a distributed rank's shared rows numbered last); else
     * the two launches. Bitwise the same values either way.
     */
    double gatherDotHalo(DeviceScatter z, DeviceVector yL, DeviceVector xG, DeviceVector yG, DeviceHalo halo,
                         DeviceVector received) {
        Objects.requireNonNull(halo, "halo");
        if (!(halo instanceof ClHalo h) || h.owner != this || h.isClosed()) {
            throw new IllegalArgumentException("halo is not an open halo of this aparapi backend");
        }
        ClScatter s = scat(z);
        ClVector l = core.vec(yL, "yL");
        ClVector x = core.vec(xG, "xG");
        ClVector g = core.vec(yG, "yG");
        ClVector r = core.vec(received, "received");
        checkLen("gatherDotHalo", "yL", l.length(), s.localSize());
        checkLen("gatherDotHalo", "xG", x.length(), s.globalSize());
        checkLen("gatherDotHalo", "yG", g.length(), s.globalSize());
        checkLen("gatherDotHalo", "received", r.length(), h.receivedSize());
        checkLen("gatherDotHalo", "halo.globalSize", h.globalSize(), s.globalSize());
        if (x == g) {
            throw new IllegalArgumentException("gatherDotHalo: xG and yG must be distinct");
        }
        boolean last = h.rows() > 0 && h.rowIds.contiguous && h.rowIds.maxIndex == s.globalSize() - 1;
        if (!last || s.blocks == 0) {
            double dot = runGather(s, l, g, x, null, 0);
            sumHalo(halo, received, yG);
            return dot;
        }
        int groups = Math.min(REDUCE_GROUPS, s.blocks);
        int op = GatherScatterKernel.GATHER_DOT_HALO;
        ClKernel k = gatherKernel(op);
        bindScatter(k, s);
        k.set("xG", x.buffer).set("xL", l.buffer).set("yG", g.buffer).set("n", s.blocks)
                .bindIfUsed("dirG", core.unused).bindIfUsed("beta", 0.0)
                .set("haloLo", h.rowIds.minIndex).set("haloStarts", h.starts.buffer).set("haloSources", h.sources.buffer)
                .set("received", r.length() == 0 ? core.unused : r.buffer)
                .local("lds", KernelBuilds.gatherLocalBytes(op, core.gatherGroup));
        k.launch(groups, core.gatherGroup);
        return core.sumPartials(groups);
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

    // ------------------------------------------------------------------ distributed gather (HaloKernel)

    DeviceHalo uploadHalo(int[] rows, int[] starts, int[] sources, int receivedSize, int globalSize) {
        core.ensureOpen();
        HostHalo.validate(rows, starts, sources, receivedSize, globalSize);
        return new ClHalo(this, (ClVector) vectors.upload(rows), (ClVector) vectors.upload(starts),
                (ClVector) vectors.upload(sources), rows.length, receivedSize, globalSize);
    }

    /** One work-item per shared row sums its sources in their order ({@link HaloKernel}). */
    void sumHalo(DeviceHalo halo, DeviceVector received, DeviceVector yG) {
        Objects.requireNonNull(halo, "halo");
        if (!(halo instanceof ClHalo h) || h.owner != this || h.isClosed()) {
            throw new IllegalArgumentException("halo is not an open halo of this aparapi backend");
        }
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
