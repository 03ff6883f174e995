package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * The scatter operator Z and its transpose without local memory or barriers (streaming paper, BS7 and BS6), the
 * {@code rows} kind of {@code -Dlobatto.aparapi.gatherScatter} beside the block kernels of {@link GatherScatterKernel}.
 * {@link #SCATTER}: x_L = Z x_G, 0 at masked nodes (scatter id -1); each work-item takes {@link #ENTRIES} local nodes
 * {@code i = (group id * ENTRIES + c) * group size + local id}, c = 0..3, and loads their four scatter ids, then
 * their four x_G values, then stores: four independent loads in flight per work-item where the one-node kernel has
 * one, each coalesced across the group. {@link #GATHER}: y_G = Z^T x_L, one work-item per CSR row of Z^T: its
 * starts, then its local ids four (two, one) at a time with the values loaded before they are added, in ascending
 * local-id order from 0, which is the Java backend's sum bit for bit.
 *
 * <p>With {@link #tiles} (the {@code tiles} kind) both first look up their {@link #TILE} consecutive entries' tile: a
 * tile of local nodes whose scatter ids all lie in [base, base + 65535] (interior and nearby shared nodes), or of rows
 * of Z^T that all have degree 1 with their local ids so (an element's interior nodes), holds its base and one 16-bit
 * offset per entry, two to an int; such a tile reads 2 bytes of index per entry instead of 4 (scatter) or 8 (gather:
 * starts and ids), and the gather's degree-1 row is 0 + x_L[base + offset], the same bits. A tile with base -1 takes
 * the index arrays as above. A tile is 32 entries, one NVIDIA warp: the branch is uniform within a warp.
 */
public final class GatherScatterRowsKernel extends Kernel {

    /** BS7: x_L = Z x_G, {@link #ENTRIES} local nodes per work-item. */
    public static final int SCATTER = 0;
    /** BS6: y_G = Z^T x_L, one work-item per row. */
    public static final int GATHER = 1;
    /** Local nodes per work-item of the scatter. */
    public static final int ENTRIES = 4;
    /** Entries per tile of the compact indices (a power of two). */
    public static final int TILE = 32;
    /** log2 of {@link #TILE}. */
    public static final int TILE_SHIFT = 5;
    /** Largest offset from a tile's base (16 bits). */
    public static final int MAX_OFFSET = 0xFFFF;

    @BuildConstant int op;
    /** 1: look up the compact tiles first ({@link #tileBase}, {@link #offsets}); 0: the index arrays only. */
    @BuildConstant int tiles;

    int[] scatterIds = new int[1];
    int[] starts = new int[1];
    int[] ids = new int[1];
    double[] xG = new double[1];
    double[] xL = new double[1];
    double[] yG = new double[1];
    /** Per tile of {@link #TILE} entries (local nodes for the scatter, rows for the gather): the base, or -1. */
    int[] tileBase = new int[1];
    /** Per entry, its 16-bit offset from its tile's base, entry 2k in the low and 2k+1 in the high half of int k. */
    int[] offsets = new int[1];
    /** Scatter: local nodes N_L. Gather: rows N_G. */
    int n;

    @Override
    public void run() {
        if (op == SCATTER) {
            int size = getLocalSize();
            int i0 = getGroupId() * ENTRIES * size + getLocalId();
            int i1 = i0 + size;
            int i2 = i1 + size;
            int i3 = i2 + size;
            int a0 = -1;
            int a1 = -1;
            int a2 = -1;
            int a3 = -1;
            if (tiles == 1 && i3 < n) {
                a0 = scatterId(i0);
                a1 = scatterId(i1);
                a2 = scatterId(i2);
                a3 = scatterId(i3);
            } else if (i3 < n) {
                a0 = scatterIds[i0];
                a1 = scatterIds[i1];
                a2 = scatterIds[i2];
                a3 = scatterIds[i3];
            } else {
                if (i0 < n) {
                    a0 = scatterIds[i0];
                }
                if (i1 < n) {
                    a1 = scatterIds[i1];
                }
                if (i2 < n) {
                    a2 = scatterIds[i2];
                }
            }
            double v0 = 0;
            double v1 = 0;
            double v2 = 0;
            double v3 = 0;
            if (a0 >= 0) {
                v0 = xG[a0];
            }
            if (a1 >= 0) {
                v1 = xG[a1];
            }
            if (a2 >= 0) {
                v2 = xG[a2];
            }
            if (a3 >= 0) {
                v3 = xG[a3];
            }
            if (i0 < n) {
                xL[i0] = v0;
            }
            if (i1 < n) {
                xL[i1] = v1;
            }
            if (i2 < n) {
                xL[i2] = v2;
            }
            if (i3 < n) {
                xL[i3] = v3;
            }
        } else {
            int row = getGlobalId();
            int base = -1;
            if (tiles == 1 && row < n) {
                base = tileBase[row >> TILE_SHIFT];
            }
            if (base >= 0) {
                double h = 0;
                h += xL[base + offset(row)];
                yG[row] = h;
            } else if (row < n) {
                int c = starts[row];
                int end = starts[row + 1];
                double g = 0;
                while (c + 4 <= end) {
                    int b0 = ids[c];
                    int b1 = ids[c + 1];
                    int b2 = ids[c + 2];
                    int b3 = ids[c + 3];
                    double w0 = xL[b0];
                    double w1 = xL[b1];
                    double w2 = xL[b2];
                    double w3 = xL[b3];
                    g += w0;
                    g += w1;
                    g += w2;
                    g += w3;
                    c += 4;
                }
                if (c + 2 <= end) {
                    int p0 = ids[c];
                    int p1 = ids[c + 1];
                    double q0 = xL[p0];
                    double q1 = xL[p1];
                    g += q0;
                    g += q1;
                    c += 2;
                }
                if (c < end) {
                    g += xL[ids[c]];
                }
                yG[row] = g;
            }
        }
    }

    /** The 16-bit offset of entry {@code i} from its tile's base. */
    private int offset(int i) {
        return (offsets[i >> 1] >> ((i & 1) * 16)) & MAX_OFFSET;
    }

    /** Scatter id of local node {@code i}: base + offset in a compact tile, else from {@link #scatterIds}. */
    private int scatterId(int i) {
        int base = tileBase[i >> TILE_SHIFT];
        int a = 0;
        if (base >= 0) {
            a = base + offset(i);
        } else {
            a = scatterIds[i];
        }
        return a;
    }
}
