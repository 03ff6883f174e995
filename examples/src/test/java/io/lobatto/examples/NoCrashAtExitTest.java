package io.lobatto.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The main job, each run a separate JVM, must exit 0 every time on a machine with PoCL
 * installed. PoCL's LLVM replaced the JVM's signal handlers, and the JVM then died of SIGSEGV (exit 139),
 * mostly at exit, even with the CPU backend named. A crash in any run fails the test; nothing is retried.
 */
class NoCrashAtExitTest {

    private static final int CPU_RUNS = 20;
    private static final int APARAPI_RUNS = 10;
    private static final String[] JOB = {"poisson", "-N", "3", "-e", "4,4,4"};
    /** A native method linked by -verbose:jni, e.g. "Dynamic-linking native method com.aparapi.X.y". */
    private static final Pattern NATIVE = Pattern.compile("native method ([\\w$.]+)");

    @TempDir
    Path dir;

    private record Run(int exit, String output) {
    }

    /** Runs the lobatto program in a fresh JVM on this test's class path, with {@code env} on a clean slate. */
    private Run run(Map<String, String> env, List<String> jvmOptions, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(LobattoCli.class.getName());
        cmd.addAll(List.of(args));
        Path log = Files.createTempFile(dir, "run", ".log");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().remove("LD_PRELOAD");
        pb.environment().remove("LOBATTO_BACKEND");
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            fail("lobatto " + String.join(" ", args) + " ran over 180 s; output:\n" + Files.readString(log, StandardCharsets.UTF_8));
        }
        return new Run(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }

    /** Fails with the number of bad runs, their exit codes and the output of the first one. */
    private static void assertAllZero(String what, List<Run> runs) {
        List<Integer> codes = runs.stream().map(Run::exit).toList();
        List<Run> bad = runs.stream().filter(r -> r.exit() != 0).toList();
        if (!bad.isEmpty()) {
            fail(what + ": " + bad.size() + " of " + runs.size() + " runs exited non-zero (139 = SIGSEGV); exit codes "
                    + codes + "; output of the first:\n" + bad.get(0).output());
        }
    }

    @Test
    void cpuBackendLoadsNoNativeCodeAndNeverCrashes() throws Exception {
        List<Run> runs = new ArrayList<>();
        for (int i = 0; i < CPU_RUNS; i++) {
            // -verbose:jni names every native method the JVM links: with cpu named, only the JDK's
            runs.add(run(Map.of("LOBATTO_BACKEND", "cpu"), List.of("-verbose:jni"), JOB));
        }
        assertAllZero("LOBATTO_BACKEND=cpu", runs);
        for (Run r : runs) {
            assertTrue(r.output().contains("backend cpu"), r.output());
            Matcher m = NATIVE.matcher(r.output());
            while (m.find()) {
                String method = m.group(1);
                assertTrue(method.startsWith("java.") || method.startsWith("jdk.") || method.startsWith("sun.")
                        || method.startsWith("com.sun."), "the CPU backend linked native method " + method
                        + " (only the JDK's may load when cpu is named)");
            }
        }
    }

    @Test
    void aparapiBackendOnOpenClNeverCrashes() throws Exception {
        Path libjsig = Paths.get(System.getProperty("java.home"), "lib", "libjsig.so");
        Map<String, String> env = Files.exists(libjsig) ? Map.of("LD_PRELOAD", libjsig.toString()) : Map.of();
        Run first = run(env, List.of(), concat(JOB, "-b", "aparapi"));
        if (first.exit() != 0 && first.output().contains("is unavailable")) {
            String why = "no OpenCL for the Aparapi backend: " + firstLine(first.output());
            if ("1".equals(System.getenv("LOBATTO_REQUIRE_OPENCL"))) {
                fail("LOBATTO_REQUIRE_OPENCL=1 but " + why);
            }
            Assumptions.abort(why + " (set LOBATTO_REQUIRE_OPENCL=1 to fail instead)");
        }
        List<Run> runs = new ArrayList<>(List.of(first));
        for (int i = 1; i < APARAPI_RUNS; i++) {
            // every other run with --profile, which crashed inside Aparapi's native profile() on the H100
            runs.add(i % 2 == 1 ? run(env, List.of(), concat(JOB, "-b", "aparapi", "--profile"))
                    : run(env, List.of(), concat(JOB, "-b", "aparapi")));
        }
        assertAllZero("-b aparapi" + (env.isEmpty() ? "" : " with LD_PRELOAD=" + libjsig), runs);
        for (Run r : runs) {
            assertTrue(r.output().contains("backend aparapi"), r.output());
        }
    }

    @Test
    void aparapiBackendWithoutLibjsigRunsOrRefusesCleanly() throws Exception {
        Run r = run(Map.of(), List.of(), concat(JOB, "-b", "aparapi"));
        if (r.output().contains("libjsig")) {
            assertEquals(1, r.exit(), "PoCL without libjsig must be refused with exit code 1; output:\n" + r.output());
        } else {
            assertTrue(r.exit() == 0 || r.output().contains("is unavailable") && r.exit() == 1,
                    "exit code " + r.exit() + "; output:\n" + r.output());
        }
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static String firstLine(String s) {
        for (String line : s.split("\n")) {
            if (line.contains("unavailable")) {
                return line.trim();
            }
        }
        return s.lines().findFirst().orElse("").trim();
    }
}
