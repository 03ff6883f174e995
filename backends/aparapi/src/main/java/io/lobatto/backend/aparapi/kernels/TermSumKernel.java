package io.lobatto.backend.aparapi.kernels;

/**
 * The first stage of a long sum on the device (the streaming paper's BS4 without the product): each work-item adds every
 * (global size)-th of the n terms, each work-group sums its work-items in {@link GroupSumKernel}'s tree and writes one
 * partial. {@link CgAlphaKernel} (one group) then sums those partials: where the element kernel leaves 10^4-10^5 partials
 * of p . A p (low degrees, many work-groups), one group alone reads them at a single multiprocessor's bandwidth.
 */
public final class TermSumKernel extends GroupSumKernel {

    /** The terms to sum. */
    double[] terms = new double[1];
    int n;

    @Override
    public void run() {
        int stride = getGlobalSize();
        double s = 0;
        for (int i = getGlobalId(); i < n; i += stride) {
            s += terms[i];
        }
        writeGroupSum(s);
    }
}
