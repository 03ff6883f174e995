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
 * <p>The element keeps its map's 21 coefficients in local memory ({@link TrilinearMapOperands}) and each point computes
 * J from them (27 multiply-adds, broadcast reads), adj(J), |J| and G there, instead of holding per-column constants
 * across the layer loop. With {@code fromGlobal} it is the element part of hipBone's fused assembled operator.
 *
 * <p>Local memory per element ({@link #perElem} doubles): the grid u (index a + S b + S P c, S = {@link #dStride},
 * odd), two pairs of r- and s-flux layers (P x S each; the layers alternate between them, so each layer needs one
 * barrier, not two), the t-grid (as u) and the 21 coefficients; after the elements' regions,
 * at {@link #ldsMat}, D (P x S), the GLL nodes and the GLL weights.
 */
public final class StiffnessBp35TrilinearSharedKernel extends TrilinearMapOperands {

    /** Local doubles per element. */
    @BuildConstant int perElem;
    /** Row stride S of the element's layers and of D in local memory: Nq, or Nq + 1 when Nq is even. */
    @BuildConstant int dStride;
    /** Where in lds the group stages D, the GLL nodes and weights (after its elements' regions). */
    @BuildConstant int ldsMat;

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
                u = readUGuarded(base + P2 * c);
            }
            lds[L0 + own + SP * c] = u;
        }
        for (int q = col; q < 21; q += P2) {
            double cq = 0;
            if (valid == 1) {
                cq = mapCoefficient(e, q);
            }
            lds[mc + q] = cq;
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
                double w = wab * lds[mW + c];
                double det = geometricFluxes(mc, rr, ss, lds[mR + c], w, vr, vs, vt, sgr + own, sgs + own,
                        tg + own + SP * c);
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
                        u = readUGuarded(base + P2 * k);
                    }
                }
                writeY(base + P2 * k, y, u);
            }
        }
    }
}
