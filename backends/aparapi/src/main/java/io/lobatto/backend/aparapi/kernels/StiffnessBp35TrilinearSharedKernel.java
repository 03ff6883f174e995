package io.lobatto.backend.aparapi.kernels;

import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * BP3.5 (CEED BP5) on trilinear elements with the geometric factors computed on the fly, in the shared-memory layout:
 * y_L = D^T G D u + lambda wJ o u, G and wJ at each GLL node computed from the element's trilinear map
 * ({@link io.lobatto.core.geometry.TrilinearFactors} is the host reference of the same closed form). The thread
 * structure is {@link ElementKernelBase}'s 2D layer-by-layer stiffness (NekBone's 2D-thread kernels): work-item (a, b)
 * of the element owns the column (a, b, .), the element's grid u, the r- and s-fluxes of a layer and the t-grid live in
 * local memory, and no array lives in registers, so its registers do not grow with N, where
 * {@link StiffnessBp35TrilinearKernel}'s register columns (two Nq arrays and 15 per-column constants; 155 registers at
 * N = 7 on the H100) limit the occupancy.
 *
 * <p>The map is x(r, s, t) = c_0 + c_r r + c_s s + c_t t + c_rs rs + c_rt rt + c_st st + c_rst rst, with
 * c_m = (1/8) sum_v sigma_m(v) X_v over the 8 vertices X_v and sigma_m(v) the product of the vertex's reference
 * coordinates (+-1) in the monomial m. The Jacobian's columns are bilinear in the other two coordinates,
 * <pre>
 *   x_r = c_r + s c_rs + t (c_rt + s c_rst),
 *   x_s = c_s + r c_rs + t (c_st + r c_rst),
 *   x_t = c_t + r c_rt + s (c_st + r c_rst),
 * </pre>
 * so the element keeps its 21 coefficients (c_0 is not needed) in local memory and each point computes J from them
 * (27 multiply-adds, broadcast reads), the rows of adj(J) as cross products n_r = x_s x x_t, n_s = x_t x x_r,
 * n_t = x_r x x_s, |J| = x_r . n_r, G_ab = (w / |J|) n_a . n_b and wJ = w |J| with w = w_a w_b w_c, instead of
 * holding per-column constants across the layer loop. With {@code fromGlobal} it is the element part of hipBone's
 * fused assembled operator.
 *
 * <p>Local memory per element ({@link #perElem} doubles): the grid u (index a + S b + S P c, S = {@link #dStride},
 * odd), two pairs of r- and s-flux layers (P x S each; the layers alternate between them, so each layer needs one
 * barrier, not two), the t-grid (as u) and the 21 coefficients; after the elements' regions,
 * at {@link #ldsMat}, D (P x S), the GLL nodes and the GLL weights. Coefficient 3 (m - 1) + d is coordinate d of c_m,
 * m the monomial's bit mask (r 1, s 2, t 4). The vertices are {@link #verts}, [E][8][3] in
 * {@link io.lobatto.core.mesh.HexReference}'s corner order; {@link #gll} is the Nq nodes then the Nq weights.
 */
public final class StiffnessBp35TrilinearSharedKernel extends ElementOperands {

    /** Local doubles per element. */
    @BuildConstant int perElem;
    /** Row stride S of the element's layers and of D in local memory: Nq, or Nq + 1 when Nq is even. */
    @BuildConstant int dStride;
    /** Where in lds the group stages D, the GLL nodes and weights (after its elements' regions). */
    @BuildConstant int ldsMat;

    /** The element vertices, [E][8][3]. */
    double[] verts = new double[1];
    /** The GLL nodes r_0 .. r_N, then the GLL weights w_0 .. w_N. */
    double[] gll = new double[1];

    @Override
    public void run() {
        int P = nq;
        int P2 = P * P;
        int S = dStride;
        int SP = S * P;
        int lid = getLocalId();
        int le = lid / P2;
        int col = lid - le * P2;
        int a = col % P;
        int b = col / P;
        int e = firstElem + getGroupId() * elemsPerGroup + le;
        int valid = 0;
        if (e < elems) {
            valid = 1;
        }
        int L0 = le * perElem;
        int flux = L0 + SP * P;
        int tg = flux + 4 * SP;
        int mc = tg + SP * P;
        int mD = ldsMat;
        int mR = mD + SP;
        int mW = mR + P;
        int own = a + S * b;
        int base = e * P2 * P + col;

        // stage D, the GLL nodes and weights for the group; u of the own column; the map's coefficients
        for (int n = lid; n < P2; n += getLocalSize()) {
            lds[mD + (n / P) * S + n % P] = matD[n];
        }
        for (int n = lid; n < 2 * P; n += getLocalSize()) {
            lds[mR + n] = gll[n];
        }
        for (int c = 0; c < P; c++) {
            double u = 0;
            if (valid == 1) {
                u = readU(base + P2 * c);
            }
            lds[L0 + own + SP * c] = u;
        }
        for (int q = col; q < 21; q += P2) {
            // the monomial's bit mask m = q / 3 + 1 (r 1, s 2, t 4: r, s, rs, t, rt, st, rst), coordinate d = q % 3
            int m = q / 3 + 1;
            int d = q - 3 * (q / 3);
            double sum = 0;
            if (valid == 1) {
                for (int v = 0; v < 8; v++) {
                    int negatives = 0;
                    if ((m & 1) != 0) {
                        negatives += 1 - (((v + 1) >> 1) & 1);
                    }
                    if ((m & 2) != 0) {
                        negatives += 1 - ((v >> 1) & 1);
                    }
                    if ((m & 4) != 0) {
                        negatives += 1 - ((v >> 2) & 1);
                    }
                    double xv = verts[e * 24 + 3 * v + d];
                    if ((negatives & 1) == 1) {
                        sum -= xv;
                    } else {
                        sum += xv;
                    }
                }
            }
            lds[mc + q] = 0.125 * sum;
        }
        localBarrier();

        // vt = D u along the own column into the t-grid
        if (valid == 1) {
            for (int c = 0; c < P; c++) {
                double vt = 0;
                for (int m = 0; m < P; m++) {
                    vt += lds[mD + c * S + m] * lds[L0 + own + SP * m];
                }
                lds[tg + own + SP * c] = vt;
            }
        }
        double rr = lds[mR + a];
        double ss = lds[mR + b];
        double wab = lds[mW + a] * lds[mW + b];
        // iteration c: the r/s divergence of layer c - 1, then the fluxes of layer c, then one barrier. The r- and s-flux
        // layers alternate between two pairs by the layer's parity, so the fluxes of layer c never overwrite those that
        // the divergence of layer c - 1 reads in the same iteration.
        double mass = 0;
        for (int c = 0; c <= P; c++) {
            if (valid == 1 && c > 0) {
                // the r/s divergence of layer c - 1 replaces u(., ., c - 1), which no later layer reads
                int dr = flux + 2 * SP * ((c - 1) & 1);
                int ds = dr + SP;
                double y = mass;
                for (int m = 0; m < P; m++) {
                    y += lds[mD + m * S + a] * lds[dr + m + S * b] + lds[mD + m * S + b] * lds[ds + a + S * m];
                }
                lds[L0 + own + SP * (c - 1)] = y;
            }
            int sgr = flux + 2 * SP * (c & 1);
            int sgs = sgr + SP;
            if (valid == 1 && c < P) {
                double vr = 0;
                double vs = 0;
                for (int m = 0; m < P; m++) {
                    vr += lds[mD + a * S + m] * lds[L0 + m + S * b + SP * c];
                    vs += lds[mD + b * S + m] * lds[L0 + a + S * m + SP * c];
                }
                double vt = lds[tg + own + SP * c];
                // J = [x_r x_s x_t] at (r_a, s_b, t_c); coefficient 3 (mask - 1) + d, masks r 1, s 2, rs 3, t 4, rt 5,
                // st 6, rst 7
                double tt = lds[mR + c];
                double rx = lds[mc] + ss * lds[mc + 6] + tt * (lds[mc + 12] + ss * lds[mc + 18]);
                double ry = lds[mc + 1] + ss * lds[mc + 7] + tt * (lds[mc + 13] + ss * lds[mc + 19]);
                double rz = lds[mc + 2] + ss * lds[mc + 8] + tt * (lds[mc + 14] + ss * lds[mc + 20]);
                double sx = lds[mc + 3] + rr * lds[mc + 6] + tt * (lds[mc + 15] + rr * lds[mc + 18]);
                double sy = lds[mc + 4] + rr * lds[mc + 7] + tt * (lds[mc + 16] + rr * lds[mc + 19]);
                double sz = lds[mc + 5] + rr * lds[mc + 8] + tt * (lds[mc + 17] + rr * lds[mc + 20]);
                double tx = lds[mc + 9] + rr * lds[mc + 12] + ss * (lds[mc + 15] + rr * lds[mc + 18]);
                double ty = lds[mc + 10] + rr * lds[mc + 13] + ss * (lds[mc + 16] + rr * lds[mc + 19]);
                double tz = lds[mc + 11] + rr * lds[mc + 14] + ss * (lds[mc + 17] + rr * lds[mc + 20]);
                // rows of adj(J): n_r = x_s x x_t, n_s = x_t x x_r, n_t = x_r x x_s
                double nrx = sy * tz - sz * ty;
                double nry = sz * tx - sx * tz;
                double nrz = sx * ty - sy * tx;
                double nsx = ty * rz - tz * ry;
                double nsy = tz * rx - tx * rz;
                double nsz = tx * ry - ty * rx;
                double ntx = ry * sz - rz * sy;
                double nty = rz * sx - rx * sz;
                double ntz = rx * sy - ry * sx;
                double det = rx * nrx + ry * nry + rz * nrz;
                double w = wab * lds[mW + c];
                // G = w |J| J^-1 J^-T = (w / |J|) adj(J) adj(J)^T
                double f = w / det;
                double g01 = f * (nrx * nsx + nry * nsy + nrz * nsz);
                double g02 = f * (nrx * ntx + nry * nty + nrz * ntz);
                double g12 = f * (nsx * ntx + nsy * nty + nsz * ntz);
                lds[sgr + own] = f * (nrx * nrx + nry * nry + nrz * nrz) * vr + g01 * vs + g02 * vt;
                lds[sgs + own] = g01 * vr + f * (nsx * nsx + nsy * nsy + nsz * nsz) * vs + g12 * vt;
                lds[tg + own + SP * c] = g02 * vr + g12 * vs + f * (ntx * ntx + nty * nty + ntz * ntz) * vt;
                mass = lambda * w * det * lds[L0 + own + SP * c];
            }
            localBarrier();
        }
        if (valid == 1) {
            // D^T along t from the own column's t-fluxes, then y_L
            for (int k = 0; k < P; k++) {
                double y = lds[L0 + own + SP * k];
                for (int c = 0; c < P; c++) {
                    y += lds[mD + c * S + k] * lds[tg + own + SP * c];
                }
                double u = 0;
                if (fromGlobal >= 1) {
                    if (shift != 0) {
                        u = readU(base + P2 * k);
                    }
                }
                writeY(base + P2 * k, y, u);
            }
        }
    }
}
