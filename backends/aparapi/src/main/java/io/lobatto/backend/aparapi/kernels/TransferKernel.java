package io.lobatto.backend.aparapi.kernels;

import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * The element part of the p-multigrid transfer between the GLL points of degrees Nc &lt; Nf, by sum factorisation:
 * J (x) J (x) J (prolongation) or its transpose (restriction) as three 1D contractions, one launch each, one
 * work-item per output entry; J is {@code jm} (Nf+1 rows of Nc+1, row-major). Prolongation y_L = W_f J Z_c x_c:
 * {@link #PROLONG_I} reads the coarse values through the coarse scatter ids ({@code ids}, {@code xg}) and contracts
 * the i direction into {@code tb}, {@link #PROLONG_J} the j direction, {@link #PROLONG_K} the k direction times
 * W_f ({@code wf}) into the fine local vector. Restriction y_L = J^T W_f Z_f r_f: {@link #RESTRICT_K} reads the fine
 * values through the fine scatter ids times W_f, then {@link #RESTRICT_J} and {@link #RESTRICT_I}. The
 * intermediate tensors ({@code ta} in, {@code tb} out) hold E (Nc+1)^2 (Nf+1) or E (Nc+1) (Nf+1)^2 entries. The
 * gather Z^T follows as its own launch.
 */
public final class TransferKernel extends TransferPasses {

    /** tb[e][k][j][a] = sum_i J[a][i] x_c(Z_c)[e][k][j][i]. */
    public static final int PROLONG_I = 0;
    /** tb[e][k][b][a] = sum_j J[b][j] ta[e][k][j][a]. */
    public static final int PROLONG_J = 1;
    /** tb[e][c][b][a] = W_f sum_k J[c][k] ta[e][k][b][a]. */
    public static final int PROLONG_K = 2;
    /** tb[e][k][b][a] = sum_c J[c][k] (W_f r_f(Z_f))[e][c][b][a]. */
    public static final int RESTRICT_K = 3;
    /** tb[e][k][j][a] = sum_b J[b][j] ta[e][k][b][a]. */
    public static final int RESTRICT_J = 4;
    /** tb[e][k][j][i] = sum_a J[a][i] ta[e][k][j][a]. */
    public static final int RESTRICT_I = 5;

    @BuildConstant int op;
    /** Nc + 1. */
    @BuildConstant int nc;
    /** Nf + 1. */
    @BuildConstant int nf;

    @Override
    public void run() {
        int t = getGlobalId();
        if (t < n) {
            tb[t] = pass(t, op, nc, nf);
        }
    }
}
