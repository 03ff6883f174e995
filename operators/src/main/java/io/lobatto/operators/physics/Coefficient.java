package io.lobatto.operators.physics;

/** A scalar coefficient field c(x, y, z) (a conductivity kappa(x), a reaction c(x), a Lame parameter), evaluated on the host by setups. */
@FunctionalInterface
public interface Coefficient {

    /** The value at the physical point (x, y, z). */
    double at(double x, double y, double z);

    /** The constant field {@code value}. */
    static Coefficient constant(double value) {
        return (x, y, z) -> value;
    }
}
