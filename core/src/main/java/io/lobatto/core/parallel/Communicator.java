package io.lobatto.core.parallel;

/**
 * The ranks of a distributed solve and the few collective operations that a distributed gather Z^T and
 * conjugate gradient need (hipBone's halo exchange and CG's Allreduce): sums and maxima over all ranks,
 * a pairwise exchange of double arrays with neighbour ranks, and a barrier. Every rank must call the
 * collective operations (allreduce, barrier) in the same order. Released with {@link #close()} (for MPI:
 * MPI_Finalize).
 */
public interface Communicator extends AutoCloseable {

    /** This rank, 0 ≤ rank &lt; {@link #size()}. */
    int rank();

    /** The number of ranks. */
    int size();

    /** Replaces {@code values} by their element-wise sum over all ranks (every rank passes the same length). */
    void allreduceSum(double[] values);

    /** The sum of {@code value} over all ranks. */
    default double allreduceSum(double value) {
        double[] v = {value};
        allreduceSum(v);
        return v[0];
    }

    /**
     * Gathers every rank's {@code send} on every rank (MPI_Allgatherv): {@code receive} gets rank r's {@code counts[r]}
     * values at offset counts[0] + ... + counts[r-1], in rank order; {@code send.length} must be {@code counts[rank()]}
     * and {@code receive.length} their sum. The default is {@link #allreduceSum} of zero-padded arrays (exact: each
     * entry has one contributor).
     *
     * @throws IllegalArgumentException if {@code counts} does not have {@link #size()} entries, a count is negative, or
     *                                  a length does not match
     */
    default void allgather(double[] send, int[] counts, double[] receive) {
        int offset = checkAllgather(rank(), size(), send, counts, receive);
        double[] all = new double[receive.length];
        System.arraycopy(send, 0, all, offset, send.length);
        allreduceSum(all);
        System.arraycopy(all, 0, receive, 0, all.length);
    }

    /** Checks the arguments of {@link #allgather} against {@code size} ranks; returns this {@code rank}'s offset. */
    static int checkAllgather(int rank, int size, double[] send, int[] counts, double[] receive) {
        if (send == null || counts == null || receive == null) {
            throw new IllegalArgumentException("allgather: send, counts and receive must not be null");
        }
        if (counts.length != size) {
            throw new IllegalArgumentException("allgather: counts has " + counts.length + " entries, expected one per rank ("
                    + size + ")");
        }
        long total = 0;
        int offset = 0;
        for (int r = 0; r < size; r++) {
            if (counts[r] < 0) {
                throw new IllegalArgumentException("allgather: counts[" + r + "] = " + counts[r] + " must be >= 0");
            }
            if (r == rank) {
                offset = (int) total;
            }
            total += counts[r];
        }
        if (send.length != counts[rank]) {
            throw new IllegalArgumentException("allgather: send has " + send.length + " values but counts[" + rank + "] = "
                    + counts[rank]);
        }
        if (receive.length != total) {
            throw new IllegalArgumentException("allgather: receive has " + receive.length + " values but the counts sum to "
                    + total);
        }
        return offset;
    }

    /** The maximum of {@code value} over all ranks. */
    double allreduceMax(double value);

    /**
     * Pairwise exchange with neighbour ranks: sends {@code send[i]} to rank {@code neighbours[i]} and receives
     * {@code receive[i]} from it (the neighbour sends an array of exactly that length). The neighbour must call
     * this too, with this rank among its neighbours. Posts all receives and sends, then waits for all of them
     * (MPI_Irecv, MPI_Isend, MPI_Waitall).
     *
     * @throws IllegalArgumentException if the arrays do not have the same length, or a neighbour is out of
     *                                  range or this rank
     */
    void exchange(int[] neighbours, double[][] send, double[][] receive);

    /**
     * {@link #exchange} in two halves, so that work can run between them (hipBone's overlap of the halo exchange with
     * the interior elements): posts the receives and sends (MPI_Irecv, MPI_Isend) and returns; the arrays of
     * {@code receive} hold the neighbours' values only once {@link PendingExchange#finish()} (MPI_Waitall) has
     * returned, and {@code send} must not change until then. Every started exchange must be finished, before the next
     * collective call of this communicator. The default exchanges at once and returns a finished exchange.
     *
     * @throws IllegalArgumentException as {@link #exchange} does
     */
    default PendingExchange startExchange(int[] neighbours, double[][] send, double[][] receive) {
        exchange(neighbours, send, receive);
        return () -> { };
    }

    /** An exchange started by {@link #startExchange}. */
    interface PendingExchange {
        /** Waits until the exchange is complete (MPI_Waitall); idempotent. */
        void finish();
    }

    /** Waits until every rank has called it. */
    void barrier();

    /** Releases the communicator (MPI_Finalize for MPI); idempotent. */
    @Override
    void close();

    /** Checks the arguments of {@link #exchange} against {@code size} ranks and this {@code rank}. */
    static void checkExchange(int rank, int size, int[] neighbours, double[][] send, double[][] receive) {
        if (neighbours == null || send == null || receive == null) {
            throw new IllegalArgumentException("exchange: neighbours, send and receive must not be null");
        }
        if (send.length != neighbours.length || receive.length != neighbours.length) {
            throw new IllegalArgumentException("exchange: " + neighbours.length + " neighbours need as many send and receive "
                    + "arrays, got " + send.length + " and " + receive.length);
        }
        for (int i = 0; i < neighbours.length; i++) {
            int n = neighbours[i];
            if (n < 0 || n >= size || n == rank) {
                throw new IllegalArgumentException("exchange: neighbours[" + i + "] = " + n + " must be a rank in [0, " + size
                        + ") other than this rank " + rank);
            }
            if (send[i] == null || receive[i] == null) {
                throw new IllegalArgumentException("exchange: send[" + i + "] and receive[" + i + "] must not be null");
            }
        }
    }
}
