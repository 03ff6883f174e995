package io.lobatto.core.geometry;

import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.mesh.SpectralElementMesh;

/**
 * Geometric factors of a {@link SpectralElementMesh} at the quadrature points of every element (DESIGN.md,
 * "The math"): with J = dx/dr the Jacobian of the element map and w the tensor-product quadrature weight,
 * <pre>
 *   wJ = w_i w_j w_k |J|,     G = wJ J^-1 J^-T   (symmetric; entries G00, G01, G02, G11, G12, G22)
 * </pre>
 * packed per point as {@code [E][P][7] = (G00, G01, G02, G11, G12, G22, wJ)} (hipBone's packing).
 *
 * <ul>
 * <li>{@link #atGll}: at the (N+1)^3 GLL nodes (BP3.5 collocation); J from the node positions and D.</li>
 * <li>{@link #atGauss}: at the (N+2)^3 Gauss-Legendre points (BP1.0, BP3.0); node positions interpolated with I,
 *     then differentiated with D~ (exact for the degree-N position field).</li>
 * </ul>
 * The Jacobian is computed from the node positions relative to each element's first node
 * ({@link SpectralElementMesh#relativeCoordinates}), never from absolute positions, so translating a mesh does not
 * change the factors beyond the rounding of its moved vertices.
 * Immutable; arrays are copied out. A non-positive (or NaN) |J| at any point is an error and nothing is returned.
 * Limit: 7 * E * P must be below 2^31 - 8 (checked).
 */
public final class GeometricFactors {

    /** Doubles per point in {@link #packed()}. */
    public static final int PACKED_STRIDE = 7;

    private final int elementCount;
    private final int pointsPerElement;
    private final boolean gauss;
    private final double[] packed;
    private final double volume;

    private GeometricFactors(int elementCount, int pointsPerElement, boolean gauss, double[] packed, double volume) {
        this.elementCount = elementCount;
        this.pointsPerElement = pointsPerElement;
        this.gauss = gauss;
        this.packed = packed;
        this.volume = volume;
    }

    /**
     * Factors at the GLL nodes, P = (N+1)^3 per element.
     *
     * @throws IllegalArgumentException naming element, point and position if |J| <= 0 somewhere
     */
    public static GeometricFactors atGll(SpectralElementMesh m) {
        return compute(m, false);
    }

    /**
     * Factors at the Gauss-Legendre points, P = (N+2)^3 per element.
     *
     * @throws IllegalArgumentException naming element, point and position if |J| <= 0 somewhere
     */
    public static GeometricFactors atGauss(SpectralElementMesh m) {
        return compute(m, true);
    }

    private static GeometricFactors compute(SpectralElementMesh m, boolean gauss) {
        if (m == null) {
            throw new IllegalArgumentException("mesh must not be null");
        }
        Basis1D b = m.basis();
        int nq = b.nq();
        int np = b.np();
        int q = gauss ? b.nqGauss() : nq;
        int p = q * q * q;
        int ne = m.elementCount();
        long total = (long) PACKED_STRIDE * ne * p;
        if (total > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("geometric factors too large: 7 * E * P = 7 * " + ne + " * " + p + " = " + total
                + " exceeds the Java array limit 2^31 - 8");
        }
        double[] w = gauss ? b.gauss().weights() : b.gll().weights();
        double[] dm = gauss ? b.gaussDifferentiation() : b.differentiation();
        double[] interp = gauss ? b.interpolation() : null;
        double[] rel = new double[3 * np];  // node positions relative to the element's first node, [Np][3]
        double[] out = new double[(int) total];
        double[] x = new double[3 * p];   // positions at the points, [3][P]
        double[] jac = new double[9];     // jac[3*d + c] = d x_d / d r_c at the current point
        double[] tmp1 = new double[3 * q * nq * nq];
        double[] tmp2 = new double[3 * q * q * nq];
        double sum = 0, comp = 0;
        for (int e = 0; e < ne; e++) {
            // positions at the points, relative to the element's first node
            m.relativeCoordinates(e, rel, 0);
            if (!gauss) {
                for (int n = 0; n < np; n++) {
                    for (int d = 0; d < 3; d++) {
                        x[d * p + n] = rel[3 * n + d];
                    }
                }
            } else {
                interpolate(rel, 0, nq, q, interp, tmp1, tmp2, x);
            }
            for (int k = 0; k < q; k++) {
                for (int j = 0; j < q; j++) {
                    for (int i = 0; i < q; i++) {
                        int pt = i + q * (j + q * k);
                        for (int d = 0; d < 3; d++) {
                            double dr = 0, ds = 0, dt = 0;
                            int off = d * p;
                            for (int a = 0; a < q; a++) {
                                dr += dm[i * q + a] * x[off + a + q * (j + q * k)];
                                ds += dm[j * q + a] * x[off + i + q * (a + q * k)];
                                dt += dm[k * q + a] * x[off + i + q * (j + q * a)];
                            }
                            jac[3 * d] = dr;
                            jac[3 * d + 1] = ds;
                            jac[3 * d + 2] = dt;
                        }
                        double c00 = jac[4] * jac[8] - jac[5] * jac[7];
                        double c01 = jac[5] * jac[6] - jac[3] * jac[8];
                        double c02 = jac[3] * jac[7] - jac[4] * jac[6];
                        double det = jac[0] * c00 + jac[1] * c01 + jac[2] * c02;
                        if (!(det > 0)) {
                            throw new IllegalArgumentException(String.format(
                                "element %d: Jacobian determinant |J| = %.6g is not positive at %s point (i,j,k) = (%d,%d,%d), "
                                    + "x = (%.10g, %.10g, %.10g); the element is inverted or degenerate (check its vertex order)",
                                e, det, gauss ? "GL" : "GLL", i, j, k, m.x(e, 0, 0) + x[pt], m.x(e, 0, 1) + x[p + pt],
                                m.x(e, 0, 2) + x[2 * p + pt]));
                        }
                        // inverse: inv[c][d] = cofactor[d][c] / det
                        double inv = 1 / det;
                        double[] ji = {
                            c00 * inv, (jac[2] * jac[7] - jac[1] * jac[8]) * inv, (jac[1] * jac[5] - jac[2] * jac[4]) * inv,
                            c01 * inv, (jac[0] * jac[8] - jac[2] * jac[6]) * inv, (jac[2] * jac[3] - jac[0] * jac[5]) * inv,
                            c02 * inv, (jac[1] * jac[6] - jac[0] * jac[7]) * inv, (jac[0] * jac[4] - jac[1] * jac[3]) * inv};
                        double wj = w[i] * w[j] * w[k] * det;
                        int o = PACKED_STRIDE * (e * p + pt);
                        out[o] = wj * dot(ji, 0, 0);
                        out[o + 1] = wj * dot(ji, 0, 1);
                        out[o + 2] = wj * dot(ji, 0, 2);
                        out[o + 3] = wj * dot(ji, 1, 1);
                        out[o + 4] = wj * dot(ji, 1, 2);
                        out[o + 5] = wj * dot(ji, 2, 2);
                        out[o + 6] = wj;
                        // Kahan summation of the volume
                        double yv = wj - comp;
                        double t = sum + yv;
                        comp = (t - sum) - yv;
                        sum = t;
                    }
                }
            }
        }
        return new GeometricFactors(ne, p, gauss, out, sum);
    }

