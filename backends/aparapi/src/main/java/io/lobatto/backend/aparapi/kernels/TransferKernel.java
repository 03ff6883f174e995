package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * The element part of the p-multigrid transfer between the GLL points of degrees Nc &lt; Nf, with the 1D
 * interpolation J ({@code jm}, Nf+1 rows of Nc+1, row-major). {@link #PROLONGATE}: one work-item per fine local
 * node, y_L = W_f (J (x) J (x) J) Z_c x_c with the coarse values read through the coarse scatter ids;
 * {@link #RESTRICT}: one work-item per coarse local node, y_L = (J^T (x) J^T (x) J^T) W_f Z_f r_f with the fine
 * values read through the fine scatter ids. Each work-item sums the full tensor product over its element
 * ((Nc+1)^3 or (Nf+1)^3 terms); the gather Z^T follows as its own launch.
 */
public final class TransferKernel extends Kernel {

    /** y_L(fine) = W_f J Z_c x_c. */
    public static final int PROLONGATE = 0;
    /** y_L(coarse) = J^T W_f Z_f r_f. */
    public static final int RESTRICT = 1;

    @BuildConstant int op;
    /** Nc + 1. */
    @BuildConstant int nc;
    /** Nf + 1. */
    @BuildConstant int nf;

    double[] jm = new double[1];
    int[] ids = new int[1];
    double[] xin = new double[1];
    double[] wf = new double[1];
    double[] yl = new double[1];
    /** Output entries: E (Nf+1)^3 for prolongation, E (Nc+1)^3 for restriction. */
    int n;

    @Override
    public void run() {
        int i = getGlobalId();
        if (i < n) {
            if (op == PROLONGATE) {
                int npf = nf * nf * nf;
                int e = i / npf;
                int p = i - e * npf;
                int a = p % nf;
                int b = (p / nf) % nf;
                int c = p / (nf * nf);
                int base = e * nc * nc * nc;
                double s = 0;
                for (int k = 0; k < nc; k++) {
                    double jc = jm[c * nc + k];
                    for (int jj = 0; jj < nc; jj++) {
                        double jb = jm[b * nc + jj] * jc;
                        for (int ii = 0; ii < nc; ii++) {
                            int id = ids[base + (k * nc + jj) * nc + ii];
                            if (id >= 0) {
                                s += jm[a * nc + ii] * jb * xin[id];
                            }
                        }
                    }
                }
                yl[i] = wf[i] * s;
            } else {
                int npc = nc * nc * nc;
                int e = i / npc;
                int p = i - e * npc;
                int ii = p % nc;
                int jj = (p / nc) % nc;
                int k = p / (nc * nc);
                int base = e * nf * nf * nf;
                double s = 0;
                for (int c = 0; c < nf; c++) {
                    double jc = jm[c * nc + k];
                    for (int b = 0; b < nf; b++) {
                        double jb = jm[b * nc + jj] * jc;
                        for (int a = 0; a < nf; a++) {
                            int node = base + (c * nf + b) * nf + a;
                            int id = ids[node];
                            if (id >= 0) {
                                s += jm[a * nc + ii] * jb * wf[node] * xin[id];
                            }
                        }
                    }
                }
                yl[i] = s;
            }
        }
    }
}
