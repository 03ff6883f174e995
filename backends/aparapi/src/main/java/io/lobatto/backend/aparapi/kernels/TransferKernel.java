package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;
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
public final class TransferKernel extends Kernel {

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

    double[] jm = new double[1];
    int[] ids = new int[1];
    double[] xg = new double[1];
    double[] wf = new double[1];
    double[] ta = new double[1];
    double[] tb = new double[1];
    /** Output entries of this pass. */
    int n;

    @Override
    public void run() {
        int t = getGlobalId();
        if (t < n) {
            double s = 0;
            if (op == PROLONG_I) {
                // t = ((e nc + k) nc + j) nf + a
                int a = t % nf;
                int ekj = t / nf;
                int base = ekj * nc;
                for (int i = 0; i < nc; i++) {
                    int id = ids[base + i];
                    if (id >= 0) {
                        s += jm[a * nc + i] * xg[id];
                    }
                }
            } else if (op == PROLONG_J) {
                // t = ((e nc + k) nf + b) nf + a
                int a = t % nf;
                int b = (t / nf) % nf;
                int ek = t / (nf * nf);
                for (int j = 0; j < nc; j++) {
                    s += jm[b * nc + j] * ta[(ek * nc + j) * nf + a];
                }
            } else if (op == PROLONG_K) {
                // t = (e nf + c) nf^2 + ba
                int plane = nf * nf;
                int ba = t % plane;
                int c = (t / plane) % nf;
                int e = t / (plane * nf);
                for (int k = 0; k < nc; k++) {
                    s += jm[c * nc + k] * ta[(e * nc + k) * plane + ba];
                }
                s = s * wf[t];
            } else if (op == RESTRICT_K) {
                // t = (e nc + k) nf^2 + ba
                int plane = nf * nf;
                int ba = t % plane;
                int k = (t / plane) % nc;
                int e = t / (plane * nc);
                for (int c = 0; c < nf; c++) {
                    int node = (e * nf + c) * plane + ba;
                    int id = ids[node];
                    if (id >= 0) {
                        s += jm[c * nc + k] * wf[node] * xg[id];
                    }
                }
            } else if (op == RESTRICT_J) {
                // t = ((e nc + k) nc + j) nf + a
                int a = t % nf;
                int j = (t / nf) % nc;
                int ek = t / (nf * nc);
                for (int b = 0; b < nf; b++) {
                    s += jm[b * nc + j] * ta[(ek * nf + b) * nf + a];
                }
            } else {
                // t = ((e nc + k) nc + j) nc + i
                int i = t % nc;
                int ekj = t / nc;
                for (int a = 0; a < nf; a++) {
                    s += jm[a * nc + i] * ta[ekj * nf + a];
                }
            }
            tb[t] = s;
        }
    }
}
