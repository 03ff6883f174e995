package io.lobatto.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.lobatto.solvers.SolverBreakdownException;
import picocli.CommandLine;

/**
 * Every bad input (option values, files, backends, singular problems) through the program's picocli entry, in process
 * on the cpu backend:
 * exit code 1, exactly one line "lobatto: error: ..." on stderr that says what to change, no stack trace, and no
 * solve output before it.
 */
class CliErrorsTest {

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

    /** Runs {@code args}, asserts exit 1 and one error line containing {@code expected}; returns the line. */
    private static String fails(String expected, String... args) {
        Run r = run(args);
        String all = "stdout:\n" + r.out() + "\nstderr:\n" + r.err();
        assertEquals(CliErrors.EXIT_ERROR, r.code(), all);
        String[] lines = r.err().strip().split("\\R");
        assertEquals(1, lines.length, "one line on stderr; " + all);
        assertTrue(lines[0].startsWith("lobatto: error: "), all);
        assertTrue(lines[0].contains(expected), "'" + expected + "' in " + all);
        assertFalse(r.err().contains("\tat ") || r.err().contains("Exception"), "no stack trace; " + all);
        assertFalse(r.out().contains("CG:"), "failed before solving; " + all);
        return lines[0];
    }

    @Test
    void degreeOutOfRange() {
        String line = fails("-N 0 is out of range", "poisson", "-b", "cpu", "-N", "0");
        assertTrue(line.contains("1..15 on the aparapi backend") && line.contains("1..30 on the cpu backend"), line);
        fails("-N 31 is out of range", "poisson", "-b", "cpu", "-N", "31", "-e", "1,1,1");
        fails("-N 0 is out of range", "nekbone", "-b", "cpu", "-N", "0");
    }

    @Test
    void elementCounts() {
        fails("--elements needs counts >= 1 in every direction, got 0,1,1", "poisson", "-b", "cpu", "-e", "0,1,1");
        fails("--elements needs three element counts nx,ny,nz", "poisson", "-b", "cpu", "-e", "1,1");
        fails("--elements needs three element counts nx,ny,nz", "nekbone", "-b", "cpu", "-e", "1,1");
        fails("--elements needs counts >= 1", "nekbone", "-b", "cpu", "-e", "2,0,2");
    }

    @Test
    void kershawElementCountsFollowItsKinks() {
        String line = fails("--elements 8,8,8 does not fit Kershaw's map", "poisson", "-b", "cpu", "--kershaw", "0.3", "-e", "8,8,8");
        assertTrue(line.contains("nx a multiple of 6 and ny, nz even"), line);
        fails("--elements 6,3,6 does not fit Kershaw's map", "poisson", "-b", "cpu", "--kershaw", "0.3", "-e", "6,3,6");
        fails("--elements 4,4,4 does not fit Kershaw's map", "poisson", "-b", "cpu", "--kershaw", "1", "-e", "4,4,4");
    }

    @Test
    void coarseSolveSettings() {
        fails("--coarse-reduction must be in (0, 1), got 1.0", "poisson", "-b", "cpu", "--coarse-reduction", "1");
        fails("--coarse-reduction must be in (0, 1), got 0.0", "poisson", "-b", "cpu", "--coarse-reduction", "0");
        fails("--coarse-max-it must be >= 1, got 0", "poisson", "-b", "cpu", "--coarse-max-it", "0");
        fails("'--h-coarsening': 'yes' is not a boolean", "poisson", "-b", "cpu", "--h-coarsening", "yes");
    }

    @Test
    void missingMeshFile() {
        fails("--mesh /nonexistent.msh: no such file", "poisson", "-b", "cpu", "--mesh", "/nonexistent.msh");
    }

    @Test
    void unknownPreconditionerOperatorAndBackend() {
        fails("Invalid value for option '--pc'", "poisson", "-b", "cpu", "--pc", "bogus");
        fails("Invalid value for option '--operator'", "poisson", "-b", "cpu", "--operator", "bogus");
        fails("no backend named 'bogus'", "poisson", "-b", "bogus", "-N", "2", "-e", "1,1,1");
        fails("Unknown option: '--bogus'", "poisson", "--bogus");
    }

    @Test
    void unknownBackendFromTheEnvironment() {
        // LOBATTO_BACKEND cannot be set in process; -Dlobatto.backend is the same switch (and wins over it)
        String old = System.getProperty("lobatto.backend");
        System.setProperty("lobatto.backend", "bogus");
        try {
            String line = fails("lobatto.backend=bogus", "poisson", "-N", "2", "-e", "1,1,1");
            assertTrue(line.contains("no backend named 'bogus'") && line.contains("cpu or aparapi"), line);
        } finally {
            if (old == null) {
                System.clearProperty("lobatto.backend");
            } else {
                System.setProperty("lobatto.backend", old);
            }
        }
    }

