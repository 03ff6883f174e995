package io.lobatto.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The offline OpenCL C compiler for AMD GPUs: Debian's clang with the ROCm device libraries
 * ({@code apt-get install clang-15 rocm-device-libs}), run as
 * {@code clang -x cl -cl-std=CL1.2 -Xclang -finclude-default-header --rocm-device-lib-path=... -target amdgcn-amd-amdhsa
 * -mcpu=<gfx> -O3 -c k.cl -Rpass-analysis=kernel-resource-usage}, whose remarks give each kernel's resources.
 * {@code LOBATTO_AMD_CLANG} names another clang, {@code LOBATTO_ROCM_DEVICE_LIBS} another bitcode folder.
 *
 * @param clang      the clang executable
 * @param deviceLibs the folder of the ROCm device libraries' bitcode
 */
record AmdClang(String clang, Path deviceLibs) {

    /** Environment variable naming the clang to run. */
    static final String CLANG_ENV = "LOBATTO_AMD_CLANG";
    /** Environment variable naming the ROCm device libraries' bitcode folder. */
    static final String LIBS_ENV = "LOBATTO_ROCM_DEVICE_LIBS";
    static final String DEFAULT_CLANG = "clang-15";
    static final Path DEFAULT_LIBS = Path.of("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode");
    private static final long TIMEOUT_S = 300;

    /** The compiler of this machine, or an exception that says what to install. */
    static AmdClang find() {
        String clang = env(CLANG_ENV, DEFAULT_CLANG);
        Path libs = Path.of(env(LIBS_ENV, DEFAULT_LIBS.toString()));
        String missing = missing(clang, libs);
        if (missing != null) {
            throw new IllegalStateException(missing);
        }
        return new AmdClang(clang, libs);
    }

    /** Why this machine cannot compile for AMD GPUs, or null when it can. */
    static String whyNot() {
        return missing(env(CLANG_ENV, DEFAULT_CLANG), Path.of(env(LIBS_ENV, DEFAULT_LIBS.toString())));
    }

    private static String missing(String clang, Path libs) {
        String version;
        try {
            version = run(List.of(clang, "--version"), null).output;
        } catch (IOException e) {
            return "no AMD offline compiler: '" + clang + "' does not run (" + e.getMessage()
                    + "); apt-get install clang-15 rocm-device-libs, or name one with " + CLANG_ENV;
        }
        if (!version.contains("clang")) {
            return "no AMD offline compiler: '" + clang + "' is not clang (" + version.lines().findFirst().orElse("") + ")";
        }
        if (!Files.isRegularFile(libs.resolve("ockl.bc"))) {
            return "no ROCm device libraries: " + libs.resolve("ockl.bc") + " is missing; apt-get install rocm-device-libs, "
                    + "or name the bitcode folder with " + LIBS_ENV;
        }
        return null;
    }

    /** clang's first line of {@code --version}. */
    String version() {
        try {
            return run(List.of(clang, "--version"), null).output.lines().findFirst().orElse("").strip();
        } catch (IOException e) {
            throw new IllegalStateException("'" + clang + " --version' failed: " + e.getMessage(), e);
        }
    }

    /** The command that compiles {@code file} for {@code cpu}. */
    List<String> command(String cpu, Path file, Path object) {
        return List.of(clang, "-x", "cl", "-cl-std=CL1.2", "-Xclang", "-finclude-default-header",
                "--rocm-device-lib-path=" + deviceLibs, "-target", "amdgcn-amd-amdhsa", "-mcpu=" + cpu, "-O3", "-c",
                file.toString(), "-o", object.toString(), "-Rpass-analysis=kernel-resource-usage");
    }

    /**
     * Compiles {@code source} (one kernel) for {@code cpu} and returns its resources; a compile error throws with
     * {@code label}, the target and clang's error lines.
     */
    AmdResourceUsage compile(String source, String cpu, String label) {
        Path dir = null;
        try {
            dir = Files.createTempDirectory("lobatto-amd");
            Path file = dir.resolve("k.cl");
            Files.writeString(file, source, StandardCharsets.UTF_8);
            Result r = run(command(cpu, file, dir.resolve("k.o")), dir);
            if (r.exit != 0) {
                String errors = r.output.lines().filter(l -> l.contains("error")).limit(5).collect(Collectors.joining("\n"));
                throw new IllegalStateException("kernel '" + label + "' does not compile for " + cpu + " (clang exit "
                        + r.exit + "): " + (errors.isEmpty() ? r.output.strip() : errors));
            }
            return AmdResourceUsage.parse(r.output);
        } catch (IOException e) {
            throw new IllegalStateException("compiling kernel '" + label + "' for " + cpu + ": " + e.getMessage(), e);
        } finally {
            delete(dir);
        }
    }

    private record Result(int exit, String output) {
    }

    private static Result run(List<String> command, Path dir) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        if (dir != null) {
            pb.directory(dir.toFile());
        }
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        try {
            if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(command.get(0) + " ran over " + TIMEOUT_S + " s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    private static String env(String name, String otherwise) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? otherwise : v.trim();
    }

    private static void delete(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            List<Path> all = new ArrayList<>(s.sorted(Comparator.reverseOrder()).toList());
            for (Path f : all) {
                Files.deleteIfExists(f);
            }
        } catch (IOException ignored) {
            // a temporary folder left behind is harmless
        }
    }
}
