package io.lobatto.backend.aparapi.kernels;

/**
 * BP3.5 (CEED BP5), y_L = D^T G D u + lambda wJ o u, in the register column structure of
 * {@link RegisterKernelBase} (tensor paper, BP3.5 Kernel 10): Nq^2 work-items per element, each loading its
 * column u(i, j, .) straight from the input (coalesced over (i, j)), running the column stiffness and
 * writing its output column. With {@code fromGlobal} it is the element part of hipBone's fused assembled
 * operator; in its atomic form with {@code keepIds} the column's scatter ids stay in registers from the read of u to the
 * adds. Local memory per element: three Nq x S layers and the Nq^3 columns; then D.
 */
public final class StiffnessBp35ColumnKernel extends RegisterKernelBase {

    @Override
    public void run() {
        beginElementDot();
        int Q = nq;
        int Q2 = Q * Q;
        int lid = getLocalId();
        int le = lid / Q2;
        int t = lid - le * Q2;
        int e = firstElem + getGroupId() * elemsPerGroup + le;
        int perElem = 3 * Q * stride + Q2 * Q;
        int sq = le * perElem;
        int col = sq + 3 * Q * stride + t;
        int mD = elemsPerGroup * perElem;
        int base = e * Q2 * Q + t;
        int valid = 0;
        if (e < elems) {
            valid = 1;
        }
        stageD(mD);
        for (int k = 0; k < Q; k++) {
            double u = 0;
            int id = -1;
            if (valid == 1) {
                if (keepIds == 1) {
                    id = ids[base + Q2 * k];
                }
                u = readUGuarded(base + Q2 * k);
            }
            colU[k] = u;
            colId[k] = id;
            lds[col + Q2 * k] = u;
        }
        localBarrier();
        stiffnessColumns(e, t, valid, sq, mD, col, Q2);
        if (valid == 1) {
            for (int k = 0; k < Q; k++) {
                // p . A p (ATOMIC_DOT)
                elementDot(colU[k], colY[k] + lds[col + Q2 * k]);
                if (keepIds == 0) {
                    writeY(base + Q2 * k, colY[k] + lds[col + Q2 * k], colU[k]);
                }
                if (keepIds == 1) {
                    // the atomic form adds at the id read with u: no second read of it, no wait on it before the add
                    addAtKeptId(base + Q2 * k, colId[k], colY[k] + lds[col + Q2 * k], colU[k]);
                }
            }
        }
        endElementDot();
    }
}
