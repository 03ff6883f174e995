package io.lobatto.backend.aparapi.kernels;

/**
 * BP3.0 (CEED BP3), y_L = I^T (D~^T G D~ + lambda wJ) I u, in the register structure of
 * {@link RegisterKernelBase}: the line stages of BP1.0 interpolate u to the GL grid (t, s, r), the column
 * stiffness runs on the P^3 GL grid with D~ (P^2 work-items per element, each loading its column from the
 * grid), its output columns go back into the grid, and the line stages project back (r, s, t). Local
 * memory per element: the SA x P x P grid and three P x S layers; then I and D~.
 */
public final class StiffnessBp30ColumnKernel extends RegisterKernelBase {

    @Override
    public void run() {
        int P = pts;
        int SA = strideA;
        int T = threadsPerElem;
        int lid = getLocalId();
        int le = lid / T;
        int t = lid - le * T;
        int e = firstElem + getGroupId() * elemsPerGroup + le;
        int perElem = SA * P * P + 3 * P * stride;
        int grid = le * perElem;
        int sq = grid + SA * P * P;
        int mI = elemsPerGroup * perElem;
        int mD = mI + P * nq;
        int valid = 0;
        if (le < elemsPerGroup && e < elems) {
            valid = 1;
        }
        stageI(mI);
        stageD(mD);
        localBarrier();
        interpolateStages(e, grid, mI, t, valid, 0);
        // column (a, b) of the GL grid: a = t % P, b = t / P (P^2 work-items per element)
        int at = grid + t % P + SA * (t / P);
        for (int c = 0; c < P; c++) {
            colU[c] = lds[at + SA * P * c];
        }
        stiffnessColumns(e, t, valid, sq, mD, at, SA * P);
        for (int c = 0; c < P; c++) {
            lds[at + SA * P * c] += colY[c];
        }
        localBarrier();
        projectStages(e, grid, mI, t, valid, 1);
    }
}
