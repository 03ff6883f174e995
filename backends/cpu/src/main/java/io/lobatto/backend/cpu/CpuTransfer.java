package io.lobatto.backend.cpu;

import io.lobatto.core.backend.DeviceTransfer;
import io.lobatto.core.basis.Basis1D;

/**
 * The p-multigrid transfer in the Java backend: the 1D GLL interpolation J (Nf+1 x Nc+1, row-major) applied element
 * by element as J (x) J (x) J by sum factorisation (three 1D contractions), fused with the coarse scatter and the
 * fine weight W_f (prolongation) or with the fine scatter, W_f and J^T (restriction). The gathers run afterwards in
 * {@link CpuBackend}. Per-worker scratch is allocated once here, so a transfer allocates no arrays.
 */
final class CpuTransfer implements DeviceTransfer {

    final CpuBackend backend;
    private final int nc;
    private final int nf;
    private final int elements;
    /** J_ai, a fine point, i coarse node. */
    private final double[] j;
    private final double[][] scratchA;
    private final double[][] scratchB;
    private final double[][] scratchC;
    private volatile boolean closed;

    CpuTransfer(CpuBackend backend, Basis1D coarse, Basis1D fine, int elements, int threads) {
        this.backend = backend;
        this.nc = coarse.nq();
        this.nf = fine.nq();
        this.elements = elements;
        this.j = Basis1D.interpolationMatrix(coarse.gll().nodes(), fine.gll().nodes());
        this.scratchA = new double[threads][nf * nf * nf];
        this.scratchB = new double[threads][nf * nf * nf];
        this.scratchC = new double[threads][nf * nf * nf];
    }

    int coarseNp() {
        return nc * nc * nc;
    }

    int fineNp() {
        return nf * nf * nf;
    }

    /**
     * workF = W_f o (J (x) J (x) J) Z_c x_c for elements [from, to): the coarse values read through {@code idsC},
     * interpolated, weighted by {@code wF} (0 at masked fine nodes).
     */
    void prolongateElements(int worker, int from, int to, int[] idsC, double[] xc, double[] wF, double[] workF) {
        double[] u = scratchA[worker], t1 = scratchB[worker], t2 = scratchC[worker];
        int npc = nc * nc * nc, npf = nf * nf * nf;
        for (int e = from; e < to; e++) {
            int bc = e * npc;
            for (int p = 0; p < npc; p++) {
                int id = idsC[bc + p];
                u[p] = id < 0 ? 0.0 : xc[id];
            }
            // i direction: t1[k][j][a] = sum_i J[a][i] u[k][j][i]
            for (int kj = 0; kj < nc * nc; kj++) {
                for (int a = 0; a < nf; a++) {
                    double s = 0;
                    for (int i = 0; i < nc; i++) {
                        s += j[a * nc + i] * u[kj * nc + i];
                    }
                    t1[kj * nf + a] = s;
                }
            }
            // j direction: t2[k][b][a] = sum_j J[b][j] t1[k][j][a] (inner loop over a, contiguous)
            java.util.Arrays.fill(t2, 0, nc * nf * nf, 0.0);
            for (int k = 0; k < nc; k++) {
                for (int b = 0; b < nf; b++) {
                    int out = (k * nf + b) * nf;
                    for (int jj = 0; jj < nc; jj++) {
                        double jb = j[b * nc + jj];
                        int in = (k * nc + jj) * nf;
                        for (int a = 0; a < nf; a++) {
                            t2[out + a] += jb * t1[in + a];
                        }
                    }
                }
            }
            // k direction, times W_f: out[c][b][a] = W_f sum_k J[c][k] t2[k][b][a] (inner loop over ba, contiguous)
            int bf = e * npf;
            int plane = nf * nf;
            for (int c = 0; c < nf; c++) {
                int out = bf + c * plane;
                double jc0 = j[c * nc];
                for (int ba = 0; ba < plane; ba++) {
                    workF[out + ba] = jc0 * t2[ba];
                }
                for (int k = 1; k < nc; k++) {
                    double jc = j[c * nc + k];
                    int in = k * plane;
                    for (int ba = 0; ba < plane; ba++) {
                        workF[out + ba] += jc * t2[in + ba];
                    }
                }
                for (int ba = 0; ba < plane; ba++) {
                    workF[out + ba] *= wF[out + ba];
                }
            }
        }
    }

    /** workC = (J^T (x) J^T (x) J^T) W_f Z_f r_f for elements [from, to). */
    void restrictElements(int worker, int from, int to, int[] idsF, double[] rf, double[] wF, double[] workC) {
        double[] u = scratchA[worker], t1 = scratchB[worker], t2 = scratchC[worker];
        int npc = nc * nc * nc, npf = nf * nf * nf;
        for (int e = from; e < to; e++) {
            int bf = e * npf;
            for (int p = 0; p < npf; p++) {
                int id = idsF[bf + p];
                u[p] = id < 0 ? 0.0 : wF[bf + p] * rf[id];
            }
            // k direction: t1[k][b][a] = sum_c J[c][k] u[c][b][a] (inner loop over ba, contiguous)
            int plane = nf * nf;
            java.util.Arrays.fill(t1, 0, nc * plane, 0.0);
            for (int k = 0; k < nc; k++) {
                int out = k * plane;
                for (int c = 0; c < nf; c++) {
                    double jc = j[c * nc + k];
                    int in = c * plane;
                    for (int ba = 0; ba < plane; ba++) {
                        t1[out + ba] += jc * u[in + ba];
                    }
                }
            }
            // j direction: t2[k][j][a] = sum_b J[b][j] t1[k][b][a] (inner loop over a, contiguous)
            java.util.Arrays.fill(t2, 0, nc * nc * nf, 0.0);
            for (int k = 0; k < nc; k++) {
                for (int jj = 0; jj < nc; jj++) {
                    int out = (k * nc + jj) * nf;
                    for (int b = 0; b < nf; b++) {
                        double jb = j[b * nc + jj];
                        int in = (k * nf + b) * nf;
                        for (int a = 0; a < nf; a++) {
                            t2[out + a] += jb * t1[in + a];
                        }
                    }
                }
            }
            // i direction: out[k][j][i] = sum_a J[a][i] t2[k][j][a]
            int bc = e * npc;
            for (int kj = 0; kj < nc * nc; kj++) {
                for (int i = 0; i < nc; i++) {
                    double s = 0;
                    for (int a = 0; a < nf; a++) {
                        s += j[a * nc + i] * t2[kj * nf + a];
                    }
                    workC[bc + kj * nc + i] = s;
                }
            }
        }
    }

    @Override
    public int coarseDegree() {
        return nc - 1;
    }

    @Override
    public int fineDegree() {
        return nf - 1;
    }

    @Override
    public int elements() {
        return elements;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public String toString() {
        return "CpuTransfer[Nc=" + (nc - 1) + ", Nf=" + (nf - 1) + ", E=" + elements + (closed ? ", closed]" : "]");
    }
}
