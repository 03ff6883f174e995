package io.lobatto.core.basis;

import java.util.Arrays;
import java.util.function.DoubleUnaryOperator;

/**
 * A 1D quadrature rule on [-1, 1]: sum_i w_i f(r_i) approximates the integral of f. Immutable;
 * the accessors return copies.
 */
public final class QuadratureRule {

    private final double[] nodes;
    private final double[] weights;
    private final String name;

    QuadratureRule(String name, double[] nodes, double[] weights) {
        if (nodes.length != weights.length) {
            throw new IllegalArgumentException("nodes (" + nodes.length + ") and weights (" + weights.length + ") differ in length");
        }
        this.name = name;
        this.nodes = nodes.clone();
        this.weights = weights.clone();
    }

    /** Number of points. */
    public int size() {
        return nodes.length;
    }

    /** Node r_i, ascending in i. */
    public double node(int i) {
        return nodes[i];
    }

    /** Weight w_i. */
    public double weight(int i) {
        return weights[i];
    }

    /** Copy of the nodes, ascending. */
    public double[] nodes() {
        return nodes.clone();
    }

    /** Copy of the weights. */
    public double[] weights() {
        return weights.clone();
    }

    /** sum_i w_i f(r_i). */
    public double integrate(DoubleUnaryOperator f) {
        double s = 0;
        for (int i = 0; i < nodes.length; i++) {
            s += weights[i] * f.applyAsDouble(nodes[i]);
        }
        return s;
    }

    @Override
    public String toString() {
        return name + " " + nodes.length + " points " + Arrays.toString(nodes);
    }
}