    /** Row a of J^-1 dotted with row b: (J^-1 J^-T)_ab. */
    private static double dot(double[] ji, int a, int b) {
        return ji[3 * a] * ji[3 * b] + ji[3 * a + 1] * ji[3 * b + 1] + ji[3 * a + 2] * ji[3 * b + 2];
    }

    /** x[d*P + (a + q(b + q c))] = sum I_ai I_bj I_ck X_d(i,j,k): GLL positions to GL points, one direction at a time. */
    private static void interpolate(double[] coords, int nodeOffset, int nq, int q, double[] im, double[] t1, double[] t2, double[] x) {
        int p = q * q * q;
        for (int d = 0; d < 3; d++) {
            // r direction: t1[a + q(j + nq k)]
            for (int k = 0; k < nq; k++) {
                for (int j = 0; j < nq; j++) {
                    for (int a = 0; a < q; a++) {
                        double s = 0;
                        for (int i = 0; i < nq; i++) {
                            s += im[a * nq + i] * coords[3 * (nodeOffset + i + nq * (j + nq * k)) + d];
                        }
                        t1[a + q * (j + nq * k)] = s;
                    }
                }
            }
            // s direction: t2[a + q(b + q k)]
            for (int k = 0; k < nq; k++) {
                for (int b = 0; b < q; b++) {
                    for (int a = 0; a < q; a++) {
                        double s = 0;
                        for (int j = 0; j < nq; j++) {
                            s += im[b * nq + j] * t1[a + q * (j + nq * k)];
                        }
                        t2[a + q * (b + q * k)] = s;
                    }
                }
            }
            // t direction
            for (int c = 0; c < q; c++) {
                for (int b = 0; b < q; b++) {
                    for (int a = 0; a < q; a++) {
                        double s = 0;
                        for (int k = 0; k < nq; k++) {
                            s += im[c * nq + k] * t2[a + q * (b + q * k)];
                        }
                        x[d * p + a + q * (b + q * c)] = s;
                    }
                }
            }
        }
    }

    /** P, quadrature points per element: (N+1)^3 at GLL, (N+2)^3 at GL. */
    public int pointsPerElement() {
        return pointsPerElement;
    }

    /** E. */
    public int elementCount() {
        return elementCount;
    }

    /** True for the GL points ({@link #atGauss}), false for the GLL nodes. */
    public boolean gauss() {
        return gauss;
    }

    /** Copy of the packed factors, [E][P][7] = (G00, G01, G02, G11, G12, G22, wJ). */
    public double[] packed() {
        return packed.clone();
    }

    /** Copy of wJ = w_i w_j w_k |J| alone, [E][P]. */
    public double[] jacobianWeights() {
        double[] out = new double[elementCount * pointsPerElement];
        for (int n = 0; n < out.length; n++) {
            out[n] = packed[PACKED_STRIDE * n + 6];
        }
        return out;
    }

    /** Factor {@code c} (0..6, packed order) at point {@code p} of element {@code e}. */
    public double factor(int e, int p, int c) {
        if (e < 0 || e >= elementCount || p < 0 || p >= pointsPerElement || c < 0 || c >= PACKED_STRIDE) {
            throw new IndexOutOfBoundsException("(e, p, c) = (" + e + ", " + p + ", " + c + ") out of range [" + elementCount + ", "
                + pointsPerElement + ", " + PACKED_STRIDE + ")");
        }
        return packed[PACKED_STRIDE * (e * pointsPerElement + p) + c];
    }

    /** The mesh volume as the quadrature sum of wJ (compensated summation). */
    public double volume() {
        return volume;
    }

    @Override
    public String toString() {
        return "GeometricFactors[" + (gauss ? "GL" : "GLL") + ", E=" + elementCount + ", P=" + pointsPerElement + ", volume=" + volume + "]";
    }
}
