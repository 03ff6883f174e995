package io.lobatto.backend.cpu;

import java.util.Arrays;

/**
 * The fused assembled operator y_G = Z^T (L + shift W) Z x_G on element blocks (hipBone's fused
 * operator, without the y_L round trip through memory for the gather): each block of {@link BlockKernels}
 * reads its x_G entries through its scatter ids, runs the element kernel in cache, and adds its result
 * straight into y_G.
 *
 * <p>Races and determinism: the blocks are cut into {@value #SLABS} slabs of consecutive blocks, and the
 * slabs greedily coloured so that two slabs of one colour share no global node (with elements numbered
 * along the mesh, two or three colours). The colours run one after the other, the slabs of a colour in
 * parallel, the blocks of a slab in order on one thread (neighbouring blocks share x_G and y_G entries
 * in cache). Every y_G entry is therefore written by its blocks in a fixed order, the first write
 * assigning (no zeroing pass), whatever the number of threads. The owner of a global node, the last block in that
 * order that reads it, writes CG's updated search direction p_G = z_G + beta p_G after reading it
 * ({@link CpuBackend#applyAssembledDotUpdate}): no block reads p_G[g] after its owner has written it.
 * x_G . y_G is summed as sum over the local nodes of u_L . y_L (equal to x_G . Z^T y_L), per block in a
 * fixed order and the block partials in block order.
 */
final class BlockAssembly {

    /** The global id of every position of every block (layout T, -1 masked or padding): [block][t*B + e]. */
    final int[] ids;
    /** Per position: {@link #FIRST} (assigns y_G), {@link #OWNER} (writes p_G). */
    final byte[] flags;
    /**
     * Per block: every position has a global id (no masked node, no padding element). Such blocks take loops without the
     * id check. With one checked loop for all blocks, every block ran 20-30 % slower on 2 cores whenever the last block
     * was padded (E mod B != 0: BP1, BP3, BP5 at N = 6..8, K = 17 at N = 7, issue 29), masked or not; why is not
     * established (Dirichlet masks alone, with E a multiple of B, did not do it).
     */
    final boolean[] complete;
    /** Slab s is blocks slabStarts[s] .. slabStarts[s+1]-1. */
    final int[] slabStarts;
    /** Slabs in processing order, grouped by colour. */
    final int[] slabOrder;
    /** Colour c holds slabOrder[colourStarts[c] .. colourStarts[c+1]). */
    final int[] colourStarts;
    /** Blocks in processing order. */
    final int[] order;
    /** Global nodes no element reads (zeroed by every apply; normally none). */
    final int[] untouched;
    final CpuScatter scatter;

    /**
     * Slabs of consecutive blocks that are coloured (fixed, not the thread count, so that results do not
     * depend on the threads): enough for 16 threads, few enough that a slab is thick and its blocks,
     * run in order, reuse each other's x_G and y_G entries in cache.
     */
    static final int SLABS = 32;

    static final byte FIRST = 1;
    static final byte OWNER = 2;

