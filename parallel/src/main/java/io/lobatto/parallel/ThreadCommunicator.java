package io.lobatto.parallel;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

import io.lobatto.core.parallel.Communicator;

/**
 * Ranks as threads of one JVM, without MPI: sums in rank order (deterministic), exchange through one FIFO mailbox per
 * ordered pair of ranks. {@link #group(int)} makes the ranks of one job. For tests, and for several GPUs of one host
 * where no MPI is installed ({@code DistributedPoisson --comm threads:K}: rank r takes device r). The barrier of the
 * reductions and the mailboxes spin for a while before they yield (a CG iteration crosses a barrier four times: a
 * parked thread's wake-up costs tens of microseconds, MPI's shared-memory reductions poll too).
 */
public final class ThreadCommunicator implements Communicator {

    private final Shared shared;
    private final int rank;

    private static final class Shared {
        final int size;
        final AtomicInteger arrived = new AtomicInteger();
        volatile int generation;
        final double[][] slots;
        final LinkedBlockingQueue<double[]>[][] mail;

        @SuppressWarnings({"unchecked", "rawtypes"})
        Shared(int size) {
            this.size = size;
            this.slots = new double[size][];
            this.mail = new LinkedBlockingQueue[size][size];
            for (int i = 0; i < size; i++) {
                for (int j = 0; j < size; j++) {
                    mail[i][j] = new LinkedBlockingQueue<>();
                }
            }
        }
    }

    private ThreadCommunicator(Shared shared, int rank) {
        this.shared = shared;
        this.rank = rank;
    }

    /** The {@code size} ranks of one job. */
    public static ThreadCommunicator[] group(int size) {
        Shared s = new Shared(size);
        ThreadCommunicator[] c = new ThreadCommunicator[size];
        for (int r = 0; r < size; r++) {
            c[r] = new ThreadCommunicator(s, r);
        }
        return c;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return shared.size;
    }

    @Override
    public void allreduceSum(double[] values) {
        shared.slots[rank] = values.clone();
        await();
        double[] sum = new double[values.length];
        for (int r = 0; r < shared.size; r++) {
            for (int i = 0; i < sum.length; i++) {
                sum[i] += shared.slots[r][i];
            }
        }
        await();
        System.arraycopy(sum, 0, values, 0, sum.length);
    }

    @Override
    public double allreduceMax(double value) {
        shared.slots[rank] = new double[]{value};
        await();
        double max = Double.NEGATIVE_INFINITY;
        for (int r = 0; r < shared.size; r++) {
            max = Math.max(max, shared.slots[r][0]);
        }
        await();
        return max;
    }

    @Override
    public void exchange(int[] neighbours, double[][] send, double[][] receive) {
        startExchange(neighbours, send, receive).finish();
    }

    /** Posts copies of the sends in the neighbours' mailboxes now; {@code finish} takes the received values. */
    @Override
    public PendingExchange startExchange(int[] neighbours, double[][] send, double[][] receive) {
        Communicator.checkExchange(rank, shared.size, neighbours, send, receive);
        for (int i = 0; i < neighbours.length; i++) {
            shared.mail[rank][neighbours[i]].add(send[i].clone());
        }
        return new PendingExchange() {
            private boolean done;

            @Override
            public void finish() {
                if (done) {
                    return;
                }
                done = true;
                try {
                    for (int i = 0; i < neighbours.length; i++) {
                        double[] m = receive(shared.mail[neighbours[i]][rank]);
                        if (m.length != receive[i].length) {
                            throw new IllegalStateException("rank " + rank + " expected " + receive[i].length
                                    + " values from rank " + neighbours[i] + ", got " + m.length);
                        }
                        System.arraycopy(m, 0, receive[i], 0, m.length);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        };
    }

    @Override
    public void barrier() {
        await();
    }

    /** Spins this long (calls of {@link Thread#onSpinWait()}) before it yields, at a barrier or a mailbox. */
    private static final int SPINS = 1 << 14;

    /** A sense-reversing barrier of the ranks: spins, then yields; interruptible. */
    private void await() {
        Shared s = shared;
        int gen = s.generation;
        if (s.arrived.incrementAndGet() == s.size) {
            s.arrived.set(0);
            s.generation = gen + 1;
            return;
        }
        int spins = 0;
        while (s.generation == gen) {
            if (++spins < SPINS) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
                if (Thread.currentThread().isInterrupted()) {
                    throw new IllegalStateException("rank " + rank + ": interrupted at a barrier");
                }
            }
        }
    }

    private static double[] receive(LinkedBlockingQueue<double[]> box) throws InterruptedException {
        for (int spins = 0; spins < SPINS; spins++) {
            double[] m = box.poll();
            if (m != null) {
                return m;
            }
            Thread.onSpinWait();
        }
        return box.take();
    }

    @Override
    public void close() {
    }
}
