package io.lobatto.operators;

import io.lobatto.core.backend.ElementMatrixDiagonal;

import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.pointwise.FieldEvaluation;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.Quadrature;

/**
 * The pieces shared by {@link PointwiseDiagonal} and {@link DensePointwiseReference}: the 1D factors of the
 * evaluation matrix B and the point matrix Q of a linear {@link PointwiseFunction}.
 *
 * <p>Input and output slots are indexed {@code 4 c + a} with a = 0 for the value u[c] (v[c]) and a = 1, 2, 3 for the
 * reference derivative du[3 c + a - 1] (dv[3 c + a - 1]); Q is (4 ncomp) x (4 ncomp), row-major, Q[out][in].
 * Slots the function's {@link FieldEvaluation} does not name stay zero.
 */
final class PointwiseLinearization {

    private PointwiseLinearization() {
    }

    /**
     * The 1D factors {P, B} (each m x nq, row-major): P evaluates values at the points of the quadrature and B
     * derivatives there. GLL: (identity, D); GAUSS: (I, D~ I).
     */
    static double[][] oneDimensional(Basis1D basis, Quadrature quadrature) {
        int nq = basis.nq();
        if (quadrature == Quadrature.GLL) {
            double[] p = new double[nq * nq];
            for (int i = 0; i < nq; i++) {
                p[i * nq + i] = 1;
            }
            return new double[][] {p, basis.differentiation()};
        }
        int m = basis.nqGauss();
        double[] interp = basis.interpolation();
        return new double[][] {interp, ElementMatrixDiagonal.multiply(basis.gaussDifferentiation(), interp, m, m, nq)};
    }

    /** used[a] for a = value, r, s, t: the slots that {@code evaluation} reads and writes. */
    static boolean[] usedSlots(FieldEvaluation evaluation) {
        boolean v = evaluation.readsValues(), g = evaluation.readsGradients();
        return new boolean[] {v, g, g, g};
    }

    /** Scratch arrays for {@link #pointMatrix}, one per thread. */
    static final class Scratch {
        final double[] u;
        final double[] du;
        final double[] v;
        final double[] dv;
        final double[] data;

        Scratch(PointwiseFunction f) {
            int nc = f.components();
            u = new double[nc];
            du = new double[3 * nc];
            v = new double[nc];
            dv = new double[3 * nc];
            data = new double[f.dataPerPoint()];
        }
    }

    /**
     * Q at one point: applies f to each unit input (u, du) with the point's data
     * {@code pointData[dataOffset .. dataOffset + dataPerPoint)} and writes the outputs as the columns of Q at
     * {@code q[qOffset ..]} ((4 ncomp)^2 doubles; unused slots written as zero).
     */
    static void pointMatrix(PointwiseFunction f, boolean[] used, double[] pointData, int dataOffset, Scratch s,
                            double[] q, int qOffset) {
        int nc = f.components();
        int n = 4 * nc;
        System.arraycopy(pointData, dataOffset, s.data, 0, s.data.length);
        java.util.Arrays.fill(q, qOffset, qOffset + n * n, 0);
        for (int in = 0; in < n; in++) {
            int c = in / 4, a = in % 4;
            if (!used[a]) {
                continue;
            }
            java.util.Arrays.fill(s.u, 0);
            java.util.Arrays.fill(s.du, 0);
            java.util.Arrays.fill(s.v, 0);
            java.util.Arrays.fill(s.dv, 0);
            if (a == 0) {
                s.u[c] = 1;
            } else {
                s.du[3 * c + a - 1] = 1;
            }
            f.apply(s.u, s.du, s.data, s.v, s.dv);
            for (int out = 0; out < n; out++) {
                int co = out / 4, ao = out % 4;
                if (used[ao]) {
                    q[qOffset + out * n + in] = ao == 0 ? s.v[co] : s.dv[3 * co + ao - 1];
                }
            }
        }
    }
}
