package io.lobatto.operators;

import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.geometry.GeometricFactors;
import io.lobatto.core.mesh.SpectralElementMesh;

/**
 * BP1.0 (CEED BP1), the mass matrix M^e = I^T J^e I of each element, integrated exactly for the
 * trilinear map with Gauss-Legendre quadrature on N+2 points per direction (I interpolates the GLL
 * values to the GL points, J^e = diag(w |J|) at the GL points). Tensor-product paper, section 4.1.
 */
public final class MassOperator extends ElementOperator {

    /** The mass operator of {@code factors}, which must be at the N+2 Gauss-Legendre points of {@code basis}. */
    public MassOperator(Basis1D basis, GeometricFactors factors) {
        super(basis, factors, 1.0);
    }

    /** The mass operator of a spectral-element mesh (geometric factors at the GL points, computed by the backend it is bound to where the mesh allows). */
    public static MassOperator on(SpectralElementMesh mesh) {
        return new MassOperator(mesh);
    }

    private MassOperator(SpectralElementMesh mesh) {
        super(mesh, 1.0);
    }

    @Override
    public ElementKernel kernel() {
        return ElementKernel.MASS_BP10;
    }
}
