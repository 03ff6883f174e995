package io.lobatto.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.lobatto.backend.cpu.CpuBackend;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;

/**
 * Spectral convergence of the Poisson example: on a fixed deformed 2x2x2 mesh the max nodal error of
 * u = sin(πx)sin(πy)sin(πz) falls by more than 100x from N = 4 to N = 8 and keeps falling to ~1e-10.
 */
class PoissonConvergenceTest {

    private static Backend backend;

    @BeforeAll
    static void open() {
        backend = new CpuBackend();
    }

    @AfterAll
    static void close() {
        backend.close();
    }

    static double maxError(int n, PoissonProblem.Operator op, double deform) {
        HexMesh box = HexMesh.box(2, 2, 2, 0, 1, 0, 1, 0, 1);
        SpectralElementMesh mesh = SpectralElementMesh.of(box, n, deform == 0 ? NodeMap.identity() : NodeMap.sinusoidal(deform, 0, 1, 0, 1, 0, 1));
        PoissonProblem.Solution s = new PoissonProblem(mesh, ManufacturedSolution.unitCube(1.0), op)
                .solve(backend, true, 1e-13, 5000, null);
        assertTrue(s.solve().converged(), s.solve().toString());
        return s.maxError();
    }

    @ParameterizedTest
    @EnumSource(PoissonProblem.Operator.class)
    void errorFallsSpectrally(PoissonProblem.Operator op) {
        double[] err = new double[13];
        for (int n = 2; n <= 12; n += 2) {
            err[n] = maxError(n, op, 0.05);
        }
        assertTrue(err[8] < err[4] / 100, op + ": N=4 " + err[4] + ", N=8 " + err[8]);
        for (int n = 4; n <= 10; n += 2) {
            assertTrue(err[n + 2] < err[n] / 5, op + ": no decrease from N=" + n + " (" + err[n] + ") to N=" + (n + 2) + " (" + err[n + 2] + ")");
        }
        // measured (BP3.5, this mesh): N=4 1.6e-3, N=8 5.2e-6, N=12 3.7e-9; the geometry itself converges too
        assertTrue(err[12] < 1e-8, op + ": N=12 error " + err[12]);
        assertTrue(err[2] > 1e-3, op + ": N=2 error " + err[2] + " suspiciously small");
    }

    @ParameterizedTest
    @EnumSource(PoissonProblem.Operator.class)
    void affineMeshReachesRoundOff(PoissonProblem.Operator op) {
        // measured (BP3.5): N=8 4.3e-10, N=9 1.5e-11, N=10 4.7e-13, N=11 1.8e-14
        double e8 = maxError(8, op, 0), e10 = maxError(10, op, 0);
        assertTrue(e8 < 2e-9 && e8 > 1e-11, op + ": N=8 error " + e8);
        assertTrue(e10 < 5e-12, op + ": N=10 error " + e10);
    }
}
