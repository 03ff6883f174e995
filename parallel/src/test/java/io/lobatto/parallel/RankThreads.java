package io.lobatto.parallel;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** The tests' ranks as threads: one {@link ThreadCommunicator} group, one solve per rank, the results in rank order. */
final class RankThreads {

    /** One rank's solve on its communicator. */
    interface Solve {
        DistributedPoisson.Result on(ThreadCommunicator comm) throws Exception;
    }

    private RankThreads() {
    }

    /** Runs {@code solve} on {@code ranks} threads, one communicator each; the first failure (in rank order) is thrown. */
    static DistributedPoisson.Result[] solve(int ranks, Solve solve) throws Exception {
        ThreadCommunicator[] comms = ThreadCommunicator.group(ranks);
        ExecutorService pool = Executors.newFixedThreadPool(ranks);
        try {
            List<Future<DistributedPoisson.Result>> f = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                ThreadCommunicator c = comms[r];
                f.add(pool.submit(() -> solve.on(c)));
            }
            DistributedPoisson.Result[] out = new DistributedPoisson.Result[ranks];
            for (int r = 0; r < ranks; r++) {
                out[r] = f.get(r).get();
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }
}
