package io.lobatto.core.backend;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.geometry.ElementFactors;
import io.lobatto.core.mesh.ElementGeometry;
import io.lobatto.core.pointwise.PointFunction;
import io.lobatto.core.pointwise.Quadrature;

/**
 * The setup kernels on the host, elements in parallel (fork-join common pool): geometric factors and functions of
 * position computed from an {@link ElementGeometry} (node positions from the geometry nodes and the point map, then
 * {@link ElementFactors}). The Java backend runs them as its setup kernels, and they are the {@link Backend} defaults.
 * Results do not depend on the number of threads.
 */
public final class HostSetup {

    /** Elements per parallel task. */
    private static final int CHUNK = 32;
    private static final long MAX_ARRAY = Integer.MAX_VALUE - 8;

    private HostSetup() {
    }

    /** A {@link DeviceGeometry} that is the host description itself (nothing to release). */
    public static DeviceGeometry geometry(ElementGeometry geometry) {
        if (geometry == null) {
            throw new IllegalArgumentException("geometry must not be null");
        }
        return new DeviceGeometry() {
            @Override
            public ElementGeometry geometry() {
                return geometry;
            }

            @Override
            public void close() {
            }

            @Override
            public String toString() {
                return "host " + geometry;
            }
        };
    }

    /** The length of the factors of {@code geometry} at {@code quadrature} of {@code basis}: E P factorsPerPoint (checked). */
    public static int factorsLength(ElementGeometry geometry, Basis1D basis, Quadrature quadrature, int factorsPerPoint) {
        if (geometry == null || basis == null || quadrature == null) {
            throw new IllegalArgumentException("geometry, basis and quadrature must not be null");
        }
        if (factorsPerPoint != 1 && factorsPerPoint != 7) {
            throw new IllegalArgumentException("factorsPerPoint must be 1 (wJ) or 7 (packed G, wJ), got " + factorsPerPoint);
        }
        long total = (long) factorsPerPoint * geometry.elementCount() * quadrature.pointsPerElement(basis);
        if (total > MAX_ARRAY) {
            throw new IllegalArgumentException("geometric factors too large: " + factorsPerPoint + " * E * P = " + factorsPerPoint
                    + " * " + geometry.elementCount() + " * " + quadrature.pointsPerElement(basis) + " = " + total
                    + " exceeds the array limit 2^31 - 8");
        }
        return (int) total;
    }

    /** The factors as a new array ({@link #factors(ElementGeometry, Basis1D, Quadrature, int, double[])}). */
    public static double[] factors(ElementGeometry geometry, Basis1D basis, Quadrature quadrature, int factorsPerPoint) {
        double[] out = new double[factorsLength(geometry, basis, quadrature, factorsPerPoint)];
        factors(geometry, basis, quadrature, factorsPerPoint, out);
        return out;
    }

    /**
     * Writes the geometric factors {@code [E][P][factorsPerPoint]} of {@code geometry} into {@code out}: the node
     * positions of degree {@code basis.degree()} relative to each element's first node, then {@link ElementFactors}.
     *
     * @throws IllegalArgumentException naming the first element and point with |J| {@literal <=} 0
     */
    public static void factors(ElementGeometry geometry, Basis1D basis, Quadrature quadrature, int factorsPerPoint,
                               double[] out) {
        int length = factorsLength(geometry, basis, quadrature, factorsPerPoint);
        if (out.length != length) {
            throw new IllegalArgumentException("out has length " + out.length + ", expected E * P * factorsPerPoint = " + length);
        }
        int ne = geometry.elementCount();
        double[] phi = geometry.shapes(basis);
        int np = basis.np();
        int p = quadrature.pointsPerElement(basis);
        AtomicInteger firstBad = new AtomicInteger(Integer.MAX_VALUE);
        int chunks = (ne + CHUNK - 1) / CHUNK;
        IntStream.range(0, chunks).parallel().forEach(c -> {
            ElementFactors f = new ElementFactors(basis, quadrature);
            double[] rel = new double[3 * np];
            double[] work = new double[3 * geometry.nodesPerElement()];
            for (int e = c * CHUNK, end = Math.min(ne, (c + 1) * CHUNK); e < end; e++) {
                geometry.relativePositions(e, phi, work, rel);
                f.derive(rel);
                if (f.write(out, e * p * factorsPerPoint, factorsPerPoint) >= 0) {
                    firstBad.accumulateAndGet(e, Math::min);
                    return;
                }
            }
        });
        if (firstBad.get() != Integer.MAX_VALUE) {
            throw nonPositive(geometry, basis, quadrature, firstBad.get());
        }
    }

    /** The error naming the first point of element {@code e} with |J| {@literal <=} 0. */
    public static IllegalArgumentException nonPositive(ElementGeometry geometry, Basis1D basis, Quadrature quadrature, int e) {
        double[] phi = geometry.shapes(basis);
        double[] rel = new double[3 * basis.np()];
        double[] abs = new double[3 * basis.np()];
        double[] work = new double[3 * geometry.nodesPerElement()];
        ElementFactors f = new ElementFactors(basis, quadrature);
        geometry.relativePositions(e, phi, work, rel);
        geometry.positions(e, phi, abs);
        f.derive(rel);
        int pt = f.write(new double[f.points()], 0, 1);
        return f.nonPositive(e, Math.max(pt, 0), abs[0], abs[1], abs[2]);
    }

    /** {@code f} at the GLL nodes of every element as a new array ([E][Np][outputs]). */
    public static double[] evaluate(ElementGeometry geometry, Basis1D basis, PointFunction f) {
        long total = (long) geometry.elementCount() * basis.np() * f.outputs();
        if (total > MAX_ARRAY) {
            throw new IllegalArgumentException("E * Np * outputs = " + total + " exceeds the array limit 2^31 - 8");
        }
        double[] out = new double[(int) total];
        evaluate(geometry, basis, f, out);
        return out;
    }

