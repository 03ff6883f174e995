package io.lobatto.core.parallel;

/**
 * The {@link Communicator} of a solve on one rank: rank 0 of 1, sums and maxima are the values themselves,
 * there are no neighbours to exchange with. Needs no MPI.
 */
public final class SingleRankCommunicator implements Communicator {

    /** The one instance (it holds no resources). */
    public static final SingleRankCommunicator INSTANCE = new SingleRankCommunicator();

    private SingleRankCommunicator() {
    }

    @Override
    public int rank() {
        return 0;
    }

    @Override
    public int size() {
        return 1;
    }

    @Override
    public void allreduceSum(double[] values) {
        if (values == null) {
            throw new IllegalArgumentException("allreduceSum: values must not be null");
        }
    }

    @Override
    public double allreduceMax(double value) {
        return value;
    }

    /** Accepts only an empty exchange: one rank has no neighbours. */
    @Override
    public void exchange(int[] neighbours, double[][] send, double[][] receive) {
        Communicator.checkExchange(0, 1, neighbours, send, receive);
    }

    @Override
    public void barrier() {
    }

    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return "one rank (no MPI)";
    }
}
