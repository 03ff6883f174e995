package io.lobatto.core.parallel;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * A program that runs on the ranks of an MPI job, found with {@link ServiceLoader}: the optional
 * {@code lobatto-parallel} module (Java 22+) registers its distributed solves here, so the {@code lobatto} command
 * line runs distributed when started by {@code mpirun} with that module on the class path, without depending on it
 * or naming another main class.
 */
public interface DistributedCommand {

    /** The command it implements, e.g. "poisson". */
    String name();

    /**
     * Runs the command with {@code args} (the distributed program's own options) on the ranks of this MPI job; rank 0
     * prints to {@code out}. Returns the process exit code (0: converged).
     */
    int run(String[] args, PrintWriter out);

    /**
     * The number of ranks of the MPI job that started this process (Open MPI's {@code OMPI_COMM_WORLD_SIZE}, else
     * PMIx's {@code PMIX_SIZE}... as set by the launcher), or 1 when no launcher set one.
     */
    static int launcherSize() {
        for (String v : new String[] {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
            String s = System.getenv(v);
            if (s != null) {
                try {
                    return Math.max(1, Integer.parseInt(s.trim()));
                } catch (NumberFormatException e) {
                    return 1;
                }
            }
        }
        return 1;
    }

    /**
     * The registered command {@code name}, or empty when none is on the class path.
     *
     * @throws IllegalStateException if one is registered but cannot load (say the parallel module on a JDK below 22),
     *                               with the reason
     */
    static Optional<DistributedCommand> find(String name) {
        List<String> failures = new ArrayList<>();
        var it = ServiceLoader.load(DistributedCommand.class).iterator();
        while (true) {
            try {
                if (!it.hasNext()) {
                    break;
                }
                DistributedCommand c = it.next();
                if (c.name().equals(name)) {
                    return Optional.of(c);
                }
            } catch (ServiceConfigurationError | LinkageError e) {
                failures.add(e.getMessage());
            }
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("the distributed '" + name + "' command is on the class path but cannot load (the "
                    + "lobatto-parallel module needs a JDK 22 or later, running " + Runtime.version() + "): " + failures);
        }
        return Optional.empty();
    }
}
