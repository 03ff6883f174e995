package io.lobatto.examples;

/**
 * A manufactured solution of a linear PDE system with {@link #components()} unknowns: the exact solution u_c and
 * the load f_c = (L u)_c in closed form, so that the discrete solution can be compared with u. Where u does not
 * vanish on the Dirichlet boundary its values there are imposed (lifted).
 */
public interface ManufacturedField {

    /** ncomp, 1 or 3. */
    int components();

    /** Component {@code c} of the exact solution at (x, y, z). */
    double u(int c, double x, double y, double z);

    /** Component {@code c} of the load f = L u at (x, y, z). */
    double f(int c, double x, double y, double z);
}
