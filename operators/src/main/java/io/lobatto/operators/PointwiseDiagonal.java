package io.lobatto.operators;

/**
 * The diagonal of every element matrix of a {@link PointwiseOperator}, {@code [ncomp][E][Np]}, matrix-free: the
 * pointwise function is linear, so at each point it is a (4 ncomp) x (4 ncomp) matrix Q (found by applying f to
 * unit inputs), and diag(B^T Q B)_i = sum_p sum_ab Q_ab(p) B_a(i,p) B_b(i,p) with B_a B_b separable into
 * squared 1D factors (the same contraction as {@link ElementDiagonal}).
 */
final class PointwiseDiagonal {

    private PointwiseDiagonal() {
    }

    static double[] compute(PointwiseOperator operator) {
        throw new UnsupportedOperationException("PointwiseDiagonal: not implemented yet");
    }
}
