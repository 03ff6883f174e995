package io.lobatto.backend.aparapi.kernels;

/**
 * CG's whole vector step in one kernel: BS5 of the streaming paper, CG's fused update (hipBone, Algorithm 1), with the
 * search-direction update p = r + beta p folded in. Row by row, r the old residual: p_i = r_i + beta p_i;
 * x_i += alpha p_i; r_i -= alpha Ap_i; and the partial sums of r . r of the updated r, each vector read once. Ap is
 * A (r + beta p), from an operator apply that forms the new direction on the fly without writing it. Each work-item
 * strides over the vectors, then the work-group sums in local memory ({@link GroupSumKernel}: a tree of
 * {@code group} = 2^k work-items) and writes one partial per group, which the host sums in group order: the loop, the
 * tree and the partials of {@link CgUpdateKernel}, with beta the one argument more (p, ap, x, r, partials, alpha, beta,
 * n and the local tree).
 */
public final class CgStepKernel extends GroupSumKernel {

    double[] p = new double[1];
    double[] ap = new double[1];
    double[] x = new double[1];
    double[] r = new double[1];
    double alpha;
    double beta;
    int n;

    @Override
    public void run() {
        int stride = getGlobalSize();
        double s = 0;
        for (int i = getGlobalId(); i < n; i += stride) {
            double pi = r[i] + beta * p[i];
            p[i] = pi;
            x[i] += alpha * pi;
            double ri = r[i] - alpha * ap[i];
            r[i] = ri;
            s += ri * ri;
        }
        writeGroupSum(s);
    }
}
