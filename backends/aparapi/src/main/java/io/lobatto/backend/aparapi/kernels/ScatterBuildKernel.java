package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;

/**
 * The build of the scatter operator Z on the device from the element-local to original-global map (streaming paper,
 * section 5; the same arrays as the host's {@code ScatterOperator}): a counting sort of the local nodes by their
 * assembled id. The passes, one {@link #op} each:
 * <ol>
 *   <li>{@link #ZERO}: {@code count = 0} over the original nodes;</li>
 *   <li>{@link #COUNT}: {@code count[l2g[n]] += 1} (atomic) over the local nodes, out-of-range ids counted in
 *       {@code err[0]};</li>
 *   <li>{@link #MARK}: {@code count[g] = -1} for the listed masked nodes;</li>
 *   <li>{@link #SUMS}: per chunk of {@link #CHUNK} original nodes, its unmasked nodes, their entries and the largest
 *       row ({@code sums[3c..3c+2]}); unmasked nodes that no local node references counted in {@code err[1]};</li>
 *   <li>(the host's exclusive scan of the chunk sums into {@code bases})</li>
 *   <li>{@link #NUMBER}: the assembled ids (unmasked nodes in ascending order, -1 where masked) and the row starts of
 *       Z^T, per chunk from its base; the counts become the rows' fill cursors (0);</li>
 *   <li>{@link #FILL}: the scatter ids {@code scatterIds[n] = assembled[l2g[n]]} and each local node into its row at an
 *       atomic cursor;</li>
 *   <li>{@link #SORT}: each row's local ids in ascending order (insertion sort: rows hold the few copies of a node);</li>
 *   <li>{@link #BLOCK_COUNT}, (the host's scan), {@link #BLOCK_WRITE}: the greedy blocks of at most {@link #blockEntries}
 *       entries within runs of {@link #RUN} rows, the host's {@code blockStarts}.</li>
 *   <li>{@link #WEIGHTS}: W = Z (1 / Z^T 1), the inverse degree of each local node's row
 *       ({@code w[n] = 1 / (starts[a + 1] - starts[a])} with {@code a = scatterIds[n]}, 0 where masked): the same doubles as
 *       gathering ones, taking reciprocals and scattering, in one pass of this program.</li>
 * </ol>
 * Every array is the host build's, entry for entry: the atomics decide only the order within a row, which the sort
 * fixes.
 */
public final class ScatterBuildKernel extends Kernel {

    /** count = 0 over the original nodes. */
    public static final int ZERO = 0;
    /** The references per original node. */
    public static final int COUNT = 1;
    /** The masked nodes' counts set to -1. */
    public static final int MARK = 2;
    /** Per chunk: unmasked nodes, entries, largest row. */
    public static final int SUMS = 3;
    /** Assembled ids and row starts. */
    public static final int NUMBER = 4;
    /** Scatter ids and the unsorted rows. */
    public static final int FILL = 5;
    /** Each row sorted. */
    public static final int SORT = 6;
    /** Per run of rows: blocks and their largest entry count. */
    public static final int BLOCK_COUNT = 7;
    /** The block starts. */
    public static final int BLOCK_WRITE = 8;
    /** W = Z (1 / Z^T 1) over the local nodes. */
    public static final int WEIGHTS = 9;
    /** Original nodes per work-item of {@link #SUMS} and {@link #NUMBER}. */
    public static final int CHUNK = 64;
    /** Rows per run of the greedy blocks (the host build's {@code ScatterOperator.BLOCK_RUN}). */
    public static final int RUN = 1 << 16;

    /** The pass: an argument, not a build constant, so that the whole build is one program. */
    int op;