    @Test
    void operatorAndPreconditionerAreCaseInsensitive() {
        Run r = run("poisson", "-b", "cpu", "-N", "2", "-e", "1,1,1", "--operator", "bp30", "--pc", "JACOBI");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("operator BP30"), r.out());
    }

    @Test
    void unwritableVtuPathFailsBeforeTheSolve(@TempDir Path dir) {
        fails("--vtu /proc/x.vtu cannot be created or written", "poisson", "-b", "cpu", "-N", "2", "-e", "1,1,1", "--vtu", "/proc/x.vtu");
        Path missing = dir.resolve("no/such/folder/u.vtu");
        fails("does not exist", "poisson", "-b", "cpu", "-N", "2", "-e", "1,1,1", "--vtu", missing.toString());
        fails("is a folder", "poisson", "-b", "cpu", "-N", "2", "-e", "1,1,1", "--vtu", dir.toString());
        assertFalse(Files.exists(dir.resolve("no")));
    }

    @Test
    void writableVtuPathIsNotLeftBehindByTheCheck(@TempDir Path dir) {
        Path vtu = dir.resolve("u.vtu");
        CliChecks.requireWritable(vtu, "--vtu");
        assertFalse(Files.exists(vtu), "the probe file is removed again");
    }

    @Test
    void badSweepRanges() {
        fails("Invalid value for option '--sweep': expected a degree range lo..hi", "poisson", "-b", "cpu", "--sweep", "a..b");
        fails("is empty", "poisson", "-b", "cpu", "--sweep", "5..2");
        fails("-N 40 is out of range", "poisson", "-b", "cpu", "--sweep", "1..40");
        assertEquals(new DegreeRange(3, 3), DegreeRange.parse("3"));
        assertEquals(new DegreeRange(1, 10), DegreeRange.parse(" 1 .. 10 "));
    }

    @Test
    void untaggedMeshWithZeroLambdaIsSingular(@TempDir Path dir) throws Exception {
        Path msh = dir.resolve("untagged.msh");
        try (var in = CliErrorsTest.class.getResourceAsStream("/two-hexes-untagged.msh")) {
            Files.copy(in, msh);
        }
        String line = fails("singular", "poisson", "-b", "cpu", "--mesh", msh.toString(), "-N", "3");
        assertTrue(line.contains("no tagged (Dirichlet) boundary face") && line.contains("λ > 0"), line);
        Run r = run("poisson", "-b", "cpu", "--mesh", msh.toString(), "-N", "3", "--lambda", "1");
        assertEquals(0, r.code(), "with λ > 0 it is well posed: " + r.err());
        fails("--lambda must be > 0", "nekbone", "-b", "cpu", "-N", "2", "-e", "1,1,1", "--lambda", "0");
        fails("--lambda must be >= 0", "poisson", "-b", "cpu", "-N", "2", "-e", "1,1,1", "--lambda", "-1");
    }

    @Test
    void cgBreakdownSaysWhatASingularProblemLooksLike() {
        String m = new SolverBreakdownException(SolverBreakdownException.Kind.NOT_POSITIVE_DEFINITE, 336, "p . Ap", -1e-12).getMessage();
        assertTrue(m.contains("no Dirichlet node") && m.contains("λ > 0"), m);
    }

    @Test
    void outOfMemoryGetsAnXmxHint() {
        String m = CliErrors.describe(new OutOfMemoryError("Java heap space"));
        assertTrue(m.startsWith("out of memory (Java heap space") && m.contains("-Xmx") && m.contains("fewer elements"), m);
        StringWriter err = new StringWriter();
        assertEquals(1, CliErrors.reportUncaught("lobatto", new OutOfMemoryError("Java heap space"), new PrintWriter(err), new String[0]));
        assertEquals(1, err.toString().strip().split("\\R").length, err.toString());
        assertTrue(err.toString().startsWith("lobatto: error: out of memory"), err.toString());
    }

    @Test
    void otherExceptionsAreOneLineToo() {
        assertEquals("cannot read Gmsh file /x.msh: no such file or folder: /x.msh", CliErrors.describe(
                new UncheckedIOException("cannot read Gmsh file /x.msh: /x.msh", new NoSuchFileException("/x.msh"))));
        assertEquals("not a number: For input string: \"a\"", CliErrors.describe(new NumberFormatException("For input string: \"a\"")));
        assertEquals("a; b", CliErrors.describe(new IllegalStateException("a\n  b")));
        assertTrue(CliErrors.describe(new NullPointerException("x")).startsWith("internal error: java.lang.NullPointerException: x"));
    }

    @Test
    void stacktraceOptionPrintsTheTraceThenTheLine() {
        Run r = run("poisson", "-b", "cpu", "-N", "0", "--stacktrace");
        assertEquals(1, r.code());
        assertTrue(r.err().contains("\tat io.lobatto.examples.CliChecks.requireDegree"), r.err());
        String[] lines = r.err().strip().split("\\R");
        assertTrue(lines[lines.length - 1].startsWith("lobatto: error: -N 0"), r.err());
    }

    @Test
    void versionIsNotEmpty() {
        for (String[] args : new String[][] {{"--version"}, {"poisson", "--version"}, {"nekbone", "--version"}}) {
            Run r = run(args);
            assertEquals(0, r.code());
            assertTrue(r.out().strip().matches("lobatto \\S.*"), r.out());
        }
    }

    @Test
    void noProgressLinesWhenNotOnATerminal() {
        Run r = run("poisson", "-b", "cpu", "-N", "3", "-e", "2,2,2");
        assertEquals(0, r.code(), r.err());
        assertFalse(r.out().contains("CG iteration") || r.out().contains("\r"), r.out());
    }

    @Test
    void progressLineFormat() {
        // r0 = 1, r = 1e-5 after 100 iterations: 0.05 decades per iteration, 100 more to 1e-10
        String line = SolveProgress.format("", 100, 1e-5, 1, 1e-10, 4.0, 5000);
        assertEquals("CG iteration 100: residual 1.000e-05 (target 1.000e-10), 4 s elapsed, ETA 4 s", line);
        assertTrue(SolveProgress.format("", 10, 1e-5, 1, 1e-10, 100, 20).endsWith("ETA 1 min 40 s"), "capped at --max-it");
        assertTrue(SolveProgress.format("N = 3: ", 10, 2, 1, 1e-10, 1, 5000).endsWith("ETA ?"), "no progress yet");
    }
}
