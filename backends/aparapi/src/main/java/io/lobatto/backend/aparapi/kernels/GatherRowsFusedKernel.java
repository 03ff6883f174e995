package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * The fused gathers of {@link GatherScatterKernel} in the {@code rows} and {@code tiles} kinds of Z on the device: y_G =
 * Z^T x_L (streaming paper, BS6; hipBone's gather) with one work-item per row of Z^T and no local memory for the
 * sums, as {@link GatherScatterRowsKernel#GATHER}. Work-items stride over the rows by the grid size. Each row sums its
 * CSR entries from 0 in ascending local-id order (four, two, one loads at a time), which is the Java backend's and the
 * block kernels' sum bit for bit; with {@link #tiles} a compact tile's degree-1 row is 0 + x_L[base + offset].
 *
 * <p>The ops and their row updates are those of {@link GatherScatterKernel}: {@link GatherScatterKernel#GATHER_DOT}
 * (y_G and the partials of y_G . x_G), {@link GatherScatterKernel#GATHER_DOT_UPDATE} (CG's p = dir + beta p written
 * back first), {@link GatherScatterKernel#GATHER_CHEBYSHEV} (d = ca d + cb Z^T x_L, x += beta d),
 * {@link GatherScatterKernel#GATHER_DOT_HALO} (the halo sums at rows [haloLo, N_G), the dot of the rank's partial),
 * {@link GatherScatterKernel#GATHER_HALO} (the same halo sums, no dot) and,
 * over {@link #comps} component blocks, {@link GatherScatterKernel#GATHER}. The dots are summed per work-item over its
 * rows, then by a tree in local memory over the work-group (its size a power of two), one partial per group; their
 * order differs from the block kernels' (the same value to rounding). With {@link #direct} (the one-kernel operator,
 * {@link GatherScatterKernel#GATHER} and GATHER_DOT only) the rows of degree 1 are already in y_G.
 */
public final class GatherRowsFusedKernel extends Kernel {

    /** Log2 of {@link GatherScatterRowsKernel#TILE}. */
    public static final int TILE_SHIFT = GatherScatterRowsKernel.TILE_SHIFT;

    /** The op, a code of {@link GatherScatterKernel}: GATHER to GATHER_DOT_HALO, or GATHER_HALO. */
    @BuildConstant int op;
    /** Component blocks (1 except for user operators with several components). */
    @BuildConstant int comps;
    /** 1: look up the compact tiles first ({@link #tileBase}, {@link #offsets}); 0: the CSR only. */
    @BuildConstant int tiles;
    /**
     * 1: the one-kernel operator's gather ({@link ElementOperands#DIRECT}): a row of degree 1 already holds its value
     * in y_G (the element kernel wrote it), which is read, not written; 0: every row is summed from x_L.
     */
    @BuildConstant int direct;

    int[] starts = new int[1];
    int[] ids = new int[1];
    double[] xG = new double[1];
    double[] xL = new double[1];
    double[] yG = new double[1];
    double[] partials = new double[1];
    double[] dirG = new double[1];
    double beta;
    double ca;
    double cb;
    /** Rows N_G. */
    int n;
    /** Component stride of x_L (N_L) and of y_G, x_G and dirG (N_G) when {@link #comps} > 1. */
    int strideL;
    int strideG;
    int haloLo;
    int[] haloStarts = new int[1];
    int[] haloSources = new int[1];
    double[] received = new double[1];
    int[] tileBase = new int[1];
    int[] offsets = new int[1];
    @Local double[] lds = new double[1];

    @Override
    public void run() {
        int lid = getLocalId();
        int stride = getGlobalSize();
        double d = 0;
        for (int row = getGlobalId(); row < n; row += stride) {
            if (direct == 1 && starts[row + 1] - starts[row] == 1) {
                d += rowDot(row, yG[row]);
            } else {
                for (int c = 0; c < comps; c++) {
                    double g = rowSum(row, c * strideL);
                    int r = c * strideG + row;
                    yG[r] = rowOut(r, completed(row, g));
                    d += rowDot(r, g);
                }
            }
        }
        if (op == GatherScatterKernel.GATHER_DOT || op == GatherScatterKernel.GATHER_DOT_UPDATE
                || op == GatherScatterKernel.GATHER_DOT_HALO) {
            lds[lid] = d;
            localBarrier();
            for (int h = getLocalSize() / 2; h > 0; h = h / 2) {
                if (lid < h) {
                    lds[lid] = lds[lid] + lds[lid + h];
                }
                localBarrier();
            }
            if (lid == 0) {
                partials[getGroupId()] = lds[0];
            }
        }
    }

    /** Row {@code row} of Z^T applied to the component block of x_L at {@code offL}, summed from 0 in CSR order. */
    private double rowSum(int row, int offL) {
        int base = -1;
        if (tiles == 1) {
            base = tileBase[row >> TILE_SHIFT];
        }
        double g = 0;
        if (base >= 0) {
            g += xL[offL + base + ((offsets[row >> 1] >> ((row & 1) * 16)) & GatherScatterRowsKernel.MAX_OFFSET)];
        } else {
            int c = starts[row];
            int end = starts[row + 1];
            while (c + 4 <= end) {
                int b0 = ids[c];
                int b1 = ids[c + 1];
                int b2 = ids[c + 2];
                int b3 = ids[c + 3];
                double w0 = xL[offL + b0];
                double w1 = xL[offL + b1];
                double w2 = xL[offL + b2];
                double w3 = xL[offL + b3];
                g += w0;
                g += w1;
                g += w2;
                g += w3;
                c += 4;
            }
            if (c + 2 <= end) {
                int p0 = ids[c];
                int p1 = ids[c + 1];
                double q0 = xL[offL + p0];
                double q1 = xL[offL + p1];
                g += q0;
                g += q1;
                c += 2;
            }
            if (c < end) {
                g += xL[offL + ids[c]];
            }
        }
        return g;
    }

    /** y_G[row] x_G[row] for the dot ops (after the update of x_G[row]), else 0; as {@link GatherScatterKernel}. */
    private double rowDot(int row, double g) {
        double d = 0;
        if (op == GatherScatterKernel.GATHER_DOT || op == GatherScatterKernel.GATHER_DOT_HALO) {
            d = g * xG[row];
        } else if (op == GatherScatterKernel.GATHER_DOT_UPDATE) {
            double p = dirG[row] + beta * xG[row];
            xG[row] = p;
            d = g * p;
        }
        return d;
    }

    /** What the gather writes to y_G[row]: g, or the Chebyshev direction ca y_G + cb g (with x_G[row] += beta of it). */
    private double rowOut(int row, double g) {
        double out = g;
        if (op == GatherScatterKernel.GATHER_CHEBYSHEV) {
            out = ca * yG[row] + cb * g;
            xG[row] = xG[row] + beta * out;
        }
        return out;
    }

    /**
     * y_G[row] with the halo sums of {@link GatherScatterKernel#GATHER_DOT_HALO} and {@link GatherScatterKernel#GATHER_HALO}
     * from haloLo on; else {@code own}.
     */
    private double completed(int row, double own) {
        double s = own;
        if (op == GatherScatterKernel.GATHER_DOT_HALO || op == GatherScatterKernel.GATHER_HALO) {
            if (row >= haloLo) {
                int u = row - haloLo;
                s = 0;
                for (int k = haloStarts[u]; k < haloStarts[u + 1]; k++) {
                    int j = haloSources[k];
                    if (j < 0) {
                        s += own;
                    } else {
                        s += received[j];
                    }
                }
            }
        }
        return s;
    }
}
