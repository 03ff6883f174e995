package io.lobatto.backend.aparapi.kernels;

/**
 * BP3.5 (CEED BP5) on trilinear elements with the geometric factors computed on the fly: y_L = D^T G D u +
 * lambda wJ o u, where G and wJ at each GLL node come from the element's 8 vertices instead of 7 stored factors
 * per node ({@link io.lobatto.core.geometry.TrilinearFactors} is the host reference of the same closed form).
 * The thread structure is {@link StiffnessBp35ColumnKernel}'s (tensor paper, BP3.5 Kernel 10): work-item (i, j) of
 * the element holds its column in registers and walks the layers k. Along the column (r_i, s_j, .) the Jacobian's
 * columns are
 * <pre>
 *   x_r(t) = l0(t) R0 + l1(t) R1,   x_s(t) = l0(t) S0 + l1(t) S1,   x_t = T   (l0 = (1 - t) / 2, l1 = (1 + t) / 2)
 * </pre>
 * with R0, R1 (S0, S1) the r-edges (s-edges) of the faces t = -1 and t = +1 interpolated at s_j (r_i) and T the four
 * t-edges interpolated at (r_i, s_j): 15 doubles per work-item, set once from the vertices. At layer k the rows of
 * adj(J) are cross products, n_r = x_s x x_t, n_s = x_t x x_r, n_t = x_r x x_s, |J| = x_r . n_r and
 * G_ab = (w / |J|) n_a . n_b, wJ = w |J| with w = w_i w_j w_k: 12 multiply-adds for J, 27 for the cross products and
 * 21 for G, no loads. With {@code fromGlobal} it is the element part of hipBone's fused assembled operator.
 *
 * <p>Local memory per element: three Nq x S layers, the Nq^3 columns and the 24 vertex coordinates; then D (Nq x S),
 * the GLL nodes and the GLL weights. The vertices are {@link #verts}, [E][8][3] in
 * {@link io.lobatto.core.mesh.HexReference}'s corner order; {@link #gll} is the Nq nodes then the Nq weights.
 */
public final class StiffnessBp35TrilinearKernel extends RegisterKernelBase {

    /** The element vertices, [E][8][3]. */
    double[] verts = new double[1];
    /** The GLL nodes r_0 .. r_N, then the GLL weights w_0 .. w_N. */
    double[] gll = new double[1];

