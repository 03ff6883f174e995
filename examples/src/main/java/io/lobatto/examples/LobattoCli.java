package io.lobatto.examples;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code lobatto} command-line program: {@code poisson} (the main job) and {@code nekbone}. */
@Command(name = "lobatto", mixinStandardHelpOptions = true, version = "lobatto 0.1.0",
        description = "High-order spectral-element solvers on the JVM (CPU or OpenCL GPU through Aparapi).",
        subcommands = {PoissonCommand.class, NekboneCommand.class, CommandLine.HelpCommand.class})
public final class LobattoCli implements Runnable {

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    /** Runs the program; returns the exit code. */
    public static int run(String... args) {
        return new CommandLine(new LobattoCli()).execute(args);
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }
}
