package io.lobatto.backend.aparapi.kernels;

import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * BP3.5 (CEED BP5) with stored geometric factors, y_L = D^T G D u + lambda wJ o u (GLL collocation), in the shared-memory
 * column structure of {@link StiffnessBp35TrilinearSharedKernel} with the factor loads pipelined as in
 * {@link StiffnessBp30PipelinedKernel} (libCEED's collocated gradient on slices, {@code /gpu/cuda/gen}):
 * <ul>
 * <li>work-item (a, b) of the element owns the column (a, b, .); the element's grid u, the t-grid (first vt = D u along
 * the column, then the t-fluxes) and two pairs of r- and s-flux layers live in local memory, no array in registers;</li>
 * <li>iteration c runs the r/s divergence of layer c - 1 (it replaces u(., ., c - 1), which no later layer reads), then
 * the fluxes G D u of layer c into pair c mod 2, then one barrier: a pair is written again two layers later, after every
 * work-item passed the barrier between, so each layer needs one barrier, not two;</li>
 * <li>the six factors G00, G01, G02, G11, G12, G22 of layer c + 1 (and wJ, only when lambda is not 0) are loaded into
 * registers at the top of iteration c, so their latency hides behind layer c's work and its barrier; layer 0's before
 * the input is read.</li>
 * </ul>
 * The factors of point (a, b, c) of element e are at e Nq^3 + a + Nq b + Nq^2 c of their buffers, or blocked by
 * {@link #factorBlock} elements (a group's layer contiguous). With {@code fromGlobal} it is the element part of hipBone's
 * fused assembled operator (x_G through Z, the
 * folded p = z + beta p, the one-kernel operator's degree-1 rows).
 *
 * <p>Local memory per element ({@link #perElem} doubles): the grid u (index a + S b + S P c, S = {@link #dStride}, odd),
 * the t-grid (as u), two pairs of r- and s-flux layers (P x S each); after the elements' regions, at {@link #ldsMat}, D
 * (P x S).
 */
public final class StiffnessBp35PipelinedKernel extends ElementOperands {

    /** Local doubles per element. */
    @BuildConstant int perElem;
    /** Row stride S of the element's layers and of D in local memory: Nq, or Nq + 1 when Nq is even. */
    @BuildConstant int dStride;
    /** Where in lds the group stages D (after its elements' regions). */
    @BuildConstant int ldsMat;
    /**
     * 1 where the atomic form keeps the own column's scatter ids ({@link #colId}) from the read of u to the adds of y (no
     * second read of them, no wait on it before the adds); else 0.
     */
    @BuildConstant int keepIds;

    /**
     * The factors' layout: 0 element-major (point (a, b, c) of element e at e Nq^3 + a + Nq b + Nq^2 c), else blocked by
     * this many elements, layer-major inside a block (at ((e / B) Nq + c) B Nq^2 + (e mod B) Nq^2 + a + Nq b), so that a
     * group's layer is one contiguous run.
     */
    @BuildConstant int factorBlock;

    /** The scatter ids of the own column ({@link #keepIds}). */
    @PrivateMemorySpace(17) int[] colId = new int[17];

    @Override
    public void run() {
        beginElementDot();
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
        int tg = L0 + SP * P;
        int flux = tg + SP * P;
        int mD = ldsMat;
        int own = a + S * b;
        int base = e * P2 * P + col;
        // the factors of layer c at fb + fl c
        int fb = base;
        int fl = P2;
        if (factorBlock > 0) {
            int blk = e / factorBlock;
            fb = (blk * P * factorBlock + e - blk * factorBlock) * P2 + col;
            fl = factorBlock * P2;
        }

        // the factors of layer 0, loaded first: their latency hides behind the staging and the input
        double n00 = 0;
        double n01 = 0;
        double n02 = 0;
        double n11 = 0;
        double n12 = 0;
        double n22 = 0;
        double nJ = 0;
        if (valid == 1) {
            n00 = G00[fb];
            n01 = G01[fb];
            n02 = G02[fb];
            n11 = G11[fb];
            n12 = G12[fb];
            n22 = G22[fb];
            if (lambda != 0) {
                nJ = wJ[fb];
            }
        }
        for (int n = lid; n < P2; n += getLocalSize()) {
            lds[mD + (n / P) * S + n % P] = matD[n];
        }
        for (int c = 0; c < P; c++) {
            double u = 0;
            int id = -1;
            if (valid == 1) {
                if (keepIds == 1) {
                    id = ids[base + P2 * c];
                }
                u = readUGuarded(base + P2 * c);
            }
            colId[c] = id;
            lds[L0 + own + SP * c] = u;
        }
        localBarrier();

        // vt = D u along the own column into the t-grid (the own column only: no barrier)
        if (valid == 1) {
            for (int c = 0; c < P; c++) {
                double vt = 0;
                for (int m = 0; m < P; m++) {
                    vt += lds[mD + c * S + m] * lds[L0 + own + SP * m];
                }
                lds[tg + own + SP * c] = vt;
            }
        }
        double mass = 0;
        for (int c = 0; c <= P; c++) {
            double g00 = n00;
            double g01 = n01;
            double g02 = n02;
            double g11 = n11;
            double g12 = n12;
            double g22 = n22;
            double gJ = nJ;
            if (valid == 1 && c + 1 < P) {
                int gn = fb + fl * (c + 1);
                n00 = G00[gn];
                n01 = G01[gn];
                n02 = G02[gn];
                n11 = G11[gn];
                n12 = G12[gn];
                n22 = G22[gn];
                if (lambda != 0) {
                    nJ = wJ[gn];
                }
            }
            if (valid == 1 && c > 0) {
                // the r/s divergence of layer c - 1 (pair (c - 1) mod 2) replaces u(., ., c - 1)
                int dr = flux + 2 * SP * ((c - 1) & 1);
                int ds = dr + SP;
                double y = mass;
                for (int m = 0; m < P; m++) {
                    y += lds[mD + m * S + a] * lds[dr + m + S * b] + lds[mD + m * S + b] * lds[ds + a + S * m];
                }
                // p . A p (ATOMIC_DOT): u times its r/s divergence and mass here, the t part with the t-flux below
                elementDot(lds[L0 + own + SP * (c - 1)], y);
                lds[L0 + own + SP * (c - 1)] = y;
            }
            if (valid == 1 && c < P) {
                int sgr = flux + 2 * SP * (c & 1);
                int sgs = sgr + SP;
                double vr = 0;
                double vs = 0;
                for (int m = 0; m < P; m++) {
                    vr += lds[mD + a * S + m] * lds[L0 + m + S * b + SP * c];
                    vs += lds[mD + b * S + m] * lds[L0 + a + S * m + SP * c];
                }
                double vt = lds[tg + own + SP * c];
                lds[sgr + own] = g00 * vr + g01 * vs + g02 * vt;
                lds[sgs + own] = g01 * vr + g11 * vs + g12 * vt;
                double ft = g02 * vr + g12 * vs + g22 * vt;
                // sum_k u_k sum_c D_ck ft_c = sum_c (D u)_c ft_c: the t part of u . y
                elementDot(vt, ft);
                lds[tg + own + SP * c] = ft;
                mass = 0;
                if (lambda != 0) {
                    mass = lambda * gJ * lds[L0 + own + SP * c];
                }
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
                        u = readUGuarded(base + P2 * k);
                    }
                }
                if (keepIds == 0) {
                    writeY(base + P2 * k, y, u);
                }
                if (keepIds == 1) {
                    // the atomic form adds at the id read with u
                    addAtKeptId(base + P2 * k, colId[k], y, u);
                }
            }
        }
        endElementDot();
    }
}