    /** Writes {@code f} at the GLL nodes of every element into {@code out}, [E][Np][outputs]. */
    public static void evaluate(ElementGeometry geometry, Basis1D basis, PointFunction f, double[] out) {
        int ne = geometry.elementCount();
        int np = basis.np();
        int k = f.outputs();
        if ((long) ne * np * k != out.length) {
            throw new IllegalArgumentException("out has length " + out.length + ", expected E * Np * outputs = " + ne + " * "
                    + np + " * " + k);
        }
        double[] phi = geometry.shapes(basis);
        double[] c = f.coefficients();
        int chunks = (ne + CHUNK - 1) / CHUNK;
        IntStream.range(0, chunks).parallel().forEach(ch -> {
            double[] x = new double[3 * np];
            double[] at = new double[3];
            double[] v = new double[k];
            for (int e = ch * CHUNK, end = Math.min(ne, (ch + 1) * CHUNK); e < end; e++) {
                geometry.positions(e, phi, x);
                for (int n = 0; n < np; n++) {
                    at[0] = x[3 * n];
                    at[1] = x[3 * n + 1];
                    at[2] = x[3 * n + 2];
                    f.evaluate(at, c, v);
                    System.arraycopy(v, 0, out, (e * np + n) * k, k);
                }
            }
        });
    }
    /**
     * The {@link ErrorNorms} of the element-local nodal field {@code uL} ([E][Np]) against {@code exact} (its first
     * output): at the GLL nodes the max of |u - f(x)|; by Gauss-Legendre quadrature the sum over the elements, in
     * element order, of each element's sum over its points in point order of wJ ((I u)_q - f(x_q))^2, with x_q and
     * (I u)_q the tensor interpolants (GLL to GL) of the node positions and of u, and wJ the factors at the GL points.
     *
     * @throws IllegalArgumentException if {@code uL} does not have E Np entries
     */
    public static ErrorNorms errorNorms(ElementGeometry geometry, Basis1D basis, double[] uL, PointFunction exact) {
        if (geometry == null || basis == null || uL == null || exact == null) {
            throw new IllegalArgumentException("geometry, basis, uL and exact must not be null");
        }
        int ne = geometry.elementCount();
        int np = basis.np();
        if ((long) ne * np != uL.length) {
            throw new IllegalArgumentException("uL has length " + uL.length + ", expected E * Np = " + ne + " * " + np);
        }
        int nq = basis.nq();
        int mq = basis.nqGauss();
        int mp = basis.npGauss();
        double[] interp = basis.interpolation();
        double[] phi = geometry.shapes(basis);
        double[] c = exact.coefficients();
        double[] partial = new double[ne];
        double[] maxima = new double[ne];
        int chunks = (ne + CHUNK - 1) / CHUNK;
        IntStream.range(0, chunks).parallel().forEach(ch -> {
            double[] abs = new double[3 * np];
            double[] rel = new double[3 * np];
            double[] work = new double[3 * geometry.nodesPerElement()];
            double[] field = new double[np];
            double[][] atPoints = new double[4][mp];
            double[] w1 = new double[mq * nq * nq];
            double[] w2 = new double[mq * mq * nq];
            double[] wj = new double[mp];
            double[] at = new double[3];
            double[] v = new double[exact.outputs()];
            ElementFactors factors = new ElementFactors(basis, Quadrature.GAUSS);
            for (int e = ch * CHUNK, end = Math.min(ne, (ch + 1) * CHUNK); e < end; e++) {
                geometry.positions(e, phi, abs);
                double max = 0;
                for (int n = 0; n < np; n++) {
                    at[0] = abs[3 * n];
                    at[1] = abs[3 * n + 1];
                    at[2] = abs[3 * n + 2];
                    java.util.Arrays.fill(v, 0);
                    exact.evaluate(at, c, v);
                    max = Math.max(max, Math.abs(uL[e * np + n] - v[0]));
                }
                maxima[e] = max;
                geometry.relativePositions(e, phi, work, rel);
                factors.derive(rel);
                factors.write(wj, 0, 1);
                System.arraycopy(uL, e * np, field, 0, np);
                io.lobatto.core.basis.TensorInterpolation.interpolate(interp, mq, nq, field, atPoints[0], w1, w2);
                for (int d = 0; d < 3; d++) {
                    for (int n = 0; n < np; n++) {
                        field[n] = abs[3 * n + d];
                    }
                    io.lobatto.core.basis.TensorInterpolation.interpolate(interp, mq, nq, field, atPoints[1 + d], w1, w2);
                }
                double sum = 0;
                for (int q = 0; q < mp; q++) {
                    at[0] = atPoints[1][q];
                    at[1] = atPoints[2][q];
                    at[2] = atPoints[3][q];
                    java.util.Arrays.fill(v, 0);
                    exact.evaluate(at, c, v);
                    double d = atPoints[0][q] - v[0];
                    sum += wj[q] * d * d;
                }
                partial[e] = sum;
            }
        });
        return combine(partial, maxima);
    }

    /** The norms from per-element squared-L2 sums (added in element order) and per-element maxima. */
    public static ErrorNorms combine(double[] l2PerElement, double[] maxPerElement) {
        double sum = 0;
        for (double t : l2PerElement) {
            sum += t;
        }
        double max = 0;
        for (double m : maxPerElement) {
            max = Math.max(max, m);
        }
        return new ErrorNorms(max, sum);
    }
}
