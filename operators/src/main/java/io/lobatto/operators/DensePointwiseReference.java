package io.lobatto.operators;

import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;

import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.gs.ScatterOperator;

/**
 * Explicitly assembled dense matrices of a {@link PointwiseOperator}, built with EJML from its bilinear form: with
 * the 1D factors P (values at the points: identity for GLL, I for GAUSS) and B (derivatives: D, or D~ I), the
 * evaluation matrix of one component is B1 = (P ⊗ P ⊗ P ; P ⊗ P ⊗ B ; P ⊗ B ⊗ P ; B ⊗ P ⊗ P) (r fastest), the
 * evaluation matrix of the field is B = diag(B1, ..., B1) ((4 ncomp P) x (ncomp Np), rows (c, a, p), columns
 * (c, i)), the pointwise matrices Q(p) ((4 ncomp) x (4 ncomp)) come from applying f to unit inputs with the point's
 * data, and L^e = B^T Q B with Q block-diagonal over the points. The assembled matrix is A = Z^T L Z with the scalar
 * Z applied to each component block ({@code [ncomp][N_G]}). The reference the matrix-free kernels and
 * {@link PointwiseDiagonal} are tested against; O((ncomp Np)^2 + ncomp^2 P Np) memory per element, small meshes only.
 */
public final class DensePointwiseReference {

    /** The largest dense assembled matrix built, in entries (400 MB of doubles). */
    public static final long MAX_DENSE_ENTRIES = 50_000_000L;

    private DensePointwiseReference() {
    }

    /**
     * The dense element matrix L^e of element {@code e}, (ncomp Np) x (ncomp Np), rows and columns indexed
     * c Np + i (the element's part of the component-blocked layout).
     *
     * @throws IndexOutOfBoundsException if {@code e} is not in 0..E-1
     */
    public static DMatrixRMaj elementMatrix(PointwiseOperator op, int e) {
        if (e < 0 || e >= op.elementCount()) {
            throw new IndexOutOfBoundsException("element e = " + e + " is not in 0.." + (op.elementCount() - 1));
        }
        Basis1D basis = op.basis();
        PointwiseFunction f = op.function();
        int nq = basis.nq();
        int np = basis.np();
        int m = op.quadrature().pointsPerDirection(basis);
        int mp = m * m * m;
        int nc = f.components();
        int n = 4 * nc;
        double[][] pb = PointwiseLinearization.oneDimensional(basis, op.quadrature());
        DMatrixRMaj p = new DMatrixRMaj(m, nq, true, pb[0]);
        DMatrixRMaj b = new DMatrixRMaj(m, nq, true, pb[1]);
        // the four blocks of B1, each mp x np: values, d/dr, d/ds, d/dt
        DMatrixRMaj[] b1 = {kron(p, kron(p, p)), kron(p, kron(p, b)), kron(p, kron(b, p)), kron(b, kron(p, p))};
        DMatrixRMaj full = new DMatrixRMaj(n * mp, nc * np);
        for (int c = 0; c < nc; c++) {
            for (int a = 0; a < 4; a++) {
                CommonOps_DDRM.insert(b1[a], full, (4 * c + a) * mp, c * np);
            }
        }
        // W = Q B, Q block-diagonal over the points
        boolean[] used = PointwiseLinearization.usedSlots(f.evaluation());
        PointwiseLinearization.Scratch scratch = new PointwiseLinearization.Scratch(f);
        double[] q = new double[n * n];
        double[] data = op.pointDataView();
        int cols = nc * np;
        DMatrixRMaj w = new DMatrixRMaj(n * mp, cols);
        for (int pt = 0; pt < mp; pt++) {
            PointwiseLinearization.pointMatrix(f, used, data, (e * mp + pt) * f.dataPerPoint(), scratch, q, 0);
            for (int out = 0; out < n; out++) {
                int row = out * mp + pt;
                for (int in = 0; in < n; in++) {
                    double qv = q[out * n + in];
                    if (qv == 0) {
                        continue;
                    }
                    int src = (in * mp + pt) * cols;
                    for (int col = 0; col < cols; col++) {
                        w.data[row * cols + col] += qv * full.data[src + col];
                    }
                }
            }
        }
        DMatrixRMaj result = new DMatrixRMaj(cols, cols);
        CommonOps_DDRM.multTransA(full, w, result);
        return result;
    }

