package io.lobatto.backend.aparapi.kernels;

/**
 * The diagonal of BP3.5's element matrices S^e + lambda M^e (GLL collocation), one work-item per node
 * i = e Nq^3 + (a + Nq (b + Nq c)), as {@link io.lobatto.core.backend.ElementMatrixDiagonal}'s collocated formula,
 * terms and sums in its order:
 * diag = sum_a D_ai^2 G00_ajk + sum_b D_bj^2 G11_ibk + sum_c D_ck^2 G22_ijc + 2 D_jj (D_ii G01) + 2 D_kk (D_ii G02)
 * + 2 D_kk (D_jj G12) + lambda wJ. The factors are the element kernel's buffers ([E][Nq^3] each); {@code mats} holds
 * D o D then D (Nq x Nq each). Nq is an argument, not a build constant: one program serves every p-multigrid level (a
 * setup kernel that runs once per level; on a cold start each program compiled is on the critical path).
 */
public final class DiagonalBp35Kernel extends BlockedFactorsKernel {

    /** GLL points per direction Nq. */
    int nq;

    double[] G00 = new double[1];
    double[] G01 = new double[1];
    double[] G02 = new double[1];
    double[] G11 = new double[1];
    double[] G12 = new double[1];
    double[] G22 = new double[1];
    double[] wJ = new double[1];
    double[] mats = new double[1];
    double[] y = new double[1];
    double lambda;
    /** E Nq^3. */
    int n;
    /** Elements per block of the factors' layout (0: element-major; see FactorLayout). */
    int block;

    @Override
    public void run() {
        int g = getGlobalId();
        if (g < n) {
            int Q = nq;
            int Q2 = Q * Q;
            int np = Q2 * Q;
            int e = g / np;
            int p = g - e * np;
            int i = p % Q;
            int j = (p / Q) % Q;
            int k = p / Q2;
            int md = Q2;
            double s0 = 0;
            double s1 = 0;
            double s2 = 0;
            for (int a = 0; a < Q; a++) {
                s0 += mats[a * Q + i] * G00[blockedIndex(e, a + Q * (j + Q * k), Q, block)];
            }
            for (int b = 0; b < Q; b++) {
                s1 += mats[b * Q + j] * G11[blockedIndex(e, i + Q * (b + Q * k), Q, block)];
            }
            for (int c = 0; c < Q; c++) {
                s2 += mats[c * Q + k] * G22[blockedIndex(e, i + Q * (j + Q * c), Q, block)];
            }
            double dii = mats[md + i * Q + i];
            double djj = mats[md + j * Q + j];
            double dkk = mats[md + k * Q + k];
            double acc = 0;
            acc += 1 * s0;
            acc += 1 * s1;
            acc += 1 * s2;
            int h = blockedIndex(e, p, Q, block);
            acc += 2 * (djj * (dii * G01[h]));
            acc += 2 * (dkk * (dii * G02[h]));
            acc += 2 * (dkk * (djj * G12[h]));
            if (lambda != 0) {
                acc += lambda * wJ[h];
            }
            y[g] = acc;
        }
    }
}
