package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * The scatter operator Z and its transpose (streaming paper, BS7 and BS6; hipBone's gather).
 * {@link #SCATTER}: x_L = Z x_G, one work-item per local node, 0 at masked nodes (scatter id -1).
 * {@link #GATHER}: y_G = Z^T x_L by CSR rows of Z^T; work-groups stride over blocks of rows
 * ({@code blocks}), each block's entries read once into local memory when they fit ({@code cacheCap}),
 * then every row summed there (Listing 4). {@link #GATHER_DOT} also sums y_G[row] x_G[row] into one
 * partial per group (hipBone fuses p . Ap of CG into the gather); {@link #GATHER_DOT_UPDATE} first
 * updates the row's x_G = dirG + beta x_G (CG's p = z + beta p, which the element kernel has already
 * applied on the fly) and writes it back. The gathers act on {@link #comps} component blocks (user operators'
 * [ncomp][N_L] and [ncomp][N_G] vectors, Z applied to each block): block c of x_L starts at c strideL, of
 * y_G and x_G at c strideG, and the dot sums over all blocks. {@link #GATHER_CHEBYSHEV} is the Chebyshev step of a
 * Schwarz-smoothed level folded into the gather of the local solves: with g = Z^T x_L, y_G = ca y_G + cb g (the
 * direction d) and x_G += beta y_G (the iterate). {@link #GATHER_DOT_HALO} is {@link #GATHER_DOT} that
 * also completes a distributed gather at the halo rows, which are the last rows [{@code haloLo}, N_G) in order: y_G[row]
 * = the sum, from 0 and in the order of {@code haloSources[haloStarts[u] .. haloStarts[u+1])} (u = row - haloLo), of
 * the rank's partial (source -1) and {@code received[j]} (as {@link HaloKernel}, bitwise), while the dot takes the
 * partial (a distributed CG's p . Ap before the exchange). {@link #GATHER_RESIDUAL} folds a smoother's residual update
 * into the gather of its operator apply: with g = Z^T x_L, y_G = ca g + cb y_G (r -= A d with ca = -1, cb = 1, the
 * expression of the streaming axpby), and {@link #GATHER_RESIDUAL2} also dirG = beta g + cb dirG (the carried true
 * residual of the optimised fourth kind); A d itself is not written. {@link #GATHER_RESIDUAL_CHEBYSHEV} folds the next
 * Chebyshev-Jacobi step into that update: r = ca g + cb r, then d = wa d + wb (w o r) in {@code dirG} and x_G += d (the
 * expressions of {@link ChebyshevKernel}), so a smoothing step is two launches (element kernel, gather) instead of three.
 * {@link #GATHER_MASKED_RESIDUAL} writes y_G = ca g + cb (w o dirG): a distributed level's partial residual t = O r - A d
 * with the owner mask O in {@code w} and r in {@code dirG}, the pointwise multiply folded into the gather.
 * {@link #GATHER_HALO} is {@link #GATHER_DOT_HALO} without the dot (a distributed smoother's apply).
 */
public final class GatherScatterKernel extends Kernel {

    /** BS7: x_L = Z x_G. */
    public static final int SCATTER = 0;
    /** BS6: y_G = Z^T x_L. */
    public static final int GATHER = 1;
    /** BS6 with the partials of y_G . x_G. */
    public static final int GATHER_DOT = 2;
    /** BS6 with x_G = dirG + beta x_G written back and the partials of y_G . x_G (CG's p update). */
    public static final int GATHER_DOT_UPDATE = 3;
    /** BS6 folded into a Chebyshev step: d = y_G = ca y_G + cb Z^T x_L, then x_G += beta d. */
    public static final int GATHER_CHEBYSHEV = 4;
    /** BS6 with the partials of y_G . x_G (y_G before the halo) and the halo sums at rows [haloLo, N_G). */
    public static final int GATHER_DOT_HALO = 5;
    /** BS6 folded into a residual update: y_G = ca Z^T x_L + cb y_G. */
    public static final int GATHER_RESIDUAL = 6;
    /** {@link #GATHER_RESIDUAL} and dirG = beta Z^T x_L + cb dirG. */
    public static final int GATHER_RESIDUAL2 = 7;
    /** {@link #GATHER_RESIDUAL} (r in y_G), then the Chebyshev step d = wa d + wb (w o r) (d in dirG) and x_G += d. */
    public static final int GATHER_RESIDUAL_CHEBYSHEV = 8;
    /** BS6 folded into a distributed level's partial residual: y_G = ca Z^T x_L + cb (w o dirG) (t = O r - A d). */
    public static final int GATHER_MASKED_RESIDUAL = 9;
    /** {@link #GATHER_DOT_HALO} without the dot: y_G = Z^T x_L completed at the halo rows (a distributed apply's gather). */
    public static final int GATHER_HALO = 10;

    @BuildConstant int op;
    /** Work-items per group, a power of two. */
    @BuildConstant int group;
    /** Local-memory cache of a block, in doubles. */
    @BuildConstant int cacheCap;
    /** Component blocks of the gathers (1 except for user operators with several components). */
    @BuildConstant int comps;

    int[] scatterIds = new int[1];
    int[] starts = new int[1];
    int[] ids = new int[1];
    int[] blocks = new int[1];
    double[] xG = new double[1];
    double[] xL = new double[1];
    double[] yG = new double[1];
    double[] partials = new double[1];
    double[] dirG = new double[1];
    double beta;
    /** The Chebyshev step's coefficients of d and of Z^T x_L ({@link #GATHER_CHEBYSHEV}). */
    double ca;
    double cb;
    /** The Jacobi weights diag(A)^-1 and the Chebyshev step's coefficients ({@link #GATHER_RESIDUAL_CHEBYSHEV}). */
    double[] w = new double[1];
    double wa;
    double wb;
    /** Scatter: local nodes. Gather: blocks of rows. */
    int n;
    /** Component stride of x_L (N_L) and of y_G, x_G and dirG (N_G) when {@link #comps} > 1. */
    int strideL;
    int strideG;
    /** {@link #GATHER_DOT_HALO}: the first halo row, the halo's CSR over sources, and the received partials. */
    int haloLo;
    int[] haloStarts = new int[1];
    int[] haloSources = new int[1];
    double[] received = new double[1];
    @Local double[] lds = new double[1];

    @Override
    public void run() {
        if (op == SCATTER) {
            int i = getGlobalId();
            if (i < n) {
                int id = scatterIds[i];
                double v = 0;
                if (id >= 0) {
                    v = xG[id];
                }
                xL[i] = v;
            }
        } else {
            int lid = getLocalId();
            double d = 0;
            for (int b = getGroupId(); b < n; b += getNumGroups()) {
                for (int c = 0; c < comps; c++) {
                    d += gatherBlock(b, lid, c * strideL, c * strideG);
                    // the next block (or the reduction) overwrites the cache
                    localBarrier();
                }
            }
            if (op == GATHER_DOT || op == GATHER_DOT_UPDATE || op == GATHER_DOT_HALO) {
                lds[lid] = d;
                localBarrier();
                for (int h = group / 2; h > 0; h = h / 2) {
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
    }

    /** y_G[row] x_G[row] for the dot variants (after the update of x_G[row]), else 0. */
    private double rowDot(int row, double g) {
        double d = 0;
        if (op == GATHER_DOT || op == GATHER_DOT_HALO) {
            d = g * xG[row];
        } else if (op == GATHER_DOT_UPDATE) {
            double p = dirG[row] + beta * xG[row];
            xG[row] = p;
            d = g * p;
        }
        return d;
    }

    /** What the gather writes to y_G[row]: g, or the Chebyshev direction ca y_G + cb g (with x_G[row] += beta of it). */
    private double rowOut(int row, double g) {
        double out = g;
        if (op == GATHER_CHEBYSHEV) {
            out = ca * yG[row] + cb * g;
            xG[row] = xG[row] + beta * out;
        } else if (op == GATHER_MASKED_RESIDUAL) {
            double masked = w[row] * dirG[row];
            out = ca * g + cb * masked;
        } else if (op == GATHER_RESIDUAL || op == GATHER_RESIDUAL2 || op == GATHER_RESIDUAL_CHEBYSHEV) {
            out = ca * g + cb * yG[row];
            if (op == GATHER_RESIDUAL2) {
                dirG[row] = beta * g + cb * dirG[row];
            } else if (op == GATHER_RESIDUAL_CHEBYSHEV) {
                double v = wa * dirG[row] + wb * w[row] * out;
                dirG[row] = v;
                xG[row] = xG[row] + v;
            }
        }
        return out;
    }

    /**
     * y_G[row] with the halo sums of {@link #GATHER_DOT_HALO} and {@link #GATHER_HALO} at rows from haloLo on; else the
     * partial {@code own}.
     */
    private double completed(int row, double own) {
        double s = own;
        if (op == GATHER_DOT_HALO || op == GATHER_HALO) {
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

    private double gatherBlock(int b, int lid, int offL, int offG) {
        double d = 0;
        int rowStart = blocks[b];
        int rowEnd = blocks[b + 1];
        int s0 = starts[rowStart];
        int count = starts[rowEnd] - s0;
        if (count <= cacheCap) {
            for (int i = lid; i < count; i += group) {
                lds[i] = xL[offL + ids[s0 + i]];
            }
            localBarrier();
            for (int row = rowStart + lid; row < rowEnd; row += group) {
                int c1 = starts[row + 1] - s0;
                double g = 0;
                for (int c = starts[row] - s0; c < c1; c++) {
                    g += lds[c];
                }
                yG[offG + row] = rowOut(offG + row, completed(row, g));
                d += rowDot(offG + row, g);
            }
        } else {
            for (int row = rowStart + lid; row < rowEnd; row += group) {
                int c1 = starts[row + 1];
                double g = 0;
                for (int c = starts[row]; c < c1; c++) {
                    g += xL[offL + ids[c]];
                }
                yG[offG + row] = rowOut(offG + row, completed(row, g));
                d += rowDot(offG + row, g);
            }
        }
        return d;
    }
}
