package io.lobatto.examples;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.BackendException;
import io.lobatto.core.backend.Backends;
import picocli.CommandLine.Option;

/** The backend choice shared by the commands: {@code --backend best|cpu|aparapi}. */
final class BackendOptions {

    @Option(names = {"-b", "--backend"}, defaultValue = "best",
            description = "best (GPU if there is one; LOBATTO_BACKEND overrides), cpu or aparapi. Default: ${DEFAULT-VALUE}")
    String backend;

    /** Seconds since the JVM started at which the backend's opening began and ended (for {@code --profile}). */
    double openingStarted = Double.NaN;
    double openingEnded = Double.NaN;
    /** Whether the backend was opened ahead, while the command line was read ({@link BackendAhead}). */
    boolean openedAhead;

    /** The backend {@code --backend} names: the one {@link BackendAhead} opened, else opened now. */
    Backend create() {
        double t0 = PoissonCommand.sinceProcessStart();
        Backend ahead = BackendAhead.take(backend);
        if (ahead != null) {
            double[] interval = BackendAhead.interval();
            openingStarted = interval[0];
            openingEnded = interval[1];
            openedAhead = true;
            return ahead;
        }
        Backend b = open(backend);
        openingStarted = t0;
        openingEnded = PoissonCommand.sinceProcessStart();
        return b;
    }

    /** Opens the backend named {@code backend} ({@code best}: {@link Backends#best()}, naming the variable that forced one). */
    static Backend open(String backend) {
        if (!"best".equalsIgnoreCase(backend)) {
            return Backends.create(backend);
        }
        String forced = System.getProperty("lobatto.backend");
        String source = "-Dlobatto.backend";
        if (forced == null || forced.isBlank()) {
            forced = System.getenv("LOBATTO_BACKEND");
            source = "LOBATTO_BACKEND";
        }
        try {
            return Backends.best();
        } catch (BackendException ex) {
            if (forced == null || forced.isBlank()) {
                throw ex;
            }
            // say where the name came from: the environment is easy to forget
            throw new BackendException(source + "=" + forced + ": " + ex.getMessage()
                    + " (set it to cpu or aparapi, or unset it to let the program choose)", ex);
        }
    }
}
