package io.lobatto.parallel;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import io.lobatto.core.parallel.Communicator;

/**
 * The {@link Communicator} of the processes of an MPI job ({@code MPI_COMM_WORLD}), through Open MPI's
 * {@code libmpi.so} called with Java's foreign-function API (no JNI, no jextract; see {@link OpenMpiAbi} for what is
 * Open MPI specific). {@link #world()} initialises MPI (MPI_Init) unless it already is; {@link #close()} finalises it
 * (MPI_Finalize), after which no MPI call may be made in this process. Call it from one thread (MPI_THREAD_SINGLE).
 * The time spent in the exchange and the reductions is counted ({@link #exchangeSeconds()},
 * {@link #allreduceSeconds()}): the communication time of a solve.
 */
public final class MpiCommunicator implements Communicator {

    /** The message tag of {@link #exchange}. */
    private static final int EXCHANGE_TAG = 19;

    private final MpiLibrary mpi;
    private final int rank;
    private final int size;
    private boolean closed;
    private long exchangeNanos;
    private long allreduceNanos;
    private long exchanges;
    private long allreduces;
    private long allgatherNanos;
    private long allgathers;

    private MpiCommunicator(MpiLibrary mpi) {
        this.mpi = mpi;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment flag = a.allocate(JAVA_INT);
            MpiLibrary.check((int) mpi.initialized.invokeExact(flag), "MPI_Initialized");
            if (flag.get(JAVA_INT, 0) == 0) {
                MpiLibrary.check((int) mpi.init.invokeExact(MemorySegment.NULL, MemorySegment.NULL), "MPI_Init");
            }
            MemorySegment out = a.allocate(JAVA_INT);
            MpiLibrary.check((int) mpi.commRank.invokeExact(mpi.abi.commWorld, out), "MPI_Comm_rank");
            this.rank = out.get(JAVA_INT, 0);
            MpiLibrary.check((int) mpi.commSize.invokeExact(mpi.abi.commWorld, out), "MPI_Comm_size");
            this.size = out.get(JAVA_INT, 0);
        } catch (MpiException e) {
            throw e;
        } catch (Throwable t) {
            throw new MpiException("MPI initialisation failed: " + t);
        }
    }

    /** MPI_COMM_WORLD, initialising MPI first if needed. */
    public static MpiCommunicator world() {
        return new MpiCommunicator(MpiLibrary.get());
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public void allreduceSum(double[] values) {
        if (values == null) {
            throw new IllegalArgumentException("allreduceSum: values must not be null");
        }
        allreduce(values, mpi.abi.opSum, "MPI_Allreduce(MPI_SUM)");
    }

    @Override
    public double allreduceMax(double value) {
        double[] v = {value};
        allreduce(v, mpi.abi.opMax, "MPI_Allreduce(MPI_MAX)");
        return v[0];
    }

    /** Native buffers kept for the life of the communicator: small Allreduces and the exchange's (grown as needed). */
    private final Arena buffers = Arena.ofShared();
    private static final int SMALL = 16;
    private final MemorySegment reduceIn = buffers.allocate(JAVA_DOUBLE, SMALL);
    private final MemorySegment reduceOut = buffers.allocate(JAVA_DOUBLE, SMALL);
    private MemorySegment[] sendBuffers = new MemorySegment[0];
    private MemorySegment[] receiveBuffers = new MemorySegment[0];
    private MemorySegment requestBuffer;
    private boolean exchangePending;

    private void allreduce(double[] values, MemorySegment op, String call) {
        requireOpen();
        if (values.length == 0) {
            return;
        }
        long t0 = System.nanoTime();
        if (values.length <= SMALL) {
            // the reductions of CG: no allocation per call (it is on the critical path, the device waits for it)
            try {
                MemorySegment.copy(values, 0, reduceIn, JAVA_DOUBLE, 0, values.length);
                int rc = (int) mpi.allreduce.invokeExact(reduceIn, reduceOut, values.length, mpi.abi.doubleType, op,
                        mpi.abi.commWorld);
                MpiLibrary.check(rc, call);
                MemorySegment.copy(reduceOut, JAVA_DOUBLE, 0, values, 0, values.length);
            } catch (MpiException e) {
                throw e;
            } catch (Throwable t) {
                throw new MpiException(call + " failed: " + t);
            }
        } else {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment in = a.allocateFrom(JAVA_DOUBLE, values);
                MemorySegment out = a.allocate(JAVA_DOUBLE, values.length);
                int rc = (int) mpi.allreduce.invokeExact(in, out, values.length, mpi.abi.doubleType, op, mpi.abi.commWorld);
                MpiLibrary.check(rc, call);
                MemorySegment.copy(out, JAVA_DOUBLE, 0, values, 0, values.length);
            } catch (MpiException e) {
                throw e;
            } catch (Throwable t) {
                throw new MpiException(call + " failed: " + t);
            }
        }
        allreduceNanos += System.nanoTime() - t0;
        allreduces++;
    }

    /** The native buffers of {@link #allgather} (kept: the redundant coarse solve gathers once per V-cycle). */
    private MemorySegment gatherSend;
    private MemorySegment gatherReceive;
    private MemorySegment gatherCounts;

    /** MPI_Allgatherv of doubles, from buffers in native memory kept from one call to the next. */
    @Override
    public void allgather(double[] send, int[] counts, double[] receive) {
        requireOpen();
        Communicator.checkAllgather(rank, size, send, counts, receive);
        long t0 = System.nanoTime();
        if (gatherCounts == null) {
            gatherCounts = buffers.allocate(JAVA_INT, 2L * size);
        }
        if (gatherSend == null || gatherSend.byteSize() < 8L * Math.max(1, send.length)) {
            gatherSend = buffers.allocate(JAVA_DOUBLE, Math.max(1, send.length));
        }
        if (gatherReceive == null || gatherReceive.byteSize() < 8L * Math.max(1, receive.length)) {
            gatherReceive = buffers.allocate(JAVA_DOUBLE, Math.max(1, receive.length));
        }
        int offset = 0;
        for (int r = 0; r < size; r++) {
            gatherCounts.setAtIndex(JAVA_INT, r, counts[r]);
            gatherCounts.setAtIndex(JAVA_INT, size + r, offset);
            offset += counts[r];
        }
        MemorySegment.copy(send, 0, gatherSend, JAVA_DOUBLE, 0, send.length);
        try {
            int rc = (int) mpi.allgatherv.invokeExact(gatherSend, send.length, mpi.abi.doubleType, gatherReceive,
                    gatherCounts, gatherCounts.asSlice(4L * size), mpi.abi.doubleType, mpi.abi.commWorld);
            MpiLibrary.check(rc, "MPI_Allgatherv");
        } catch (MpiException e) {
            throw e;
        } catch (Throwable t) {
            throw new MpiException("MPI_Allgatherv failed: " + t);
        }
        MemorySegment.copy(gatherReceive, JAVA_DOUBLE, 0, receive, 0, receive.length);
        allgatherNanos += System.nanoTime() - t0;
        allgathers++;
    }

    /** A kept native buffer of at least {@code count} doubles at {@code i} of {@code kept} (grown, not zeroed per use). */
    private MemorySegment[] keep(MemorySegment[] kept, int i, int count) {
        MemorySegment[] k = kept.length > i ? kept : java.util.Arrays.copyOf(kept, i + 1);
        if (k[i] == null || k[i].byteSize() < 8L * Math.max(1, count)) {
            k[i] = buffers.allocate(JAVA_DOUBLE, Math.max(1, Math.max(count, k[i] == null ? 0 : 2 * (int) (k[i].byteSize() / 8))));
        }
        return k;
    }

    @Override
    public void exchange(int[] neighbours, double[][] send, double[][] receive) {
        startExchange(neighbours, send, receive).finish();
    }

    /**
     * MPI_Irecv from and MPI_Isend to every neighbour, from buffers in native memory (the send values are copied there
     * now, so {@code send} may change at once; the buffers are kept from one exchange to the next); {@link PendingExchange#finish()} is MPI_Waitall and copies the received
     * values into {@code receive}. The time between the two is not counted in {@link #exchangeSeconds()}.
     */
    @Override
    public PendingExchange startExchange(int[] neighbours, double[][] send, double[][] receive) {
        requireOpen();
        Communicator.checkExchange(rank, size, neighbours, send, receive);
        int n = neighbours.length;
        if (n == 0) {
            return () -> { };
        }
        long t0 = System.nanoTime();
        // the kept buffers unless another exchange is still pending (then buffers of its own, freed by its finish)
        boolean kept = !exchangePending;
        Arena a = kept ? null : Arena.ofConfined();
        MemorySegment requests;
        MemorySegment[] in = new MemorySegment[n];
        MemorySegment[] out = new MemorySegment[n];
        try {
            if (kept) {
                if (requestBuffer == null || requestBuffer.byteSize() < OpenMpiAbi.REQUEST.byteSize() * 2L * n) {
                    requestBuffer = buffers.allocate(OpenMpiAbi.REQUEST, 2L * n);
                }
                requests = requestBuffer;
                for (int i = 0; i < n; i++) {
                    receiveBuffers = keep(receiveBuffers, i, receive[i].length);
                    sendBuffers = keep(sendBuffers, i, send[i].length);
                    in[i] = receiveBuffers[i];
                    out[i] = sendBuffers[i];
                    MemorySegment.copy(send[i], 0, out[i], JAVA_DOUBLE, 0, send[i].length);
                }
                exchangePending = true;
            } else {
                requests = a.allocate(OpenMpiAbi.REQUEST, 2L * n);
                for (int i = 0; i < n; i++) {
                    in[i] = a.allocate(JAVA_DOUBLE, Math.max(1, receive[i].length));
                    out[i] = send[i].length == 0 ? a.allocate(JAVA_DOUBLE) : a.allocateFrom(JAVA_DOUBLE, send[i]);
                }
            }
            for (int i = 0; i < n; i++) {
                int rc = (int) mpi.irecv.invokeExact(in[i], receive[i].length, mpi.abi.doubleType, neighbours[i], EXCHANGE_TAG,
                        mpi.abi.commWorld, requests.asSlice(i * OpenMpiAbi.REQUEST.byteSize()));
                MpiLibrary.check(rc, "MPI_Irecv from rank " + neighbours[i]);
            }
            for (int i = 0; i < n; i++) {
                int rc = (int) mpi.isend.invokeExact(out[i], send[i].length, mpi.abi.doubleType, neighbours[i], EXCHANGE_TAG,
                        mpi.abi.commWorld, requests.asSlice((n + i) * OpenMpiAbi.REQUEST.byteSize()));
                MpiLibrary.check(rc, "MPI_Isend to rank " + neighbours[i]);
            }
        } catch (MpiException e) {
            release(a, kept);
            throw e;
        } catch (Throwable t) {
            release(a, kept);
            throw new MpiException("exchange with ranks " + java.util.Arrays.toString(neighbours) + " failed: " + t);
        }
        exchangeNanos += System.nanoTime() - t0;
        MemorySegment reqs = requests;
        return new PendingExchange() {
            private boolean done;

            @Override
            public void finish() {
                if (done) {
                    return;
                }
                done = true;
                long t1 = System.nanoTime();
                try {
                    MpiLibrary.check((int) mpi.waitall.invokeExact(2 * n, reqs, OpenMpiAbi.STATUSES_IGNORE), "MPI_Waitall");
                    for (int i = 0; i < n; i++) {
                        MemorySegment.copy(in[i], JAVA_DOUBLE, 0, receive[i], 0, receive[i].length);
                    }
                } catch (MpiException e) {
                    throw e;
                } catch (Throwable t) {
                    throw new MpiException("exchange with ranks " + java.util.Arrays.toString(neighbours) + " failed: " + t);
                } finally {
                    release(a, kept);
                }
                exchangeNanos += System.nanoTime() - t1;
                exchanges++;
            }
        };
    }

    private void release(Arena a, boolean kept) {
        if (kept) {
            exchangePending = false;
        } else {
            a.close();
        }
    }

    @Override
    public void barrier() {
        requireOpen();
        try {
            MpiLibrary.check((int) mpi.barrier.invokeExact(mpi.abi.commWorld), "MPI_Barrier");
        } catch (MpiException e) {
            throw e;
        } catch (Throwable t) {
            throw new MpiException("MPI_Barrier failed: " + t);
        }
    }

    /** Seconds spent in {@link #exchange} and in both halves of {@link #startExchange} so far (posting, waiting, copying). */
    public double exchangeSeconds() {
        return exchangeNanos * 1e-9;
    }

    /** Seconds spent in the reductions so far. */
    public double allreduceSeconds() {
        return allreduceNanos * 1e-9;
    }

    /** Calls of {@link #exchange} so far (with at least one neighbour). */
    public long exchangeCount() {
        return exchanges;
    }

    /** Reductions so far. */
    public long allreduceCount() {
        return allreduces;
    }

    /** Calls of {@link #allgather} so far. */
    public long allgatherCount() {
        return allgathers;
    }

    /** Seconds spent in {@link #allgather} so far. */
    public double allgatherSeconds() {
        return allgatherNanos * 1e-9;
    }

    /** MPI_Finalize (unless MPI is finalised already); idempotent. */
    @Override
    @SuppressWarnings("try") // the buffers' arena is a resource only to be closed after MPI_Finalize
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try (Arena a = Arena.ofConfined(); Arena kept = buffers) {
            MemorySegment flag = a.allocate(JAVA_INT);
            MpiLibrary.check((int) mpi.finalized.invokeExact(flag), "MPI_Finalized");
            if (flag.get(JAVA_INT, 0) == 0) {
                MpiLibrary.check((int) mpi.finalizeMpi.invokeExact(), "MPI_Finalize");
            }
        } catch (MpiException e) {
            throw e;
        } catch (Throwable t) {
            throw new MpiException("MPI_Finalize failed: " + t);
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the MPI communicator of rank " + rank + " is closed (MPI_Finalize was called)");
        }
    }

    @Override
    public String toString() {
        return "MPI rank " + rank + " of " + size + " (Open MPI, " + OpenMpiAbi.library() + ")";
    }
}
