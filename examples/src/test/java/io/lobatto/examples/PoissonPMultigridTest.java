package io.lobatto.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.lobatto.backend.cpu.CpuBackend;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import picocli.CommandLine;

/** The main job with p-multigrid: the same discrete solution as Jacobi PCG, in far fewer iterations; the CLI's level report. */
class PoissonPMultigridTest {

    @ParameterizedTest
    @EnumSource(PoissonProblem.Operator.class)
    void pMultigridGivesJacobisErrorInFewIterations(PoissonProblem.Operator op) {
        SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(4, 4, 4, 0, 1, 0, 1, 0, 1), 6,
                NodeMap.sinusoidal(0.05, 0, 1, 0, 1, 0, 1));
        PoissonProblem problem = new PoissonProblem(mesh, ManufacturedSolution.unitCube(0), op);
        try (Backend be = new CpuBackend(2)) {
            PoissonProblem.Solution jacobi = problem.solve(be, PoissonProblem.Preconditioning.JACOBI, null, 1e-10, 5000, null, null);
            PoissonProblem.Solution pmg = problem.solve(be, PoissonProblem.Preconditioning.PMG, null, 1e-10, 5000, null, null);
            assertTrue(jacobi.solve().converged() && pmg.solve().converged(), jacobi.solve() + " / " + pmg.solve());
            assertTrue(pmg.solve().iterations() <= 25, op + ": p-MG took " + pmg.solve().iterations() + " iterations");
            assertTrue(pmg.solve().iterations() * 8 < jacobi.solve().iterations(), op + ": p-MG " + pmg.solve().iterations()
                    + " vs Jacobi " + jacobi.solve().iterations() + " iterations");
            // both solve the same discrete system to a relative residual of 1e-10: the nodal solutions agree to 1e-9 of
            // max |u|, and so do their errors against the manufactured solution (the errors themselves, ~1e-7, differ by
            // the algebraic error of either solve, ~1e-12)
            double diff = 0, scale = 0;
            for (int g = 0; g < pmg.u().length; g++) {
                diff = Math.max(diff, Math.abs(pmg.u()[g] - jacobi.u()[g]));
                scale = Math.max(scale, Math.abs(jacobi.u()[g]));
            }
            assertTrue(diff <= 1e-9 * scale, op + ": max |u_pMG - u_Jacobi| = " + diff + " vs max |u| = " + scale);
            assertTrue(Math.abs(pmg.maxError() - jacobi.maxError()) <= 1e-9 * scale,
                    op + ": max error p-MG " + pmg.maxError() + " vs Jacobi " + jacobi.maxError());
            assertEquals(3, pmg.levels().size(), "levels 6, 3, 1");
            assertEquals(6, pmg.levels().get(0).degree());
            assertEquals(3, pmg.levels().get(1).degree());
            assertEquals(1, pmg.levels().get(2).degree());
        }
    }

    @Test
    void poissonDefaultsToPMultigridAndReportsItsLevels() {
        StringWriter sw = new StringWriter();
        CommandLine cl = LobattoCli.commandLine();
        cl.setOut(new PrintWriter(sw, true));
        cl.setErr(new PrintWriter(sw, true));
        int code = cl.execute("poisson", "-b", "cpu", "-N", "5", "-e", "2,2,2", "--smoother-order", "2");
        String out = sw.toString();
        assertEquals(0, code, out);
        assertTrue(out.contains("preconditioner p-multigrid V-cycle (halving N, Chebyshev(Jacobi) order 2)"), out);
        Matcher levels = Pattern.compile("p-multigrid: (\\d+) levels, (\\d+) V-cycles").matcher(out);
        assertTrue(levels.find(), out);
        assertEquals(3, Integer.parseInt(levels.group(1)), "5 -> 2 -> 1");
        Matcher it = Pattern.compile("after (\\d+) iterations").matcher(out);
        assertTrue(it.find(), out);
        assertEquals(Integer.parseInt(it.group(1)), Integer.parseInt(levels.group(2)), "one V-cycle per CG iteration");
        assertTrue(Pattern.compile("(?m)^\\s+2\\s+\\d+\\s+8 Chebyshev\\(Jacobi\\) order 2").matcher(out).find(), out);
    }

    /**
     * Kershaw's cube (epsilon 0.3, 6^3 elements, N = 3) with cheb4opt-ras: the Schwarz default schedule 3, 2, 1 took
     * 19 flexible-CG iterations where halving (3, 1) took 24 (measured on the cpu backend).
     */
    @Test
    void schwarzDefaultScheduleCoarsensByAtMostTwoAndSavesIterationsOnKershaw() {
        SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(6, 6, 6, 0, 1, 0, 1, 0, 1), 3, NodeMap.kershaw(0.3));
        PoissonProblem problem = new PoissonProblem(mesh, ManufacturedSolution.unitCube(0), PoissonProblem.Operator.BP35);
        io.lobatto.solvers.Smoother ras = io.lobatto.solvers.Smoother.parse("cheb4opt-ras");
        try (Backend be = new CpuBackend(2)) {
            // the p-schedules alone (without the h-level 3^3 below N = 1, which leaves the iterations as they are: 19 either way)
            PoissonProblem.Solution steps = problem.solve(be, PoissonProblem.Preconditioning.PMG,
                    b -> b.smoother(ras).hCoarsening(false), 1e-10, 200, null, null);
            PoissonProblem.Solution halving = problem.solve(be, PoissonProblem.Preconditioning.PMG,
                    b -> b.smoother(ras).degrees(3, 1).hCoarsening(false), 1e-10, 200, null, null);
            assertEquals(java.util.List.of(3, 2, 1), steps.levels().stream().map(l -> l.degree()).toList());
            assertTrue(steps.solve().converged() && halving.solve().converged(), steps.solve() + " / " + halving.solve());
            assertTrue(steps.solve().iterations() <= 20, "3,2,1 took " + steps.solve().iterations() + " iterations");
            assertTrue(halving.solve().iterations() >= steps.solve().iterations() + 4, "3,1 took "
                    + halving.solve().iterations() + ", 3,2,1 " + steps.solve().iterations());
        }
    }
}
