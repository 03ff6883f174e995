package io.lobatto.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.lobatto.backend.cpu.CpuBackend;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.core.pointwise.Quadrature;
import io.lobatto.operators.physics.Diffusion;
import io.lobatto.operators.physics.IsotropicElasticity;
import picocli.CommandLine;

/**
 * The user-operator examples on the cpu backend: the error of the diffusion and elasticity solutions on the deformed
 * 2x2x2 cube falls by a real factor from N = 2 to N = 4 (numbers measured at the commit that added them), the lifting of
 * nonzero Dirichlet data, and the commands' output and one-line errors.
 */
class PointwiseExamplesTest {

    private static Backend backend;

    @BeforeAll
    static void open() {
        backend = new CpuBackend();
    }

    @AfterAll
    static void close() {
        backend.close();
    }

    private static SpectralElementMesh mesh(int n, double xMax) {
        return SpectralElementMesh.of(HexMesh.box(2, 2, 2, 0, xMax, 0, 1, 0, 1), n, NodeMap.sinusoidal(0.05, 0, xMax, 0, 1, 0, 1));
    }

    private static PointwiseProblem.Solution diffusion(int n, Quadrature q, double xMax) {
        DiffusionSolution exact = DiffusionSolution.standard();
        PointwiseProblem.Solution s = new PointwiseProblem(mesh(n, xMax), new Diffusion(), q, Diffusion.setup(exact::kappa), exact)
                .solve(backend, PointwiseProblem.Preconditioning.NONE, 1e-13, 5000, null, null);
        assertTrue(s.solve().converged(), s.solve().toString());
        return s;
    }

    private static PointwiseProblem.Solution elasticity(int n, Quadrature q) {
        PointwiseProblem.Solution s = new PointwiseProblem(mesh(n, 1), new IsotropicElasticity(), q, IsotropicElasticity.setup(2, 1),
                new ElasticitySolution(2, 1)).solve(backend, PointwiseProblem.Preconditioning.NONE, 1e-13, 5000, null, null);
        assertTrue(s.solve().converged(), s.solve().toString());
        return s;
    }

    @ParameterizedTest
    @EnumSource(Quadrature.class)
    void diffusionConverges(Quadrature q) {
        // measured (GAUSS): N=2 max 1.0e-2, N=4 8.0e-4
        PointwiseProblem.Solution s2 = diffusion(2, q, 1), s4 = diffusion(4, q, 1);
        assertEquals(27, s2.assembledDofs());
        assertTrue(s2.maxError() > 3e-3 && s2.maxError() < 1e-1, q + ": N=2 max error " + s2.maxError());
        assertTrue(s4.maxError() < s2.maxError() / 8, q + ": N=2 " + s2.maxError() + ", N=4 " + s4.maxError());
        assertTrue(s4.maxError() < 2e-3 && s4.l2Error() < 2e-3, q + ": N=4 max " + s4.maxError() + ", L2 " + s4.l2Error());
        assertTrue(s4.l2Error() < s2.l2Error() / 8, q + ": L2 N=2 " + s2.l2Error() + ", N=4 " + s4.l2Error());
    }

    @Test
    void diffusionWithNonzeroDirichletDataIsLifted() {
        // on [0, 1.25] x [0, 1]^2 the solution is not zero on the face x = 1.25: the lifting carries it
        PointwiseProblem.Solution s2 = diffusion(2, Quadrature.GAUSS, 1.25), s4 = diffusion(4, Quadrature.GAUSS, 1.25);
        assertTrue(s4.maxError() < s2.maxError() / 8, "N=2 " + s2.maxError() + ", N=4 " + s4.maxError());
        assertTrue(s4.maxError() < 3e-3, "N=4 " + s4.maxError());
    }

    @ParameterizedTest
    @EnumSource(Quadrature.class)
    void elasticityConverges(Quadrature q) {
        // measured (GAUSS): N=2 max 1.3e-1, N=4 6.4e-3
        PointwiseProblem.Solution s2 = elasticity(2, q), s4 = elasticity(4, q);
        assertEquals(3 * 27, s2.assembledDofs());
        assertEquals(3, s2.components());
        assertTrue(s2.maxError() > 3e-2, q + ": N=2 max error " + s2.maxError());
        assertTrue(s4.maxError() < s2.maxError() / 8, q + ": N=2 " + s2.maxError() + ", N=4 " + s4.maxError());
        assertTrue(s4.maxError() < 2e-2 && s4.l2Error() < 1e-2, q + ": N=4 max " + s4.maxError() + ", L2 " + s4.l2Error());
    }

