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

    /** The factors of one element of a mesh at a time ({@link ElementFactors} with the mesh's relative positions). */
    private static final class Element {
        private final SpectralElementMesh m;
        private final ElementFactors f;
        private final double[] rel;
        final int q;
        final double[] w;
        final double[] x;
        final double[] jac;

        Element(SpectralElementMesh m, boolean gauss) {
            this.m = m;
            this.f = new ElementFactors(m.basis(), gauss ? Quadrature.GAUSS : Quadrature.GLL);
            this.rel = new double[3 * m.basis().np()];
            this.q = f.pointsPerDirection();
            this.w = f.weights();
            this.x = f.positions();
            this.jac = f.jacobian();
        }

        /** Fills x (positions relative to the element's first node) and jac at every point of element e. */
        void positionsAndDerivatives(int e) {
            m.relativeCoordinates(e, rel, 0);
            f.derive(rel);
        }

        /**
         * Writes the factors of element e into {@code out} at element slot {@code slot}; returns false at the first
         * point with |J| <= 0 (or NaN), or throws there when {@code fail}.
         */
        boolean compute(int e, double[] out, int slot, boolean fail) {
            positionsAndDerivatives(e);
            int bad = f.write(out, slot * f.points() * PACKED_STRIDE, PACKED_STRIDE);
            if (bad < 0) {
                return true;
            }
            if (fail) {
                throw f.nonPositive(e, bad, m.x(e, 0, 0), m.x(e, 0, 1), m.x(e, 0, 2));
            }
            return false;
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
