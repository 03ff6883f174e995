package io.lobatto.backend.aparapi.kernels;

import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * The register thread structure of the tensor paper's fastest kernels, shared by BP1.0, BP3.5 and BP3.0:
 * <ul>
 * <li><b>Line stages</b> (BP1.0 Kernels 7-8): the element's P^3 grid (P = Nq + 1 GL points) lives in local
 * memory, index a + SA (b + P c) with SA odd against bank conflicts; in each sum-factorisation stage a
 * work-item reads whole lines of one direction into registers, contracts them with I (the same entry for
 * every work-item: broadcast reads) and writes them back in place, so a stage needs one barrier, not one
 * per layer. Lines along t come from and go to global memory directly, coalesced over (i, j).</li>
 * <li><b>Column stiffness</b> (BP3.5 Kernel 10): work-item (i, j) holds its column u(i, j, .) and its output
 * column in registers and walks the layers k: the layer goes through local memory for the r- and
 * s-derivatives, the t-derivative and D^T along t stay in registers, the geometric factors are read once,
 * and the r/s fluxes go through two local layers for D^T. Three P x S layers per element, S odd; two
 * barriers per layer.</li>
 * </ul>
 * Every index into a register array is a loop variable of a loop with a compile-time trip count, so the
 * arrays stay in registers once the compiler unrolls those loops; no register array is indexed by the
 * rolled layer loop (NVIDIA's compiler kept BP3.5's arrays in a 416-byte stack frame while one was, commit
 * 5f621a7, and BK5 ran at 0.54 of the roofline at N = 7 instead of 0.82 without it, commit e1265a1).
 */
public abstract class RegisterKernelBase extends ElementOperands {

    /** Points per direction of the grid the stiffness works on and of the GL stages: Nq (BP3.5) or Nq + 1. */
    @BuildConstant int pts;
    /** Work-items per element. */
    @BuildConstant int threadsPerElem;
    /**
     * Lines per work-item in a stage, ceil(P^2 / threadsPerElem): 1 but for BP1.0 at N = 15. A loop with
     * this compile-time trip count, not a stride loop over the lines, so the compiler sees one pass and
     * does not hoist all P x Nq entries of I out of it into registers.
     */
    @BuildConstant int rounds;
    /** Stride of b in the local P^3 grid: P, or P + 1 when P is even. */
    @BuildConstant int strideA;
    /** Row stride of the local layers of the column stiffness and of D: P, or P + 1 when P is even. */
    @BuildConstant int stride;

    /** A line of a stage, or the column u(i, j, .) of the stiffness. */
    @PrivateMemorySpace(17) double[] colU = new double[17];
    /** The other side of a stage, or the output column of the stiffness. */
    @PrivateMemorySpace(17) double[] colY = new double[17];
    /**
     * 1 where BP3.5's register columns keep the scatter ids of their column ({@link #colId}) from the read of u to the
     * atomic adds of y (no second read of them, no wait on it before the adds); else 0.
     */
    @BuildConstant int keepIds;
    /** The scatter ids of the column u(i, j, .) ({@link #keepIds}). */
    @PrivateMemorySpace(17) int[] colId = new int[17];

    /** Copies the P x Q matrix I into local memory at mI (row-major, no padding: every read is a broadcast). */
    protected final void stageI(int mI) {
        for (int n = getLocalId(); n < pts * nq; n += getLocalSize()) {
            lds[mI + n] = matI[n];
        }
    }

    /** Copies the P x P matrix D into local memory at mD with row stride {@link #stride}. */
    protected final void stageD(int mD) {
        int P = pts;
        for (int n = getLocalId(); n < P * P; n += getLocalSize()) {
            lds[mD + (n / P) * stride + n % P] = matD[n];
        }
    }

    /**
     * The GLL -> GL stages t, s and r of the element's grid at {@code grid}, each followed by a barrier
     * (every work-item of the group calls it; {@code valid} = 0 for the slots past the last element);
     * {@code massBack} as in {@link #interpolateR}.
     */
    protected final void interpolateStages(int e, int grid, int mI, int t, int valid, int massBack) {
        if (valid == 1) {
            interpolateT(e, grid, mI, t);
        }
        localBarrier();
        if (valid == 1) {
            interpolateS(grid, mI, t);
        }
        localBarrier();
        if (valid == 1) {
            interpolateR(e, grid, mI, t, massBack);
        }
        localBarrier();
    }

