package io.lobatto.core.geometry;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.core.pointwise.PointGeometry;
import io.lobatto.core.pointwise.PointwiseSetup;
import io.lobatto.core.pointwise.Quadrature;

/**
 * Geometric factors of a {@link SpectralElementMesh} at the quadrature points of every element (site/src/site/markdown/design.md,
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
 * Elements are computed in parallel (fork-join common pool) with the same result as a sequential loop.
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
     * @throws IllegalArgumentException naming element, point and position if |J| ≤ 0 somewhere
     */
    public static GeometricFactors atGll(SpectralElementMesh m) {
        return compute(m, false);
    }

    /**
     * Factors at the Gauss-Legendre points, P = (N+2)^3 per element.
     *
     * @throws IllegalArgumentException naming element, point and position if |J| ≤ 0 somewhere
     */
    public static GeometricFactors atGauss(SpectralElementMesh m) {
        return compute(m, true);
    }

    private static GeometricFactors compute(SpectralElementMesh m, boolean gauss) {
        if (m == null) {
            throw new IllegalArgumentException("mesh must not be null");
        }
        Basis1D b = m.basis();
        int q = gauss ? b.nqGauss() : b.nq();
        int p = q * q * q;
        int ne = m.elementCount();
        long total = (long) PACKED_STRIDE * ne * p;
        if (total > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("geometric factors too large: 7 * E * P = 7 * " + ne + " * " + p + " = " + total
                + " exceeds the Java array limit 2^31 - 8");
        }
        double[] out = new double[(int) total];
        // elements in parallel; an element with a bad Jacobian is recorded (the lowest one wins) and reported below
        AtomicInteger firstBad = new AtomicInteger(Integer.MAX_VALUE);
        int chunks = (ne + CHUNK - 1) / CHUNK;
        IntStream.range(0, chunks).parallel().forEach(c -> {
            Element work = new Element(m, gauss);
            for (int e = c * CHUNK, end = Math.min(ne, (c + 1) * CHUNK); e < end; e++) {
                if (!work.compute(e, out, e, false)) {
                    firstBad.accumulateAndGet(e, Math::min);
                    return;
                }
            }
        });
        if (firstBad.get() != Integer.MAX_VALUE) {
            new Element(m, gauss).compute(firstBad.get(), out, firstBad.get(), true); // throws, naming the point
        }
        // Kahan summation of the volume, points in order
        double sum = 0, comp = 0;
        for (int o = 6; o < out.length; o += PACKED_STRIDE) {
            double yv = out[o] - comp;
            double t = sum + yv;
            comp = (t - sum) - yv;
            sum = t;
        }
        return new GeometricFactors(ne, p, gauss, out, sum);
    }

    /**
     * The data of a user operator at every quadrature point: runs {@code setup} at each point of each element (in
     * parallel over elements) with the point's position, the Jacobian d x_i / d r_j of the element map and the
     * quadrature weight, and returns its output packed {@code [E][P][dataPerPoint]}, P = Q^3 with the points in
     * the order {@code a + Q (b + Q c)}. The same element maps and checks as the geometric factors: a point with
     * |J| {@literal <=} 0 is an error naming it.
     *
     * @throws IllegalArgumentException for a null argument, a negative {@code dataPerPoint}, an array that would
     *                                  exceed 2^31 - 8 doubles, or a non-positive |J| (naming element and point)
     */
    public static double[] pointData(SpectralElementMesh m, Quadrature quadrature, int dataPerPoint, PointwiseSetup setup) {
        if (m == null || quadrature == null || setup == null) {
            throw new IllegalArgumentException("mesh, quadrature and setup must not be null");
        }
        if (dataPerPoint < 0) {
            throw new IllegalArgumentException("dataPerPoint must be >= 0, got " + dataPerPoint);
        }
        boolean gauss = quadrature == Quadrature.GAUSS;
        int p = quadrature.pointsPerElement(m.basis());
        int ne = m.elementCount();
        long total = (long) dataPerPoint * ne * p;
        if (total > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("point data too large: dataPerPoint * E * P = " + dataPerPoint + " * " + ne
                    + " * " + p + " = " + total + " exceeds the Java array limit 2^31 - 8");
        }
        double[] out = new double[(int) total];
        // an element with |J| <= 0 somewhere is recorded (the lowest one wins) and reported below, as for the factors
        AtomicInteger firstBad = new AtomicInteger(Integer.MAX_VALUE);
        int chunks = (ne + CHUNK - 1) / CHUNK;
        IntStream.range(0, chunks).parallel().forEach(c -> {
            Element work = new Element(m, gauss);
            double[] x = new double[3];
            double[] dxdr = new double[9];
            double[] q = new double[dataPerPoint];
            for (int e = c * CHUNK, end = Math.min(ne, (c + 1) * CHUNK); e < end; e++) {
                work.positionsAndDerivatives(e);
                double x0 = m.x(e, 0, 0), y0 = m.x(e, 0, 1), z0 = m.x(e, 0, 2);
                for (int pt = 0; pt < p; pt++) {
                    x[0] = x0 + work.x[pt];
                    x[1] = y0 + work.x[p + pt];
                    x[2] = z0 + work.x[2 * p + pt];
                    for (int r = 0; r < 9; r++) {
                        dxdr[r] = work.jac[r * p + pt];
                    }
                    if (!(PointGeometry.determinant(dxdr) > 0)) {
                        firstBad.accumulateAndGet(e, Math::min);
                        return;
                    }
                    int qd = work.q;
                    double weight = work.w[pt % qd] * work.w[(pt / qd) % qd] * work.w[pt / (qd * qd)];
                    java.util.Arrays.fill(q, 0);
                    setup.setup(x, dxdr, weight, q);
                    System.arraycopy(q, 0, out, (e * p + pt) * dataPerPoint, dataPerPoint);
                }
            }
        });
        if (firstBad.get() != Integer.MAX_VALUE) {
            // throws, naming the point (the factors of that one element, written at slot 0 of a one-element array)
            new Element(m, gauss).compute(firstBad.get(), new double[PACKED_STRIDE * p], 0, true);
        }
        return out;
    }

    /** Elements per parallel task. */
    private static final int CHUNK = 32;

    /** The factors of one element at a time, with its scratch arrays (one per task). */
    private static final class Element {
        private final SpectralElementMesh m;
        private final boolean gauss;
        private final int nq;
        private final int np;
        private final int q;
        private final int p;
        private final double[] w;
        private final double[] dm;
        private final double[] interp;
        private final double[] rel;   // node positions relative to the element's first node, [Np][3]
        private final double[] x;     // positions at the points, [3][P]
        private final double[] tmp1;
        private final double[] tmp2;
        private final double[] u;     // one coordinate at the GLL nodes, [Np]
        private final double[] jac;   // the derivative fields d x_d / d r_c at the points, [3d + c][P]

        Element(SpectralElementMesh m, boolean gauss) {
            Basis1D b = m.basis();
            this.m = m;
            this.gauss = gauss;
            this.nq = b.nq();
            this.np = b.np();
            this.q = gauss ? b.nqGauss() : nq;
            this.p = q * q * q;
            this.w = gauss ? b.gauss().weights() : b.gll().weights();
            this.dm = gauss ? b.gaussDifferentiation() : b.differentiation();
            this.interp = gauss ? b.interpolation() : null;
            this.rel = new double[3 * np];
            this.x = new double[3 * p];
            this.tmp1 = new double[3 * q * nq * nq];
            this.tmp2 = new double[3 * q * q * nq];
            this.u = new double[np];
            this.jac = new double[9 * p];
        }

        /**
         * jac[(3d + c) P + pt] = d x_d / d r_c at every point: the 1D derivative matrix along r, s, t, each sum
         * from 0 in ascending order of the contracted index (s and t as row updates).
         */
        private void derivatives() {
            int qq = q * q;
            for (int d = 0; d < 3; d++) {
                int xd = d * p;
                int r = (3 * d) * p, sd = (3 * d + 1) * p, td = (3 * d + 2) * p;
                // r: dot products along contiguous lines
                for (int jk = 0; jk < qq; jk++) {
                    for (int i = 0; i < q; i++) {
                        double v = 0;
                        for (int a = 0; a < q; a++) {
                            v += dm[i * q + a] * x[xd + a + q * jk];
                        }
                        jac[r + i + q * jk] = v;
                    }
                }
                // s: rows i of (j, k) updated with D_ja times rows of (a, k)
                for (int k = 0; k < q; k++) {
                    for (int j = 0; j < q; j++) {
                        int out = sd + q * (j + q * k);
                        for (int i = 0; i < q; i++) {
                            jac[out + i] = 0;
                        }
                        for (int a = 0; a < q; a++) {
                            double c = dm[j * q + a];
                            int in = xd + q * (a + q * k);
                            for (int i = 0; i < q; i++) {
                                jac[out + i] += c * x[in + i];
                            }
                        }
                    }
                }
                // t: planes (i, j) of k updated with D_ka times planes of a
                for (int k = 0; k < q; k++) {
                    int out = td + qq * k;
                    for (int ij = 0; ij < qq; ij++) {
                        jac[out + ij] = 0;
                    }
                    for (int a = 0; a < q; a++) {
                        double c = dm[k * q + a];
                        int in = xd + qq * a;
                        for (int ij = 0; ij < qq; ij++) {
                            jac[out + ij] += c * x[in + ij];
                        }
                    }
                }
            }
        }

        /** Fills x (positions relative to the element's first node) and jac at every point of element e. */
        void positionsAndDerivatives(int e) {
            m.relativeCoordinates(e, rel, 0);
            if (!gauss) {
                for (int n = 0; n < np; n++) {
                    for (int d = 0; d < 3; d++) {
                        x[d * p + n] = rel[3 * n + d];
                    }
                }
            } else {
                interpolate(rel, 0, nq, q, interp, u, tmp1, tmp2, x);
            }
            derivatives();
        }

        /**
         * Writes the factors of element e into {@code out} at element slot {@code slot}; returns false at the first
         * point with |J| <= 0 (or NaN), or throws there when {@code fail}.
         */
        boolean compute(int e, double[] out, int slot, boolean fail) {
            positionsAndDerivatives(e);
            for (int k = 0; k < q; k++) {
                for (int j = 0; j < q; j++) {
                    for (int i = 0; i < q; i++) {
                        int pt = i + q * (j + q * k);
                        double j00 = jac[pt], j01 = jac[p + pt], j02 = jac[2 * p + pt];
                        double j10 = jac[3 * p + pt], j11 = jac[4 * p + pt], j12 = jac[5 * p + pt];
                        double j20 = jac[6 * p + pt], j21 = jac[7 * p + pt], j22 = jac[8 * p + pt];
                        double c00 = j11 * j22 - j12 * j21;
                        double c01 = j12 * j20 - j10 * j22;
                        double c02 = j10 * j21 - j11 * j20;
                        double det = j00 * c00 + j01 * c01 + j02 * c02;
                        if (!(det > 0)) {
                            if (!fail) {
                                return false;
                            }
                            throw new IllegalArgumentException(String.format(
                                "element %d: Jacobian determinant |J| = %.6g is not positive at %s point (i,j,k) = (%d,%d,%d), "
                                    + "x = (%.10g, %.10g, %.10g); the element is inverted or degenerate (check its vertex order)",
                                e, det, gauss ? "GL" : "GLL", i, j, k, m.x(e, 0, 0) + x[pt], m.x(e, 0, 1) + x[p + pt],
                                m.x(e, 0, 2) + x[2 * p + pt]));
                        }
                        // inverse: inv[c][d] = cofactor[d][c] / det, rows a of J^-1 = (ia0, ia1, ia2)
                        double inv = 1 / det;
                        double i00 = c00 * inv, i01 = (j02 * j21 - j01 * j22) * inv, i02 = (j01 * j12 - j02 * j11) * inv;
                        double i10 = c01 * inv, i11 = (j00 * j22 - j02 * j20) * inv, i12 = (j02 * j10 - j00 * j12) * inv;
                        double i20 = c02 * inv, i21 = (j01 * j20 - j00 * j21) * inv, i22 = (j00 * j11 - j01 * j10) * inv;
                        double wj = w[i] * w[j] * w[k] * det;
                        int o = PACKED_STRIDE * (slot * p + pt);
                        out[o] = wj * (i00 * i00 + i01 * i01 + i02 * i02);
                        out[o + 1] = wj * (i00 * i10 + i01 * i11 + i02 * i12);
                        out[o + 2] = wj * (i00 * i20 + i01 * i21 + i02 * i22);
                        out[o + 3] = wj * (i10 * i10 + i11 * i11 + i12 * i12);
                        out[o + 4] = wj * (i10 * i20 + i11 * i21 + i12 * i22);
                        out[o + 5] = wj * (i20 * i20 + i21 * i21 + i22 * i22);
                        out[o + 6] = wj;
                    }
                }
            }
            return true;
        }
    }

    /**
     * x[d*P + (a + q(b + q c))] = sum I_ai I_bj I_ck X_d(i,j,k): GLL positions ([Np][3] from {@code nodeOffset}) to
     * the GL points, one direction at a time. Each output is summed from 0 in ascending order of the contracted
     * index (the s and t passes run as row updates, which the JIT vectorises without changing any sum).
     */
    private static void interpolate(double[] coords, int nodeOffset, int nq, int q, double[] im, double[] u, double[] t1,
                                    double[] t2, double[] x) {
        int p = q * q * q;
        int np = nq * nq * nq;
        for (int d = 0; d < 3; d++) {
            for (int n = 0; n < np; n++) {
                u[n] = coords[3 * (nodeOffset + n) + d];
            }
            // r direction: t1[a + q(j + nq k)]
            for (int jk = 0; jk < nq * nq; jk++) {
                for (int a = 0; a < q; a++) {
                    double s = 0;
                    for (int i = 0; i < nq; i++) {
                        s += im[a * nq + i] * u[i + nq * jk];
                    }
                    t1[a + q * jk] = s;
                }
            }
            // s direction: t2[a + q(b + q k)]
            for (int k = 0; k < nq; k++) {
                for (int b = 0; b < q; b++) {
                    int out = q * (b + q * k);
                    for (int a = 0; a < q; a++) {
                        t2[out + a] = 0;
                    }
                    for (int j = 0; j < nq; j++) {
                        double c = im[b * nq + j];
                        int in = q * (j + nq * k);
                        for (int a = 0; a < q; a++) {
                            t2[out + a] += c * t1[in + a];
                        }
                    }
                }
            }
            // t direction
            int qq = q * q;
            for (int c = 0; c < q; c++) {
                int out = d * p + qq * c;
                for (int ab = 0; ab < qq; ab++) {
                    x[out + ab] = 0;
                }
                for (int k = 0; k < nq; k++) {
                    double w = im[c * nq + k];
                    int in = qq * k;
                    for (int ab = 0; ab < qq; ab++) {
                        x[out + ab] += w * t2[in + ab];
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

    /**
     * Copies the packed factors of elements {@code fromElement .. toElement-1} ([E][P][7] layout, that range only)
     * into {@code dst} from {@code dstOffset}: for reading the factors element by element or uploading them in chunks
     * without a copy of the whole array.
     *
     * @throws IndexOutOfBoundsException if the element range or the destination range is out of bounds
     */
    public void copyPacked(int fromElement, int toElement, double[] dst, int dstOffset) {
        if (fromElement < 0 || toElement > elementCount || fromElement > toElement) {
            throw new IndexOutOfBoundsException("elements [" + fromElement + ", " + toElement + ") are not in [0, " + elementCount + "]");
        }
        int stride = PACKED_STRIDE * pointsPerElement;
        int length = (toElement - fromElement) * stride;
        if (dstOffset < 0 || (long) dstOffset + length > dst.length) {
            throw new IndexOutOfBoundsException("dst of length " + dst.length + " cannot hold " + length + " values from " + dstOffset);
        }
        System.arraycopy(packed, fromElement * stride, dst, dstOffset, length);
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
