package io.lobatto.core.mesh;

/**
 * A smooth map x = f(x0) of physical space applied to the GLL node positions of a {@link SpectralElementMesh}
 * (site/src/site/markdown/design.md, "The math": "any smooth map of the GLL nodes"). Implementations must be pure functions of
 * {@code x0}, so that every copy of a shared node lands at the same place; {@link SpectralElementMesh} calls them
 * from several threads at once (elements in parallel).
 */
@FunctionalInterface
public interface NodeMap {

    /**
     * Writes f(x0) into {@code x}.
     *
     * @param x0 the undeformed position (length 3); must not be modified
     * @param x  the image (length 3); may not alias {@code x0}
     */
    void map(double[] x0, double[] x);

    /**
     * x = x0. Always the same instance, so that {@link SpectralElementMesh} can recognise it and take positions
     * relative to an element from the vertex differences directly.
     */
    static NodeMap identity() {
        return IdentityMap.INSTANCE;
    }

    /**
     * x = A x0 + b with A given row-major ({@code matrix3x3[3*row + col]}).
     *
     * @throws IllegalArgumentException unless {@code matrix3x3} has 9 and {@code shift} 3 finite entries
     */
    static PointMap affine(double[] matrix3x3, double[] shift) {
        if (matrix3x3 == null || matrix3x3.length != 9) {
            throw new IllegalArgumentException("affine map needs a 3x3 matrix as 9 row-major entries");
        }
        if (shift == null || shift.length != 3) {
            throw new IllegalArgumentException("affine map needs a shift of length 3");
        }
        for (double v : matrix3x3) {
            if (!Double.isFinite(v)) {
                throw new IllegalArgumentException("affine map matrix has a non-finite entry " + v);
            }
        }
        for (double v : shift) {
            if (!Double.isFinite(v)) {
                throw new IllegalArgumentException("affine map shift has a non-finite entry " + v);
            }
        }
        return new AffineMap(matrix3x3, shift);
    }

    /**
     * A smooth perturbation of the box [x0,x1] x [y0,y1] x [z0,z1] that vanishes on its boundary (so the image of
     * the box is the box and its volume is unchanged). With normalised coordinates (xi, eta, zeta) in [0,1]^3 and
     * edge lengths L:
     * <pre>
     *   x += a Lx sin(pi xi)   sin(2 pi eta) sin(pi zeta)
     *   y += a Ly sin(pi xi)   sin(pi eta)   sin(2 pi zeta)
     *   z += a Lz sin(2 pi xi) sin(pi eta)   sin(pi zeta)
     * </pre>
     * Each row of the Jacobian of the perturbation (in normalised coordinates) has absolute row sum at most
     * 4 pi |a|, so the map is one-to-one with |J| > 0 for |a| &lt; 1/(4 pi) ~ 0.0796 (larger a, e.g. 0.1, typically
     * still work; {@code GeometricFactors} checks). Points outside the box are moved too (not vanishing there).
     */
    static PointMap sinusoidal(double amplitude, double x0, double x1, double y0, double y1, double z0, double z1) {
        if (!(x1 > x0) || !(y1 > y0) || !(z1 > z0) || !Double.isFinite(amplitude)) {
            throw new IllegalArgumentException("sinusoidal map needs a finite amplitude and x0 < x1, y0 < y1, z0 < z1");
        }
        return new SinusoidalMap(amplitude, x0, x1 - x0, y0, y1 - y0, z0, z1 - z0);
    }

    /**
     * Kershaw's distortion of the unit cube (the CEED benchmarks' hard mesh; MFEM's {@code kershaw} miniapp with
     * {@code eps_y = eps_z = epsilon} and linear transitions): x is kept; the cube is cut into six layers in x, and in
     * each layer y and z are moved by the piecewise-linear profiles
     * <pre>
     *   right(t) = (2 - eps) t for t &lt;= 1/2, 1 + eps (t - 1) else;   left(t) = 1 - right(1 - t)
     * </pre>
     * blended linearly across the layers (left, left to right, right to left over two layers, left to right, right).
     * {@code epsilon = 1} is the identity; smaller values squeeze the elements (0.3 is the CEED benchmarks' strong
     * case: aspect ratios up to about 6). The map is piecewise bilinear with kinks at x = k/6 and y, z = 1/2, so it is
     * reproduced exactly by the elements when the element counts in x are a multiple of 6 and those in y and z even;
     * on other meshes the geometry is only piecewise smooth inside some elements.
     *
     * @throws IllegalArgumentException unless 0 &lt; epsilon &lt;= 1
     */
    static PointMap kershaw(double epsilon) {
        if (!(epsilon > 0 && epsilon <= 1)) {
            throw new IllegalArgumentException("Kershaw's epsilon must be in (0, 1], got " + epsilon);
        }
        return new KershawMap(epsilon);
    }

    /**
     * Checks that a box of {@code nx x ny x nz} elements on the unit cube reproduces {@link #kershaw Kershaw's map}:
     * its kinks at x = i/6 and y, z = 1/2 lie on element faces only when nx is a multiple of 6 and ny, nz are even.
     * Elsewhere an element straddles a kink, its trilinear image is not the map's, and at small epsilon elements can
     * invert. The check the commands share ({@code poisson --kershaw}, {@code lobatto-bench solve --meshes kershaw}).
     *
     * @param option the command-line option (or argument) that gave the counts, named in the message
     * @throws IllegalArgumentException unless nx % 6 == 0, ny % 2 == 0 and nz % 2 == 0 (all >= 1)
     */
    static void requireKershawElements(String option, int nx, int ny, int nz) {
        if (nx < 1 || ny < 1 || nz < 1 || nx % 6 != 0 || ny % 2 != 0 || nz % 2 != 0) {
            throw new IllegalArgumentException(option + " " + nx + "," + ny + "," + nz + " does not fit Kershaw's map: it needs nx a "
                    + "multiple of 6 and ny, nz even (the map's kinks at x = i/6 and y, z = 1/2 must lie on element faces, else "
                    + "elements can invert), e.g. 6,6,6 or 12,12,12");
        }
    }
}

/** The identity map x = x0 (one instance). */
enum IdentityMap implements NodeMap {
    INSTANCE;

    @Override
    public void map(double[] x0, double[] x) {
        x[0] = x0[0];
        x[1] = x0[1];
        x[2] = x0[2];
    }
}
