package io.lobatto.examples;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

import io.lobatto.core.backend.Backend;

/**
 * The backend opened ahead by {@link LobattoCli#main}: while picocli reads the command line and the command checks its
 * options (0.2-0.4 s of class loading and reflection in a fresh JVM), a daemon thread opens the backend the arguments
 * name (device, context, queues, start-up probes: most of a GPU backend's opening, and the driver's initialisation) so
 * that the command's {@link BackendOptions#create()} finds it open. Only {@code main} starts it, once per process, and
 * only for a command that opens a backend and no help or version request; {@code -Dlobatto.cli.openAhead=false} turns
 * it off. A backend opened ahead and not taken (an option error) is closed by {@link #discard()} before the process
 * exits, so no driver call is cut off by the exit.
 */
final class BackendAhead {

    /** System property: {@code true} (default) opens the backend ahead in {@code main}, {@code false} does not. */
    static final String PROPERTY = "lobatto.cli.openAhead";

    /** The commands whose run opens a backend through {@link BackendOptions}. */
    private static final List<String> COMMANDS = List.of("poisson", "diffusion", "elasticity", "nekbone");

    private static String name;
    private static CompletableFuture<Backend> opening;
    private static double started = Double.NaN;
    private static volatile double ended = Double.NaN;

    private BackendAhead() {
    }

    /**
     * Starts opening the backend that {@code args} name ({@code -b}/{@code --backend}, default {@code best}) on a daemon
     * thread, when the first argument that is not an option is a command of {@link #COMMANDS} and no argument asks for
     * help or the version; otherwise does nothing.
     */
    static synchronized void start(String[] args) {
        if (opening != null || !Boolean.parseBoolean(System.getProperty(PROPERTY, "true").trim())) {
            return;
        }
        String backend = backendArgument(args);
        if (backend == null) {
            return;
        }
        name = backend;
        started = PoissonCommand.sinceProcessStart();
        ended = Double.NaN;
        CompletableFuture<Backend> future = new CompletableFuture<>();
        opening = future;
        Thread t = new Thread(() -> {
            try {
                Backend b = BackendOptions.open(backend);
                ended = PoissonCommand.sinceProcessStart();   // before complete: take() reads it once the future is done
                future.complete(b);
            } catch (Throwable e) {
                ended = PoissonCommand.sinceProcessStart();
                future.completeExceptionally(e);
            }
        }, "lobatto-open-ahead");
        t.setDaemon(true);
        t.start();
    }

    /**
     * The backend named {@code backend} if it was opened ahead (waiting for its opening to end), else null: never opened
     * ahead, another name, or its opening failed (the caller then opens it itself and reports the error as usual).
     */
    static synchronized Backend take(String backend) {
        if (opening == null || !name.equalsIgnoreCase(backend)) {
            return null;
        }
        CompletableFuture<Backend> f = opening;
        opening = null;
        try {
            return f.join();
        } catch (RuntimeException failed) {
            return null;
        }
    }

    /** Seconds since the JVM started at which the ahead opening began and ended (NaN, NaN when there was none). */
    static synchronized double[] interval() {
        return new double[] {started, ended};
    }

    /** Closes a backend opened ahead and not taken (waiting for its opening to end); nothing when there is none. */
    static synchronized void discard() {
        if (opening == null) {
            return;
        }
        CompletableFuture<Backend> f = opening;
        opening = null;
        try {
            f.join().close();
        } catch (RuntimeException ignored) {
            // its opening failed: nothing to close, and the command reported whatever it had to
        }
    }

    /**
     * The backend name of {@code args} for a command of {@link #COMMANDS} ({@code -b x}, {@code -bx}, {@code --backend x},
     * {@code --backend=x}; {@code best} when not given), or null when the arguments run no such command or ask for help
     * or the version.
     */
    static String backendArgument(String[] args) {
        String command = null;
        String backend = "best";
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h") || a.equals("--help") || a.equals("-V") || a.equals("--version") || a.equals("help")) {
                return null;
            }
            if (a.equals("-b") || a.equals("--backend")) {
                if (i + 1 >= args.length) {
                    return null;          // picocli reports the missing value
                }
                backend = args[++i];
            } else if (a.startsWith("--backend=")) {
                backend = a.substring("--backend=".length());
            } else if (a.startsWith("-b") && a.length() > 2 && !a.startsWith("--")) {
                backend = a.substring(2);
            } else if (command == null && !a.startsWith("-")) {
                command = a;
            }
        }
        return command != null && COMMANDS.contains(command.toLowerCase(Locale.ROOT)) && !backend.isBlank() ? backend : null;
    }
}
