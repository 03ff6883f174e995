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
    static NodeMap affine(double[] matrix3x3, double[] shift) {
        if (matrix3x3 == null || matrix3x3.length != 9) {
            throw new IllegalArgumentException("affine map needs a 3x3 matrix as 9 row-major entries");
        }
        if (shift == null || shift.length != 3) {
            throw new IllegalArgumentException("affine map needs a shift of length 3");
        }
        double[] a = matrix3x3.clone();
        double[] b = shift.clone();
        for (double v : a) {
            if (!Double.isFinite(v)) {
                throw new IllegalArgumentException("affine map matrix has a non-finite entry " + v);
            }
        }
        for (double v : b) {
            if (!Double.isFinite(v)) {
                throw new IllegalArgumentException("affine map shift has a non-finite entry " + v);
            }
        }
        return (x0, x) -> {
            for (int r = 0; r < 3; r++) {
                x[r] = a[3 * r] * x0[0] + a[3 * r + 1] * x0[1] + a[3 * r + 2] * x0[2] + b[r];
            }
        };
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
    static NodeMap sinusoidal(double amplitude, double x0, double x1, double y0, double y1, double z0, double z1) {
        if (!(x1 > x0) || !(y1 > y0) || !(z1 > z0) || !Double.isFinite(amplitude)) {
            throw new IllegalArgumentException("sinusoidal map needs a finite amplitude and x0 < x1, y0 < y1, z0 < z1");
        }
        double lx = x1 - x0, ly = y1 - y0, lz = z1 - z0;
        return (p, x) -> {
            double xi = (p[0] - x0) / lx;
            double eta = (p[1] - y0) / ly;
            double zeta = (p[2] - z0) / lz;
            double sx = sinPi(xi), sy = sinPi(eta), sz = sinPi(zeta);
            double s2x = sinPi(2 * xi), s2y = sinPi(2 * eta), s2z = sinPi(2 * zeta);
            x[0] = p[0] + amplitude * lx * sx * s2y * sz;
            x[1] = p[1] + amplitude * ly * sx * sy * s2z;
            x[2] = p[2] + amplitude * lz * s2x * sy * sz;
        };
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
    static NodeMap kershaw(double epsilon) {
        if (!(epsilon > 0 && epsilon <= 1)) {
            throw new IllegalArgumentException("Kershaw's epsilon must be in (0, 1], got " + epsilon);
        }
        return (p, x) -> {
            double t = p[0];
            int layer = (int) Math.floor(t * 6);
            double s = t * 6 - layer;
            x[0] = t;
            x[1] = Kershaw.profile(layer, s, epsilon, p[1]);
            x[2] = Kershaw.profile(layer, s, epsilon, p[2]);
        };
    }

    /** sin(pi t), exactly 0 at integer t (so boundary nodes of the box stay exactly in place). */
    private static double sinPi(double t) {
        return t == Math.rint(t) ? 0.0 : Math.sin(Math.PI * t);
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

/** The 1D profiles of {@link NodeMap#kershaw(double)}. */
final class Kershaw {

    private Kershaw() {
    }

    static double right(double eps, double t) {
        return t <= 0.5 ? (2 - eps) * t : 1 + eps * (t - 1);
    }

    static double left(double eps, double t) {
        return 1 - right(eps, 1 - t);
    }

    /** The image of coordinate {@code t} in x-layer {@code layer} at the position {@code s} in [0, 1) across it. */
    static double profile(int layer, double s, double eps, double t) {
        double l = left(eps, t), r = right(eps, t);
        return switch (layer < 0 ? 0 : Math.min(layer, 5)) {
            case 0 -> l;
            case 1, 4 -> l + (r - l) * s;
            case 2 -> r + (l - r) * (s / 2);
            case 3 -> r + (l - r) * ((1 + s) / 2);
            default -> r;
        };
    }
}