    BlockAssembly(BlockKernels bk, CpuScatter z) {
        this.scatter = z;
        final int nb = bk.blocks;
        final int len = bk.npBlock;
        final int bb = bk.b;
        final int np = bk.np;
        final int[] nat = bk.naturalOfT;
        final int ng = z.globalSize;
        if ((long) nb * len > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("fused operator: " + nb + " blocks of " + len + " positions (E = " + bk.elements
                    + " elements padded to blocks of " + bb + ") need " + (long) nb * len
                    + " scatter ids; Java arrays hold at most 2^31 - 9");
        }
        ids = new int[nb * len];
        for (int blk = 0; blk < nb; blk++) {
            for (int e = 0; e < bb; e++) {
                long el = (long) blk * bb + e;
                for (int t = 0; t < np; t++) {
                    int pos = blk * len + t * bb + e;
                    ids[pos] = el >= bk.elements ? -1 : z.scatterIds[(int) (el * np) + nat[t]];
                }
            }
        }
        complete = new boolean[nb];
        for (int blk = 0; blk < nb; blk++) {
            boolean all = true;
            for (int pos = blk * len; pos < (blk + 1) * len && all; pos++) {
                all = ids[pos] >= 0;
            }
            complete[blk] = all;
        }
        // blocks reading each global node (CSR)
        int[] count = new int[ng + 1];
        for (int blk = 0; blk < nb; blk++) {
            for (int pos = blk * len; pos < (blk + 1) * len; pos++) {
                int id = ids[pos];
                if (id >= 0) {
                    count[id + 1]++;
                }
            }
        }
        for (int g = 0; g < ng; g++) {
            count[g + 1] += count[g];
        }
        int[] readers = new int[count[ng]];
        int[] fill = Arrays.copyOf(count, ng);
        for (int blk = 0; blk < nb; blk++) {
            for (int pos = blk * len; pos < (blk + 1) * len; pos++) {
                int id = ids[pos];
                if (id >= 0) {
                    readers[fill[id]++] = blk;
                }
            }
        }
        // slabs of consecutive blocks, greedily coloured in slab order
        final int slabs = Math.min(nb, SLABS);
        slabStarts = new int[slabs + 1];
        int[] slabOf = new int[nb];
        for (int sl = 0; sl < slabs; sl++) {
            slabStarts[sl + 1] = (int) ((long) nb * (sl + 1) / slabs);
            for (int blk = slabStarts[sl]; blk < slabStarts[sl + 1]; blk++) {
                slabOf[blk] = sl;
            }
        }
        int[] colour = new int[slabs];
        Arrays.fill(colour, -1);
        int colours = 0;
        boolean[] used = new boolean[slabs];
        for (int sl = 0; sl < slabs; sl++) {
            Arrays.fill(used, false);
            for (int pos = slabStarts[sl] * len; pos < slabStarts[sl + 1] * len; pos++) {
                int id = ids[pos];
                if (id < 0) {
                    continue;
                }
                for (int k = count[id]; k < count[id + 1]; k++) {
                    int other = slabOf[readers[k]];
                    if (other != sl && colour[other] >= 0) {
                        used[colour[other]] = true;
                    }
                }
            }
            int c = 0;
            while (used[c]) {
                c++;
            }
            colour[sl] = c;
            colours = Math.max(colours, c + 1);
        }
        colourStarts = new int[colours + 1];
        for (int sl = 0; sl < slabs; sl++) {
            colourStarts[colour[sl] + 1]++;
        }
        for (int c = 0; c < colours; c++) {
            colourStarts[c + 1] += colourStarts[c];
        }
        slabOrder = new int[slabs];
        int[] next = Arrays.copyOf(colourStarts, colours);
        for (int sl = 0; sl < slabs; sl++) {
            slabOrder[next[colour[sl]]++] = sl;
        }
        order = new int[nb];
        for (int o = 0, i = 0; i < slabs; i++) {
            int sl = slabOrder[i];
            for (int blk = slabStarts[sl]; blk < slabStarts[sl + 1]; blk++) {
                order[o++] = blk;
            }
        }
        // first and last (owner) position of every global node in processing order
        int[] first = new int[ng];
        int[] last = new int[ng];
        Arrays.fill(first, -1);
        for (int o = 0; o < nb; o++) {
            int blk = order[o];
            for (int pos = blk * len; pos < (blk + 1) * len; pos++) {
                int id = ids[pos];
                if (id >= 0) {
                    if (first[id] < 0) {
                        first[id] = pos;
                    }
                    last[id] = pos;
                }
            }
        }
        flags = new byte[nb * len];
        int missing = 0;
        for (int g = 0; g < ng; g++) {
            if (first[g] < 0) {
                missing++;
                continue;
            }
            flags[first[g]] |= FIRST;
            flags[last[g]] |= OWNER;
        }
        untouched = new int[missing];
        for (int g = 0, k = 0; g < ng; g++) {
            if (first[g] < 0) {
                untouched[k++] = g;
            }
        }
    }

    int colours() {
        return colourStarts.length - 1;
    }
}
