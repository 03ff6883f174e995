import java.io.InputStream;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.Backends;
import io.lobatto.core.backend.DeviceGeometry;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.GmshReader;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.PointMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.core.pointwise.PointFunction;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.BoundElementOperator;
import io.lobatto.operators.MassOperator;
import io.lobatto.operators.StiffnessBp35;
import io.lobatto.solvers.ConjugateGradient;
import io.lobatto.solvers.PMultigrid;
import io.lobatto.solvers.SolveResult;

/**
 * The getting-started tutorial (site: getting-started.html): -Δu = f on a Gmsh mesh bent by the user's own map, with
 * the problem built where the operator runs. The host reads the mesh and numbers it; the backend computes the node
 * positions, the geometric factors, the Jacobi diagonals and f, g from the map and the functions below.
 */
public class DeviceSetup {

    /** The user's node map: a twist about the z axis through (0.5, 0.5), angle a z. Coefficients: a. */
    static final class Twist extends PointMap {
        Twist(double angle) {
            super(angle);
        }

        @Override
        public void evaluate(double[] p, double[] c, double[] x) {
            double t = c[0] * p[2];
            double dx = p[0] - 0.5, dy = p[1] - 0.5;
            x[0] = 0.5 + Math.cos(t) * dx - Math.sin(t) * dy;
            x[1] = 0.5 + Math.sin(t) * dx + Math.cos(t) * dy;
            x[2] = p[2];
        }
    }

    /** The exact solution u = sin(πx) sin(πy) z (1 - z) + x y. */
    static final class Exact extends PointFunction {
        Exact() {
            super(1);
        }

        @Override
        public void evaluate(double[] x, double[] c, double[] out) {
            out[0] = Math.sin(Math.PI * x[0]) * Math.sin(Math.PI * x[1]) * x[2] * (1 - x[2]) + x[0] * x[1];
        }
    }

    /** f = -Δu for the u above: π² sin sin (2 z (1 - z)) + 2 sin sin. */
    static final class Source extends PointFunction {
        Source() {
            super(1);
        }

        @Override
        public void evaluate(double[] x, double[] c, double[] out) {
            double s = Math.sin(Math.PI * x[0]) * Math.sin(Math.PI * x[1]);
            out[0] = 2 * Math.PI * Math.PI * s * x[2] * (1 - x[2]) + 2 * s;
        }
    }

    public static void main(String[] args) throws Exception {
        // 1. the mesh: topology on the host, geometry as 8 vertices per element and the user's map
        HexMesh hex;
        try (InputStream in = DeviceSetup.class.getResourceAsStream("/cube-2x2x2.msh")) {
            hex = GmshReader.load(in).hexMesh();
        }
        SpectralElementMesh mesh = SpectralElementMesh.of(hex, 6, new Twist(0.4));
        // 2. the Dirichlet nodes (every tagged face) masked
        boolean[] mask = mesh.boundaryMaskAllTagged();
        try (Backend backend = Backends.best();
             // 3. operators: Z is built by the backend from the mesh's numbering, the geometric factors at bind
             AssembledOperator a = AssembledOperator.bind(StiffnessBp35.on(mesh, 0), mesh, mask, backend);
             BoundElementOperator m = MassOperator.on(mesh).bind(backend);
             // 4. the geometry on the backend, for the functions of position
             DeviceGeometry geometry = backend.uploadGeometry(mesh.elementGeometry().orElseThrow());
             DeviceVector fL = backend.allocate(mesh.localSize()); DeviceVector gL = backend.allocate(mesh.localSize());
             DeviceVector uL = backend.allocate(mesh.localSize()); DeviceVector t = backend.allocate(mesh.localSize());
             DeviceVector ones = backend.allocate(a.size()); DeviceVector b = backend.allocate(a.size());
             DeviceVector lift = backend.allocate(a.size()); DeviceVector x = backend.allocate(a.size());
             // 5. p-multigrid preconditioner: its levels are set up on the backend too
             PMultigrid pmg = PMultigrid.builder(l -> StiffnessBp35.on(l, 0), mesh, backend).fineOperator(a).build();
             ConjugateGradient cg = new ConjugateGradient(a, pmg).relativeTolerance(1e-10)) {
            // 6. f, and g = u on the masked nodes only (Z 1 is 1 on the copies of unmasked nodes, 0 on masked ones)
            backend.evaluate(geometry, mesh.basis(), new Source(), fL);
            backend.evaluate(geometry, mesh.basis(), new Exact(), uL);
            backend.fill(ones, 1);
            backend.scatter(a.deviceScatter(), ones, t);
            backend.pointwiseMultiply(t, uL, gL);
            backend.axpby(1, uL, -1, gL);
            // 7. b = Zᵀ M f - Zᵀ S g
            m.apply(fL, t);
            backend.gather(a.deviceScatter(), t, b);
            a.boundElementOperator().apply(gL, t);
            backend.gather(a.deviceScatter(), t, lift);
            backend.axpby(-1, lift, 1, b);
            SolveResult result = cg.solve(b, x);
            // 8. the error at the nodes: u_h = Z x + g against u, element-local, on the backend
            backend.scatter(a.deviceScatter(), x, t);
            backend.axpby(1, gL, 1, t);
            backend.axpby(-1, uL, 1, t);
            double[] e = backend.download(t);
            double maxError = 0;
            for (double v : e) {
                maxError = Math.max(maxError, Math.abs(v));
            }
            System.out.printf("%s on %s: %s, max error %.1e%n", mesh, backend.device().name(), result, maxError);
            if (!result.converged() || maxError > 1e-5) {
                throw new IllegalStateException("the solve failed: " + result + ", max error " + maxError);
            }
        }
    }
}
