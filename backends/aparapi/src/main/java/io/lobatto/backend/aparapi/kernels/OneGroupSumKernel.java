package io.lobatto.backend.aparapi.kernels;

/**
 * The end of a reduction in one work-group (hipBone's Algorithm 1 takes CG's scalars so): each work-item adds every
 * group-th of the n terms, the group sums them in {@link GroupSumKernel}'s tree, and every work-item gets the sum. The
 * scalar kernels of CG on the device ({@link CgAlphaKernel}, {@link CgBetaKernel}) start so.
 */
public abstract class OneGroupSumKernel extends GroupSumKernel {

    /** The terms to sum: partials of the kernel before. */
    double[] terms = new double[1];
    /** How many terms. */
    int n;

    /** The sum of the n terms (every work-item of the one group must call it; work-item 0 also writes partials[0]). */
    protected final double sumTerms() {
        double s = 0;
        for (int i = getLocalId(); i < n; i += group) {
            s += terms[i];
        }
        writeGroupSum(s);
        return lds[0];
    }
}
