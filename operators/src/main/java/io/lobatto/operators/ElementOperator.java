package io.lobatto.operators;

import java.util.Objects;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.geometry.GeometricFactors;
import io.lobatto.core.mesh.ElementGeometry;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.core.pointwise.Quadrature;

/**
 * A block-diagonal, element-local operator L = diag(L^e) on element-local vectors {@code [E][Np]}
 * (tensor-product paper, section 4): the mass matrix (BP1.0) or the screened stiffness S^e + lambda M^e
 * (BP3.5, BP3.0). Host-side and immutable: it holds the basis, the geometric factors at the points the
 * kernel integrates on, and lambda. {@link #bind(Backend)} uploads it for element-local applies;
 * {@link AssembledOperator#bind} makes the assembled operator A = Z^T L Z on assembled vectors.
 */
public abstract sealed class ElementOperator permits MassOperator, StiffnessBp35, StiffnessBp30 {

    private final Basis1D basis;
    /** The host factors, given or computed on first use; null until then for a mesh operator. */
    private volatile GeometricFactors factors;
    /** Makes {@link #factors} on first use for a mesh operator. */
    private final io.lobatto.core.concurrent.Once<GeometricFactors> lazyFactors = new io.lobatto.core.concurrent.Once<>();
    /** The mesh whose geometry the backend computes the factors from at bind time, or null (host factors given). */
    private final SpectralElementMesh mesh;
    private final double lambda;

    ElementOperator(Basis1D basis, GeometricFactors factors, double lambda) {
        this.basis = Objects.requireNonNull(basis, "basis");
        this.factors = Objects.requireNonNull(factors, "geometric factors");
        this.mesh = null;
        requireFinite(lambda);
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

    /** The operator on {@code mesh} of {@code other}, with its basis and lambda (for {@code with...} copies). */
    ElementOperator(ElementOperator other) {
        this.basis = other.basis;
        this.factors = other.factors;
        this.mesh = other.mesh;
        this.lambda = other.lambda;
    }

    /**
     * The operator on {@code mesh}: where the mesh's geometry is device-computable ({@link
     * SpectralElementMesh#elementGeometry()}), the factors are computed by the backend when the operator is bound and
     * on the host only if {@link #geometricFactors()} is asked for; otherwise they are computed on the host now.
     */
    ElementOperator(SpectralElementMesh mesh, double lambda) {
        Objects.requireNonNull(mesh, "mesh");
        this.basis = mesh.basis();
        requireFinite(lambda);
        this.lambda = lambda;
        if (mesh.elementGeometry().isPresent()) {
            this.mesh = mesh;
        } else {
            this.mesh = null;
            this.factors = hostFactors(mesh);
        }
    }

    private static void requireFinite(double lambda) {
        if (!Double.isFinite(lambda)) {
            throw new IllegalArgumentException("lambda must be finite, got " + lambda);
        }
    }

    /** The quadrature of this operator's kernel. */
    public final Quadrature quadrature() {
        return kernel().usesGaussQuadrature() ? Quadrature.GAUSS : Quadrature.GLL;
    }

    private GeometricFactors hostFactors(SpectralElementMesh m) {
        return quadrature() == Quadrature.GAUSS ? GeometricFactors.atGauss(m) : GeometricFactors.atGll(m);
    }

    /**
     * The element geometry the backend computes the factors from when this operator is bound, or empty when the
     * operator was given host factors (or its mesh's node map runs only on the host).
     */
    public final java.util.Optional<ElementGeometry> deviceGeometry() {
        return mesh == null ? java.util.Optional.empty() : mesh.elementGeometry();
    }

    /**
     * Where the kernel gets the geometric factors: {@link FactorStorage#STORED} unless the operator was made with
     * {@link StiffnessBp35#withFactorStorage}.
     */
    public FactorStorage factorStorage() {
        return FactorStorage.STORED;
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

    /**
     * {@link #of(ElementKernel, SpectralElementMesh, double)} with the geometric factors stored or, for BP3.5 on a
     * trilinear mesh, computed on the fly ({@link StiffnessBp35#withFactorStorage}).
     *
     * @throws IllegalArgumentException for {@link FactorStorage#ON_THE_FLY} with another kernel than BP3.5 or on a mesh
     *                                  that is not trilinear (naming why)
     */
    public static ElementOperator of(ElementKernel kernel, SpectralElementMesh mesh, double lambda, FactorStorage storage) {
        java.util.Objects.requireNonNull(storage, "storage");
        if (storage == FactorStorage.STORED) {
            return of(kernel, mesh, lambda);
        }
        if (kernel != ElementKernel.STIFFNESS_BP35) {
            throw new IllegalArgumentException("factor storage " + storage + " exists for STIFFNESS_BP35 only, not " + kernel);
        }
        return StiffnessBp35.on(mesh, lambda).withFactorStorage(storage);
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
        return mesh != null ? mesh.elementCount() : factors.elementCount();
    }

    /** Length of element-local vectors: E (N+1)^3. */
    public final int localSize() {
        return elementCount() * basis.np();
    }

    /**
     * The geometric factors this operator integrates with, on the host: computed here on first use for an operator
     * whose backend computes them (an E P-sized array: ask only when a host copy is needed, e.g. for a dense reference).
     */
    public final GeometricFactors geometricFactors() {
        GeometricFactors f = factors;
        if (f == null) {
            // made by a parallel loop: no lock held while it runs (a first use from inside a pool task must not block
            // the worker that loop needs)
            f = lazyFactors.get(() -> hostFactors(mesh));
            factors = f;
        }
        return f;
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
        GeometricFactors f = geometricFactors();
        return kernel().factorsPerPoint() == 1 ? f.jacobianWeights() : f.packed();
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
        return getClass().getSimpleName() + "[N=" + degree() + ", E=" + elementCount() + ", lambda=" + lambda
                + (factorStorage() == FactorStorage.STORED ? "" : ", factors " + factorStorage().label()) + "]";
    }

}
