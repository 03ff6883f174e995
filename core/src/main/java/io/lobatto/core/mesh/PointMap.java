package io.lobatto.core.mesh;

import io.lobatto.core.pointwise.PointFunction;

/**
 * A {@link NodeMap} the backend evaluates: x = f(x0; c), a {@link PointFunction} with three outputs, in its
 * translatable subset. The built-in maps ({@link NodeMap#affine}, {@link NodeMap#sinusoidal}, {@link NodeMap#kershaw})
 * are point maps, so a mesh made with them has its node positions and geometric factors computed on the device; a
 * user's map gets the same by extending this class (a plain {@link NodeMap} lambda keeps the host setup).
 */
public abstract class PointMap extends PointFunction implements NodeMap {

    /** @param coefficients the constants the map reads (copied; finite) */
    protected PointMap(double... coefficients) {
        super(3, coefficients);
    }

    @Override
    public final void map(double[] x0, double[] x) {
        evaluate(x0, x);
    }
}
