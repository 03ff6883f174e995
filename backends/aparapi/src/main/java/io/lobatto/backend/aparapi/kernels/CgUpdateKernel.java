package io.lobatto.backend.aparapi.kernels;

/**
 * BS5 of the streaming paper, CG's fused update (hipBone, Algorithm 1), in a kernel of its own: x += alpha p,
 * r -= alpha Ap, and the partial sums of r . r. Each work-item strides over the vectors, then the work-group sums in
 * local memory ({@link GroupSumKernel}: a tree of {@code group} = 2^k work-items) and writes one partial per group,
 * which the host sums in group order: the loop, the tree and the partials of {@link ReductionKernel#CG_UPDATE}, whose
 * x, r and sums it gives bit for bit, with only the arguments the update reads (p, ap, x, r, partials, alpha, n and the
 * local tree) where the general kernel takes thirteen. The backend launches it for every update that leaves no rows
 * out of r . r ({@link ReductionKernel} keeps the ranks' owned sums).
 */
public final class CgUpdateKernel extends GroupSumKernel {

    double[] p = new double[1];
    double[] ap = new double[1];
    double[] x = new double[1];
    double[] r = new double[1];
    double alpha;
    int n;

    @Override
    public void run() {
        int stride = getGlobalSize();
        double s = 0;
        for (int i = getGlobalId(); i < n; i += stride) {
            x[i] += alpha * p[i];
            double ri = r[i] - alpha * ap[i];
            r[i] = ri;
            s += ri * ri;
        }
        writeGroupSum(s);
    }
}
