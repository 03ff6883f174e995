package io.lobatto.backend.cpu;

import java.util.Arrays;

/**
 * The fused assembled operator y_G = Z^T (L + shift W) Z x_G on element blocks (hipBone's fused
 * operator, without the y_L round trip through memory for the gather): each block of {@link BlockKernels}
 * reads its x_G entries through its scatter ids, runs the element kernel in cache, and adds its result
 * straight into y_G.
 *
 * <p>Races and determinism: blocks are greedily coloured so that two blocks of one colour share no
 * global node; the colours run one after the other, the blocks of a colour in parallel. Every y_G entry
 * is therefore written by its blocks in a fixed order (colour order), the first write assigning (no
 * zeroing pass), whatever the number of threads. The owner of a global node, the last block in that
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
    /** Blocks in processing order, grouped by colour. */
    final int[] order;
    /** Colour c holds order[colourStarts[c] .. colourStarts[c+1]). */
    final int[] colourStarts;
    /** Global nodes no element reads (zeroed by every apply; normally none). */
    final int[] untouched;
    final CpuScatter scatter;

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
        // greedy colouring in block order
        int[] colour = new int[nb];
        Arrays.fill(colour, -1);
        int colours = 0;
        boolean[] used = new boolean[64];
        for (int blk = 0; blk < nb; blk++) {
            Arrays.fill(used, false);
            for (int pos = blk * len; pos < (blk + 1) * len; pos++) {
                int id = ids[pos];
                if (id < 0) {
                    continue;
                }
                for (int k = count[id]; k < count[id + 1]; k++) {
                    int c = colour[readers[k]];
                    if (c >= 0) {
                        if (c >= used.length) {
                            used = Arrays.copyOf(used, 2 * c);
                        }
                        used[c] = true;
                    }
                }
            }
            int c = 0;
            while (c < used.length && used[c]) {
                c++;
            }
            colour[blk] = c;
            colours = Math.max(colours, c + 1);
        }
        colourStarts = new int[colours + 1];
        for (int blk = 0; blk < nb; blk++) {
            colourStarts[colour[blk] + 1]++;
        }
        for (int c = 0; c < colours; c++) {
            colourStarts[c + 1] += colourStarts[c];
        }
        order = new int[nb];
        int[] next = Arrays.copyOf(colourStarts, colours);
        for (int blk = 0; blk < nb; blk++) {
            order[next[colour[blk]]++] = blk;
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
