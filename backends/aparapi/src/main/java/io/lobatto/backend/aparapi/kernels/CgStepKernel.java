package io.lobatto.backend.aparapi.kernels;

import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * CG's whole vector step in one kernel: BS5 of the streaming paper, CG's fused update (hipBone, Algorithm 1), with the
 * search-direction update p = r + beta p folded in. Row by row, r the old residual: p_i = r_i + beta p_i;
 * x_i += alpha p_i; r_i -= alpha Ap_i; and the partial sums of r . r of the updated r, each vector read once. Ap is
 * A (r + beta p), from an operator apply that forms the new direction on the fly without writing it. Each work-item
 * strides over the vectors, then the work-group sums in local memory ({@link GroupSumKernel}: a tree of
 * {@code group} = 2^k work-items) and writes one partial per group, which the host sums in group order: the loop, the
 * tree and the partials of {@link CgUpdateKernel}, with beta the one argument more (p, ap, x, r, partials, alpha, beta,
 * n and the local tree). With {@link #onDevice} = 1 it is the last launch of CG's iteration on the device: alpha is
 * read from {@code scalars[1]} ({@link CgAlphaKernel} wrote it there), Ap is left zero for the next atomic apply, and
 * the first work-item copies p . A p ({@code scalars[0]}) after the groups' partials, so that one read-back brings the
 * host both. With {@link #onDevice} = 2 (CG's iterations queued) alpha, beta and pending are all read from
 * {@code scalars} ({@link ElementOperands#CG_ALPHA}, {@link ElementOperands#CG_BETA}, {@link ElementOperands#CG_PENDING})
 * and {@link CgBetaKernel} follows, summing the partials on the device.
 */
public final class CgStepKernel extends GroupSumKernel {

    /**
     * 1: alpha from {@link #scalars}, Ap zeroed, p . A p after the partials; 2: alpha, beta and pending from
     * {@link #scalars}, Ap zeroed; 0: alpha and beta the arguments.
     */
    @BuildConstant int onDevice;
    /**
     * x's update: 0, x += alpha p (p the new direction); 1, none (deferred to the next step); 2, x += pending p_old +
     * alpha p, the deferred update of the step before (pending its alpha, p_old its direction, read here anyway) with
     * this one's. Over two steps x then moves once instead of twice: 8 bytes per row and step fewer.
     */
    @BuildConstant int xMode;

    double[] p = new double[1];
    double[] ap = new double[1];
    double[] x = new double[1];
    double[] r = new double[1];
    /** {@link #onDevice}: p . A p and alpha. */
    double[] scalars = new double[1];
    double alpha;
    double beta;
    /** {@link #xMode} 2: the deferred step's alpha. */
    double pending;
    int n;

    @Override
    public void run() {
        int stride = getGlobalSize();
        double a = alpha;
        double b = beta;
        double pend = pending;
        if (onDevice >= 1) {
            a = scalars[ElementOperands.CG_ALPHA];
        }
        if (onDevice == 2) {
            b = scalars[ElementOperands.CG_BETA];
            pend = scalars[ElementOperands.CG_PENDING];
        }
        double s = 0;
        for (int i = getGlobalId(); i < n; i += stride) {
            double po = p[i];
            double pi = r[i] + b * po;
            p[i] = pi;
            if (xMode == 0 && (onDevice != 2 || a != 0)) {
                x[i] += a * pi;
            }
            if (xMode == 2) {
                double dx = pend * po;
                if (onDevice != 2 || a != 0) {
                    dx += a * pi;         // queued: a step that does not move leaves x (p may not be finite then)
                }
                x[i] += dx;
            }
            double ri = r[i] - a * ap[i];
            r[i] = ri;
            if (onDevice >= 1) {
                ap[i] = 0;
            }
            s += ri * ri;
        }
        writeGroupSum(s);
        if (onDevice == 1 && getGlobalId() == 0) {
            partials[getNumGroups()] = scalars[ElementOperands.CG_PAP];
        }
    }
}
