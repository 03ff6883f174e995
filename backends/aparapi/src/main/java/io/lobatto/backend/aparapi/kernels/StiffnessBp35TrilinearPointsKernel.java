package io.lobatto.backend.aparapi.kernels;

import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * BP3.5 (CEED BP5) on trilinear elements with the geometric factors computed on the fly, one work-item per point
 * (the 3D structure of {@link ElementKernelBase}'s stiffness past the group size, as
 * {@link io.lobatto.backend.aparapi.ElementVariant#POINTS} runs it with stored factors): y_L = D^T G D u +
 * lambda wJ o u, with G and wJ at each GLL node computed from the element's trilinear map ({@link TrilinearMapOperands}).
 * The element's {@link #threadsPerElem} work-items take the points t, t + T, ... of its P^3 grid (P = Nq):
 * <ol>
 *   <li>stage D, the GLL nodes and weights, u and the map's 21 coefficients; one barrier;</li>
 *   <li>at each own point (a, b, c) the reference gradient (vr, vs, vt) = (D_a u, D_b u, D_c u), J, adj(J), |J| and the
 *       fluxes G grad u into three P^3 grids; one barrier;</li>
 *   <li>at each own point y = sum_m D_ma f_r(m, b, c) + D_mb f_s(a, m, c) + D_mc f_t(a, b, m) + lambda w |J| u
 *       (|J| computed again, only where lambda is not 0), written to y_L or added into y_G.</li>
 * </ol>
 * An element costs two barriers, where {@link StiffnessBp35TrilinearSharedKernel}'s columns cost one per layer, and it
 * moves no factor: per local node it reads u (through the scatter ids with {@code fromGlobal}) and writes y.
 *
 * <p>Local memory per element ({@link #perElem} doubles): the grid u (index a + P b + P^2 c), the r-, s- and t-flux grids
 * (as u) and the 21 coefficients; after the elements' regions, at {@link #ldsMat}, D (P x S, S = {@link #dStride} odd),
 * the GLL nodes and the GLL weights.
 */
public final class StiffnessBp35TrilinearPointsKernel extends TrilinearMapOperands {

    /** Work-items per element. */
    @BuildConstant int threadsPerElem;
    /** Local doubles per element: 4 P^3 + 21. */
    @BuildConstant int perElem;
    /** Row stride S of D in local memory: Nq, or Nq + 1 when Nq is even. */
    @BuildConstant int dStride;
    /** Where in lds the group stages D, the GLL nodes and weights (after its elements' regions). */
    @BuildConstant int ldsMat;

    @Override
    public void run() {
        int P = nq;
        int P2 = P * P;
        int P3 = P2 * P;
        int S = dStride;
        int T = threadsPerElem;
        int lid = getLocalId();
        int le = lid / T;
        int t = lid - le * T;
        int e = firstElem + getGroupId() * elemsPerGroup + le;
        int valid = 0;
        if (e < elems) {
            valid = 1;
        }
        int L0 = le * perElem;
        int fr = L0 + P3;
        int fs = fr + P3;
        int ft = fs + P3;
        int mc = ft + P3;
        int mD = ldsMat;
        int mR = mD + P * S;
        int mW = mR + P;
        int base = e * P3;

        // stage D, the GLL nodes and weights for the group; u and the map's coefficients for the element
        for (int n = lid; n < P2; n += getLocalSize()) {
            lds[mD + (n / P) * S + n % P] = matD[n];
        }
        for (int n = lid; n < 2 * P; n += getLocalSize()) {
            lds[mR + n] = gll[n];
        }
        for (int p = t; p < P3; p += T) {
            double u = 0;
            if (valid == 1) {
                u = readU(base + p);
            }
            lds[L0 + p] = u;
        }
        for (int q = t; q < 21; q += T) {
            double cq = 0;
            if (valid == 1) {
                cq = mapCoefficient(e, q);
            }
            lds[mc + q] = cq;
        }
        localBarrier();

        // the fluxes G grad u at the own points; |J| is not kept (the mass term computes it again), but Aparapi translates
        // no discarded double result
        double det = 0;
        if (valid == 1) {
            for (int p = t; p < P3; p += T) {
                int a = p % P;
                int b = (p / P) % P;
                int c = p / P2;
                double vr = 0;
                double vs = 0;
                double vt = 0;
                for (int m = 0; m < P; m++) {
                    vr += lds[mD + a * S + m] * lds[L0 + m + P * b + P2 * c];
                    vs += lds[mD + b * S + m] * lds[L0 + a + P * m + P2 * c];
                    vt += lds[mD + c * S + m] * lds[L0 + a + P * b + P2 * m];
                }
                double w = lds[mW + a] * lds[mW + b] * lds[mW + c];
                det = geometricFluxes(mc, lds[mR + a], lds[mR + b], lds[mR + c], w, vr, vs, vt, fr + p, fs + p,
                        ft + p);
            }
        }
        localBarrier();

        // D^T of the fluxes (+ lambda wJ u) at the own points, then y
        if (valid == 1) {
            for (int p = t; p < P3; p += T) {
                int a = p % P;
                int b = (p / P) % P;
                int c = p / P2;
                double u = lds[L0 + p];
                double y = 0;
                if (lambda != 0) {
                    double w = lds[mW + a] * lds[mW + b] * lds[mW + c];
                    y = lambda * w * jacobianDeterminant(mc, lds[mR + a], lds[mR + b], lds[mR + c]) * u;
                }
                for (int m = 0; m < P; m++) {
                    y += lds[mD + m * S + a] * lds[fr + m + P * b + P2 * c]
                            + lds[mD + m * S + b] * lds[fs + a + P * m + P2 * c]
                            + lds[mD + m * S + c] * lds[ft + a + P * b + P2 * m];
                }
                writeY(base + p, y, u);
            }
        }
    }
}
