package io.lobatto.core.mesh;

/**
 * The smooth interior perturbation of a box ({@link NodeMap#sinusoidal}); coefficients
 * (a, x0, Lx, y0, Ly, z0, Lz).
 */
final class SinusoidalMap extends PointMap {

    SinusoidalMap(double amplitude, double x0, double lx, double y0, double ly, double z0, double lz) {
        super(amplitude, x0, lx, y0, ly, z0, lz);
    }

    @Override
    public void evaluate(double[] p, double[] c, double[] x) {
        double a = c[0];
        double xi = (p[0] - c[1]) / c[2];
        double eta = (p[1] - c[3]) / c[4];
        double zeta = (p[2] - c[5]) / c[6];
        double sx = sinPi(xi);
        double sy = sinPi(eta);
        double sz = sinPi(zeta);
        double s2x = sinPi(2 * xi);
        double s2y = sinPi(2 * eta);
        double s2z = sinPi(2 * zeta);
        x[0] = p[0] + a * c[2] * sx * s2y * sz;
        x[1] = p[1] + a * c[4] * sx * sy * s2z;
        x[2] = p[2] + a * c[6] * s2x * sy * sz;
    }

    /** sin(pi t), exactly 0 at integer t (so boundary nodes of the box stay exactly in place). */
    private static double sinPi(double t) {
        double s = 0;
        if (t != Math.rint(t)) {
            s = Math.sin(Math.PI * t);
        }
        return s;
    }
}