    /**
     * The GL -> GLL stages back to y_L of element e: r (when {@code withR} = 1; BP1.0 projected r already),
     * s and t, with a barrier before each of s and t.
     */
    protected final void projectStages(int e, int grid, int mI, int t, int valid, int withR) {
        if (withR == 1) {
            if (valid == 1) {
                projectR(grid, mI, t);
            }
            localBarrier();
        }
        if (valid == 1) {
            projectS(grid, mI, t);
        }
        localBarrier();
        if (valid == 1) {
            projectT(e, grid, mI, t);
        }
    }

    /** Stage t, GLL -> GL: column u(i, j, 0..Nq-1) of element e from the input, I along t into layers c of the grid. */
    protected final void interpolateT(int e, int grid, int mI, int t) {
        int Q = nq;
        int P = pts;
        int SA = strideA;
        for (int r = 0; r < rounds; r++) {
            int l = t + r * threadsPerElem;
            if (l < Q * Q) {
                for (int k = 0; k < Q; k++) {
                    colU[k] = readU(e * Q * Q * Q + l + Q * Q * k);
                }
                int at = grid + l % Q + SA * (l / Q);
                for (int c = 0; c < P; c++) {
                    double s = 0;
                    for (int k = 0; k < Q; k++) {
                        s += lds[mI + c * Q + k] * colU[k];
                    }
                    lds[at + SA * P * c] = s;
                }
            }
        }
    }

    /** Stage s, GLL -> GL: lines (i, c) along b, Nq -> P values, in place. */
    protected final void interpolateS(int grid, int mI, int t) {
        int Q = nq;
        int P = pts;
        int SA = strideA;
        for (int r = 0; r < rounds; r++) {
            int l = t + r * threadsPerElem;
            if (l < Q * P) {
                int at = grid + l % Q + SA * P * (l / Q);
                for (int m = 0; m < Q; m++) {
                    colU[m] = lds[at + SA * m];
                }
                for (int b = 0; b < P; b++) {
                    double s = 0;
                    for (int m = 0; m < Q; m++) {
                        s += lds[mI + b * Q + m] * colU[m];
                    }
                    lds[at + SA * b] = s;
                }
            }
        }
    }

    /**
     * Stage r on lines (b, c) along a: I (Nq -> P values), then with {@code massBack} = 1 the product with wJ of
     * element e and I^T back to Nq values (BP1.0's whole r-direction in registers), else the P values.
     */
    protected final void interpolateR(int e, int grid, int mI, int t, int massBack) {
        int Q = nq;
        int P = pts;
        int SA = strideA;
        for (int r = 0; r < rounds; r++) {
            int l = t + r * threadsPerElem;
            if (l < P * P) {
                int at = grid + SA * l;
                int g = e * P * P * P + P * l;
                for (int m = 0; m < Q; m++) {
                    colU[m] = lds[at + m];
                }
                for (int a = 0; a < P; a++) {
                    double s = 0;
                    for (int m = 0; m < Q; m++) {
                        s += lds[mI + a * Q + m] * colU[m];
                    }
                    colY[a] = s;
                }
                if (massBack == 1) {
                    for (int a = 0; a < P; a++) {
                        colY[a] = colY[a] * wJ[g + a];
                    }
                    for (int m = 0; m < Q; m++) {
                        double s = 0;
                        for (int a = 0; a < P; a++) {
                            s += lds[mI + a * Q + m] * colY[a];
                        }
                        lds[at + m] = s;
                    }
                } else {
                    for (int a = 0; a < P; a++) {
                        lds[at + a] = colY[a];
                    }
                }
            }
        }
    }

    /** Stage r back, GL -> GLL: lines (b, c) along a, P -> Nq values with I^T, in place. */
    protected final void projectR(int grid, int mI, int t) {
        int Q = nq;
        int P = pts;
        int SA = strideA;
        for (int r = 0; r < rounds; r++) {
            int l = t + r * threadsPerElem;
            if (l < P * P) {
                int at = grid + SA * l;
                for (int a = 0; a < P; a++) {
                    colY[a] = lds[at + a];
                }
                for (int m = 0; m < Q; m++) {
                    double s = 0;
                    for (int a = 0; a < P; a++) {
                        s += lds[mI + a * Q + m] * colY[a];
                    }
                    lds[at + m] = s;
                }
            }
        }
    }

