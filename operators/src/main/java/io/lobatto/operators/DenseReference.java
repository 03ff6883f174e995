package io.lobatto.operators;

import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;

import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.gs.ScatterOperator;

/**
 * Explicitly assembled dense matrices of the element and assembled operators, built with EJML from
 * Kronecker products of the 1D matrices: with B_r = P ⊗ P ⊗ B, B_s = P ⊗ B ⊗ P, B_t = B ⊗ P ⊗ P
 * (r fastest) and P3 = P ⊗ P ⊗ P, L^e = sum_ab B_a^T diag(G_ab) B_b + lambda P3^T diag(wJ) P3, where
 * (P, B) = (identity, D) for BP3.5 and (I, D~ I) for BP1.0 and BP3.0. The reference the matrix-free
 * kernels are tested against; O((N+1)^6) memory per element, so for small meshes only.
 */
public final class DenseReference {

    private DenseReference() {
    }

    /** The dense element matrix L^e (Np x Np) of element {@code e}. */
    public static DMatrixRMaj elementMatrix(ElementOperator op, int e) {
        if (e < 0 || e >= op.elementCount()) {
            throw new IndexOutOfBoundsException("element " + e + " of " + op.elementCount());
        }
        Basis1D basis = op.basis();
        ElementKernel kernel = op.kernel();
        int nq = basis.nq();
        int m = kernel.usesGaussQuadrature() ? basis.nqGauss() : nq;
        DMatrixRMaj p = kernel == ElementKernel.STIFFNESS_BP35 ? CommonOps_DDRM.identity(nq)
                : new DMatrixRMaj(m, nq, true, basis.interpolation());
        DMatrixRMaj b = new DMatrixRMaj(m, nq);
        if (kernel == ElementKernel.STIFFNESS_BP35) {
            b = new DMatrixRMaj(nq, nq, true, basis.differentiation());
        } else {
            CommonOps_DDRM.mult(new DMatrixRMaj(m, m, true, basis.gaussDifferentiation()), p, b);
        }
        DMatrixRMaj p3 = kron(p, kron(p, p));
        int mp = m * m * m;
        int np = nq * nq * nq;
        double[] data = op.geometricData();
        int stride = kernel.factorsPerPoint();
        DMatrixRMaj result = new DMatrixRMaj(np, np);
        double lambda = kernel == ElementKernel.MASS_BP10 ? 1 : op.lambda();
        addWeighted(result, p3, p3, data, e * mp * stride, stride, stride - 1, lambda);
        if (stride == 7) {
            DMatrixRMaj[] grad = {kron(p, kron(p, b)), kron(p, kron(b, p)), kron(b, kron(p, p))};
            int[][] comp = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};
            int offset = e * mp * stride;
            for (int a = 0; a < 3; a++) {
                // W_a = sum_c diag(G_ac) B_c, then L^e += B_a^T W_a
                DMatrixRMaj w = new DMatrixRMaj(mp, np);
                for (int c = 0; c < 3; c++) {
                    DMatrixRMaj bc = grad[c];
                    for (int q = 0; q < mp; q++) {
                        double g = data[offset + stride * q + comp[a][c]];
                        for (int col = 0; col < np; col++) {
                            w.data[q * np + col] += g * bc.data[q * np + col];
                        }
                    }
                }
                DMatrixRMaj t = new DMatrixRMaj(np, np);
                CommonOps_DDRM.multTransA(grad[a], w, t);
                CommonOps_DDRM.addEquals(result, t);
            }
        }
        return result;
    }

    /** The dense assembled matrix A = Z^T (L + shift W) Z (N_G x N_G). */
    public static DMatrixRMaj assembledMatrix(ElementOperator op, ScatterOperator z, double shift) {
        int ng = z.globalSize();
        if ((long) ng * ng > 50_000_000L) {
            throw new IllegalArgumentException("dense reference of size " + ng + " x " + ng + " is too large");
        }
        int np = op.basis().np();
        int[] ids = z.scatterIds();
        DMatrixRMaj a = new DMatrixRMaj(ng, ng);
        for (int e = 0; e < op.elementCount(); e++) {
            DMatrixRMaj ae = elementMatrix(op, e);
            for (int r = 0; r < np; r++) {
                int gr = ids[e * np + r];
                if (gr < 0) {
                    continue;
                }
                for (int c = 0; c < np; c++) {
                    int gc = ids[e * np + c];
                    if (gc >= 0) {
                        a.add(gr, gc, ae.get(r, c));
                    }
                }
            }
        }
        for (int g = 0; g < ng; g++) {
            a.add(g, g, shift);
        }
        return a;
    }

    /** result += scale * X^T diag(w) Y with w_q = data[offset + stride q + component]. */
    private static void addWeighted(DMatrixRMaj result, DMatrixRMaj x, DMatrixRMaj y, double[] data, int offset,
                                    int stride, int component, double scale) {
        int q = x.numRows;
        DMatrixRMaj wy = y.copy();
        for (int row = 0; row < q; row++) {
            double w = scale * data[offset + stride * row + component];
            for (int col = 0; col < wy.numCols; col++) {
                wy.set(row, col, wy.get(row, col) * w);
            }
        }
        DMatrixRMaj t = new DMatrixRMaj(x.numCols, wy.numCols);
        CommonOps_DDRM.multTransA(x, wy, t);
        CommonOps_DDRM.addEquals(result, t);
    }

    private static DMatrixRMaj kron(DMatrixRMaj a, DMatrixRMaj b) {
        DMatrixRMaj c = new DMatrixRMaj(a.numRows * b.numRows, a.numCols * b.numCols);
        CommonOps_DDRM.kron(a, b, c);
        return c;
    }
}
