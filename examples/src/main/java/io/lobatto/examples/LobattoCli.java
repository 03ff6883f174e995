package io.lobatto.examples;

import java.io.InputStream;
import java.util.Properties;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The {@code lobatto} command-line program: {@code poisson} (the main job), {@code diffusion} and {@code elasticity}
 * (user operators) and {@code nekbone}. Every error is
 * one line {@code lobatto: error: ...} with exit code 1 ({@link CliErrors}); {@code --stacktrace} or
 * {@code LOBATTO_DEBUG=1} adds the stack trace.
 */
@Command(name = "lobatto", mixinStandardHelpOptions = true, versionProvider = LobattoCli.Version.class,
        description = "High-order spectral-element solvers on the JVM (CPU or OpenCL GPU through Aparapi).",
        subcommands = {PoissonCommand.class, DiffusionCommand.class, ElasticityCommand.class, NekboneCommand.class, CommandLine.HelpCommand.class})
public final class LobattoCli implements Runnable {

    @Option(names = CliErrors.STACKTRACE_OPTION, scope = ScopeType.INHERIT,
            description = "on an error, print the stack trace too (so does LOBATTO_DEBUG=1)")
    boolean stacktrace;

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    /** The program's command line with its one-line error handling installed. */
    public static CommandLine commandLine() {
        return CliErrors.install(new CommandLine(new LobattoCli()), "lobatto");
    }

    /** Runs the program; returns the exit code. */
    public static int run(String... args) {
        CommandLine cl = commandLine();
        try {
            return cl.execute(args);
        } catch (Error e) { // OutOfMemoryError and the like pass picocli's handlers
            return CliErrors.reportUncaught("lobatto", e, cl.getErr(), args);
        }
    }

    /**
     * The program: opens the backend the arguments name ahead ({@link BackendAhead}) while picocli reads them, runs the
     * command, closes a backend opened ahead and not taken, and exits with the command's code.
     */
    public static void main(String[] args) {
        BackendAhead.start(args);
        int code;
        try {
            code = run(args);
        } finally {
            BackendAhead.discard();
        }
        System.exit(code);
    }

    /** {@code --version}: the project version from the jar (manifest, else Maven's pom.properties). */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"lobatto " + version(LobattoCli.class, "lobatto-examples")};
        }
    }

    /** The version of the artifact holding {@code type}: Implementation-Version, else pom.properties, else "(unknown version)". */
    static String version(Class<?> type, String artifactId) {
        String v = type.getPackage() == null ? null : type.getPackage().getImplementationVersion();
        if (v != null && !v.isBlank()) {
            return v;
        }
        try (InputStream in = type.getResourceAsStream("/META-INF/maven/io.lobatto/" + artifactId + "/pom.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                v = p.getProperty("version");
            }
        } catch (java.io.IOException ignored) {
            // no version then
        }
        return v != null && !v.isBlank() ? v : "(version unknown: not run from a built jar)";
    }
}
