package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * The work-group sum that ends the streaming paper's reductions BS3-BS5 (hipBone's Algorithm 1 takes its dots this way)
 * in a kernel of their own ({@link DotKernel}, {@link CgUpdateKernel}, {@link CgStepKernel}): each work-item's sum s
 * goes into local memory, the work-group adds them in a tree of {@code group} = 2^k work-items, and work-item 0 writes
 * the group's partial, which the host adds in group order. The tree and the partial index are {@link ReductionKernel}'s,
 * so a kernel that computes each work-item's s as that kernel does gives its partials bit for bit.
 */
public abstract class GroupSumKernel extends Kernel {

    /** Work-items per group, a power of two. */
    @BuildConstant int group;

    /** One partial sum per work-group. */
    double[] partials = new double[1];
    /** The tree, one double per work-item. */
    @Local double[] lds = new double[1];

    /** Adds s over the work-group and writes the sum to partials[group id] (all work-items must call it). */
    protected final void writeGroupSum(double s) {
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