    /** The local-to-original map, N_L. */
    int[] l2g = new int[1];
    /** Per original node: its references, -1 when masked; then the fill cursors. */
    int[] count = new int[1];
    /** The masked original nodes ({@link #MARK}). */
    int[] masked = new int[1];
    /** {@link #SUMS}: 3 per chunk; {@link #BLOCK_COUNT}: 2 per run. */
    int[] sums = new int[1];
    /** The exclusive scans of {@link #sums}: 2 per chunk (rows, entries) or 1 per run (blocks). */
    int[] bases = new int[1];
    /** Per original node its assembled id, or -1. */
    int[] assembled = new int[1];
    int[] scatterIds = new int[1];
    int[] starts = new int[1];
    int[] ids = new int[1];
    int[] blockStarts = new int[1];
    /** {@link #WEIGHTS}: the inverse degree of each local node, N_L. */
    double[] w = new double[1];
    /** err[0]: ids out of range; err[1]: unmasked nodes without a reference. */
    int[] err = new int[1];
    /** The work-items of this pass: N_L, original nodes, masked nodes, chunks, rows or runs. */
    int n;
    /** The number of original nodes. */
    int originals;
    /** N_G, the rows of Z^T. */
    int rows;
    /** The bound on a block's entries. */
    int blockEntries;

    @Override
    public void run() {
        int i = getGlobalId();
        if (i < n) {
            if (op == ZERO) {
                count[i] = 0;
            } else if (op == COUNT) {
                int g = l2g[i];
                if (g < 0 || g >= originals) {
                    atomicAdd(err, 0, 1);
                } else {
                    atomicAdd(count, g, 1);
                }
            } else if (op == MARK) {
                count[masked[i]] = -1;
            } else if (op == SUMS) {
                chunkSums(i);
            } else if (op == NUMBER) {
                number(i);
            } else if (op == FILL) {
                int a = assembled[l2g[i]];
                scatterIds[i] = a;
                if (a >= 0) {
                    int k = atomicAdd(count, l2g[i], 1);
                    ids[starts[a] + k] = i;
                }
            } else if (op == SORT) {
                sortRow(i);
            } else if (op == BLOCK_COUNT) {
                blocks(i, 0);
            } else if (op == BLOCK_WRITE) {
                blocks(i, 1);
            } else {
                int a = scatterIds[i];
                double inverse = 0;
                if (a >= 0) {
                    inverse = 1.0 / (starts[a + 1] - starts[a]);
                }
                w[i] = inverse;
            }
        }
    }

    private void chunkSums(int c) {
        int end = Math.min(originals, (c + 1) * CHUNK);
        int k = 0;
        int entries = 0;
        int longest = 0;
        for (int g = c * CHUNK; g < end; g++) {
            int d = count[g];
            if (d == 0) {
                atomicAdd(err, 1, 1);
            } else if (d > 0) {
                k++;
                entries += d;
                longest = Math.max(longest, d);
            }
        }
        sums[3 * c] = k;
        sums[3 * c + 1] = entries;
        sums[3 * c + 2] = longest;
    }

    private void number(int c) {
        int end = Math.min(originals, (c + 1) * CHUNK);
        int a = bases[2 * c];
        int entry = bases[2 * c + 1];
        for (int g = c * CHUNK; g < end; g++) {
            int d = count[g];
            if (d > 0) {
                assembled[g] = a;
                starts[a] = entry;
                entry += d;
                a++;
            } else {
                assembled[g] = -1;
            }
            count[g] = 0;
        }
    }

    private void sortRow(int r) {
        int s = starts[r];
        int e = starts[r + 1];
        for (int k = s + 1; k < e; k++) {
            int v = ids[k];
            int j = k - 1;
            while (j >= s && ids[j] > v) {
                ids[j + 1] = ids[j];
                j--;
            }
            ids[j + 1] = v;
        }
    }

    /** The greedy blocks of run {@code r}: counted ({@code write} 0) or their starts written from {@code bases[r]}. */
    private void blocks(int r, int write) {
        int row = r * RUN;
        int end = Math.min(rows, (r + 1) * RUN);
        int k = 0;
        int largest = 0;
        int b = 0;
        if (write == 1) {
            b = bases[r];
        }
        while (row < end) {
            if (write == 1) {
                blockStarts[b] = row;
                b++;
            }
            int entries = starts[row + 1] - starts[row];
            row++;
            while (row < end && entries + starts[row + 1] - starts[row] <= blockEntries) {
                entries += starts[row + 1] - starts[row];
                row++;
            }
            largest = Math.max(largest, entries);
            k++;
        }
        if (write == 0) {
            sums[2 * r] = k;
            sums[2 * r + 1] = largest;
        }
    }
}
