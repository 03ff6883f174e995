package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * BS5 of the streaming paper, CG's fused update (hipBone, Algorithm 1), in a kernel of its own: x += alpha p,
 * r -= alpha Ap, and the partial sums of r . r. Each work-item strides over the vectors, then the work-group sums in
 * local memory (a tree of {@code group} = 2^k work-items) and writes one partial per group, which the host sums in
 * group order: the loop, the tree and the partials of {@link ReductionKernel#CG_UPDATE}, whose x, r and sums it gives
 * bit for bit, with only the arguments the update reads (p, ap, x, r, partials, alpha, n and the local tree) where the
 * general kernel takes thirteen. The backend launches it for every update that leaves no rows out of r . r
 * ({@link ReductionKernel} keeps the ranks' owned sums).
 */
public final class CgUpdateKernel extends Kernel {

    /** Work-items per group, a power of two. */
    @BuildConstant int group;

    double[] p = new double[1];
    double[] ap = new double[1];
    double[] x = new double[1];
    double[] r = new double[1];
    double[] partials = new double[1];
    double alpha;
    int n;
    @Local double[] lds = new double[1];

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
        int lid = getLocalId();
        lds[lid] = s;
        localBarrier();
        for (int h = group / 2; h > 0; h = h / 2) {
            if (lid < h) {
                lds[lid] = lds[lid] + lds[lid + h];
            }
            localBarrier();
        }
        if (lid == 0) {
            partials[getGroupId()] = lds[0];
        }
    }
}
