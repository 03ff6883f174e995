package io.lobatto.bench;

import io.lobatto.examples.CliErrors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.lobatto.backend.aparapi.OpenClDevices;
import io.lobatto.backend.aparapi.runtime.ClDevice;
import picocli.CommandLine;

/** lobatto-bench's command-line conventions: -h/--version on every subcommand, one-line errors with exit code 1. */
class BenchCliErrorsTest {

    record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        CommandLine cl = BenchCli.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return new Run(cl.execute(args), out.toString(), err.toString());
    }

    private static String fails(String expected, String... args) {
        Run r = run(args);
        String all = "stdout:\n" + r.out() + "\nstderr:\n" + r.err();
        assertEquals(1, r.code(), all);
        String[] lines = r.err().strip().split("\\R");
        assertEquals(1, lines.length, all);
        assertTrue(lines[0].startsWith("lobatto-bench: error: ") && lines[0].contains(expected), "'" + expected + "' in " + all);
        assertFalse(r.err().contains("\tat "), all);
        return lines[0];
    }

    @Test
    void everySubcommandTakesHelpAndVersion() {
        for (String sub : new String[] {"bs", "bk", "bp", "nekbone", "op", "launch", "all", "kernel-info", "plot"}) {
            Run h = run(sub, "-h");
            assertEquals(0, h.code(), sub + ": " + h.err());
            assertTrue(h.out().contains("Usage: lobatto-bench " + sub), h.out());
            Run v = run(sub, "--version");
            assertEquals(0, v.code(), sub);
            assertTrue(v.out().strip().matches("lobatto-bench \\S.*"), v.out());
        }
        assertTrue(run("bk", "--help").out().contains("1..15 on the aparapi backend"), "help states the N range");
    }

    @Test
    void badOptionsAreOneLine(@TempDir Path dir) {
        fails("--n-min 0 --n-max 15", "bk", "-b", "cpu", "-o", dir.toString(), "--n-min", "0");
        fails("--n-min 5 --n-max 3", "bk", "-b", "cpu", "-o", dir.toString(), "--n-min", "5", "--n-max", "3");
        fails("--reps and --iterations must be >= 1", "bp", "-b", "cpu", "-o", dir.toString(), "--reps", "0");
        fails("no backend named 'bogus'", "bs", "-b", "bogus", "-o", dir.toString());
        fails("Invalid value for option '--dofs'", "bk", "--dofs", "many");
        fails("Unknown option: '--bogus'", "op", "--bogus");
        fails("--element-variants has 'bogus'; expected table, shared, registers, pipelined or points", "op", "-b", "cpu", "-o",
                dir.toString(), "--element-variants", "table,bogus");
        fails("--target amd-gfx1100 is not known; known targets: [amd-gfx90a, amd-gfx940]", "kernel-info", "--target", "amd-gfx1100");
        fails("--local-cap 16384 needs --target", "kernel-info", "--local-cap", "16384");
        fails("-N 0..3 is out of range", "kernel-info", "--target", "amd-gfx90a", "-N", "0..3");
    }

    @Test
    void kernelInfoWithoutAGpuIsOneErrorLine() {
        Assumptions.assumeTrue(OpenClDevices.list().stream().noneMatch(d -> d.type() == ClDevice.Type.GPU), "an OpenCL GPU is present");
        fails("kernel-info builds for an OpenCL GPU and found none", "kernel-info");
        fails("no OpenCL device matching 'no-such-device'", "kernel-info", "--device", "no-such-device");
        fails("-N 16 is out of range", "kernel-info", "-N", "16");
    }

    @Test
    void sweepProgressLine() {
        assertEquals("bk 1/45: BK1 N = 1, 0 s elapsed, ETA ?", SweepProgress.format("bk", 0, 45, "BK1 N = 1", 0));
        assertEquals("bk 11/45: BK3 N = 11, 20 s elapsed, ETA ~1 min 10 s", SweepProgress.format("bk", 10, 45, "BK3 N = 11", 20));
        // not on a terminal (tests, pipes): nothing is printed and nothing fails
        SweepProgress.start("bk", 2).next("x");
    }
}
