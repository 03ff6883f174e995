package io.lobatto.core.pointwise;

import java.util.Arrays;

/**
 * A function of position with constant coefficients, out = f(x; c), that a backend evaluates where the data lives:
 * node maps of a mesh ({@link io.lobatto.core.mesh.PointMap}), right-hand sides f, Dirichlet data g and exact
 * solutions (site/src/site/markdown/design.md, "Setup where the operator runs"). On the GPU backend {@link #evaluate} is
 * translated into OpenCL like {@link PointwiseFunction#apply}, so its body must stay in the same translatable subset:
 * double and int locals, arithmetic, if/else and counted loops, reads of {@code x} and {@code c}, writes of
 * {@code out}, {@code java.lang.Math} functions OpenCL has and private methods of the same class that obey these
 * rules; no allocation, no field access (put constants in the coefficients), no other calls. A backend that cannot
 * translate a function rejects it when it is first used, naming the construct and its bytecode. The Java backend
 * runs {@link #evaluate} as written.
 *
 * <p>Subclasses are immutable: the output count and the coefficients are fixed at construction.
 */
public abstract class PointFunction {

    /** The largest number of outputs. */
    public static final int MAX_OUTPUTS = 3;
    /** The largest number of coefficients. */
    public static final int MAX_COEFFICIENTS = 64;

    private final int outputs;
    private final double[] coefficients;

    /**
     * @param outputs      number of values per point, 1..{@value #MAX_OUTPUTS}
     * @param coefficients the constants c that {@link #evaluate} reads (copied), at most {@value #MAX_COEFFICIENTS},
     *                     all finite
     * @throws IllegalArgumentException naming the argument, its value and the limit
     */
    protected PointFunction(int outputs, double... coefficients) {
        if (outputs < 1 || outputs > MAX_OUTPUTS) {
            throw new IllegalArgumentException("outputs must be in 1.." + MAX_OUTPUTS + ", got " + outputs);
        }
        double[] c = coefficients == null ? new double[0] : coefficients.clone();
        if (c.length > MAX_COEFFICIENTS) {
            throw new IllegalArgumentException("coefficients: at most " + MAX_COEFFICIENTS + " allowed, got " + c.length);
        }
        for (int i = 0; i < c.length; i++) {
            if (!Double.isFinite(c[i])) {
                throw new IllegalArgumentException("coefficients[" + i + "] must be finite, got " + c[i]);
            }
        }
        this.outputs = outputs;
        this.coefficients = c;
    }

    /**
     * Writes f(x; c) into {@code out}.
     *
     * @param x   the position (x, y, z), length 3; not to be modified
     * @param c   the coefficients ({@link #coefficients()}), not to be modified
     * @param out the values, length {@link #outputs()}
     */
    public abstract void evaluate(double[] x, double[] c, double[] out);

    /** Values per point. */
    public final int outputs() {
        return outputs;
    }

    /** Number of coefficients. */
    public final int coefficientCount() {
        return coefficients.length;
    }

    /** A copy of the coefficients c. */
    public final double[] coefficients() {
        return coefficients.clone();
    }

    /** f(x; c) with this function's coefficients, on the host. */
    public final void evaluate(double[] x, double[] out) {
        evaluate(x, coefficients, out);
    }

    /** The first output at (x, y, z), on the host. */
    public final double valueAt(double x, double y, double z) {
        double[] out = new double[outputs];
        evaluate(new double[] {x, y, z}, coefficients, out);
        return out[0];
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + Arrays.toString(coefficients);
    }
}
