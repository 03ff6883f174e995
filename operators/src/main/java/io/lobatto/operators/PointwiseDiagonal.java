package io.lobatto.operators;

import io.lobatto.core.backend.ElementMatrixDiagonal;

import java.util.stream.IntStream;

import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.Quadrature;

/**
 * The diagonal of every element matrix of a {@link PointwiseOperator}, {@code [ncomp][E][Np]}, matrix-free: the
 * pointwise function is linear, so at each point it is a (4 ncomp) x (4 ncomp) matrix Q (found by applying f to
 * unit inputs), and diag(B^T Q B)_(c,i) = sum_p sum_ab Q_(c,a),(c,b)(p) B_a(i,p) B_b(i,p) with a, b in {value, r, s, t}.
 * Each B_a is a tensor product of the 1D factors P (values: identity for GLL, I for GAUSS) and B (derivatives: D,
 * or D~ I), so B_a(i,p) B_b(i,p) is a tensor product of the squared or mixed 1D matrices P∘P, P∘B, B∘B and each
 * (a, b) term is the separable contraction of {@link ElementDiagonal}. Exact up to round-off; parallel over elements.
 */
final class PointwiseDiagonal {

    /** Elements per parallel task. */
    private static final int CHUNK = 16;

    private PointwiseDiagonal() {
    }

    static double[] compute(PointwiseOperator operator) {
        Basis1D basis = operator.basis();
        Quadrature quadrature = operator.quadrature();
        PointwiseFunction f = operator.function();
        int nq = basis.nq();
        int np = basis.np();
        int m = quadrature.pointsPerDirection(basis);
        int mp = m * m * m;
        int nc = f.components();
        int n = 4 * nc;
        int dpp = f.dataPerPoint();
        int elements = operator.elementCount();
        double[][] pb = PointwiseLinearization.oneDimensional(basis, quadrature);
        // squared[x][y] = F_x ∘ F_y with F_0 = P, F_1 = B
        double[][][] squared = new double[2][2][];
        for (int x = 0; x < 2; x++) {
            for (int y = 0; y < 2; y++) {
                squared[x][y] = ElementMatrixDiagonal.hadamard(pb[x], pb[y]);
            }
        }
        boolean[] used = PointwiseLinearization.usedSlots(f.evaluation());
        double[] data = operator.pointDataView();
        double[] out = new double[nc * elements * np];
        int chunks = (elements + CHUNK - 1) / CHUNK;
        IntStream.range(0, chunks).parallel().forEach(chunk -> {
            PointwiseLinearization.Scratch scratch = new PointwiseLinearization.Scratch(f);
            double[] q = new double[mp * n * n];
            double[] term = new double[mp];
            double[] t1 = new double[nq * m * m];
            double[] t2 = new double[nq * nq * m];
            double[] acc = new double[np];
            for (int e = chunk * CHUNK, end = Math.min(elements, (chunk + 1) * CHUNK); e < end; e++) {
                for (int p = 0; p < mp; p++) {
                    PointwiseLinearization.pointMatrix(f, used, data, (e * mp + p) * dpp, scratch, q, p * n * n);
                }
                for (int c = 0; c < nc; c++) {
                    java.util.Arrays.fill(acc, 0);
                    for (int a = 0; a < 4; a++) {
                        for (int b = a; b < 4; b++) {
                            if (!used[a] || !used[b]) {
                                continue;
                            }
                            int ia = 4 * c + a, ib = 4 * c + b;
                            boolean any = false;
                            for (int p = 0; p < mp; p++) {
                                int o = p * n * n;
                                double v = q[o + ia * n + ib];
                                if (a != b) {
                                    v += q[o + ib * n + ia];
                                }
                                term[p] = v;
                                any |= v != 0;
                            }
                            if (!any) {
                                continue;
                            }
                            // direction d (0 = r, 1 = s, 2 = t) has factor B in slot a exactly when a == d + 1
                            double[] r = squared[a == 1 ? 1 : 0][b == 1 ? 1 : 0];
                            double[] s = squared[a == 2 ? 1 : 0][b == 2 ? 1 : 0];
                            double[] t = squared[a == 3 ? 1 : 0][b == 3 ? 1 : 0];
                            ElementMatrixDiagonal.contract(term, r, s, t, 1, t1, t2, acc, nq, m);
                        }
                    }
                    System.arraycopy(acc, 0, out, (c * elements + e) * np, np);
                }
            }
        });
        return out;
    }
}
