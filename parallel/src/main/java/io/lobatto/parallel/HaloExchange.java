package io.lobatto.parallel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceHalo;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.HostHalo;
import io.lobatto.core.parallel.Communicator;

/**
 * The part of the distributed gather Z^T that crosses ranks (gslib's pairwise exchange): after each rank has summed
 * its own elements' contributions into its assembled vector, every shared node receives the partial sums of the
 * neighbours that hold it. The sum at a node is taken in ascending rank order, from 0, over every rank that holds
 * it (this rank's own partial included), so all copies of a node end bitwise equal however many ranks share it.
 *
 * <p>Only the shared nodes travel: the {@link #sharedRows()} (each shared row once, ascending) are gathered into a
 * compact vector, read to the host, sent to the neighbours (MPI_Isend / MPI_Irecv / MPI_Waitall), and the received
 * partials written back and summed in ({@link Backend#sumHalo}). On a device this moves 8 bytes per shared node each
 * way, not the vector. Construction checks that the neighbours agree on the shared nodes (their number and global
 * keys), so a partition bug fails at setup, not as a wrong solution.
 */
public final class HaloExchange {

    private final Communicator comm;
    private final SharedNodes shared;
    private final int[] rows;
    /** For neighbour i and its k-th shared node: the index of the node in {@link #rows}. */
    private final int[][] rowIndex;
    private final int[] offsets;
    private final int[] starts;
    private final int[] sources;
    private final HostHalo host;
    private final double[][] send;
    private final double[][] receive;
    private final double[] received;
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
        int size = shared.ownerMask().length;
        this.send = new double[n][];
        this.receive = new double[n][];
        this.offsets = new int[n + 1];
        for (int i = 0; i < n; i++) {
            send[i] = new double[shared.ids()[i].length];
            receive[i] = new double[shared.ids()[i].length];
            offsets[i + 1] = offsets[i] + shared.ids()[i].length;
        }
        this.received = new double[offsets[n]];
        // each shared row once (ascending), and for each its contributions by rank: own -1, neighbour i's k-th value
        TreeMap<Integer, TreeMap<Integer, Integer>> byRow = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            int[] ids = shared.ids()[i];
            for (int k = 0; k < ids.length; k++) {
                if (ids[k] < 0 || ids[k] >= size) {
                    throw new IllegalArgumentException("shared id " + ids[k] + " (neighbour " + shared.neighbours()[i]
                            + ") is not in [0, " + size + ")");
                }
                TreeMap<Integer, Integer> c = byRow.computeIfAbsent(ids[k], r -> new TreeMap<>());
                c.put(comm.rank(), -1);
                if (c.put(shared.neighbours()[i], offsets[i] + k) != null) {
                    throw new IllegalArgumentException("row " + ids[k] + " is listed twice for neighbour " + shared.neighbours()[i]);
                }
            }
        }
        this.rows = byRow.keySet().stream().mapToInt(Integer::intValue).toArray();
        this.starts = new int[rows.length + 1];
        List<Integer> src = new ArrayList<>();
        int u = 0;
        for (TreeMap<Integer, Integer> c : byRow.values()) {
            src.addAll(c.values());
            starts[++u] = src.size();
        }
        this.sources = src.stream().mapToInt(Integer::intValue).toArray();
        this.rowIndex = new int[n][];
        for (int i = 0; i < n; i++) {
            int[] ids = shared.ids()[i];
            rowIndex[i] = new int[ids.length];
            for (int k = 0; k < ids.length; k++) {
                rowIndex[i][k] = Arrays.binarySearch(rows, ids[k]);
            }
        }
        this.host = new HostHalo(rows, starts, sources, received.length, size);
        checkAgreement();
    }

    private void checkAgreement() {
        int n = shared.neighbours().length;
        for (int i = 0; i < n; i++) {
            long[] keys = shared.keys()[i];
            for (int k = 0; k < keys.length; k++) {
                send[i][k] = keys[k]; // exact: keys are below 2^53
            }
        }
        comm.exchange(shared.neighbours(), send, receive);
        for (int i = 0; i < n; i++) {
            long[] keys = shared.keys()[i];
            for (int k = 0; k < keys.length; k++) {
                if (receive[i][k] != keys[k]) {
                    throw new IllegalStateException("rank " + comm.rank() + " and rank " + shared.neighbours()[i]
                            + " disagree on shared node " + k + ": global key " + keys[k] + " here, " + (long) receive[i][k]
                            + " there");
                }
            }
        }
    }

    /** The assembled ids of the shared nodes, each once, ascending: the rows of the compact vectors. */
    public int[] sharedRows() {
        return rows.clone();
    }

    /** The number of shared rows. */
    public int sharedRowCount() {
        return rows.length;
    }

    /** The number of values received per exchange (a node shared with k neighbours counts k times). */
    public int receivedCount() {
        return received.length;
    }

    /** Adds the neighbours' partial sums into the shared nodes of the host vector {@code xG}. */
    public void sum(double[] xG) {
        if (xG.length != shared.ownerMask().length) {
            throw new IllegalArgumentException("xG has length " + xG.length + " but the assembled vector has "
                    + shared.ownerMask().length);
        }
        long t0 = System.nanoTime();
        double[] compact = new double[rows.length];
        for (int u = 0; u < rows.length; u++) {
            compact[u] = xG[rows[u]];
        }
        finish(start(compact));
        host.sum(received, xG);
        nanos += System.nanoTime() - t0;
        calls++;
    }

    /**
     * {@link #sum(double[])} on a vector of {@code backend} (the whole vector through the host; for setup, e.g. a
     * right-hand side: the operator's applies use the compact device path of {@link DistributedOperator}).
     */
    public void sum(Backend backend, DeviceVector xG) {
        if (shared.neighbours().length == 0) {
            return;
        }
        double[] h = backend.download(xG);
        sum(h);
        backend.write(h, xG);
    }

    /**
     * Posts the exchange of this rank's partial sums {@code compact} (one per shared row, in {@link #sharedRows()}
     * order): each neighbour gets the rows it shares. Finish it with {@link #finish}; then {@link #received()} holds
     * the neighbours' partials.
     */
    Communicator.PendingExchange start(double[] compact) {
        for (int i = 0; i < send.length; i++) {
            int[] idx = rowIndex[i];
            double[] s = send[i];
            for (int k = 0; k < idx.length; k++) {
                s[k] = compact[idx[k]];
            }
        }
        return comm.startExchange(shared.neighbours(), send, receive);
    }

    /** Waits for an exchange of {@link #start} and lays the received values out as {@link #received()}. */
    void finish(Communicator.PendingExchange pending) {
        pending.finish();
        for (int i = 0; i < receive.length; i++) {
            System.arraycopy(receive[i], 0, received, offsets[i], receive[i].length);
        }
    }

    /** The values of the last exchange, neighbour after neighbour (the sources of {@link #uploadHalo}). */
    double[] received() {
        return received;
    }

    /** The halo sums on {@code backend} ({@link Backend#uploadHalo}). */
    DeviceHalo uploadHalo(Backend backend) {
        return backend.uploadHalo(rows, starts, sources, received.length, shared.ownerMask().length);
    }

    /**
     * The compact gather of the shared rows from an assembled vector, as a scatter (x_L = Z x_G with local size the
     * shared row count): {@link Backend#scatter} with it reads y_G at {@link #sharedRows()}.
     */
    DeviceScatter uploadRowPick(Backend backend) {
        int size = shared.ownerMask().length;
        int[] st = new int[size + 1];
        int[] ids = new int[rows.length];
        for (int u = 0; u < rows.length; u++) {
            st[rows[u] + 1] = 1;
            ids[u] = u; // rows ascend, so row rows[u]'s one entry is local node u
        }
        for (int g = 0; g < size; g++) {
            st[g + 1] += st[g];
        }
        return backend.uploadScatter(rows, st, ids, new int[] {0, size}, new double[rows.length], size);
    }

    /**
     * The compact gather of the shared rows from an element-local vector: rows {@link #sharedRows()} of Z^T
     * ({@code gatherStarts}, {@code gatherIds} of the rank's Z, local size {@code localSize}), in the same order of
     * summation as Z^T, so that its values equal bitwise those of the full gather at those rows.
     */
    DeviceScatter uploadSharedGather(Backend backend, int[] gatherStarts, int[] gatherIds, int localSize) {
        int u = rows.length;
        int[] st = new int[u + 1];
        for (int r = 0; r < u; r++) {
            st[r + 1] = st[r] + gatherStarts[rows[r] + 1] - gatherStarts[rows[r]];
        }
        int[] ids = new int[st[u]];
        for (int r = 0; r < u; r++) {
            System.arraycopy(gatherIds, gatherStarts[rows[r]], ids, st[r], st[r + 1] - st[r]);
        }
        int per = 32;
        int[] blocks = new int[(u + per - 1) / per + 1];
        for (int b = 1; b < blocks.length; b++) {
            blocks[b] = Math.min(u, b * per);
        }
        if (u == 0) {
            blocks = new int[] {0};
        }
        int[] scatterIds = new int[localSize];
        Arrays.fill(scatterIds, -1);
        for (int r = 0; r < u; r++) {
            for (int k = st[r]; k < st[r + 1]; k++) {
                scatterIds[ids[k]] = r;
            }
        }
        return backend.uploadScatter(scatterIds, st, ids, blocks, new double[localSize], u);
    }

    /** Seconds spent in the host exchanges of {@link #sum} so far, the host copies of device vectors included. */
    public double seconds() {
        return nanos * 1e-9;
    }

    /** Host exchanges ({@link #sum}) so far. */
    public long calls() {
        return calls;
    }

    /** The shared nodes this exchange sums over. */
    public SharedNodes sharedNodes() {
        return shared;
    }

    /** The communicator. */
    public Communicator communicator() {
        return comm;
    }
}
