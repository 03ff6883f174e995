package io.lobatto.operators;

import java.util.Objects;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.geometry.GeometricFactors;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.PointwiseSetup;
import io.lobatto.core.pointwise.Quadrature;

/**
 * A user operator L = diag(L^e), L^e = B^T f B, on element-local vectors of an ncomp-component field
 * (component-blocked, {@code [ncomp][E][Np]}): the {@link PointwiseFunction} f at the points of a
 * {@link Quadrature}, with the point data its {@link PointwiseSetup} computed once
 * ({@code [E][P][dataPerPoint]}). Host-side and immutable. {@link #bind(Backend)} uploads it for
 * element-local applies; {@link AssembledPointwiseOperator#bind} makes A = Z^T L Z on assembled vectors
 * {@code [ncomp][N_G]}.
 */
public final class PointwiseOperator {

    private final Basis1D basis;
    private final int elements;
    private final PointwiseFunction function;
    private final Quadrature quadrature;
    private final double[] pointData;

    private PointwiseOperator(Basis1D basis, int elements, PointwiseFunction function, Quadrature quadrature,
                              double[] pointData) {
        this.basis = Objects.requireNonNull(basis, "basis");
        this.function = Objects.requireNonNull(function, "function");
        this.quadrature = Objects.requireNonNull(quadrature, "quadrature");
        Objects.requireNonNull(pointData, "pointData");
        if (elements < 1) {
            throw new IllegalArgumentException("elements must be >= 1, got " + elements);
        }
        long expected = (long) elements * quadrature.pointsPerElement(basis) * function.dataPerPoint();
        if (pointData.length != expected) {
            throw new IllegalArgumentException("pointData has length " + pointData.length + " but " + function
                    + " on E = " + elements + " elements with " + quadrature.pointsPerElement(basis) + " " + quadrature
                    + " points each needs E * P * dataPerPoint = " + expected);
        }
        this.elements = elements;
        this.pointData = pointData;
    }

    /** The operator of {@code function} on {@code mesh}, with its point data computed by {@code setup}. */
    public static PointwiseOperator of(SpectralElementMesh mesh, PointwiseFunction function, Quadrature quadrature,
                                       PointwiseSetup setup) {
        Objects.requireNonNull(mesh, "mesh");
        Objects.requireNonNull(function, "function");
        double[] data = GeometricFactors.pointData(mesh, quadrature, function.dataPerPoint(), setup);
        return new PointwiseOperator(mesh.basis(), mesh.elementCount(), function, quadrature, data);
    }

    /** The operator of {@code function} with point data given directly ({@code [E][P][dataPerPoint]}, copied). */
    public static PointwiseOperator of(Basis1D basis, int elements, PointwiseFunction function, Quadrature quadrature,
                                       double[] pointData) {
        return new PointwiseOperator(basis, elements, function, quadrature,
                Objects.requireNonNull(pointData, "pointData").clone());
    }

    /** The 1D basis (degree N). */
    public Basis1D basis() {
        return basis;
    }

    /** Polynomial degree N. */
    public int degree() {
        return basis.degree();
    }

    /** Number of elements E. */
    public int elementCount() {
        return elements;
    }

    /** The pointwise function f. */
    public PointwiseFunction function() {
        return function;
    }

    /** ncomp. */
    public int components() {
        return function.components();
    }

    /** Where f is evaluated. */
    public Quadrature quadrature() {
        return quadrature;
    }

    /** Length of element-local vectors: ncomp E (N+1)^3. */
    public int localSize() {
        return components() * elements * basis.np();
    }

    /** A copy of the point data, {@code [E][P][dataPerPoint]}. */
    public double[] pointData() {
        return pointData.clone();
    }

    /** The point data without a copy (package-internal: bind and the diagonal read it). */
    double[] pointDataView() {
        return pointData;
    }

    /** Uploads this operator to {@code backend} (translating f where the backend compiles kernels). */
    public BoundPointwiseOperator bind(Backend backend) {
        return new BoundPointwiseOperator(this, backend);
    }

    @Override
    public String toString() {
        return "PointwiseOperator[" + function + ", N=" + degree() + ", E=" + elements + ", " + quadrature + "]";
    }
}
