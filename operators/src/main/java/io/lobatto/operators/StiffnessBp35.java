package io.lobatto.operators;

import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.geometry.GeometricFactors;
import io.lobatto.core.mesh.ElementGeometry;
import io.lobatto.core.mesh.SpectralElementMesh;

/**
 * BP3.5 (CEED BP5): S^e + lambda M^e = D^T G^e D + lambda J^e with GLL collocation, where D is the
 * 3D gradient built from the 1D GLL differentiation matrix, G^e = w |J| J^-1 J^-T and J^e = w |J| at
 * the GLL nodes (tensor-product paper, section 4.2, Algorithm 3). The quadrature is the N+1 point GLL
 * rule, exact for integrands of degree 2N-1 per direction.
 *
 * <p>On a trilinear mesh the factors can be computed in the kernel from each element's 8 vertices instead of being
 * stored ({@link #withGeometryOnTheFly()}): the kernel then reads 24 doubles per element instead of 7 per node.
 */
public final class StiffnessBp35 extends ElementOperator {

    private final FactorStorage storage;

    /** S + lambda M from geometric factors at the GLL nodes of {@code basis}. */
    public StiffnessBp35(Basis1D basis, GeometricFactors factors, double lambda) {
        super(basis, factors, lambda);
        this.storage = FactorStorage.STORED;
    }

    /** S + lambda M on a spectral-element mesh (geometric factors at the GLL nodes, computed by the backend it is bound to where the mesh allows). */
    public static StiffnessBp35 on(SpectralElementMesh mesh, double lambda) {
        return new StiffnessBp35(mesh, lambda);
    }

    private StiffnessBp35(SpectralElementMesh mesh, double lambda) {
        super(mesh, lambda);
        this.storage = FactorStorage.STORED;
    }

    private StiffnessBp35(StiffnessBp35 other, FactorStorage storage) {
        super(other);
        this.storage = storage;
    }

    /** This operator with its geometric factors computed on the fly: {@code withFactorStorage(FactorStorage.ON_THE_FLY)}. */
    public StiffnessBp35 withGeometryOnTheFly() {
        return withFactorStorage(FactorStorage.ON_THE_FLY);
    }

    /**
     * This operator with its geometric factors {@code storage}: {@link FactorStorage#ON_THE_FLY} has the kernel compute
     * G and wJ at every node from the element's 8 vertices on every apply (element-local and assembled applies alike);
     * the operator is the same to round-off.
     *
     * @throws IllegalArgumentException for {@link FactorStorage#ON_THE_FLY} when the operator was not made on a mesh
     *                                  ({@link #on}) or its mesh is not trilinear (geometry order 1: 8 vertices per
     *                                  element, and no node map), naming what the mesh has instead
     */
    public StiffnessBp35 withFactorStorage(FactorStorage storage) {
        if (storage == null) {
            throw new IllegalArgumentException("storage must not be null");
        }
        if (storage == this.storage) {
            return this;
        }
        if (storage == FactorStorage.ON_THE_FLY) {
            java.util.Optional<ElementGeometry> g = deviceGeometry();
            String why = g.isEmpty()
                    ? "this operator has no element geometry (it was given host geometric factors, or its mesh's node map "
                      + "runs only on the host)"
                    : g.get().notTrilinearReason();
            if (why != null) {
                throw new IllegalArgumentException("factor storage ON_THE_FLY needs a trilinear mesh (geometry order 1: 8 "
                        + "vertices per element, and no node map), but " + why);
            }
        }
        return new StiffnessBp35(this, storage);
    }

    @Override
    public FactorStorage factorStorage() {
        return storage;
    }

    @Override
    public ElementKernel kernel() {
        return ElementKernel.STIFFNESS_BP35;
    }
}
