package io.lobatto.core.pointwise;

/**
 * The setup half of a user operator (libCEED's setup QFunction): computes, once on the host, the data a
 * {@link PointwiseFunction} reads at each quadrature point, from the point's position, the Jacobian of
 * the element map and the quadrature weight. Coefficients (kappa(x), c(x), a material tensor) and the
 * geometric factors they multiply (w |J| J^-1 J^-T, w |J|) are folded in here, so the pointwise function
 * itself stays small. Plain Java: it runs on the host, in parallel over elements, and may allocate.
 * {@link PointGeometry} has the common geometric pieces.
 */
@FunctionalInterface
public interface PointwiseSetup {

    /**
     * Writes the point's data.
     *
     * @param x      the point's physical coordinates (x, y, z), length 3
     * @param dxdr   the Jacobian of the element map, {@code dxdr[3 i + j] = d x_i / d r_j}, length 9; |J| > 0
     * @param weight the tensor-product quadrature weight w_a w_b w_c of the point
     * @param q      the output, length {@link PointwiseFunction#dataPerPoint()}; zero on entry
     */
    void setup(double[] x, double[] dxdr, double weight, double[] q);
}