    /**
     * The dense assembled matrix A = Z^T L Z, (ncomp N_G) x (ncomp N_G), rows and columns indexed c N_G + g
     * ({@code [ncomp][N_G]}); masked nodes are left out by Z.
     *
     * @throws IllegalArgumentException if Z does not match the operator's elements, or the matrix would have more
     *                                  than {@value #MAX_DENSE_ENTRIES} entries
     */
    public static DMatrixRMaj assembledMatrix(PointwiseOperator op, ScatterOperator z) {
        int np = op.basis().np();
        int perComponent = op.elementCount() * np;
        if (z.localSize() != perComponent) {
            throw new IllegalArgumentException("Z has " + z.localSize() + " local nodes but each component of the operator"
                    + " has E (N+1)^3 = " + perComponent);
        }
        int nc = op.components();
        int ng = z.globalSize();
        long size = (long) nc * ng;
        if (size * size > MAX_DENSE_ENTRIES) {
            throw new IllegalArgumentException("dense assembled reference of size ncomp N_G = " + size + " has "
                    + size * size + " entries, more than the limit " + MAX_DENSE_ENTRIES);
        }
        int[] ids = z.scatterIds();
        DMatrixRMaj a = new DMatrixRMaj((int) size, (int) size);
        for (int e = 0; e < op.elementCount(); e++) {
            DMatrixRMaj ae = elementMatrix(op, e);
            for (int r = 0; r < nc * np; r++) {
                int gr = ids[e * np + r % np];
                if (gr < 0) {
                    continue;
                }
                gr += (r / np) * ng;
                for (int c = 0; c < nc * np; c++) {
                    int gc = ids[e * np + c % np];
                    if (gc >= 0) {
                        a.add(gr, gc + (c / np) * ng, ae.get(r, c));
                    }
                }
            }
        }
        return a;
    }

    /**
     * y_L = L x_L on element-local vectors {@code [ncomp][E][Np]}, through the dense element matrices.
     *
     * @throws IllegalArgumentException if {@code xL} does not have length ncomp E Np
     */
    public static double[] applyLocal(PointwiseOperator op, double[] xL) {
        if (xL.length != op.localSize()) {
            throw new IllegalArgumentException("xL has length " + xL.length + " but the operator's local size is ncomp E Np = "
                    + op.localSize());
        }
        int np = op.basis().np();
        int nc = op.components();
        int ne = op.elementCount();
        double[] y = new double[xL.length];
        for (int e = 0; e < ne; e++) {
            DMatrixRMaj ae = elementMatrix(op, e);
            for (int r = 0; r < nc * np; r++) {
                double s = 0;
                for (int c = 0; c < nc * np; c++) {
                    s += ae.get(r, c) * xL[((c / np) * ne + e) * np + c % np];
                }
                y[((r / np) * ne + e) * np + r % np] = s;
            }
        }
        return y;
    }

    /** y = A x for a dense square matrix. */
    public static double[] multiply(DMatrixRMaj a, double[] x) {
        if (a.numCols != x.length) {
            throw new IllegalArgumentException("x has length " + x.length + " but the matrix has " + a.numCols + " columns");
        }
        double[] y = new double[a.numRows];
        for (int r = 0; r < a.numRows; r++) {
            double s = 0;
            for (int c = 0; c < a.numCols; c++) {
                s += a.data[r * a.numCols + c] * x[c];
            }
            y[r] = s;
        }
        return y;
    }

    /** The diagonal of a dense square matrix. */
    public static double[] diagonal(DMatrixRMaj a) {
        int n = Math.min(a.numRows, a.numCols);
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = a.get(i, i);
        }
        return d;
    }

    private static DMatrixRMaj kron(DMatrixRMaj a, DMatrixRMaj b) {
        DMatrixRMaj c = new DMatrixRMaj(a.numRows * b.numRows, a.numCols * b.numCols);
        CommonOps_DDRM.kron(a, b, c);
        return c;
    }
}
