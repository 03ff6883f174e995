package io.lobatto.backend.aparapi.kernels;

/**
 * The local solves of the overlapping Schwarz method in one launch, one work-group per extended element e:
 * <pre>
 *   y_e = W_e (V_t (x) V_s (x) V_r) D_e^-1 (V_t (x) V_s (x) V_r)^T (Z_ext x_G)_e
 * </pre>
 * (fast diagonalisation, Lynch, Rice &amp; Thomas; Fischer &amp; Lottes for the spectral element method). The group reads
 * its n^3 block of x_G through the extended scatter ids (-1 reads 0), stages V_r, V_s, V_t and the eigenvalues in local
 * memory, runs the three forward contractions (the third also divides by D_ijk = lambda_r,i + lambda_s,j + lambda_t,k,
 * 0 where D_ijk &lt;= 0) and the three backward ones between two n^3 grids in local memory, and writes y_e: all n^3
 * points ({@code weighted} 0, additive Schwarz), times the RAS weights W_e on [E][n^3] (1), or only the inner (n-2)^3
 * points, the element's own nodes, times W on [E][(n-2)^3] (2: RAS summed by the mesh's own gather). V_d and lambda_d
 * come from a table of distinct 1D problems through {@code lines}. The six passes are those of {@link FdmKernel} with the same index arithmetic
 * and summation order, one output point per work-item per round; the block never goes to global memory in between.
 * Local memory: 8 (2 n^3 + 3 n^2 + 3 n) bytes ({@code lds}).
 */
public final class FdmElementKernel extends FdmOperands {

    @Override
    public void run() {
        int e = getGroupId();
        int lid = getLocalId();
        int T = getLocalSize();
        int n = nb;
        int n3 = n * n * n;
        int nv = 3 * n * n;
        int mV = 2 * n3;
        int mL = mV + nv;
        int n2 = n * n;
        for (int q = lid; q < nv; q += T) {
            int d = q / n2;
            lds[mV + q] = vm[lines[3 * e + d] * n2 + q - d * n2];
        }
        for (int q = lid; q < 3 * n; q += T) {
            int d = q / n;
            lds[mL + q] = lm[lines[3 * e + d] * n + q - d * n];
        }
        for (int p = lid; p < n3; p += T) {
            int id = ids[e * n3 + p];
            double u = 0;
            if (id >= 0) {
                u = x[id];
            }
            lds[p] = u;
        }
        localBarrier();
        // one call site in a loop (PoCL compiles each inlined copy of a loop with barriers separately)
        for (int op = 0; op < 6; op++) {
            int src = (op % 2) * n3;
            pass(op, src, n3 - src, lid, T, mV, mL);
            localBarrier();
        }
        if (weighted == 2) {
            int m = n - 2;
            int m3 = m * m * m;
            for (int q = lid; q < m3; q += T) {
                int i = q % m;
                int j = (q / m) % m;
                int k = q / (m * m);
                y[e * m3 + q] = lds[(i + 1) + n * ((j + 1) + n * (k + 1))] * w[e * m3 + q];
            }
        } else {
            for (int p = lid; p < n3; p += T) {
                double v = lds[p];
                if (weighted == 1) {
                    v = v * w[e * n3 + p];
                }
                y[e * n3 + p] = v;
            }
        }
    }

    /** Pass {@code op} of {@link FdmKernel} from the grid at {@code src} to the grid at {@code dst} of {@code lds}. */
    private void pass(int op, int src, int dst, int lid, int T, int mV, int mL) {
        int n = nb;
        int n3 = n * n * n;
        int dir = 0;
        if (op == FdmKernel.FORWARD_S || op == FdmKernel.BACKWARD_S) {
            dir = 1;
        } else if (op == FdmKernel.FORWARD_T || op == FdmKernel.BACKWARD_T) {
            dir = 2;
        }
        int stride = 1;
        if (dir == 1) {
            stride = n;
        } else if (dir == 2) {
            stride = n * n;
        }
        int v = mV + dir * n * n;
        for (int p = lid; p < n3; p += T) {
            int i = p % n;
            int j = (p / n) % n;
            int k = p / (n * n);
            int idx = i;
            if (dir == 1) {
                idx = j;
            } else if (dir == 2) {
                idx = k;
            }
            int line = src + p - idx * stride;
            double s = 0;
            if (op <= FdmKernel.FORWARD_T) {
                for (int q = 0; q < n; q++) {
                    s += lds[v + q * n + idx] * lds[line + q * stride];
                }
            } else {
                for (int q = 0; q < n; q++) {
                    s += lds[v + idx * n + q] * lds[line + q * stride];
                }
            }
            if (op == FdmKernel.FORWARD_T) {
                double d = lds[mL + i] + lds[mL + n + j] + lds[mL + 2 * n + k];
                if (d > 0) {
                    s = s / d;
                } else {
                    s = 0;
                }
            }
            lds[dst + p] = s;
        }
    }
}
