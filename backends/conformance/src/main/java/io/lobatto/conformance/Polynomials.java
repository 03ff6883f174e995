package io.lobatto.conformance;

/**
 * Exact integrals of tensor-product polynomials u = sum c[a][b][c] x^a y^b z^c over a box, for the
 * exactness properties of the operators.
 */
public final class Polynomials {

    private Polynomials() {
    }

    /** u(x, y, z). */
    public static double eval(double[][][] c, double x, double y, double z) {
        double s = 0;
        for (int a = 0; a < c.length; a++) {
            for (int b = 0; b < c[a].length; b++) {
                for (int k = 0; k < c[a][b].length; k++) {
                    s += c[a][b][k] * Math.pow(x, a) * Math.pow(y, b) * Math.pow(z, k);
                }
            }
        }
        return s;
    }

    /** The integral of x^n over [lo, hi]. */
    static double monomial(int n, double lo, double hi) {
        return (Math.pow(hi, n + 1) - Math.pow(lo, n + 1)) / (n + 1);
    }

    /** The integral of u^2 over the box {x0,x1,y0,y1,z0,z1}. */
    public static double l2Squared(double[][][] c, double[] box) {
        return bilinear(c, c, box, new int[3], new int[3]);
    }

    /** The integral of |grad u|^2 over the box. */
    public static double gradientEnergy(double[][][] c, double[] box) {
        double s = 0;
        for (int d = 0; d < 3; d++) {
            int[] shift = new int[3];
            shift[d] = 1;
            s += bilinear(c, c, box, shift, shift);
        }
        return s;
    }

    /** The integral of (d^s u)(d^t v) where s, t differentiate once in the directions set to 1. */
    private static double bilinear(double[][][] c1, double[][][] c2, double[] box, int[] s, int[] t) {
        int p = c1.length;
        double sum = 0;
        for (int a1 = 0; a1 < p; a1++) {
            for (int b1 = 0; b1 < p; b1++) {
                for (int k1 = 0; k1 < p; k1++) {
                    double f1 = c1[a1][b1][k1] * fall(a1, s[0]) * fall(b1, s[1]) * fall(k1, s[2]);
                    if (f1 == 0) {
                        continue;
                    }
                    for (int a2 = 0; a2 < p; a2++) {
                        for (int b2 = 0; b2 < p; b2++) {
                            for (int k2 = 0; k2 < p; k2++) {
                                double f2 = c2[a2][b2][k2] * fall(a2, t[0]) * fall(b2, t[1]) * fall(k2, t[2]);
                                if (f2 == 0) {
                                    continue;
                                }
                                sum += f1 * f2 * monomial(a1 - s[0] + a2 - t[0], box[0], box[1])
                                        * monomial(b1 - s[1] + b2 - t[1], box[2], box[3])
                                        * monomial(k1 - s[2] + k2 - t[2], box[4], box[5]);
                            }
                        }
                    }
                }
            }
        }
        return sum;
    }

    /** n if differentiating once (d = 1), else 1. */
    private static double fall(int n, int d) {
        return d == 1 ? n : 1;
    }
}
