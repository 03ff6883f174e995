package io.lobatto.operators;

import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.geometry.GeometricFactors;
import io.lobatto.core.mesh.SpectralElementMesh;

/**
 * BP3.5 (CEED BP5): S^e + lambda M^e = D^T G^e D + lambda J^e with GLL collocation, where D is the
 * 3D gradient built from the 1D GLL differentiation matrix, G^e = w |J| J^-1 J^-T and J^e = w |J| at
 * the GLL nodes (tensor-product paper, section 4.2, Algorithm 3). The quadrature is the N+1 point GLL
 * rule, exact for integrands of degree 2N-1 per direction.
 */
public final class StiffnessBp35 extends ElementOperator {

    /** S + lambda M from geometric factors at the GLL nodes of {@code basis}. */
    public StiffnessBp35(Basis1D basis, GeometricFactors factors, double lambda) {
        super(basis, factors, lambda);
    }

    /** S + lambda M on a spectral-element mesh (geometric factors at the GLL nodes, computed by the backend it is bound to where the mesh allows). */
    public static StiffnessBp35 on(SpectralElementMesh mesh, double lambda) {
        return new StiffnessBp35(mesh, lambda);
    }

    private StiffnessBp35(SpectralElementMesh mesh, double lambda) {
        super(mesh, lambda);
    }

    @Override
    public ElementKernel kernel() {
        return ElementKernel.STIFFNESS_BP35;
    }
}
