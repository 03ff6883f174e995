package io.lobatto.parallel;

import java.util.Objects;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.parallel.Communicator;

/**
 * The part of the distributed gather Z^T that crosses ranks (gslib's pairwise exchange): after each rank has summed
 * its own elements' contributions into its assembled vector, every shared node receives the partial sums of the
 * neighbours that hold it, so all copies of a node end with the same total. With two copies per node (slabs) the
 * sum a + b is computed as b + a on the other rank, which is bitwise the same: the copies stay identical.
 *
 * <p>Construction checks that the neighbours agree on the shared nodes (their number and lattice positions), so a
 * partition bug fails at setup, not as a wrong solution. On a device vector the exchange goes through the host
 * (a read and a write of the whole vector: this is the CPU slice; hiding it behind the interior elements, as
 * hipBone does, is GPU work not done yet).
 */
public final class HaloExchange {

    private final Communicator comm;
    private final SharedNodes shared;
    private final double[][] send;
    private final double[][] receive;
    private double[] host;
    private long nanos;
    private long calls;

    /**
     * The exchange of {@code shared} over {@code comm}; a collective call (every rank constructs its exchange at
     * the same time).
     *
     * @throws IllegalStateException if a neighbour's shared nodes do not match this rank's
     */
    public HaloExchange(Communicator comm, SharedNodes shared) {
        this.comm = Objects.requireNonNull(comm, "comm");
        this.shared = Objects.requireNonNull(shared, "shared");
        int n = shared.neighbours().length;
        this.send = new double[n][];
        this.receive = new double[n][];
        for (int i = 0; i < n; i++) {
            send[i] = new double[shared.ids()[i].length];
            receive[i] = new double[shared.ids()[i].length];
        }
        checkAgreement();
    }

    private void checkAgreement() {
        int n = shared.neighbours().length;
        for (int i = 0; i < n; i++) {
            long[] keys = shared.keys()[i];
            for (int k = 0; k < keys.length; k++) {
                send[i][k] = keys[k]; // exact: lattice positions are far below 2^53
            }
        }
        comm.exchange(shared.neighbours(), send, receive);
        for (int i = 0; i < n; i++) {
            long[] keys = shared.keys()[i];
            for (int k = 0; k < keys.length; k++) {
                if (receive[i][k] != keys[k]) {
                    throw new IllegalStateException("rank " + comm.rank() + " and rank " + shared.neighbours()[i]
                            + " disagree on shared node " + k + ": lattice position " + keys[k] + " here, " + (long) receive[i][k]
                            + " there");
                }
            }
        }
    }

    /** Adds the neighbours' partial sums into the shared nodes of the host vector {@code xG}. */
    public void sum(double[] xG) {
        if (xG.length != shared.ownerMask().length) {
            throw new IllegalArgumentException("xG has length " + xG.length + " but the assembled vector has "
                    + shared.ownerMask().length);
        }
        long t0 = System.nanoTime();
        int n = shared.neighbours().length;
        for (int i = 0; i < n; i++) {
            int[] ids = shared.ids()[i];
            for (int k = 0; k < ids.length; k++) {
                send[i][k] = xG[ids[k]];
            }
        }
        comm.exchange(shared.neighbours(), send, receive);
        for (int i = 0; i < n; i++) {
            int[] ids = shared.ids()[i];
            for (int k = 0; k < ids.length; k++) {
                xG[ids[k]] += receive[i][k];
            }
        }
        nanos += System.nanoTime() - t0;
        calls++;
    }

    /** {@link #sum(double[])} on a vector of {@code backend} (through a host copy). */
    public void sum(Backend backend, DeviceVector xG) {
        if (shared.neighbours().length == 0) {
            return;
        }
        long t0 = System.nanoTime();
        if (host == null) {
            host = new double[shared.ownerMask().length];
        }
        backend.read(xG, host);
        long t1 = System.nanoTime();
        sum(host);
        long t2 = System.nanoTime();
        backend.write(host, xG);
        nanos += (t1 - t0) + (System.nanoTime() - t2);
    }

    /** Seconds spent in the exchanges so far, the host copies of device vectors included. */
    public double seconds() {
        return nanos * 1e-9;
    }

    /** Exchanges so far. */
    public long calls() {
        return calls;
    }

    /** The shared nodes this exchange sums over. */
    public SharedNodes sharedNodes() {
        return shared;
    }
}
