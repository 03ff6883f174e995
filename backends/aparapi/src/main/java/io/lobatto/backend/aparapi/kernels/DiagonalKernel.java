package io.lobatto.backend.aparapi.kernels;

import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * The diagonal of the element matrices of BP1.0 (M^e) and BP3.0 (S^e + lambda M^e) at the P = Nq + 1 Gauss points, as
 * {@link io.lobatto.core.backend.ElementMatrixDiagonal} computes it: a sum of separable contractions
 * C(F; A1, A2, A3)_ijk = sum_abc A1[a][i] A2[b][j] A3[c][k] F_abc of one factor F each, with the squared and mixed 1D
 * matrices pp = I o I, bb = B o B, pb = I o B (B = D~ I), terms in its order (term 0..5: G00 (bb, pp, pp), G11
 * (pp, bb, pp), G22 (pp, pp, bb), 2 G01 (pb, pb, pp), 2 G02 (pb, pp, pb), 2 G12 (pp, pb, pb); term 6: scale wJ
 * (pp, pp, pp)); each contraction in three sum-factorised stages, one output per work-item, the stages' grids t1
 * (Nq P^2) and t2 (Nq^2 P) in local memory or, with {@link #globalGrids}, in the global scratch {@link #scr}. The
 * launch runs terms {@code first} .. {@code last - 1}; y_L accumulates in place, each node owned by one work-item.
 * A group holds {@link #elemsPerGroup} elements of {@link #threadsPerElem} work-items; the matrices pp, bb, pb
 * (P x Nq each) are staged at {@link #ldsMat}.
 */
public final class DiagonalKernel extends BlockedFactorsKernel {

    /** GLL points per direction Nq. */
    @BuildConstant int nq;
    /** Gauss points per direction P. */
    @BuildConstant int pts;
    @BuildConstant int elemsPerGroup;
    @BuildConstant int threadsPerElem;
    /** Doubles per element region (t1, t2). */
    @BuildConstant int perElem;
    @BuildConstant int ldsMat;
    @BuildConstant int globalGrids;

    double[] G00 = new double[1];
    double[] G01 = new double[1];
    double[] G02 = new double[1];
    double[] G11 = new double[1];
    double[] G12 = new double[1];
    double[] G22 = new double[1];
    double[] wJ = new double[1];
    /** pp, bb, pb, each P x Nq row-major. */
    double[] mats = new double[1];
    double[] y = new double[1];
    double[] scr = new double[1];
    /** The factor of term 6: lambda (BP3.0) or 1 (BP1.0). */
    double scale;
    int first;
    int last;
    int elems;
    int e0;
    /** Elements per block of the factors' layout (0: element-major; see FactorLayout). */
    int block;
    @Local double[] lds = new double[1];

    @Override
    public void run() {
        int lid = getLocalId();
        int T = threadsPerElem;
        int le = lid / T;
        int t = lid - le * T;
        int slot = getGroupId() * elemsPerGroup + le;
        int e = e0 + slot;
        int valid = 0;
        if (le < elemsPerGroup && e < elems) {
            valid = 1;
        }
        int Q = nq;
        int M = pts;
        int np = Q * Q * Q;
        int L0 = le * perElem;
        if (globalGrids == 1) {
            L0 = slot * perElem;
        }
        int g2 = L0 + Q * M * M;
        int nm = 3 * M * Q;
        for (int i = lid; i < nm; i += getLocalSize()) {
            lds[ldsMat + i] = mats[i];
        }
        if (valid == 1) {
            for (int o = t; o < np; o += T) {
                y[e * np + o] = 0;
            }
        }
        localBarrier();
        for (int term = first; term < last; term++) {
            double f = 1;
            if (term >= 3) {
                f = 2;
            }
            if (term == 6) {
                f = scale;
            }
            for (int stage = 0; stage < 3; stage++) {
                contract(term, stage, f, e, valid, t, T, L0, g2);
            }
        }
    }

    /** Stage {@code stage} of term {@code term}'s contraction (see the class comment), then a barrier. */
    private void contract(int term, int stage, double f, int e, int valid, int t, int T, int L0, int g2) {
        int Q = nq;
        int M = pts;
        int mp = M * M * M;
        int count = Q * M * M;
        if (stage == 1) {
            count = Q * Q * M;
        } else if (stage == 2) {
            count = Q * Q * Q;
        }
        int A = ldsMat + matrix(term, stage) * M * Q;
        if (valid == 1) {
            for (int o = t; o < count; o += T) {
                double s = 0;
                if (stage == 0) {
                    int i = o % Q;
                    int bc = o / Q;
                    for (int a = 0; a < M; a++) {
                        s += lds[A + a * Q + i] * factor(term, blockedIndex(e, a + M * bc, M, block));
                    }
                    put(L0 + o, s);
                } else if (stage == 1) {
                    int i = o % Q;
                    int j = (o / Q) % Q;
                    int c = o / (Q * Q);
                    for (int b = 0; b < M; b++) {
                        s += lds[A + b * Q + j] * get(L0 + i + Q * (b + M * c));
                    }
                    put(g2 + o, s);
                } else {
                    int ij = o % (Q * Q);
                    int k = o / (Q * Q);
                    for (int c = 0; c < M; c++) {
                        s += lds[A + c * Q + k] * get(g2 + ij + Q * Q * c);
                    }
                    y[e * Q * Q * Q + o] = y[e * Q * Q * Q + o] + f * s;
                }
            }
        }
        localBarrier();
    }

    /** The 1D matrix of stage {@code stage} of term {@code term}: 0 pp, 1 bb, 2 pb. */
    private int matrix(int term, int stage) {
        int m = 0;
        if (term == stage) {
            m = 1;
        } else if (term == 3) {
            if (stage < 2) {
                m = 2;
            }
        } else if (term == 4) {
            if (stage != 1) {
                m = 2;
            }
        } else if (term == 5) {
            if (stage > 0) {
                m = 2;
            }
        }
        return m;
    }

    /** The factor of term {@code term} at index i of its buffer. */
    private double factor(int term, int i) {
        double v = 0;
        if (term == 0) {
            v = G00[i];
        } else if (term == 1) {
            v = G11[i];
        } else if (term == 2) {
            v = G22[i];
        } else if (term == 3) {
            v = G01[i];
        } else if (term == 4) {
            v = G02[i];
        } else if (term == 5) {
            v = G12[i];
        } else {
            v = wJ[i];
        }
        return v;
    }

    private double get(int i) {
        double v = 0;
        if (globalGrids == 1) {
            v = scr[i];
        } else {
            v = lds[i];
        }
        return v;
    }

    private void put(int i, double v) {
        if (globalGrids == 1) {
            scr[i] = v;
        } else {
            lds[i] = v;
        }
    }
}
