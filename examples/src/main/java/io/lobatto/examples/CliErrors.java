package io.lobatto.examples;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.Arrays;
import java.util.Locale;

import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * One-line errors for the command line: every exception a command throws, and every bad option, is printed
 * as a single line {@code <program>: error: <what is wrong and what to do>} on the error stream, with exit
 * code {@value #EXIT_ERROR}. {@code --stacktrace} (or the environment variable {@code LOBATTO_DEBUG=1})
 * prints the stack trace before that line.
 */
public final class CliErrors implements CommandLine.IExecutionExceptionHandler, CommandLine.IParameterExceptionHandler {

    /** The exit code of every error. */
    public static final int EXIT_ERROR = 1;
    /** The option that asks for stack traces. */
    public static final String STACKTRACE_OPTION = "--stacktrace";

    private final String program;

    private CliErrors(String program) {
        this.program = program;
    }

    /**
     * Installs the handlers on {@code cl} and its subcommands (and case-insensitive enum values, so
     * {@code --operator bp30} and {@code --pc JACOBI} both work); returns {@code cl}.
     */
    public static CommandLine install(CommandLine cl, String program) {
        CliErrors h = new CliErrors(program);
        cl.setExecutionExceptionHandler(h);
        cl.setParameterExceptionHandler(h);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        return cl;
    }

    @Override
    public int handleExecutionException(Exception ex, CommandLine commandLine, ParseResult fullParseResult) {
        Throwable t = ex instanceof CommandLine.ExecutionException && ex.getCause() != null ? ex.getCause() : ex;
        report(t, commandLine.getErr(), traceWanted(fullParseResult));
        return EXIT_ERROR;
    }

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cl = ex.getCommandLine();
        PrintWriter err = cl.getErr();
        if (debugFromEnvironment() || Arrays.asList(args).contains(STACKTRACE_OPTION)) {
            ex.printStackTrace(err);
        }
        err.println(program + ": error: " + oneLine(ex.getMessage()) + " (see '" + cl.getCommandSpec().qualifiedName() + " --help')");
        err.flush();
        return EXIT_ERROR;
    }

    /** Prints {@code t} as one error line on {@code err}, after its stack trace when {@code trace}. */
    void report(Throwable t, PrintWriter err, boolean trace) {
        if (trace) {
            t.printStackTrace(err);
        }
        err.println(program + ": error: " + describe(t));
        err.flush();
    }

    /** As {@link #report(Throwable, PrintWriter, boolean)} for errors thrown past picocli (e.g. {@link OutOfMemoryError}). */
    public static int reportUncaught(String program, Throwable t, PrintWriter err, String[] args) {
        new CliErrors(program).report(t, err, debugFromEnvironment() || Arrays.asList(args).contains(STACKTRACE_OPTION));
        return EXIT_ERROR;
    }

    private static boolean traceWanted(ParseResult pr) {
        if (debugFromEnvironment()) {
            return true;
        }
        for (ParseResult r = pr; r != null; r = r.subcommand()) {
            if (r.hasMatchedOption(STACKTRACE_OPTION)) {
                return true;
            }
        }
        return false;
    }

    static boolean debugFromEnvironment() {
        String v = System.getenv("LOBATTO_DEBUG");
        return v != null && !v.isBlank() && !v.equals("0") && !v.equalsIgnoreCase("false");
    }

    /** What went wrong, in one line, with what to do where the exception allows it. */
    public static String describe(Throwable t) {
        if (t instanceof OutOfMemoryError oom) {
            long max = Runtime.getRuntime().maxMemory();
            long suggest = Math.max(2, (long) Math.ceil(2.0 * max / (1L << 30)));
            return "out of memory (" + (oom.getMessage() == null ? "OutOfMemoryError" : oom.getMessage())
                    + String.format(Locale.ROOT, "; the Java heap may grow to %.1f GiB): give the JVM more heap, e.g. "
                    + "java -Xmx%dg -jar ..., or make the run smaller (lobatto: fewer elements -e, lower -N; lobatto-bench: "
                    + "smaller --dofs, --max-bytes or --n-max)", max / (double) (1L << 30), suggest);
        }
        if (t instanceof UncheckedIOException u && u.getCause() != null) {
            String context = u.getMessage() == null ? "" : u.getMessage();
            String causeMessage = u.getCause().getMessage();
            if (causeMessage != null && context.endsWith(": " + causeMessage)) {
                context = context.substring(0, context.length() - causeMessage.length() - 2);
            }
            return oneLine((context.isEmpty() ? "" : context + ": ") + describeIo(u.getCause()));
        }
        if (t instanceof IOException io) {
            return oneLine(describeIo(io));
        }
        if (t instanceof NumberFormatException nfe) {
            return oneLine("not a number: " + nfe.getMessage());
        }
        if (t instanceof IllegalArgumentException || t instanceof IllegalStateException || t instanceof ArithmeticException
                || t instanceof UnsupportedOperationException || isLibraryException(t)) {
            return t.getMessage() == null ? t.getClass().getSimpleName() : oneLine(t.getMessage());
        }
        return oneLine("internal error: " + t + " (please report it with the output of " + STACKTRACE_OPTION + ")");
    }

    /** The library's own exceptions (BackendException, MeshFormatException, ...): their messages are written for users. */
    private static boolean isLibraryException(Throwable t) {
        for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass()) {
            if (c.getName().startsWith("io.lobatto.")) {
                return true;
            }
        }
        return false;
    }

    /** An I/O error as "what: which file", e.g. "no such file: /x.msh" instead of the bare path NoSuchFileException gives. */
    public static String describeIo(IOException io) {
        if (io instanceof NoSuchFileException f) {
            return "no such file or folder: " + f.getFile();
        }
        if (io instanceof AccessDeniedException f) {
            return "permission denied: " + f.getFile();
        }
        if (io instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason() + ": " + f.getFile();
        }
        return io.getMessage() == null ? io.getClass().getSimpleName() : io.getMessage();
    }

    static String oneLine(String s) {
        return s == null ? "" : s.strip().replaceAll("\\s*\\R\\s*", "; ");
    }
}
