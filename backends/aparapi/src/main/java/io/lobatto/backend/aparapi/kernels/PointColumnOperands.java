package io.lobatto.backend.aparapi.kernels;

import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * The sums of the points structure with K layers of an (a, b) column per work-item
 * ({@link io.lobatto.backend.aparapi.ElementVariant#POINTS} where {@code pointsPerColumn} &gt; 1), shared by the stored
 * factors' stiffness ({@link ElementKernelBase}) and the factors on the fly ({@link StiffnessBp35TrilinearPointsKernel}).
 * Work-item (a + P b) + P^2 s takes the points (a, b, c), c = c0 .. c0 + K - 1 with c0 = K s, of the element's P^3 grid
 * (index a + P b + P^2 c), D at {@code mD} with row stride S:
 * <ul>
 *   <li>{@link #columnGradients}: (gr, gs, gt)[k] = (sum_m D_am u(m, b, c), sum_m D_bm u(a, m, c), sum_m D_cm u(a, b, m)),
 *       reading D's rows a and b and the line u(a, b, .) once for the K points;</li>
 *   <li>{@link #columnDivergence}: gr[k] = sum_m D_ma f_r(m, b, c) + D_mb f_s(a, m, c) + D_mc f_t(a, b, m), reading D's
 *       columns a and b and the line f_t(a, b, .) once.</li>
 * </ul>
 * Layers past P - 1 (the last slot where K does not divide P) read layer P - 1; the callers write nothing for them.
 * Every index into the private arrays is a loop variable of a loop with the compile-time trip count K, so they stay in
 * registers. A slot of these structures may take several elements in turn ({@link #sweep}).
 */
public abstract class PointColumnOperands extends ElementOperands {

    /** The r-derivatives (then the divergences) of a work-item's K points. */
    @PrivateMemorySpace(8) double[] gr = new double[8];
    /** The s-derivatives of the K points. */
    @PrivateMemorySpace(8) double[] gs = new double[8];
    /** The t-derivatives of the K points. */
    @PrivateMemorySpace(8) double[] gt = new double[8];

    /**
     * 0: each element slot of a group takes one element and reads its u straight into local memory. S &gt;= 1 (BP3.5 in
     * the 3D structures): slot le of group g takes the S elements (g S + i) elemsPerGroup + le, i = 0 .. S - 1, in turn,
     * reading u and the scatter ids into registers first ({@link #un}, {@link #idn}; {@link #loadSlots}), so that the
     * atomic form adds its outputs at the ids it read with u; with S &gt; 1 it loads the next element's while it computes
     * the current one, so that the gather's latency overlaps the element's sums.
     */
    @BuildConstant int sweep;

    /** u at a work-item's points t, t + T, ... of the next element of its sweep ({@link #sweep}). */
    @PrivateMemorySpace(8) double[] un = new double[8];
    /** Their scatter ids (-1 where masked or past the last element). */
    @PrivateMemorySpace(8) int[] idn = new int[8];
    /** The scatter ids of the current element's points, where the atomic form adds its outputs. */
    @PrivateMemorySpace(8) int[] idc = new int[8];

    /**
     * u and the scatter ids of element e's points t + j T, j &lt; slots, into {@link #un} and {@link #idn} ({@link #sweep};
     * BP3.5, whose grid is the GLL nodes' own order); zeros and -1 where the element is not valid.
     */
    protected final void loadSlots(int e, int valid, int t, int T, int np, int slots) {
        for (int j = 0; j < slots; j++) {
            int p = t + j * T;
            double u = 0;
            int id = -1;
            if (valid == 1) {
                if (p < np) {
                    int li = e * np + p;
                    if (fromGlobal >= ATOMIC) {
                        id = ids[li];
                    }
                    u = readUGuarded(li);
                }
            }
            un[j] = u;
            idn[j] = id;
        }
    }

    /** The reference gradients of the K points of column col = a + P b from layer c0 on, of the grid at lds[grid]. */
    protected final void columnGradients(int grid, int P, int K, int S, int mD, int col, int c0) {
        int P2 = P * P;
        int a = col % P;
        int b = col / P;
        for (int k = 0; k < K; k++) {
            gr[k] = 0;
            gs[k] = 0;
            gt[k] = 0;
        }
        for (int m = 0; m < P; m++) {
            double da = lds[mD + a * S + m];
            double db = lds[mD + b * S + m];
            double um = lds[grid + col + P2 * m];
            for (int k = 0; k < K; k++) {
                int c = min(c0 + k, P - 1);
                gr[k] += da * lds[grid + m + P * b + P2 * c];
                gs[k] += db * lds[grid + a + P * m + P2 * c];
                gt[k] += lds[mD + c * S + m] * um;
            }
        }
    }

    /**
     * D^T of the three flux grids at lds[fr], fr + P^3, fr + 2 P^3 into gr for the K points of column col = a + P b from
     * layer c0 on.
     */
    protected final void columnDivergence(int fr, int P, int K, int S, int mD, int col, int c0) {
        int P2 = P * P;
        int P3 = P2 * P;
        int fs = fr + P3;
        int ft = fs + P3;
        int a = col % P;
        int b = col / P;
        for (int k = 0; k < K; k++) {
            gr[k] = 0;
        }
        for (int m = 0; m < P; m++) {
            double da = lds[mD + m * S + a];
            double db = lds[mD + m * S + b];
            double fm = lds[ft + col + P2 * m];
            for (int k = 0; k < K; k++) {
                int c = min(c0 + k, P - 1);
                gr[k] += da * lds[fr + m + P * b + P2 * c] + db * lds[fs + a + P * m + P2 * c] + lds[mD + m * S + c] * fm;
            }
        }
    }
}
