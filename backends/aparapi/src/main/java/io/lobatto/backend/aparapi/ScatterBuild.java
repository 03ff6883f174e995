package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.kernels.ElementNumberingKernel;
import io.lobatto.backend.aparapi.kernels.ScatterBuildKernel;
import io.lobatto.backend.aparapi.runtime.ClKernel;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.ElementNumbering;

import java.nio.IntBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Z built where it runs ({@link io.lobatto.core.backend.Backend#buildScatter}): the host uploads the local-to-original
 * map (or a mesh's numbering by entities, from which {@link ElementNumberingKernel} makes the map here) and the list of
 * masked nodes; {@link ScatterBuildKernel}'s passes make the scatter ids, the CSR of Z^T (rows
 * sorted), the greedy row blocks and W = Z (1 / Z^T 1). The host scans two short arrays (one entry per
 * {@link ScatterBuildKernel#CHUNK} original nodes, one per {@link ScatterBuildKernel#RUN} rows) and reads back nothing
 * of size N_L. The arrays are the host build's ({@code ScatterOperator.of}) entry for entry.
 */
final class ScatterBuild {

    /** The bound on a block's CSR entries: the host build's default ({@code ScatterOperator.DEFAULT_NODES_PER_BLOCK}). */
    static final int NODES_PER_BLOCK = 512;
    /** Ints of the map per write of its upload (a reused host array: no page faults of an N_L-sized copy). */
    private static final int UPLOAD_CHUNK = 1 << 20;
    /** Bytes below which an upload is one call ({@link io.lobatto.backend.aparapi.runtime.ClContext#upload}). */
    private static final long UPLOAD_COPY_LIMIT = 64L << 20;

    private final BackendCore core;
    private final GatherScatter gatherScatter;
    private final Vectors vectors;
    private ClKernel kernel;
    private ClKernel numberingKernel;

    ScatterBuild(BackendCore core, GatherScatter gatherScatter, Vectors vectors) {
        this.core = core;
        this.gatherScatter = gatherScatter;
        this.vectors = vectors;
    }

    /** The build: every pass in one program (the pass is an argument). */
    static KernelBuilds.Spec spec() {
        return new KernelBuilds.Spec(ScatterBuildKernel.class, Map.of(), "Z build", 0);
    }

    /** The kernel, set to pass {@code op}. */
    private ClKernel kernel(int op) {
        if (kernel == null) {
            kernel = core.kernel(spec());
        }
        return kernel.set("op", op);
    }

    /**
     * Z of {@code l2g} (entries 0 .. limit, ids in [0, {@code originals})) with the {@code masked} original nodes (or
     * null) excluded, in the {@code kind} of {@link GatherScatter} (blocks or rows).
     *
     * @throws IllegalArgumentException as the host build: an id out of range, a mask of the wrong length, an unmasked
     *                                  node no local node references
     */
    ClScatter build(IntBuffer l2g, int originals, boolean[] masked, int kind) {
        core.ensureOpen();
        check(originals, masked);
        int nl = l2g.limit();
        List<ClVector> temporary = new ArrayList<>();
        ClVector map = ints(nl, "the local-to-global map", temporary);
        try {
            write(l2g, map);
        } catch (RuntimeException e) {
            map.close();
            throw e;
        }
        return build(map, () -> l2g, originals, masked, kind, temporary);
    }

    /** The numbering's build: its passes in one program. */
    static KernelBuilds.Spec numberingSpec() {
        return new KernelBuilds.Spec(ElementNumberingKernel.class, Map.of(), "l2g", 0);
    }

    /**
     * Z of a mesh's numbering by entities: the map made here ({@link ElementNumberingKernel}, one work-item per local
     * node, from the O(E) entity arrays), then Z of it as {@link #build(IntBuffer, int, boolean[], int)}.
     *
     * @throws IllegalArgumentException as {@link #build(IntBuffer, int, boolean[], int)}
     */
    ClScatter build(ElementNumbering numbering, boolean[] masked, int kind) {
        core.ensureOpen();
        int originals = numbering.globalNodeCount();
        check(originals, masked);
        List<ClVector> temporary = new ArrayList<>();
        ClVector map = ints(numbering.localSize(), "the local-to-global map", temporary);
        try {
            number(numbering, map, temporary);
        } catch (RuntimeException e) {
            for (ClVector v : temporary) {
                v.close();
            }
            throw e;
        }
        return build(map, () -> {
            int[] back = new int[map.length()];
            core.cl.read(map.buffer, 0, back, 0, back.length);
            return IntBuffer.wrap(back);
        }, originals, masked, kind, temporary);
    }

    /**
     * Fills {@code map} with the numbering's local-to-global map ({@link ElementNumberingKernel}); the entity arrays go
     * into buffers of {@code temporary}.
     */
    void number(ElementNumbering numbering, ClVector map, List<ClVector> temporary) {
        ClVector ordinals = upload(numbering.ordinals(), "the entity ordinals", temporary);
        ClVector orientations = upload(numbering.orientations(), "the entity orientations", temporary);
        ClVector bases = upload(numbering.bases(), "the entity bases", temporary);
        ClVector classes = upload(numbering.nodeClasses(), "the node classes", temporary);
        if (numberingKernel == null) {
            numberingKernel = core.kernel(numberingSpec());
        }
        ClKernel k = numberingKernel.set("ordinals", ordinals.buffer).set("orientations", orientations.buffer)
                .set("bases", bases.buffer).set("classes", classes.buffer).set("l2g", map.buffer)
                .set("degree", numbering.degree()).set("np", numbering.nodesPerElement());
        launch(k, numbering.localSize());
    }

    private static void check(int originals, boolean[] masked) {
        if (originals < 0) {
            throw new IllegalArgumentException("originalNodeCount = " + originals + " must be >= 0");
        }
        if (masked != null && masked.length != originals) {
            throw new IllegalArgumentException("masked has length " + masked.length + " but originalNodeCount = " + originals);
        }
    }

    /** {@code src} (entries 0 .. limit) into {@code dst}, staged through a reused array of at most {@link #UPLOAD_CHUNK}. */
    private void write(IntBuffer src, ClVector dst) {
        int nl = src.limit();
        int[] chunk = new int[Math.min(UPLOAD_CHUNK, Math.max(1, nl))];
        for (int from = 0; from < nl; from += chunk.length) {
            int len = Math.min(chunk.length, nl - from);
            src.get(from, chunk, 0, len);
            core.cl.write(chunk, 0, len, dst.buffer, from);
        }
    }

    private ClVector upload(IntBuffer src, String what, List<ClVector> owner) {
        int n = src.limit();
        if (4L * n >= UPLOAD_COPY_LIMIT) {
            ClVector v = ints(n, what, owner);
            write(src, v);
            return v;
        }
        int[] copy = new int[n];
        src.get(0, copy);
        return intsOf(copy, what, owner);
    }

    /**
     * Z of the map in {@code map} (on the device, one of {@code temporary}, closed with them); {@code hostMap} gives it on
     * the host for the message of a bad id.
     */
    private ClScatter build(ClVector map, java.util.function.Supplier<IntBuffer> hostMap, int originals, boolean[] masked,
                            int kind, List<ClVector> temporary) {
        int nl = map.length();
        List<ClVector> kept = new ArrayList<>();
        try {
            ClVector count = ints(originals, "the counts of Z's build", temporary);
            ClVector err = intsOf(new int[2], "the errors of Z's build", temporary);
            launch(bind(ScatterBuildKernel.ZERO, map, count, err), originals);
            launch(bind(ScatterBuildKernel.COUNT, map, count, err), nl);
            int[] maskedIds = maskedIds(masked);
            if (maskedIds.length > 0) {
                ClVector list = intsOf(maskedIds, "the masked nodes", temporary);
                launch(bind(ScatterBuildKernel.MARK, map, count, err).set("masked", list.buffer), maskedIds.length);
            }
            int chunks = (originals + ScatterBuildKernel.CHUNK - 1) / ScatterBuildKernel.CHUNK;
            ClVector sums = ints(3L * chunks, "the chunk sums of Z's build", temporary);
            launch(bind(ScatterBuildKernel.SUMS, map, count, err).set("sums", sums.buffer), chunks);
            int[] errors = new int[2];
            core.cl.read(err.buffer, 0, errors, 0, 2);
            if (errors[0] > 0) {
                IntBuffer l2g = hostMap.get();
                for (int n = 0; n < nl; n++) {
                    int g = l2g.get(n);
                    if (g < 0 || g >= originals) {
                        throw new IllegalArgumentException("localToGlobal[" + n + "] = " + g + " is out of range [0, " + originals + ")");
                    }
                }
            }
            if (errors[1] > 0) {
                int[] counts = new int[originals];
                core.cl.read(count.buffer, 0, counts, 0, originals);
                for (int g = 0; g < originals; g++) {
                    if (counts[g] == 0) {
                        throw new IllegalArgumentException("global node " + g + " is unmasked but no local node references it"
                                + " (localToGlobal never takes the value " + g + "); mask it or remove it from the numbering");
                    }
                }
            }
            int[] s = new int[3 * chunks];
            core.cl.read(sums.buffer, 0, s, 0, s.length);
            int[] base = new int[Math.max(2, 2 * chunks)];
            long rows = 0;
            long entries = 0;
            for (int c = 0; c < chunks; c++) {
                base[2 * c] = (int) rows;
                base[2 * c + 1] = (int) entries;
                rows += s[3 * c];
                entries += s[3 * c + 1];
            }
            int ng = (int) rows;
            int nnz = (int) entries;
            ClVector bases = intsOf(base, "the chunk bases of Z's build", temporary);
            ClVector assembled = ints(originals, "the assembled ids of Z's build", temporary);
            ClVector starts = ints(ng + 1L, "Z^T's row starts", kept);
            launch(bind(ScatterBuildKernel.NUMBER, map, count, err).set("bases", bases.buffer)
                    .set("assembled", assembled.buffer).set("starts", starts.buffer), chunks);
            core.cl.write(new int[] {nnz}, 0, 1, starts.buffer, ng);
            ClVector scatterIds = ints(nl, "Z's scatter ids", kept);
            ClVector ids = ints(nnz, "Z^T's local ids", kept);
            launch(bind(ScatterBuildKernel.FILL, map, count, err).set("assembled", assembled.buffer)
                    .set("starts", starts.buffer).set("scatterIds", scatterIds.buffer).set("ids", ids.buffer), nl);
            launch(bind(ScatterBuildKernel.SORT, map, count, err).set("starts", starts.buffer).set("ids", ids.buffer)
                    .set("rows", ng), ng);
            for (ClVector v : temporary) {
                v.close();
            }
            temporary.clear();
            ClVector blockStarts = blocks(ng, starts, kept, temporary);
            int blockCount = blockStarts.length() - 1;
            scatterIds.minIndex = -1;
            scatterIds.maxIndex = ng - 1;
            ids.minIndex = 0;
            ids.maxIndex = nl - 1;
            ClVector w = (ClVector) vectors.allocate(nl);
            kept.add(w);
            ClScatter z = new ClScatter(gatherScatter, scatterIds, starts, ids, blockStarts, w, blockCount, ng, kind);
            weights(z);
            gatherScatter.attachDirectIds(z);
            return z;
        } catch (RuntimeException e) {
            for (ClVector v : kept) {
                v.close();
            }
            throw e;
        } finally {
            for (ClVector v : temporary) {
                v.close();
            }
        }
    }

    /** The greedy blocks of rows (N_G + 1 entries: the starts, then N_G), counted and written per run. */
    private ClVector blocks(int ng, ClVector starts, List<ClVector> kept, List<ClVector> temporary) {
        int runs = (ng + ScatterBuildKernel.RUN - 1) / ScatterBuildKernel.RUN;
        if (runs == 0) {
            ClVector b = ints(1, "Z^T's block starts", kept);
            core.cl.write(new int[] {0}, 0, 1, b.buffer, 0);
            return b;
        }
        ClVector sums = ints(2L * runs, "the run sums of Z's blocks", temporary);
        launch(bindBlocks(ScatterBuildKernel.BLOCK_COUNT, starts, ng).set("sums", sums.buffer), runs);
        int[] s = new int[2 * runs];
        core.cl.read(sums.buffer, 0, s, 0, s.length);
        int[] base = new int[runs];
        int total = 0;
        for (int r = 0; r < runs; r++) {
            base[r] = total;
            total += s[2 * r];
        }
        ClVector bases = intsOf(base, "the run bases of Z's blocks", temporary);
        ClVector b = ints(total + 1L, "Z^T's block starts", kept);
        launch(bindBlocks(ScatterBuildKernel.BLOCK_WRITE, starts, ng).set("bases", bases.buffer)
                .set("blockStarts", b.buffer), runs);
        core.cl.write(new int[] {ng}, 0, 1, b.buffer, total);
        return b;
    }

    /**
     * W = Z (1 / Z^T 1), 0 where masked: each local node's inverse row length from Z^T's row starts, in this program's
     * {@link ScatterBuildKernel#WEIGHTS} pass (so Z's build waits for no other program; a row is never empty: SUMS
     * counted unmasked nodes without a reference as errors).
     */
    private void weights(ClScatter z) {
        ClKernel k = kernel(ScatterBuildKernel.WEIGHTS);
        k.set("l2g", core.unused).set("count", core.unused).set("err", core.unused).set("masked", core.unused)
                .set("sums", core.unused).set("bases", core.unused).set("assembled", core.unused)
                .set("scatterIds", z.scatterIds.buffer).set("starts", z.gatherStarts.buffer).set("ids", core.unused)
                .set("blockStarts", core.unused).set("w", z.inverseDegree.buffer).set("originals", 0)
                .set("rows", z.globalSize()).set("blockEntries", NODES_PER_BLOCK);
        launch(k, z.inverseDegree.length());
    }

    /** The original ids of the masked nodes, ascending (none for a null mask). */
    private static int[] maskedIds(boolean[] masked) {
        if (masked == null) {
            return new int[0];
        }
        int k = 0;
        for (boolean m : masked) {
            if (m) {
                k++;
            }
        }
        int[] out = new int[k];
        k = 0;
        for (int g = 0; g < masked.length; g++) {
            if (masked[g]) {
                out[k++] = g;
            }
        }
        return out;
    }

    private ClKernel bind(int op, ClVector map, ClVector count, ClVector err) {
        ClKernel k = kernel(op);
        k.set("l2g", map.buffer).set("count", count.buffer).set("err", err.buffer).set("masked", core.unused)
                .set("sums", core.unused).set("bases", core.unused).set("assembled", core.unused)
                .set("scatterIds", core.unused).set("starts", core.unused).set("ids", core.unused)
                .set("blockStarts", core.unused).set("w", core.unused).set("originals", count.length()).set("rows", 0)
                .set("blockEntries", NODES_PER_BLOCK);
        return k;
    }

    private ClKernel bindBlocks(int op, ClVector starts, int ng) {
        ClKernel k = kernel(op);
        k.set("l2g", core.unused).set("count", core.unused).set("err", core.unused).set("masked", core.unused)
                .set("sums", core.unused).set("bases", core.unused).set("assembled", core.unused)
                .set("scatterIds", core.unused).set("starts", starts.buffer).set("ids", core.unused)
                .set("blockStarts", core.unused).set("w", core.unused).set("originals", 0).set("rows", ng)
                .set("blockEntries", NODES_PER_BLOCK);
        return k;
    }

    /** Launches {@code k} over {@code n} work-items (its {@code n}). */
    private void launch(ClKernel k, long n) {
        k.set("n", (int) n);
        if (n > 0) {
            core.launchPerEntry(k, n);
        }
    }

    /** A new int vector holding {@code values} ({@code ClContext.upload}: one call where it is small), owned by {@code owner}. */
    private ClVector intsOf(int[] values, String what, List<ClVector> owner) {
        ClVector v = new ClVector(core.owner, core.cl, core.cl.upload(values, what + " (" + values.length + " ints)"), values.length);
        owner.add(v);
        return v;
    }

    private ClVector ints(long n, String what, List<ClVector> owner) {
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(what + ": " + n + " entries is above the limit " + Integer.MAX_VALUE);
        }
        ClVector v = new ClVector(core.owner, core.cl, core.buffer(n, 4, what + " (" + n + " ints)"), (int) n);
        owner.add(v);
        return v;
    }
}
