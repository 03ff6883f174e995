package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * What the fused Schwarz local solves read and write, y_e = W_e (V_t (x) V_s (x) V_r) D_e^-1 (V_t (x) V_s (x) V_r)^T
 * (Z_ext x_G)_e: the table of distinct 1D eigenproblems (V, lambda) with each element's line per direction, the input
 * x_G read through the extended scatter ids, the RAS weights and the output. {@link FdmElementKernel} (a work-item per
 * point) and {@link FdmLinesKernel} (a work-item per line) fix the thread structure.
 */
public abstract class FdmOperands extends Kernel {

    /** n, the 1D points of a block. */
    @BuildConstant int nb;

    /** Eigenvectors of the distinct 1D problems [L][n][n] (V[a][i], node a of eigenvector i). */
    double[] vm = new double[1];
    /** Their eigenvalues [L][n]. */
    double[] lm = new double[1];
    /** [E][3]: the line of element e in direction d. */
    int[] lines = new int[1];
    /** The assembled input x_G. */
    double[] x = new double[1];
    /** The extended scatter ids [E][n^3] (-1: no unknown). */
    int[] ids = new int[1];
    /** The RAS weights: [E][n^3] when {@code weighted} is 1, [E][(n-2)^3] when 2. */
    double[] w = new double[1];
    /** The output: [E][n^3], or [E][(n-2)^3] when {@code weighted} is 2. */
    double[] y = new double[1];
    /**
     * 0: write the block (additive Schwarz); 1: the block times {@code w} (restricted); 2: the inner points times
     * {@code w}, in the element's own layout (restricted, summed by the mesh's gather). One kernel serves all three.
     */
    int weighted;
    @Local double[] lds = new double[1];
}
