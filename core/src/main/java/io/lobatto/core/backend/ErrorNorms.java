package io.lobatto.core.backend;

/**
 * The error of a discrete field u_h against a closed-form u, as {@link Backend#errorNorms} computes it on the backend:
 * the max norm over the GLL nodes, {@code max_n |u_h(x_n) - u(x_n)|}, and the squared L2 norm by Gauss-Legendre
 * quadrature on the isoparametric elements, {@code sum_e sum_q wJ_q ((I u_h)_q - u(x_q))^2}, with I the GLL to GL
 * interpolation and x_q the interpolated node positions (so that the quadrature is that of the discrete geometry).
 *
 * @param max       the max norm of the error at the nodes
 * @param l2Squared the squared L2 norm of the error
 */
public record ErrorNorms(double max, double l2Squared) {

    /** The L2 norm: the square root of {@link #l2Squared()}. */
    public double l2() {
        return Math.sqrt(l2Squared);
    }
}
