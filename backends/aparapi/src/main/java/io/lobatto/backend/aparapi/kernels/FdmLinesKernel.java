package io.lobatto.backend.aparapi.kernels;

import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * The local solves of the overlapping Schwarz method in the line structure of the tensor paper's BP1.0 kernels:
 * <pre>
 *   y_e = W_e (V_t (x) V_s (x) V_r) D_e^-1 (V_t (x) V_s (x) V_r)^T (Z_ext x_G)_e
 * </pre>
 * (fast diagonalisation, Lynch, Rice &amp; Thomas). What {@link FdmElementKernel} computes, entry for entry with the
 * same sums in the same order, but with {@link #epg} extended elements per work-group and n^2 work-items per element,
 * one per line of a direction: in each stage a work-item reads its whole line of the element's n^3 grid in local
 * memory into registers, contracts it with V or V^T (the same entry for every work-item: broadcast reads) and writes
 * the n results back in place, so the grid is read and written once per stage instead of n times. The t-direction
 * does V_t^T, the division by D_ijk = lambda_r,i + lambda_s,j + lambda_t,k (0 where D_ijk &lt;= 0) and V_t without
 * leaving registers: five stages, not six. For the restricted solve on the element's own nodes
 * ({@code weighted} 2) the backward stages make only what the inner (n-2)^3 points need: V_t at the inner layers,
 * V_s on the lines of those layers at the inner rows, V_r on the inner lines (a third fewer products at n = 10).
 * Local memory per element: 8 (SA n^2 + 3 n^2 + 3 n) bytes, the grid with an odd row stride SA.
 */
public final class FdmLinesKernel extends FdmOperands {

    /** Row stride of the local grid: n when n is odd, n + 1 when even (no bank conflicts between lines along r). */
    @BuildConstant int sa;
    /** Extended elements per work-group (the group has epg n^2 work-items). */
    @BuildConstant int epg;

    /** The largest n the register lines hold. */
    public static final int MAX_POINTS = 18;

    /** E, the extended elements. */
    int elems;

    /** A line read from the grid. */
    @PrivateMemorySpace(18) double[] colU = new double[18];
    /** The t-line after V_t^T and D^-1. */
    @PrivateMemorySpace(18) double[] colY = new double[18];

    @Override
    public void run() {
        int n = nb;
        int n2 = n * n;
        int n3 = n2 * n;
        int S = sa;
        int gridSize = S * n2;
        int lid = getLocalId();
        int G = getLocalSize();
        int first = getGroupId() * epg;
        int mV = epg * gridSize;
        int mL = mV + epg * 3 * n2;
        for (int q = lid; q < epg * 3 * n2; q += G) {
            int s = q / (3 * n2);
            int r = q - s * 3 * n2;
            int d = r / n2;
            double v = 0;
            if (first + s < elems) {
                v = vm[lines[3 * (first + s) + d] * n2 + r - d * n2];
            }
            lds[mV + q] = v;
        }
        for (int q = lid; q < epg * 3 * n; q += G) {
            int s = q / (3 * n);
            int r = q - s * 3 * n;
            int d = r / n;
            double v = 0;
            if (first + s < elems) {
                v = lm[lines[3 * (first + s) + d] * n + r - d * n];
            }
            lds[mL + q] = v;
        }
        for (int q = lid; q < epg * n3; q += G) {
            int s = q / n3;
            int p = q - s * n3;
            double u = 0;
            if (first + s < elems) {
                int id = ids[(first + s) * n3 + p];
                if (id >= 0) {
                    u = x[id];
                }
            }
            lds[s * gridSize + p % n + S * (p / n)] = u;
        }
        localBarrier();
        int le = lid / n2;
        int t = lid - le * n2;
        int valid = 0;
        if (le < epg && first + le < elems) {
            valid = 1;
        }
        int grid = le * gridSize;
        int v = mV + le * 3 * n2;
        int lam = mL + le * 3 * n;
        int inner = 0;
        if (weighted == 2) {
            inner = 1;
        }
        int m = n - 2 * inner;
        // V_r^T on lines (b, c) along a
        if (valid == 1) {
            forward(grid + S * t, 1, v);
        }
        localBarrier();
        // V_s^T on lines (a, c) along b
        if (valid == 1) {
            forward(grid + t % n + S * n * (t / n), S, v + n2);
        }
        localBarrier();
        // V_t^T, D^-1 and V_t on lines (a, b) along c
        if (valid == 1) {
            solveT(grid + t % n + S * (t / n), S * n, v + 2 * n2, lam, t % n, t / n, inner, n - inner);
        }
        localBarrier();
        // V_s on lines (a, c) along b, the layers c the output needs
        if (valid == 1 && t < n * m) {
            backward(grid + t % n + S * n * (inner + t / n), S, v + n2, inner, n - inner);
        }
        localBarrier();
        // V_r on lines (b, c) along a, the rows and layers the output needs
        if (valid == 1 && t < m * m) {
            backward(grid + S * ((inner + t % m) + n * (inner + t / m)), 1, v, inner, n - inner);
        }
        localBarrier();
        if (weighted == 2) {
            int m3 = m * m * m;
            for (int q = lid; q < epg * m3; q += G) {
                int s = q / m3;
                int p = q - s * m3;
                if (first + s < elems) {
                    int i = p % m;
                    int j = (p / m) % m;
                    int k = p / (m * m);
                    int g = (first + s) * m3 + p;
                    y[g] = lds[s * gridSize + (i + 1) + S * ((j + 1) + n * (k + 1))] * w[g];
                }
            }
        } else {
            for (int q = lid; q < epg * n3; q += G) {
                int s = q / n3;
                int p = q - s * n3;
                if (first + s < elems) {
                    double u = lds[s * gridSize + p % n + S * (p / n)];
                    int g = (first + s) * n3 + p;
                    if (weighted == 1) {
                        u = u * w[g];
                    }
                    y[g] = u;
                }
            }
        }
    }

    /** out(i) = sum_q V[q][i] u(q) on the line at {@code at} with step {@code st}, V at {@code vv}, in place. */
    private void forward(int at, int st, int vv) {
        int n = nb;
        for (int q = 0; q < n; q++) {
            colU[q] = lds[at + q * st];
        }
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int q = 0; q < n; q++) {
                s += lds[vv + q * n + i] * colU[q];
            }
            lds[at + i * st] = s;
        }
    }

    /** out(i) = sum_q V[i][q] u(q) for i in [lo, hi) on the line at {@code at} with step {@code st}, in place. */
    private void backward(int at, int st, int vv, int lo, int hi) {
        int n = nb;
        for (int q = 0; q < n; q++) {
            colU[q] = lds[at + q * st];
        }
        for (int i = lo; i < hi; i++) {
            double s = 0;
            for (int q = 0; q < n; q++) {
                s += lds[vv + i * n + q] * colU[q];
            }
            lds[at + i * st] = s;
        }
    }

    /** The t-line of point (a, b): V_t^T, the division by D_abk, then V_t for the layers [lo, hi), in place. */
    private void solveT(int at, int st, int vv, int lam, int a, int b, int lo, int hi) {
        int n = nb;
        for (int q = 0; q < n; q++) {
            colU[q] = lds[at + q * st];
        }
        for (int k = 0; k < n; k++) {
            double s = 0;
            for (int q = 0; q < n; q++) {
                s += lds[vv + q * n + k] * colU[q];
            }
            double d = lds[lam + a] + lds[lam + n + b] + lds[lam + 2 * n + k];
            if (d > 0) {
                s = s / d;
            } else {
                s = 0;
            }
            colY[k] = s;
        }
        for (int k = lo; k < hi; k++) {
            double s = 0;
            for (int q = 0; q < n; q++) {
                s += lds[vv + k * n + q] * colY[q];
            }
            lds[at + k * st] = s;
        }
    }
}
