package io.lobatto.backend.aparapi.kernels;

/**
 * The end of a CG iteration queued on the device (hipBone's Algorithm 1, beta = r . r / r . r before, computed where the
 * vectors are): one work-group sums {@link CgStepKernel}'s partials of the new r . r in {@link GroupSumKernel}'s tree
 * ({@link OneGroupSumKernel}) and sets the next step's scalars ({@link ElementOperands#CG_SCALARS}): beta (0 where r . r
 * before is not positive), the pending alpha (this step's, for a step that deferred x) and r . r itself. Where the step
 * did not move (alpha 0: p . A p not positive or not finite, or r . r before 0) or r . r is not finite, it sets beta and
 * r . r to 0 instead, so that every step queued after it moves neither x nor r (alpha = 0 / p . A p) while the host,
 * which reads the slot, stops. It copies p . A p, r . r and alpha into {@code history}, the slot the host reads back
 * while the next iteration runs. So the element kernel of the next step reads beta from the device
 * ({@link ElementOperands#ATOMIC_DOT_DEVICE}) and the host waits for nothing between iterations.
 */
public final class CgBetaKernel extends OneGroupSumKernel {

    /** CG's scalars on the device. */
    double[] scalars = new double[1];
    /** This iteration's slot of the host's read-back: p . A p, r . r, alpha. */
    double[] history = new double[1];

    @Override
    public void run() {
        double sum = sumTerms();
        if (getLocalId() == 0) {
            double rr = sum;
            double before = scalars[ElementOperands.CG_RR];
            double a = scalars[ElementOperands.CG_ALPHA];
            double b = 0;
            double next = 0;
            if (a != 0 && rr <= 1.0e308) {
                next = rr;
                if (before > 0) {
                    b = rr / before;
                }
            }
            history[0] = scalars[ElementOperands.CG_PAP];
            history[1] = rr;
            history[2] = a;
            scalars[ElementOperands.CG_BETA] = b;
            scalars[ElementOperands.CG_PENDING] = a;
            scalars[ElementOperands.CG_RR] = next;
        }
    }
}
