package io.lobatto.parallel;

import java.io.PrintWriter;

import io.lobatto.core.parallel.DistributedCommand;

/**
 * {@code lobatto poisson} on the ranks of an MPI job: the {@link DistributedCommand} through which the command line
 * (lobatto-examples, Java 17) runs {@link DistributedPoisson} when {@code mpirun} started it with this module on the
 * class path.
 */
public final class DistributedPoissonCommand implements DistributedCommand {

    @Override
    public String name() {
        return "poisson";
    }

    @Override
    public int run(String[] args, PrintWriter out) {
        out.flush();
        return DistributedPoisson.run(args);
    }
}
