import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.Backends;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.core.pointwise.FieldEvaluation;
import io.lobatto.core.pointwise.PointGeometry;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.PointwiseSetup;
import io.lobatto.core.pointwise.Quadrature;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledPointwiseOperator;
import io.lobatto.operators.BoundPointwiseOperator;
import io.lobatto.operators.PointwiseOperator;
import io.lobatto.operators.physics.Mass;
import io.lobatto.solvers.ConjugateGradient;
import io.lobatto.solvers.JacobiPreconditioner;
import io.lobatto.solvers.SolveResult;

/**
 * A user's own physics: -div(K grad u) + c u = f with the anisotropic K = diag(1, 2, 3) and c = 1 on the unit cube,
 * u = 0 on its boundary, exact solution u = sin πx sin πy sin πz, so f = (6π² + 1) u.
 */
public class OwnPhysics {

    /** At a point: the physical gradient g = J^-T du, then dv = w|J| J^-1 K g and v = c w|J| u. */
    public static final class AnisotropicReaction extends PointwiseFunction {
        public AnisotropicReaction() {
            super(1, 14, FieldEvaluation.VALUES_AND_GRADIENTS);  // J^-1 (9), w|J|, K (3), c
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            double wj = data[9];
            double g0 = du[0] * data[0] + du[1] * data[3] + du[2] * data[6];   // g_j = sum_d du_d dr_d/dx_j
            double g1 = du[0] * data[1] + du[1] * data[4] + du[2] * data[7];
            double g2 = du[0] * data[2] + du[1] * data[5] + du[2] * data[8];
            double k0 = wj * data[10] * g0, k1 = wj * data[11] * g1, k2 = wj * data[12] * g2;  // w|J| K g
            for (int d = 0; d < 3; d++) {                                     // dv_d = sum_j dr_d/dx_j (w|J| K g)_j
                dv[d] = data[3 * d] * k0 + data[3 * d + 1] * k1 + data[3 * d + 2] * k2;
            }
            v[0] = data[13] * wj * u[0];
        }

        public static PointwiseSetup setup(double kx, double ky, double kz, double c) {
            return (x, dxdr, w, q) -> {
                q[9] = w * PointGeometry.inverse(dxdr, q);     // J^-1 into q[0..8], w|J| into q[9]
                q[10] = kx;
                q[11] = ky;
                q[12] = kz;
                q[13] = c;
            };
        }
    }

    static double exact(double x, double y, double z) {
        return Math.sin(Math.PI * x) * Math.sin(Math.PI * y) * Math.sin(Math.PI * z);
    }

    public static void main(String[] args) {
        SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(6, 6, 6, 0, 1, 0, 1, 0, 1), 6);
        ScatterOperator z = ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), mesh.boundaryMaskAllTagged());
        double[] xyz = mesh.coordinates();
        double[] f = new double[mesh.localSize()];
        for (int i = 0; i < f.length; i++) {
            f[i] = (6 * Math.PI * Math.PI + 1) * exact(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
        }
        PointwiseOperator l = PointwiseOperator.of(mesh, new AnisotropicReaction(), Quadrature.GAUSS,
                AnisotropicReaction.setup(1, 2, 3, 1));
        PointwiseOperator m = PointwiseOperator.of(mesh, new Mass(), Quadrature.GAUSS, Mass.setup());
        try (Backend backend = Backends.best();
             AssembledPointwiseOperator a = AssembledPointwiseOperator.bind(l, z, backend);
             BoundPointwiseOperator mass = m.bind(backend);
             DeviceVector fL = backend.upload(f); DeviceVector mf = backend.allocate(z.localSize());
             DeviceVector rhs = backend.allocate(a.size()); DeviceVector x = backend.allocate(a.size());
             JacobiPreconditioner pc = JacobiPreconditioner.ofDiagonal(backend, a.diagonal());
             ConjugateGradient cg = new ConjugateGradient(a, pc).relativeTolerance(1e-10)) {
            mass.apply(fL, mf);
            backend.gather(a.deviceScatter(), mf, rhs);
            SolveResult result = cg.solve(rhs, x);
            double[] u = z.fromAssembled(backend.download(x), 0.0);
            double[] g = mesh.globalCoordinates();
            double maxError = 0;
            for (int i = 0; i < u.length; i++) {
                maxError = Math.max(maxError, Math.abs(u[i] - exact(g[3 * i], g[3 * i + 1], g[3 * i + 2])));
            }
            System.out.printf("own physics, %s on %s: %s, max error %.1e%n", mesh, backend.device().name(), result, maxError);
            if (!result.converged() || maxError > 1e-5) {
                throw new IllegalStateException("the solve failed");
            }
        }
    }
}
