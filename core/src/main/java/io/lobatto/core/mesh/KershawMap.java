package io.lobatto.core.mesh;

/**
 * Kershaw's distortion of the unit cube ({@link NodeMap#kershaw}); coefficient epsilon. x is kept; y and z follow
 * the piecewise-linear profiles of the six x-layers.
 */
final class KershawMap extends PointMap {

    KershawMap(double epsilon) {
        super(epsilon);
    }

    @Override
    public void evaluate(double[] p, double[] c, double[] x) {
        double t = p[0];
        int layer = (int) Math.floor(t * 6);
        double s = t * 6 - layer;
        x[0] = t;
        x[1] = profile(layer, s, c[0], p[1]);
        x[2] = profile(layer, s, c[0], p[2]);
    }

    private static double right(double eps, double t) {
        double r = 1 + eps * (t - 1);
        if (t <= 0.5) {
            r = (2 - eps) * t;
        }
        return r;
    }

    private static double left(double eps, double t) {
        return 1 - right(eps, 1 - t);
    }

    /** The image of coordinate {@code t} in x-layer {@code layer} at the position {@code s} in [0, 1) across it. */
    private static double profile(int layer, double s, double eps, double t) {
        double l = left(eps, t);
        double r = right(eps, t);
        double v = r;
        if (layer <= 0) {
            v = l;
        } else if (layer == 1 || layer == 4) {
            v = l + (r - l) * s;
        } else if (layer == 2) {
            v = r + (l - r) * (s / 2);
        } else if (layer == 3) {
            v = r + (l - r) * ((1 + s) / 2);
        }
        return v;
    }
}
