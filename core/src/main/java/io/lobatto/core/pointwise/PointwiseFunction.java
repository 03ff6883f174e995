package io.lobatto.core.pointwise;

/**
 * The physics of a user operator at one quadrature point (libCEED's QFunction, written in Java): a linear map
 * from the interpolated values {@code u} and reference gradients {@code du} of an {@code ncomp}-component
 * field, and the point's stored data, to the values {@code v} and reference-gradient coefficients {@code dv}
 * that the element kernel tests against the basis. The operator it defines is, element by element,
 * <pre>
 *   y^e = B^T diag(f) B x^e,   B = (I x I x I ; D_r ; D_s ; D_t) per component,
 * </pre>
 * with I the interpolation to the quadrature points ({@link Quadrature}) and D_r, D_s, D_t the reference
 * derivatives there. Built-in examples: the mass v = wJ u (BP1), the screened diffusion dv = G du, v = lambda wJ u
 * (BP5), their 3-component versions (BP2, BP6) and isotropic elasticity.
 *
 * <p><b>Array layouts</b> (all of fixed length for the function): {@code u[c]} and {@code v[c]} for component
 * c {@literal <} ncomp; {@code du[3 c + d]} and {@code dv[3 c + d]} for the derivative along reference direction
 * d = r, s, t; {@code data[k]} for k {@literal <} {@link #dataPerPoint()}, written once by a {@link PointwiseSetup}. Arrays
 * the {@link #evaluation()} does not name are still passed but must be neither read nor written. {@code v} and
 * {@code dv} hold zeros on entry.
 *
 * <p><b>The translatable subset.</b> The GPU backend translates {@link #apply} with Aparapi into an inlined
 * function of the element kernel, so its body must be plain arithmetic:
 * <ul>
 *   <li>local variables of type double and int, arithmetic, comparisons, if/else, for and while loops
 *       with int counters;</li>
 *   <li>reads and writes of the five parameter arrays, at any int index;</li>
 *   <li>calls to {@code java.lang.Math} functions that OpenCL has (sqrt, abs, exp, log, sin, cos, pow, min,
 *       max, ...) and to other private methods of the same class that obey these rules;</li>
 *   <li>nothing else: no allocation ({@code new}), no field reads or writes (put coefficients in the point
 *       data), no other method calls, no exceptions, no long/float/object locals, no static state.</li>
 * </ul>
 * A backend that cannot translate a function rejects it when the operator is bound, naming the construct
 * and its bytecode. The Java backend runs {@link #apply} as written, so a function should be tested there
 * and on the GPU backend (the conformance suites do both).
 *
 * <p>Subclasses are immutable: the descriptor is fixed at construction.
 */
public abstract class PointwiseFunction {

    /** The largest number of field components a function may have. */
    public static final int MAX_COMPONENTS = 3;
    /** The largest number of stored doubles per point. */
    public static final int MAX_DATA_PER_POINT = 32;

    private final int components;
    private final int dataPerPoint;
    private final FieldEvaluation evaluation;

    /**
     * @param components   ncomp, 1..{@value #MAX_COMPONENTS}
     * @param dataPerPoint stored doubles per quadrature point, 0..{@value #MAX_DATA_PER_POINT}
     * @param evaluation   what {@link #apply} reads and writes
     */
    protected PointwiseFunction(int components, int dataPerPoint, FieldEvaluation evaluation) {
        if (components < 1 || components > MAX_COMPONENTS) {
            throw new IllegalArgumentException("components must be in 1.." + MAX_COMPONENTS + ", got " + components);
        }
        if (dataPerPoint < 0 || dataPerPoint > MAX_DATA_PER_POINT) {
            throw new IllegalArgumentException("dataPerPoint must be in 0.." + MAX_DATA_PER_POINT + ", got "
                    + dataPerPoint);
        }
        if (evaluation == null) {
            throw new IllegalArgumentException("evaluation must not be null");
        }
        this.components = components;
        this.dataPerPoint = dataPerPoint;
        this.evaluation = evaluation;
    }

    /**
     * The pointwise map, linear in (u, du). See the class comment for the layouts and for what the body may
     * contain.
     *
     * @param u    values of the components at the point, length ncomp
     * @param du   reference gradients, length 3 ncomp
     * @param data the point's stored data, length {@link #dataPerPoint()}
     * @param v    output tested against the basis functions, length ncomp
     * @param dv   output tested against the reference gradients of the basis, length 3 ncomp
     */
    public abstract void apply(double[] u, double[] du, double[] data, double[] v, double[] dv);

    /** ncomp, the number of field components (1 for a scalar field, 3 for a displacement). */
    public final int components() {
        return components;
    }

    /** The number of doubles stored per quadrature point. */
    public final int dataPerPoint() {
        return dataPerPoint;
    }

    /** What {@link #apply} reads and writes. */
    public final FieldEvaluation evaluation() {
        return evaluation;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[ncomp=" + components + ", data=" + dataPerPoint + ", " + evaluation + "]";
    }
}
