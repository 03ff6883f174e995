package io.lobatto.backend.aparapi.kernels;

/**
 * BS3 and BS4 of the streaming paper in a kernel of their own: the partial sums of x . y (norm² with y = x). Each
 * work-item strides over the vectors, then the work-group sums in local memory ({@link GroupSumKernel}: a tree of
 * {@code group} = 2^k work-items) and writes one partial per group, which the host sums in group order: the loop, the
 * tree and the partials of {@link ReductionKernel#DOT}, whose sums it gives bit for bit, with only the arguments x . y
 * reads (x, y, partials, n and the local tree) where the general kernel takes thirteen. The backend launches it for
 * every dot that leaves no rows out of its sum ({@link ReductionKernel} keeps the ranks' owned sums).
 */
public final class DotKernel extends GroupSumKernel {

    double[] x = new double[1];
    double[] y = new double[1];
    int n;

    @Override
    public void run() {
        int stride = getGlobalSize();
        double s = 0;
        for (int i = getGlobalId(); i < n; i += stride) {
            s += x[i] * y[i];
        }
        writeGroupSum(s);
    }
}