    @Override
    public void run() {
        int P = pts;
        int P2 = P * P;
        int S = stride;
        int lid = getLocalId();
        int le = lid / P2;
        int t = lid - le * P2;
        int i = t % P;
        int j = t / P;
        int e = firstElem + getGroupId() * elemsPerGroup + le;
        int perElem = 3 * P * S + P2 * P + 24;
        int sq = le * perElem;
        int sgr = sq + P * S;
        int sgs = sgr + P * S;
        int col = sgs + P * S + t;
        int mX = sq + 3 * P * S + P2 * P;
        int mD = elemsPerGroup * perElem;
        int mR = mD + P * S;
        int mW = mR + P;
        int base = e * P2 * P + t;
        int valid = 0;
        if (e < elems) {
            valid = 1;
        }
        stageD(mD);
        for (int n = lid; n < 2 * P; n += getLocalSize()) {
            lds[mR + n] = gll[n];
        }
        for (int c = t; c < 24; c += P2) {
            double v = 0;
            if (valid == 1) {
                v = verts[e * 24 + c];
            }
            lds[mX + c] = v;
        }
        for (int k = 0; k < P; k++) {
            double u = 0;
            if (valid == 1) {
                u = readUGuarded(base + P2 * k);
            }
            colU[k] = u;
            lds[col + P2 * k] = u;
        }
        localBarrier();

        // the column's Jacobian coefficients from the vertices X0..X7 at (r_i, s_j)
        double ri = lds[mR + i];
        double sj = lds[mR + j];
        double wij = lds[mW + i] * lds[mW + j];
        double a0 = 0.5 * (1 - ri);
        double a1 = 0.5 * (1 + ri);
        double b0 = 0.5 * (1 - sj);
        double b1 = 0.5 * (1 + sj);
        double r0x = 0.5 * (b0 * (vx(mX, 1, 0) - vx(mX, 0, 0)) + b1 * (vx(mX, 2, 0) - vx(mX, 3, 0)));
        double r0y = 0.5 * (b0 * (vx(mX, 1, 1) - vx(mX, 0, 1)) + b1 * (vx(mX, 2, 1) - vx(mX, 3, 1)));
        double r0z = 0.5 * (b0 * (vx(mX, 1, 2) - vx(mX, 0, 2)) + b1 * (vx(mX, 2, 2) - vx(mX, 3, 2)));
        double r1x = 0.5 * (b0 * (vx(mX, 5, 0) - vx(mX, 4, 0)) + b1 * (vx(mX, 6, 0) - vx(mX, 7, 0)));
        double r1y = 0.5 * (b0 * (vx(mX, 5, 1) - vx(mX, 4, 1)) + b1 * (vx(mX, 6, 1) - vx(mX, 7, 1)));
        double r1z = 0.5 * (b0 * (vx(mX, 5, 2) - vx(mX, 4, 2)) + b1 * (vx(mX, 6, 2) - vx(mX, 7, 2)));
        double s0x = 0.5 * (a0 * (vx(mX, 3, 0) - vx(mX, 0, 0)) + a1 * (vx(mX, 2, 0) - vx(mX, 1, 0)));
        double s0y = 0.5 * (a0 * (vx(mX, 3, 1) - vx(mX, 0, 1)) + a1 * (vx(mX, 2, 1) - vx(mX, 1, 1)));
        double s0z = 0.5 * (a0 * (vx(mX, 3, 2) - vx(mX, 0, 2)) + a1 * (vx(mX, 2, 2) - vx(mX, 1, 2)));
        double s1x = 0.5 * (a0 * (vx(mX, 7, 0) - vx(mX, 4, 0)) + a1 * (vx(mX, 6, 0) - vx(mX, 5, 0)));
        double s1y = 0.5 * (a0 * (vx(mX, 7, 1) - vx(mX, 4, 1)) + a1 * (vx(mX, 6, 1) - vx(mX, 5, 1)));
        double s1z = 0.5 * (a0 * (vx(mX, 7, 2) - vx(mX, 4, 2)) + a1 * (vx(mX, 6, 2) - vx(mX, 5, 2)));
        double tx = 0.5 * (b0 * (a0 * (vx(mX, 4, 0) - vx(mX, 0, 0)) + a1 * (vx(mX, 5, 0) - vx(mX, 1, 0)))
                + b1 * (a0 * (vx(mX, 7, 0) - vx(mX, 3, 0)) + a1 * (vx(mX, 6, 0) - vx(mX, 2, 0))));
        double ty = 0.5 * (b0 * (a0 * (vx(mX, 4, 1) - vx(mX, 0, 1)) + a1 * (vx(mX, 5, 1) - vx(mX, 1, 1)))
                + b1 * (a0 * (vx(mX, 7, 1) - vx(mX, 3, 1)) + a1 * (vx(mX, 6, 1) - vx(mX, 2, 1))));
        double tz = 0.5 * (b0 * (a0 * (vx(mX, 4, 2) - vx(mX, 0, 2)) + a1 * (vx(mX, 5, 2) - vx(mX, 1, 2)))
                + b1 * (a0 * (vx(mX, 7, 2) - vx(mX, 3, 2)) + a1 * (vx(mX, 6, 2) - vx(mX, 2, 2))));

        for (int k = 0; k < P; k++) {
            colY[k] = 0;
        }
        for (int k = 0; k < P; k++) {
            double uk = lds[col + P2 * k];
            lds[sq + j * S + i] = uk;
            localBarrier();
            double qr = 0;
            double qs = 0;
            double qt = 0;
            for (int m = 0; m < P; m++) {
                qr += lds[mD + i * S + m] * lds[sq + j * S + m];
                qs += lds[mD + j * S + m] * lds[sq + m * S + i];
                qt += lds[mD + k * S + m] * colU[m];
            }
            double gqt = 0;
            double mass = 0;
            if (valid == 1) {
                // J = [x_r x_s x_t] at (r_i, s_j, t_k)
                double tk = lds[mR + k];
                double c0 = 0.5 * (1 - tk);
                double c1 = 0.5 * (1 + tk);
                double rx = c0 * r0x + c1 * r1x;
                double ry = c0 * r0y + c1 * r1y;
                double rz = c0 * r0z + c1 * r1z;
                double sx = c0 * s0x + c1 * s1x;
                double sy = c0 * s0y + c1 * s1y;
                double sz = c0 * s0z + c1 * s1z;
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
                double w = wij * lds[mW + k];
                // G = w |J| J^-1 J^-T = (w / |J|) adj(J) adj(J)^T
                double f = w / det;
                double g01 = f * (nrx * nsx + nry * nsy + nrz * nsz);
                double g02 = f * (nrx * ntx + nry * nty + nrz * ntz);
                double g12 = f * (nsx * ntx + nsy * nty + nsz * ntz);
                lds[sgr + j * S + i] = f * (nrx * nrx + nry * nry + nrz * nrz) * qr + g01 * qs + g02 * qt;
                lds[sgs + j * S + i] = g01 * qr + f * (nsx * nsx + nsy * nsy + nsz * nsz) * qs + g12 * qt;
                gqt = g02 * qr + g12 * qs + f * (ntx * ntx + nty * nty + ntz * ntz) * qt;
                mass = lambda * w * det * uk;
            }
            localBarrier();
            double div = mass;
            for (int m = 0; m < P; m++) {
                div += lds[mD + m * S + i] * lds[sgr + j * S + m] + lds[mD + m * S + j] * lds[sgs + m * S + i];
            }
            lds[col + P2 * k] = div;
            // D^T along t: the t-flux of layer k feeds every point of the column
            for (int m = 0; m < P; m++) {
                colY[m] += lds[mD + k * S + m] * gqt;
            }
        }
        if (valid == 1) {
            for (int k = 0; k < P; k++) {
                writeY(base + P2 * k, colY[k] + lds[col + P2 * k], colU[k]);
            }
        }
    }

    /** Coordinate d of vertex c of the element whose vertices are at mX of local memory. */
    private double vx(int mX, int c, int d) {
        return lds[mX + 3 * c + d];
    }
}
