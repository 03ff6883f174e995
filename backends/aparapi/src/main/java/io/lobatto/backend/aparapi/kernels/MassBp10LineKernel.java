package io.lobatto.backend.aparapi.kernels;

/**
 * BP1.0 (CEED BP1), y_L = I^T (wJ o (I u)), in the line structure of {@link RegisterKernelBase} (tensor
 * paper, BP1.0 Kernels 7-8): I along t from the input, along s, then along r with the product by wJ and I^T
 * back in registers, I^T along s, and I^T along t to the output; four barriers after staging I. With
 * {@code fromGlobal} it is the element part of hipBone's fused assembled operator. Local memory: one
 * SA x P x P grid per element, then I.
 */
public final class MassBp10LineKernel extends RegisterKernelBase {

    @Override
    public void run() {
        int P = pts;
        int T = threadsPerElem;
        int lid = getLocalId();
        int le = lid / T;
        int t = lid - le * T;
        int e = firstElem + getGroupId() * elemsPerGroup + le;
        int grid = le * strideA * P * P;
        int mI = elemsPerGroup * strideA * P * P;
        int valid = 0;
        if (le < elemsPerGroup && e < elems) {
            valid = 1;
        }
        stageI(mI);
        localBarrier();
        interpolateStages(e, grid, mI, t, valid, 1);
        projectStages(e, grid, mI, t, valid, 0);
    }
}