    /** Stage s back, GL -> GLL: lines (i, c) along b, P -> Nq values with I^T, in place. */
    protected final void projectS(int grid, int mI, int t) {
        int Q = nq;
        int P = pts;
        int SA = strideA;
        for (int r = 0; r < rounds; r++) {
            int l = t + r * threadsPerElem;
            if (l < Q * P) {
                int at = grid + l % Q + SA * P * (l / Q);
                for (int b = 0; b < P; b++) {
                    colY[b] = lds[at + SA * b];
                }
                for (int m = 0; m < Q; m++) {
                    double s = 0;
                    for (int b = 0; b < P; b++) {
                        s += lds[mI + b * Q + m] * colY[b];
                    }
                    lds[at + SA * m] = s;
                }
            }
        }
    }

    /** Stage t back, GL -> GLL: the P layers of column (i, j) projected with I^T and written to y_L of element e. */
    protected final void projectT(int e, int grid, int mI, int t) {
        int Q = nq;
        int P = pts;
        int SA = strideA;
        for (int r = 0; r < rounds; r++) {
            int l = t + r * threadsPerElem;
            if (l < Q * Q) {
                int at = grid + l % Q + SA * (l / Q);
                for (int c = 0; c < P; c++) {
                    colY[c] = lds[at + SA * P * c];
                }
                for (int k = 0; k < Q; k++) {
                    double s = 0;
                    for (int c = 0; c < P; c++) {
                        s += lds[mI + c * Q + k] * colY[c];
                    }
                    int li = e * Q * Q * Q + l + Q * Q * k;
                    double u = 0;
                    if (fromGlobal >= 1) {
                        u = readU(li);
                    }
                    writeY(li, s, u);
                }
            }
        }
    }

    /**
     * The column stiffness on a P^3 grid: colY + the column at (col, col + cs, ...) = (D^T G D + lambda wJ) u for
     * column t = (i, j) of element e. On entry colU holds u(i, j, .) and so does the work-item's own column of
     * local memory at col with stride cs (no other work-item touches it); on return that column holds each
     * layer's r/s divergence and mass term, and colY the t-part, so the result at layer k is their sum. The
     * factors of point (i, j, k) are at e P^3 + t + P^2 k. The layers sq, sq + P S, sq + 2 P S hold the
     * element's u layer and its r- and s-fluxes, D is at mD. Every work-item of the group calls it
     * (barriers); {@code valid} = 0 for the slots past the last element. No register array is indexed by the
     * layer k, which the compiler cannot unroll (it holds barriers).
     */
    protected final void stiffnessColumns(int e, int t, int valid, int sq, int mD, int col, int cs) {
        int P = pts;
        int P2 = P * P;
        int S = stride;
        int i = t % P;
        int j = t / P;
        int sgr = sq + P * S;
        int sgs = sgr + P * S;
        int base = e * P2 * P + t;
        for (int k = 0; k < P; k++) {
            colY[k] = 0;
        }
        for (int k = 0; k < P; k++) {
            double uk = lds[col + cs * k];
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
                int g = base + P2 * k;
                double g01 = G01[g];
                double g02 = G02[g];
                double g12 = G12[g];
                lds[sgr + j * S + i] = G00[g] * qr + g01 * qs + g02 * qt;
                lds[sgs + j * S + i] = g01 * qr + G11[g] * qs + g12 * qt;
                gqt = g02 * qr + g12 * qs + G22[g] * qt;
                mass = lambda * wJ[g] * uk;
            }
            localBarrier();
            double div = mass;
            for (int m = 0; m < P; m++) {
                div += lds[mD + m * S + i] * lds[sgr + j * S + m] + lds[mD + m * S + j] * lds[sgs + m * S + i];
            }
            lds[col + cs * k] = div;
            // D^T along t: the t-flux of layer k feeds every point of the column
            for (int m = 0; m < P; m++) {
                colY[m] += lds[mD + k * S + m] * gqt;
            }
        }
    }
}
