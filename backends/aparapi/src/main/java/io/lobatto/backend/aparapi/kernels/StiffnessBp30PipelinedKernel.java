package io.lobatto.backend.aparapi.kernels;

import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * BP3.0 (CEED BP3), y_L = I^T (D~^T G D~ + lambda wJ) I u, in the register structure of {@link RegisterKernelBase} with
 * the layer loop of the column stiffness pipelined (libCEED's collocated gradient on slices, {@code /gpu/cuda/gen}):
 * <ul>
 * <li>the line stages of BP1.0 interpolate u to the P^3 GL grid (t, s, r) and project back (r, s, t), as in
 * {@link StiffnessBp30ColumnKernel};</li>
 * <li>work-item t holds the column u(i, j, .) of (i, j) = (t mod P, t / P) in registers, and with {@link #columns} = 2
 * (P^2 above the group: N = 15) also the column t + T; layer k of the GL grid itself is what the r- and s-derivatives
 * D~ u read (no copy into a u layer), and the layer's r/s divergence replaces it in place once the barrier has
 * passed;</li>
 * <li>the r- and s-fluxes G D~ u go through {@link #buffers} pairs of P x S layers: with two, layer k writes pair k mod 2
 * and one barrier per layer orders everything (a pair is written again two layers later, after every work-item passed
 * the barrier between); with one, a second barrier guards the pair;</li>
 * <li>the six factors of layer k + 1 (and wJ, only when lambda is not 0) are loaded before layer k's barrier, so their
 * latency hides behind it; with two columns, where registers are short, each layer's factors in the layer.</li>
 * </ul>
 * Local memory per element: the S x P x P grid and 2 {@link #buffers} P x S layers; then I and D~.
 */
public final class StiffnessBp30PipelinedKernel extends RegisterKernelBase {

    /** Pairs of flux layers: 2 (one barrier per layer) or 1 (two). */
    @BuildConstant int buffers;
    /** Columns per work-item: 1, or 2 where P^2 exceeds the group (work-item t also owns column t + threadsPerElem). */
    @BuildConstant int columns;
    /**
     * The factors' layout: 0 element-major (Gauss point (i, j, k) of element e at e P^3 + i + P j + P^2 k), else blocked
     * by this many elements, layer-major inside a block (FactorLayout; one column per work-item only), so that a group's
     * layer is one contiguous run.
     */
    @BuildConstant int factorBlock;

    /** The second column's u(i, j, .) ({@link #columns} = 2). */
    @PrivateMemorySpace(17) double[] colU2 = new double[17];
    /** The second column's t-part of the output. */
    @PrivateMemorySpace(17) double[] colY2 = new double[17];

    @Override
    public void run() {
        int P = pts;
        int P2 = P * P;
        int SA = strideA;
        int S = stride;
        int T = threadsPerElem;
        int lid = getLocalId();
        int le = lid / T;
        int t = lid - le * T;
        int e = firstElem + getGroupId() * elemsPerGroup + le;
        int perElem = SA * P * P + 2 * buffers * P * S;
        int grid = le * perElem;
        int flux = grid + SA * P * P;
        int mI = elemsPerGroup * perElem;
        int mD = mI + P * nq;
        int valid = 0;
        if (le < elemsPerGroup && e < elems) {
            valid = 1;
        }
        // the factors of layer 0, loaded first: their latency hides behind the interpolation; layer k's at g + fl k
        int g = e * P2 * P + t;
        int fl = P2;
        if (factorBlock > 0) {
            int blk = e / factorBlock;
            g = (blk * P * factorBlock + e - blk * factorBlock) * P2 + t;
            fl = factorBlock * P2;
        }
        double n00 = 0;
        double n01 = 0;
        double n02 = 0;
        double n11 = 0;
        double n12 = 0;
        double n22 = 0;
        double nJ = 0;
        if (valid == 1 && columns == 1) {
            n00 = G00[g];
            n01 = G01[g];
            n02 = G02[g];
            n11 = G11[g];
            n12 = G12[g];
            n22 = G22[g];
            if (lambda != 0) {
                nJ = wJ[g];
            }
        }
        stageI(mI);
        stageD(mD);
        localBarrier();
        interpolateStages(e, grid, mI, t, valid, 0);
        int layer = SA * P;
        int i = t % P;
        int j = t / P;
        int at = grid + i + SA * j;
        // the second column (columns = 2 only; the compiler drops its code where columns = 1)
        int t2 = t + T;
        int has2 = 0;
        if (columns == 2 && t2 < P2) {
            has2 = 1;
        }
        int i2 = t2 % P;
        int j2 = t2 / P;
        int at2 = grid + i2 + SA * j2;
        int h = e * P2 * P + t2;
        for (int c = 0; c < P; c++) {
            colU[c] = lds[at + layer * c];
            colY[c] = 0;
            colU2[c] = 0;
            colY2[c] = 0;
        }
        if (has2 == 1) {
            for (int c = 0; c < P; c++) {
                colU2[c] = lds[at2 + layer * c];
            }
        }
        for (int k = 0; k < P; k++) {
            double g00 = n00;
            double g01 = n01;
            double g02 = n02;
            double g11 = n11;
            double g12 = n12;
            double g22 = n22;
            double gJ = nJ;
            if (valid == 1 && columns == 1 && k + 1 < P) {
                int gn = g + fl * (k + 1);
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
            if (valid == 1 && columns == 2) {
                // two columns (N = 15): registers are short, so this layer's factors now, not the next one's
                int gk = g + fl * k;
                g00 = G00[gk];
                g01 = G01[gk];
                g02 = G02[gk];
                g11 = G11[gk];
                g12 = G12[gk];
                g22 = G22[gk];
                if (lambda != 0) {
                    gJ = wJ[gk];
                }
            }
            int row = grid + layer * k;
            double qr = 0;
            double qs = 0;
            double qt = 0;
            for (int m = 0; m < P; m++) {
                qr += lds[mD + i * S + m] * lds[row + m + SA * j];
                qs += lds[mD + j * S + m] * lds[row + i + SA * m];
                qt += lds[mD + k * S + m] * colU[m];
            }
            double uk = lds[at + layer * k];
            double pr = 0;
            double ps = 0;
            double pt = 0;
            double uk2 = 0;
            double h00 = 0;
            double h01 = 0;
            double h02 = 0;
            double h11 = 0;
            double h12 = 0;
            double h22 = 0;
            double hJ = 0;
            if (has2 == 1) {
                for (int m = 0; m < P; m++) {
                    pr += lds[mD + i2 * S + m] * lds[row + m + SA * j2];
                    ps += lds[mD + j2 * S + m] * lds[row + i2 + SA * m];
                    pt += lds[mD + k * S + m] * colU2[m];
                }
                uk2 = lds[at2 + layer * k];
                if (valid == 1) {
                    int hk = h + P2 * k;
                    h00 = G00[hk];
                    h01 = G01[hk];
                    h02 = G02[hk];
                    h11 = G11[hk];
                    h12 = G12[hk];
                    h22 = G22[hk];
                    if (lambda != 0) {
                        hJ = wJ[hk];
                    }
                }
            }
            int fr = flux + (k % buffers) * 2 * P * S;
            int fs = fr + P * S;
            if (buffers == 1) {
                localBarrier();   // the previous layer's divergence has read the pair
            }
            lds[fr + j * S + i] = g00 * qr + g01 * qs + g02 * qt;
            lds[fs + j * S + i] = g01 * qr + g11 * qs + g12 * qt;
            double gqt = g02 * qr + g12 * qs + g22 * qt;
            double gpt = 0;
            if (has2 == 1) {
                lds[fr + j2 * S + i2] = h00 * pr + h01 * ps + h02 * pt;
                lds[fs + j2 * S + i2] = h01 * pr + h11 * ps + h12 * pt;
                gpt = h02 * pr + h12 * ps + h22 * pt;
            }
            localBarrier();
            double div = 0;
            if (lambda != 0) {
                div = lambda * gJ * uk;
            }
            for (int m = 0; m < P; m++) {
                div += lds[mD + m * S + i] * lds[fr + j * S + m] + lds[mD + m * S + j] * lds[fs + m * S + i];
            }
            lds[at + layer * k] = div;
            // D~^T along t: the t-flux of layer k feeds every point of the column
            for (int m = 0; m < P; m++) {
                colY[m] += lds[mD + k * S + m] * gqt;
            }
            if (has2 == 1) {
                double div2 = 0;
                if (lambda != 0) {
                    div2 = lambda * hJ * uk2;
                }
                for (int m = 0; m < P; m++) {
                    div2 += lds[mD + m * S + i2] * lds[fr + j2 * S + m] + lds[mD + m * S + j2] * lds[fs + m * S + i2];
                }
                lds[at2 + layer * k] = div2;
                for (int m = 0; m < P; m++) {
                    colY2[m] += lds[mD + k * S + m] * gpt;
                }
            }
        }
        for (int c = 0; c < P; c++) {
            lds[at + layer * c] += colY[c];
        }
        if (has2 == 1) {
            for (int c = 0; c < P; c++) {
                lds[at2 + layer * c] += colY2[c];
            }
        }
        localBarrier();
        projectStages(e, grid, mI, t, valid, 1);
    }
}
