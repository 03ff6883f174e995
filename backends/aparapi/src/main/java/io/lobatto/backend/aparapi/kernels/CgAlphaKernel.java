package io.lobatto.backend.aparapi.kernels;

import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * CG's step length on the device (hipBone's Algorithm 1, alpha = r . r / p . A p): one work-group sums the element
 * kernel's partials of p . A p ({@link ElementOperands#ATOMIC_DOT}) in {@link GroupSumKernel}'s tree and writes
 * {@code scalars[0]} = p . A p and {@code scalars[1]} = alpha = rz / p . A p, or 0 where p . A p is not positive and
 * finite (then {@link CgStepKernel} with {@code onDevice} leaves x and r as they are, and the host, which reads p . A p
 * back with r . r, stops). So CG's iteration needs no read-back between the apply and the update. With
 * {@link #rzOnDevice} = 1, rz is {@code scalars[CG_RR]}, where {@link CgBetaKernel} left it (CG's iterations queued).
 */
public final class CgAlphaKernel extends OneGroupSumKernel {

    /** 1: rz from {@code scalars[}{@link ElementOperands#CG_RR}{@code ]}; 0: the argument. */
    @BuildConstant int rzOnDevice;

    /** CG's scalars on the device ({@link ElementOperands#CG_SCALARS}): p . A p and alpha written, rz read. */
    double[] scalars = new double[1];
    /** r . z of the iteration (r . r in plain CG). */
    double rz;

    @Override
    public void run() {
        double sum = sumTerms();
        if (getLocalId() == 0) {
            double pap = sum;
            double num = rz;
            if (rzOnDevice == 1) {
                num = scalars[ElementOperands.CG_RR];
            }
            double a = 0;
            if (pap > 0 && pap < 1.0e308) {
                a = num / pap;
            }
            scalars[ElementOperands.CG_PAP] = pap;
            scalars[ElementOperands.CG_ALPHA] = a;
        }
    }
}
