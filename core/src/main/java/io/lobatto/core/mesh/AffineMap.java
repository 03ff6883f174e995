package io.lobatto.core.mesh;

/** x = A x0 + b ({@link NodeMap#affine}); coefficients: the 9 entries of A row-major, then b. */
final class AffineMap extends PointMap {

    AffineMap(double[] a, double[] b) {
        super(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], b[0], b[1], b[2]);
    }

    @Override
    public void evaluate(double[] x0, double[] c, double[] x) {
        for (int r = 0; r < 3; r++) {
            x[r] = c[3 * r] * x0[0] + c[3 * r + 1] * x0[1] + c[3 * r + 2] * x0[2] + c[9 + r];
        }
    }
}
