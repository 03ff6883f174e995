package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * The fast diagonalisation method (Lynch, Rice &amp; Thomas; Fischer &amp; Lottes for the spectral element method) on
 * E blocks of n^3 entries (r fastest), y = (V_t (x) V_s (x) V_r) D^-1 (V_t (x) V_s (x) V_r)^T x, by sum factorisation:
 * six launches, one work-item per output entry, one 1D contraction each. {@code vm} holds the eigenvectors of the
 * distinct 1D problems [L][n][n] (V[a][i], node a of eigenvector i), {@code lm} their eigenvalues [L][n] and
 * {@code lines} [E][3] the line of element e in direction d. {@link #FORWARD_R},
 * {@link #FORWARD_S} and {@link #FORWARD_T} contract with V^T ({@link #FORWARD_T} also divides by
 * D_ijk = lambda_r,i + lambda_s,j + lambda_t,k, 0 where D_ijk &lt;= 0); {@link #BACKWARD_T}, {@link #BACKWARD_S} and
 * {@link #BACKWARD_R} contract with V. Input {@code ta}, output {@code tb}.
 */
public final class FdmKernel extends Kernel {

    /** tb[e][k][j][i] = sum_a V_r[a][i] ta[e][k][j][a]. */
    public static final int FORWARD_R = 0;
    /** tb[e][k][j][i] = sum_b V_s[b][j] ta[e][k][b][i]. */
    public static final int FORWARD_S = 1;
    /** tb[e][k][j][i] = (sum_c V_t[c][k] ta[e][c][j][i]) / D_ijk. */
    public static final int FORWARD_T = 2;
    /** tb[e][c][j][i] = sum_k V_t[c][k] ta[e][k][j][i]. */
    public static final int BACKWARD_T = 3;
    /** tb[e][c][b][i] = sum_j V_s[b][j] ta[e][c][j][i]. */
    public static final int BACKWARD_S = 4;
    /** tb[e][c][b][a] = sum_i V_r[a][i] ta[e][c][b][i]. */
    public static final int BACKWARD_R = 5;

    @BuildConstant int op;
    /** n, the 1D points of a block. */
    @BuildConstant int nb;

    double[] vm = new double[1];
    double[] lm = new double[1];
    int[] lines = new int[1];
    double[] ta = new double[1];
    double[] tb = new double[1];
    /** Entries of this pass (E n^3). */
    int n;

    @Override
    public void run() {
        int t = getGlobalId();
        if (t < n) {
            int block = nb * nb * nb;
            int e = t / block;
            int p = t % block;
            int i = p % nb;
            int j = (p / nb) % nb;
            int k = p / (nb * nb);
            int dir = 0;
            if (op == FORWARD_S || op == BACKWARD_S) {
                dir = 1;
            } else if (op == FORWARD_T || op == BACKWARD_T) {
                dir = 2;
            }
            int stride = 1;
            int idx = i;
            if (dir == 1) {
                stride = nb;
                idx = j;
            } else if (dir == 2) {
                stride = nb * nb;
                idx = k;
            }
            int line = e * block + p - idx * stride;
            int v = lines[3 * e + dir] * nb * nb;
            double s = 0;
            if (op <= FORWARD_T) {
                for (int q = 0; q < nb; q++) {
                    s += vm[v + q * nb + idx] * ta[line + q * stride];
                }
            } else {
                for (int q = 0; q < nb; q++) {
                    s += vm[v + idx * nb + q] * ta[line + q * stride];
                }
            }
            if (op == FORWARD_T) {
                double d = lm[lines[3 * e] * nb + i] + lm[lines[3 * e + 1] * nb + j] + lm[lines[3 * e + 2] * nb + k];
                if (d > 0) {
                    s = s / d;
                } else {
                    s = 0;
                }
            }
            tb[t] = s;
        }
    }
}
