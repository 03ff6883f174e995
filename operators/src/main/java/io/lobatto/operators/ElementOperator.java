package io.lobatto.operators;

import java.util.Objects;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.geometry.GeometricFactors;
import io.lobatto.core.mesh.SpectralElementMesh;

/**
 * A block-diagonal, element-local operator L = diag(L^e) on element-local vectors {@code [E][Np]}
 * (tensor-product paper, section 4): the mass matrix (BP1.0) or the screened stiffness S^e + lambda M^e
 * (BP3.5, BP3.0). Host-side and immutable: it holds the basis, the geometric factors at the points the
 * kernel integrates on, and lambda. {@link #bind(Backend)} uploads it for element-local applies;
 * {@link AssembledOperator#bind} makes the assembled operator A = Z^T L Z on assembled vectors.
 */
public abstract sealed class ElementOperator permits MassOperator, StiffnessBp35, StiffnessBp30 {

    private final Basis1D basis;
    private final GeometricFactors factors;
    private final double lambda;

    ElementOperator(Basis1D basis, GeometricFactors factors, double lambda) {
        this.basis = Objects.requireNonNull(basis, "basis");
        this.factors = Objects.requireNonNull(factors, "geometric factors");
        if (!Double.isFinite(lambda)) {
            throw new IllegalArgumentException("lambda must be finite, got " + lambda);
        }
        ElementKernel k = kernel();
        boolean gauss = k.usesGaussQuadrature();
        int perDir = gauss ? basis.nqGauss() : basis.nq();
        int expected = perDir * perDir * perDir;
        if (factors.gauss() != gauss || factors.pointsPerElement() != expected) {
            throw new IllegalArgumentException(k + " of degree N = " + basis.degree() + " needs geometric factors at the "
                    + expected + (gauss ? " Gauss-Legendre" : " GLL") + " points of each element, but got factors at "
                    + factors.pointsPerElement() + (factors.gauss() ? " Gauss-Legendre" : " GLL")
                    + " points (a basis of a different degree than the geometric factors?)");
        }
        this.lambda = lambda;
    }

    /**
     * The operator that {@code kernel} applies on {@code mesh}: the mass matrix for BP1.0 ({@code lambda}
     * ignored), S + lambda M for BP3.5 and BP3.0, with geometric factors at the kernel's points.
     */
    public static ElementOperator of(ElementKernel kernel, SpectralElementMesh mesh, double lambda) {
        return switch (kernel) {
            case MASS_BP10 -> MassOperator.on(mesh);
            case STIFFNESS_BP35 -> StiffnessBp35.on(mesh, lambda);
            case STIFFNESS_BP30 -> StiffnessBp30.on(mesh, lambda);
        };
    }

    /** The kernel of the Backend SPI that applies this operator. */
    public abstract ElementKernel kernel();

    /** The 1D basis (degree N). */
    public final Basis1D basis() {
        return basis;
    }

    /** Polynomial degree N. */
    public final int degree() {
        return basis.degree();
    }

    /** Number of elements E. */
    public final int elementCount() {
        return factors.elementCount();
    }

    /** Length of element-local vectors: E (N+1)^3. */
    public final int localSize() {
        return elementCount() * basis.np();
    }

    /** The geometric factors this operator integrates with. */
    public final GeometricFactors geometricFactors() {
        return factors;
    }

    /** The screening coefficient lambda of S + lambda M (ignored by the mass operator, which reports 1). */
    public double lambda() {
        return lambda;
    }

    /**
     * What the kernel reads per point: the packed factors (G00,G01,G02,G11,G12,G22,wJ) for the stiffness
     * operators, wJ alone for the mass operator ({@link ElementKernel#factorsPerPoint()}).
     */
    public final double[] geometricData() {
        return kernel().factorsPerPoint() == 1 ? factors.jacobianWeights() : factors.packed();
    }

    /**
     * The diagonal of every element matrix, {@code [E][Np]}, computed matrix-free by separable
     * contractions of the geometric factors with squared 1D matrices (never forming L^e).
     */
    public final double[] elementDiagonal() {
        return ElementDiagonal.compute(this);
    }

    /** Uploads this operator to {@code backend} for element-local applies. */
    public BoundElementOperator bind(Backend backend) {
        return new BoundElementOperator(this, backend);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[N=" + degree() + ", E=" + elementCount() + ", lambda=" + lambda + "]";
    }

}
