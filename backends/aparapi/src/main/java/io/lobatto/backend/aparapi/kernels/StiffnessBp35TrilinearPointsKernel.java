package io.lobatto.backend.aparapi.kernels;

import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * BP3.5 (CEED BP5) on trilinear elements with the geometric factors computed on the fly, one work-item per point
 * (the 3D structure of {@link ElementKernelBase}'s stiffness past the group size, as
 * {@link io.lobatto.backend.aparapi.ElementVariant#POINTS} runs it with stored factors): y_L = D^T G D u +
 * lambda wJ o u, with G and wJ at each GLL node computed from the element's trilinear map ({@link TrilinearMapOperands}).
 * The element's {@link #threadsPerElem} work-items take the points t, t + T, ... of its P^3 grid (P = Nq), or with
 * {@link #perColumn} K &gt; 1 work-item (a + P b) + P^2 s takes the K layers K s .. K s + K - 1 of column (a, b), so that
 * it reads D's rows a and b and u(a, b, .) once for K points (its gradients in registers, as the tensor paper's
 * register columns hold a whole column):
 * <ol>
 *   <li>stage D, the GLL nodes and weights, u and the map's 21 coefficients; one barrier;</li>
 *   <li>at each own point (a, b, c) the reference gradient (vr, vs, vt) = (D_a u, D_b u, D_c u), J, adj(J), |J| and the
 *       fluxes G grad u into three P^3 grids; one barrier;</li>
 *   <li>at each own point y = sum_m D_ma f_r(m, b, c) + D_mb f_s(a, m, c) + D_mc f_t(a, b, m) + lambda w |J| u
 *       (|J| computed again, only where lambda is not 0), written to y_L or added into y_G.</li>
 * </ol>
 * An element costs two barriers, where {@link StiffnessBp35TrilinearSharedKernel}'s columns cost one per layer, and it
 * moves no factor: per local node it reads u (through the scatter ids with {@code fromGlobal}) and writes y. With
 * {@link #sweep} &gt; 1 a slot takes that many elements in turn: the next element's u and coefficients are loaded into
 * registers after the first barrier, and a third barrier ends each element (its outputs read the grid u and the
 * coefficients, which the next element's staging writes).
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
    /**
     * K: 1, the points t, t + T, ... of the element; else the layers K s .. K s + K - 1 of column (a, b), where
     * work-item t = (a + P b) + P^2 s (at most 8, the size of the gradient arrays).
     */
    @BuildConstant int perColumn;

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
        int L0 = le * perElem;
        int mc = L0 + 4 * P3;
        int mD = ldsMat;
        int mR = mD + P * S;
        int mW = mR + P;

        // stage D, the GLL nodes and weights for the group
        for (int n = lid; n < P2; n += getLocalSize()) {
            lds[mD + (n / P) * S + n % P] = matD[n];
        }
        for (int n = lid; n < 2 * P; n += getLocalSize()) {
            lds[mR + n] = gll[n];
        }
        int slots = (P3 + T - 1) / T;
        int K = perColumn;
        // a sweep's next coefficient, loaded by work-items t < 21 while the current element is computed
        double cn = 0;
        int count = sweep;
        if (count < 1) {
            count = 1;
        }
        for (int i = 0; i < count; i++) {
            int e = firstElem + (getGroupId() * count + i) * elemsPerGroup + le;
            int valid = 0;
            if (e < elems) {
                valid = 1;
            }
            int base = e * P3;
            // u and the map's coefficients for the element
            if (sweep <= 1) {
                for (int p = t; p < P3; p += T) {
                    double u = 0;
                    if (valid == 1) {
                        u = readUGuarded(base + p);
                    }
                    lds[L0 + p] = u;
                }
                for (int q = t; q < 21; q += T) {
                    lds[mc + q] = coefficientOf(e, valid, q);
                }
            }
            if (sweep > 1) {
                if (i == 0) {
                    loadSlots(e, valid, t, T, P3, slots);
                    cn = coefficientOf(e, valid, t);
                }
                for (int j = 0; j < slots; j++) {
                    int p = t + j * T;
                    if (p < P3) {
                        lds[L0 + p] = un[j];
                    }
                }
                if (t < 21) {
                    lds[mc + t] = cn;
                }
            }
            localBarrier();
            if (sweep > 1 && i + 1 < sweep) {
                int next = e + elemsPerGroup;
                int nextValid = 0;
                if (next < elems) {
                    nextValid = 1;
                }
                loadSlots(next, nextValid, t, T, P3, slots);
                cn = coefficientOf(next, nextValid, t);
            }

            // each work-item's points: with K = 1 the points t, t + T, ... one at a time, else its K layers of one column
            if (valid == 1) {
                if (K == 1) {
                    for (int p = t; p < P3; p += T) {
                        pointFluxes(L0, mc, mD, mR, mW, p % P2, p / P2, 1);
                    }
                } else {
                    pointFluxes(L0, mc, mD, mR, mW, t % P2, (t / P2) * K, K);
                }
            }
            localBarrier();
            if (valid == 1) {
                if (K == 1) {
                    for (int p = t; p < P3; p += T) {
                        pointOutputs(L0, base, mc, mD, mR, mW, p % P2, p / P2, 1);
                    }
                } else {
                    pointOutputs(L0, base, mc, mD, mR, mW, t % P2, (t / P2) * K, K);
                }
            }
            if (sweep > 1) {
                // the outputs read the grid u and the coefficients, which the next element's staging writes
                localBarrier();
            }
        }
    }

    /** Coefficient q of element e's map where q &lt; 21 and e is valid, else 0. */
    private double coefficientOf(int e, int valid, int q) {
        double c = 0;
        if (valid == 1) {
            if (q < 21) {
                c = mapCoefficient(e, q);
            }
        }
        return c;
    }

    /**
     * Phase 2 for the points (a, b, c), c = c0 .. c0 + K - 1, of column col = a + P b: their gradients
     * ({@link #columnGradients}), then J and the fluxes G grad u at each point; layers past P - 1 write nothing.
     */
    private void pointFluxes(int L0, int mc, int mD, int mR, int mW, int col, int c0, int K) {
        int P = nq;
        int P2 = P * P;
        int P3 = P2 * P;
        int a = col % P;
        int b = col / P;
        int fr = L0 + P3;
        int fs = fr + P3;
        int ft = fs + P3;
        // |J| is not kept (the mass term computes it again), but Aparapi translates no discarded double result
        double det = 0;
        columnGradients(L0, P, K, dStride, mD, col, c0);
        double r = lds[mR + a];
        double s = lds[mR + b];
        double wab = lds[mW + a] * lds[mW + b];
        // J from the coefficients at each point (broadcast reads), not from 15 column constants held in registers: with
        // them the kernel took 100 registers at N = 7 and ran 1.1-1.5x slower than the strided points (columns26.sh)
        for (int k = 0; k < K; k++) {
            int c = c0 + k;
            if (c < P) {
                int g = col + P2 * c;
                det = geometricFluxes(mc, r, s, lds[mR + c], wab * lds[mW + c], gr[k], gs[k], gt[k], fr + g, fs + g, ft + g);
            }
        }
    }

    /**
     * Phase 3 for the same points: y(a, b, c) = sum_m D_ma f_r(m, b, c) + D_mb f_s(a, m, c) + D_mc f_t(a, b, m)
     * ({@link #columnDivergence}) + lambda wJ u (|J| computed again, only where lambda is not 0), then y.
     */
    private void pointOutputs(int L0, int base, int mc, int mD, int mR, int mW, int col, int c0, int K) {
        int P = nq;
        int P2 = P * P;
        int P3 = P2 * P;
        int a = col % P;
        int b = col / P;
        columnDivergence(L0 + P3, P, K, dStride, mD, col, c0);
        for (int k = 0; k < K; k++) {
            int c = c0 + k;
            if (c < P) {
                double u = lds[L0 + col + P2 * c];
                double y = gr[k];
                if (lambda != 0) {
                    double w = lds[mW + a] * lds[mW + b] * lds[mW + c];
                    y += lambda * w * jacobianDeterminant(mc, lds[mR + a], lds[mR + b], lds[mR + c]) * u;
                }
                writeY(base + col + P2 * c, y, u);
            }
        }
    }
}
