package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.kernels.GatherScatterRowsKernel;

import java.util.stream.IntStream;

/**
 * The compact indices of Z for the {@code tiles} kind of {@link GatherScatterRowsKernel}: entries in tiles of
 * {@link GatherScatterRowsKernel#TILE}, and for each tile whose indices all lie in [base, base + 65535] (and, for the
 * rows of Z^T, have degree 1) the base and one 16-bit offset per entry, two to an int; -1 for any other tile. The
 * scatter's tiles are of local nodes (their scatter ids, none masked), the gather's of rows (their one local id).
 * Made on the host in parallel, O(N_L), at the upload of Z.
 */
record CompactTiles(int[] bases, int[] offsets, int compactTiles) {

    /** Tiles of the scatter ids: a tile with a masked node (-1) or a spread above 65535 keeps its ids. */
    static CompactTiles ofScatter(int[] scatterIds) {
        return of(scatterIds.length, i -> scatterIds[i]);
    }

    /** Tiles of the rows of Z^T ({@code starts}, {@code ids}): a tile with a row of degree other than 1 keeps its CSR. */
    static CompactTiles ofGather(int[] starts, int[] ids, int rows) {
        return of(rows, r -> starts[r + 1] - starts[r] == 1 ? ids[starts[r]] : -1);
    }

    /** The tiles of {@code n} entries whose index is {@code index} (-1: none, the tile keeps its index arrays). */
    private static CompactTiles of(int n, java.util.function.IntUnaryOperator index) {
        int tile = GatherScatterRowsKernel.TILE;
        int tiles = (n + tile - 1) / tile;
        int[] bases = new int[Math.max(1, tiles)];
        int[] offsets = new int[Math.max(1, (n + 1) / 2)];
        int compact = IntStream.range(0, tiles).parallel().map(t -> {
            int i0 = t * tile;
            int i1 = Math.min(n, i0 + tile);
            int lo = Integer.MAX_VALUE;
            int hi = Integer.MIN_VALUE;
            for (int i = i0; i < i1; i++) {
                int a = index.applyAsInt(i);
                if (a < 0) {
                    bases[t] = -1;
                    return 0;
                }
                lo = Math.min(lo, a);
                hi = Math.max(hi, a);
            }
            if ((long) hi - lo > GatherScatterRowsKernel.MAX_OFFSET) {
                bases[t] = -1;
                return 0;
            }
            bases[t] = lo;
            // a tile is 32 entries from an even start: its offsets fill whole ints of its own
            for (int i = i0; i < i1; i++) {
                offsets[i >> 1] |= (index.applyAsInt(i) - lo) << ((i & 1) * 16);
            }
            return 1;
        }).sum();
        return new CompactTiles(bases, offsets, compact);
    }
}