    @Test
    void jacobiGivesTheSameSolutionInFewerIterations() {
        for (boolean vector : new boolean[] {false, true}) {
            DiffusionSolution d = DiffusionSolution.standard();
            PointwiseProblem p = vector
                    ? new PointwiseProblem(mesh(4, 1), new IsotropicElasticity(), Quadrature.GAUSS, IsotropicElasticity.setup(2, 1),
                            new ElasticitySolution(2, 1))
                    : new PointwiseProblem(mesh(4, 1), new Diffusion(), Quadrature.GAUSS, Diffusion.setup(d::kappa), d);
            PointwiseProblem.Solution none = p.solve(backend, PointwiseProblem.Preconditioning.NONE, 1e-12, 5000, null, null);
            PointwiseProblem.Solution jacobi = p.solve(backend, PointwiseProblem.Preconditioning.JACOBI, 1e-12, 5000, null, null);
            assertTrue(jacobi.solve().converged() && none.solve().converged());
            assertEquals(none.maxError(), jacobi.maxError(), 1e-8, "vector " + vector);
            assertTrue(jacobi.solve().iterations() < none.solve().iterations(), "vector " + vector + ": Jacobi "
                    + jacobi.solve().iterations() + " vs " + none.solve().iterations());
        }
    }

    record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        CommandLine cl = LobattoCli.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private static void fails(String expected, String... args) {
        Run r = run(args);
        String all = "stdout:\n" + r.out() + "\nstderr:\n" + r.err();
        assertEquals(CliErrors.EXIT_ERROR, r.code(), all);
        String[] lines = r.err().strip().split("\\R");
        assertEquals(1, lines.length, "one line on stderr; " + all);
        assertTrue(lines[0].startsWith("lobatto: error: "), all);
        assertTrue(lines[0].contains(expected), "'" + expected + "' in " + all);
        assertFalse(r.err().contains("\tat ") || r.err().contains("Exception") || r.err().contains("WARNING"), all);
        assertFalse(r.out().contains("CG:"), "failed before solving; " + all);
    }

    @Test
    void badInputIsOneLine() {
        fails("--mu must be > 0, got 0.0", "elasticity", "-b", "cpu", "--mu", "0");
        fails("bulk modulus", "elasticity", "-b", "cpu", "--lambda", "-1", "--mu", "1");
        fails("Invalid value for option '--quadrature'", "diffusion", "-b", "cpu", "--quadrature", "bogus");
        fails("Invalid value for option '--pc'", "diffusion", "-b", "cpu", "--pc", "pmg");
        fails("-N 0 is out of range", "diffusion", "-b", "cpu", "-N", "0");
        fails("--elements needs counts >= 1", "elasticity", "-b", "cpu", "-e", "0,1,1");
        fails("--tol must be >= 0", "diffusion", "-b", "cpu", "--tol", "-1");
        fails("Invalid value for option '--sweep'", "elasticity", "-b", "cpu", "--sweep", "5..2");
    }

    @Test
    void commandsReportAndWriteVtu(@TempDir Path dir) throws Exception {
        Path vtu = dir.resolve("u.vtu");
        Run r = run("elasticity", "-b", "cpu", "-e", "1,1,1", "-N", "3", "--pc", "none", "--vtu", vtu.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("backend cpu"), r.out());
        assertTrue(r.out().contains("DOFs = 24 (3 components x 8 assembled nodes"), r.out());
        assertTrue(r.out().contains("CG: ") && r.out().contains("error: max "), r.out());
        assertEquals("", r.err());
        String xml = Files.readString(vtu);
        assertTrue(xml.contains("Name=\"u\"") && xml.contains("NumberOfComponents=\"3\""), "a 3-vector field u");
        Run d = run("diffusion", "-b", "cpu", "-e", "2,2,2", "--pc", "none", "--sweep", "2..3");
        assertEquals(0, d.code(), d.out() + d.err());
        String[] lines = d.out().strip().split("\\R");
        assertTrue(lines[lines.length - 1].trim().startsWith("3 "), d.out());
        assertTrue(lines[lines.length - 1].contains("x"), "a rate column: " + d.out());
    }
}
