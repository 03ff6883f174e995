import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.Backends;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.BoundElementOperator;
import io.lobatto.operators.MassOperator;
import io.lobatto.operators.StiffnessBp35;
import io.lobatto.solvers.ConjugateGradient;
import io.lobatto.solvers.JacobiPreconditioner;
import io.lobatto.solvers.SolveResult;

/** -Δu + u = f on the unit cube with u = 0 on its boundary; exact solution u = sin πx sin πy sin πz. */
public class PoissonSolve {

    static double exact(double x, double y, double z) {
        return Math.sin(Math.PI * x) * Math.sin(Math.PI * y) * Math.sin(Math.PI * z);
    }

    public static void main(String[] args) {
        SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(8, 8, 8, 0, 1, 0, 1, 0, 1), 7);
        ScatterOperator z = ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), mesh.boundaryMaskAllTagged());
        double[] xyz = mesh.coordinates();                  // x, y, z of every element-local node, [E][Np][3]
        double[] f = new double[mesh.localSize()];          // f = (3π² + 1) u at every element-local node
        for (int i = 0; i < f.length; i++) {
            f[i] = (3 * Math.PI * Math.PI + 1) * exact(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
        }
        try (Backend backend = Backends.best();
             AssembledOperator a = AssembledOperator.bind(StiffnessBp35.on(mesh, 1.0), z, backend);  // A = Zᵀ(S + λM)Z, λ = 1
             BoundElementOperator m = MassOperator.on(mesh).bind(backend);
             DeviceVector fL = backend.upload(f); DeviceVector mf = backend.allocate(z.localSize());
             DeviceVector rhs = backend.allocate(a.size()); DeviceVector x = backend.allocate(a.size());
             JacobiPreconditioner pc = JacobiPreconditioner.of(a);
             ConjugateGradient cg = new ConjugateGradient(a, pc).relativeTolerance(1e-10)) {
            m.apply(fL, mf);                                 // M f, element by element
            backend.gather(a.deviceScatter(), mf, rhs);      // rhs = Zᵀ M f
            SolveResult result = cg.solve(rhs, x);           // x: u at the unmasked (interior) nodes
            double[] u = z.fromAssembled(backend.download(x), 0.0);  // u per mesh node, 0 on the boundary
            double[] g = mesh.globalCoordinates();
            double maxError = 0;
            for (int i = 0; i < u.length; i++) {
                maxError = Math.max(maxError, Math.abs(u[i] - exact(g[3 * i], g[3 * i + 1], g[3 * i + 2])));
            }
            System.out.printf("%s on %s: %s, max error %.1e%n", mesh, backend.device().name(), result, maxError);
            if (!result.converged() || maxError > 1e-6) {
                throw new IllegalStateException("the solve failed");
            }
        }
    }
}
