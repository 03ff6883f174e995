package io.lobatto.operators;

import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.geometry.GeometricFactors;
import io.lobatto.core.mesh.SpectralElementMesh;

/**
 * BP3.0 (CEED BP3): S^e + lambda M^e = I^T D~^T G^e D~ I + lambda I^T J^e I with Gauss-Legendre
 * quadrature on N+2 points per direction: I interpolates GLL -> GL, D~ differentiates on the GL nodes,
 * G^e and J^e are evaluated at the GL points (tensor-product paper, section 4.3, Algorithm 5).
 */
public final class StiffnessBp30 extends ElementOperator {

    /** S + lambda M from geometric factors at the N+2 Gauss-Legendre points of {@code basis}. */
    public StiffnessBp30(Basis1D basis, GeometricFactors factors, double lambda) {
        super(basis, factors, lambda);
    }

    /** S + lambda M on a spectral-element mesh (geometric factors at the GL points, computed by the backend it is bound to where the mesh allows). */
    public static StiffnessBp30 on(SpectralElementMesh mesh, double lambda) {
        return new StiffnessBp30(mesh, lambda);
    }

    private StiffnessBp30(SpectralElementMesh mesh, double lambda) {
        super(mesh, lambda);
    }

    @Override
    public ElementKernel kernel() {
        return ElementKernel.STIFFNESS_BP30;
    }
}
