package io.lobatto.parallel;

import java.util.Objects;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceHalo;
import io.lobatto.core.backend.DeviceOperator;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.parallel.Communicator;
import io.lobatto.operators.AssembledOperator;

/**
 * The assembled operator A = Z^T L Z of the whole mesh, applied by the ranks together: each rank applies its own
 * elements (hipBone's fused operator) and the {@link HaloExchange} completes the gather at the shared nodes. Only the
 * shared nodes leave the device: a compact gather of the rank's partial sums there, a read of those values, the
 * MPI exchange, a write of the received values and the halo sum on the device ({@link Backend#sumHalo}).
 *
 * <p>With {@link Schedule#OVERLAP} (the default where the backend has element ranges,
 * {@link Backend#applyAssembledElements}) the apply follows hipBone: the elements that touch a shared node (the first
 * {@link #boundaryElements()} elements: partitions put them first) are applied, the shared rows gathered and their
 * copy to the host started ({@link Backend#readAsync}), the interior elements queued, then the host waits for that
 * copy alone, runs the exchange while the device computes the interior, writes the received values without a wait
 * ({@link Backend#writeAsync}) and queues the gather and the halo sum. By default ({@link Split}) the first interior
 * elements run on the backend's second kernel queue beside the boundary launch, its gather and copy
 * ({@link Backend#applyAssembledElementsConcurrent}), so that the small boundary launch does not leave the device
 * idle; the queues are joined before the gather. {@link Schedule#BLOCKING} runs the same kernels
 * but completes the exchange before it queues the interior elements (bitwise the same result); {@link Schedule#FUSED}
 * applies the whole operator in one fused call and exchanges after it (for backends without element ranges). A rank
 * without neighbours applies the fused operator in every schedule (bitwise the one-rank {@link AssembledOperator}).
 *
 * <p>CG's p . Ap needs no exchange: the sum over ranks of x . y before the exchange is the sum over all elements of
 * x_e^T L_e x_e = x^T A x, so the local reduction (fused into the gather) is summed with one Allreduce. Its
 * {@link #backend()} is a {@link DistributedBackend}, so {@link io.lobatto.solvers.ConjugateGradient} on this
 * operator is the distributed CG. Requires {@code shift = 0}: a shift times the inverse degree W would need the
 * degrees counted across ranks.
 */
public final class DistributedOperator implements DeviceOperator, AutoCloseable {

    /** When the halo exchange runs relative to the element kernels. */
    public enum Schedule {
        /** Boundary elements, start the exchange, interior elements while it runs, then finish it (hipBone). */
        OVERLAP,
        /** The same kernels, the exchange finished before the interior elements (the reference for OVERLAP). */
        BLOCKING,
        /** The whole fused operator, then the exchange. */
        FUSED
    }

    /**
     * How {@link Schedule#OVERLAP} splits the element launch around the exchange. {@link Kind#SERIAL}: the
     * {@link #boundaryElements()}, their gather and copy, then the interior, all on the kernel queue (the split of commit
     * 187584f). {@link Kind#ALONGSIDE}: the same, with {@code count} interior elements on the backend's second kernel
     * queue ({@link Backend#applyAssembledElementsConcurrent}) beside the boundary launch, its gather and copy, so that
     * the small boundary launch does not leave the device idle; the rest of the interior follows on the kernel queue
     * while the exchange runs, and the queues are joined before the gather. {@link Kind#FIRST}: one queue, the first
     * launch padded with interior elements to {@code count} elements (whole waves of the device, where known). Every
     * split gives bitwise the same y.
     *
     * @param kind  the shape
     * @param count ALONGSIDE: interior elements on the second queue ({@link #ALL} the whole interior,
     *              {@link #PER_BOUNDARY} {@value #ALONGSIDE_PER_BOUNDARY} times the boundary elements); FIRST: elements of
     *              the first launch (at least the boundary elements); SERIAL: 0
     */
    public record Split(Kind kind, int count) {

        /** The shapes of a split. */
        public enum Kind {
            /** Boundary elements, gather, copy, interior: one queue. */
            SERIAL,
            /** Part of the interior on a second kernel queue beside the boundary elements. */
            ALONGSIDE,
            /** One queue, the first launch padded with interior elements. */
            FIRST
        }

        /** {@code count} of ALONGSIDE for the whole interior. */
        public static final int ALL = Integer.MAX_VALUE;
        /** {@code count} of ALONGSIDE for {@value #ALONGSIDE_PER_BOUNDARY} times the boundary elements. */
        public static final int PER_BOUNDARY = -1;
        /**
         * ALONGSIDE's default count per boundary element: the second queue's launch then outlasts the boundary launch,
         * its gather and copy (on the H100 and H200 at 31^3 elements per rank: 3844 elements against 961, about 1.5 of
         * the 2640 elements the device holds at once), without holding back the gather behind a whole interior still
         * to be scheduled.
         */
        public static final int ALONGSIDE_PER_BOUNDARY = 4;
        /** The system property that picks the split of new operators ({@link #parse}); default {@code alongside}. */
        public static final String PROPERTY = "lobatto.parallel.split";
        /** The split of commit 187584f. */
        public static final Split SERIAL = new Split(Kind.SERIAL, 0);

        public Split {
            java.util.Objects.requireNonNull(kind, "kind");
            if (count < 0 && !(kind == Kind.ALONGSIDE && count == PER_BOUNDARY)) {
                throw new IllegalArgumentException("split " + kind + ": count " + count + " must be >= 0");
            }
        }

        /**
         * A split from its name: {@code serial}; {@code alongside} ({@value #ALONGSIDE_PER_BOUNDARY} times the boundary
         * elements on the second queue), {@code alongside:K} or {@code alongside:all}; {@code first:K}.
         */
        public static Split parse(String spec) {
            String s = spec.trim().toLowerCase(java.util.Locale.ROOT);
            try {
                if (s.equals("serial")) {
                    return SERIAL;
                }
                if (s.equals("alongside")) {
                    return new Split(Kind.ALONGSIDE, PER_BOUNDARY);
                }
                if (s.startsWith("alongside:")) {
                    String k = s.substring("alongside:".length());
                    return new Split(Kind.ALONGSIDE, k.equals("all") ? ALL : Integer.parseInt(k));
                }
                if (s.startsWith("first:")) {
                    return new Split(Kind.FIRST, Integer.parseInt(s.substring("first:".length())));
                }
            } catch (NumberFormatException e) {
                // the message below
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("split '" + spec + "': " + e.getMessage(), e);
            }
            throw new IllegalArgumentException("split '" + spec + "' is not serial, alongside, alongside:K, alongside:all "
                    + "or first:K (K >= 0 elements)");
        }

        /** The split of {@link #PROPERTY}, else {@code alongside}. */
        static Split fromProperty() {
            return parse(System.getProperty(PROPERTY, "alongside"));
        }

        /**
         * {end of the first launch, end of the second queue's launch} for {@code elements} elements whose first
         * {@code boundary} are the boundary elements.
         */
        int[] ends(int boundary, int elements) {
            return switch (kind) {
                case SERIAL -> new int[] {boundary, boundary};
                case FIRST -> {
                    int first = Math.max(boundary, Math.min(elements, count));
                    yield new int[] {first, first};
                }
                case ALONGSIDE -> {
                    long a = count == PER_BOUNDARY ? (long) ALONGSIDE_PER_BOUNDARY * boundary : count;
                    yield new int[] {boundary, (int) Math.min(elements, boundary + a)};
                }
            };
        }

        @Override
        public String toString() {
            return switch (kind) {
                case SERIAL -> "serial";
                case FIRST -> "first:" + count;
                case ALONGSIDE -> count == PER_BOUNDARY ? "alongside" : count == ALL ? "alongside:all" : "alongside:" + count;
            };
        }
    }

    private final AssembledOperator local;
    private final HaloExchange halo;
    private final DistributedBackend backend;
    private final Communicator comm;
    private final Backend device;
    private final DeviceElementData data;
    private final DeviceScatter z;
    private final double lambda;
    private final int elements;
    private final int boundaryElements;
    private final boolean ranges;
    private final DeviceHalo deviceHalo;
    private final DeviceScatter rowPick;
    private final DeviceScatter sharedGather;
    private final DeviceVector yL;
    private final DeviceVector compact;
    private final DeviceVector received;
    private final double[] compactHost;
    private final boolean hasNeighbours;
    private final long globalSize;
    private Schedule schedule;
    private Split split = Split.fromProperty();
    /** The ends of the first launch and of the second queue's launch ({@link Split#ends}). */
    private int[] ends;
    private boolean exchange = true;
    private long applies;
    private long readNanos;
    private long waitNanos;
    private long writeNanos;

    /**
     * The distributed operator of this rank's {@code local} operator, whose assembled vector has the shared nodes
     * {@code shared}; collective (it checks the shared nodes with the neighbours). Does not take ownership of
     * {@code local}.
     */
    public DistributedOperator(AssembledOperator local, SharedNodes shared, Communicator comm) {
        this.local = Objects.requireNonNull(local, "local");
        this.comm = Objects.requireNonNull(comm, "comm");
        if (local.shift() != 0) {
            throw new IllegalArgumentException("distributed operator needs shift = 0 (W would need degrees across ranks), got "
                    + local.shift());
        }
        if (shared.ownerMask().length != local.size()) {
            throw new IllegalArgumentException("shared nodes cover " + shared.ownerMask().length + " assembled nodes but the "
                    + "operator has size " + local.size());
        }
        this.halo = new HaloExchange(comm, shared);
        this.device = local.backend();
        this.data = local.boundElementOperator().data();
        this.z = local.deviceScatter();
        this.lambda = local.elementOperator().lambda();
        this.elements = local.elementOperator().elementCount();
        this.hasNeighbours = shared.neighbours().length > 0;
        this.boundaryElements = boundaryPrefix(local, halo.sharedRows());
        this.ends = split.ends(boundaryElements, elements);
        this.ranges = supportsRanges(device, data, z);
        this.schedule = ranges ? Schedule.OVERLAP : Schedule.FUSED;
        int nl = local.scatterOperator().localSize();
        this.backend = new DistributedBackend(device, comm, shared.ownerMask());
        this.yL = device.allocate(nl);
        this.compact = device.allocate(halo.sharedRowCount());
        this.received = device.allocate(halo.receivedCount());
        this.compactHost = new double[halo.sharedRowCount()];
        this.deviceHalo = halo.uploadHalo(device);
        this.rowPick = halo.uploadRowPick(device);
        this.sharedGather = halo.uploadSharedGather(device, local.scatterOperator().gatherStarts(),
                local.scatterOperator().gatherIds(), nl);
        this.globalSize = (long) comm.allreduceSum((double) shared.ownedCount());
    }

    /** 1 + the last element that touches a shared row: elements at and after it are interior. */
    private static int boundaryPrefix(AssembledOperator local, int[] sharedRows) {
        int np = local.scatterOperator().localSize() / Math.max(1, local.elementOperator().elementCount());
        boolean[] isShared = new boolean[local.size()];
        for (int r : sharedRows) {
            isShared[r] = true;
        }
        int[] ids = local.scatterOperator().scatterIds();
        int last = -1;
        for (int n = 0; n < ids.length; n++) {
            if (ids[n] >= 0 && isShared[ids[n]]) {
                last = n / np;
            }
        }
        return last + 1;
    }

    private static boolean supportsRanges(Backend b, DeviceElementData data, DeviceScatter z) {
        try (DeviceVector x = b.allocate(z.globalSize()); DeviceVector y = b.allocate(z.localSize())) {
            b.applyAssembledElements(data, z, 0, 0, x, y, 0, 0);
            return true;
        } catch (UnsupportedOperationException e) {
            return false;
        }
    }

    /** Sets when the exchange runs; OVERLAP and BLOCKING need element ranges on the backend. */
    public DistributedOperator schedule(Schedule s) {
        Objects.requireNonNull(s, "schedule");
        if (s != Schedule.FUSED && !ranges) {
            throw new IllegalArgumentException("schedule " + s + " needs element ranges, which backend " + device.name()
                    + " does not have; use FUSED");
        }
        this.schedule = s;
        return this;
    }

    /** When the exchange runs. */
    public Schedule schedule() {
        return schedule;
    }

    /** Sets how OVERLAP splits the element launch (default: system property {@link Split#PROPERTY}, else alongside). */
    public DistributedOperator split(Split s) {
        this.split = Objects.requireNonNull(s, "split");
        this.ends = s.ends(boundaryElements, elements);
        return this;
    }

    /** How OVERLAP splits the element launch. */
    public Split split() {
        return split;
    }

    /**
     * For timing only: with {@code false} every apply skips the MPI exchange (and so gives wrong results at the shared
     * nodes) but still moves the shared values between device and host, so that the time of an iteration without the
     * exchange can be compared with the time with it.
     */
    public DistributedOperator exchange(boolean on) {
        this.exchange = on;
        return this;
    }

    /** The number of leading elements that touch a shared node (applied before the exchange starts). */
    public int boundaryElements() {
        return boundaryElements;
    }

    /** The rank's element count. */
    public int elementCount() {
        return elements;
    }

    @Override
    public DistributedBackend backend() {
        return backend;
    }

    @Override
    public int size() {
        return local.size();
    }

    /** The exchange that completes the gather (also for right-hand sides gathered on each rank). */
    public HaloExchange halo() {
        return halo;
    }

    /** y = A x, complete at the shared nodes; no reduction (no return to the host for one). */
    @Override
    public void apply(DeviceVector x, DeviceVector y) {
        applyLocal(x, y, false);
    }

    @Override
    public double applyDot(DeviceVector x, DeviceVector y) {
        return allreduce(applyLocal(x, y, true));
    }

    /** p = z + beta p, then {@link #applyDot} (the update is not folded into the element kernels here). */
    @Override
    public double updateApplyDot(DeviceVector zG, double beta, DeviceVector p, DeviceVector y) {
        device.axpby(1, zG, beta, p);
        return applyDot(p, y);
    }

    /**
     * y = A x on this rank, complete at the shared nodes; returns this rank's x . y before the exchange. The boundary
     * values are read without a drain of the queue ({@link Backend#readAsync}): the interior elements are queued
     * before the host waits for them (OVERLAP), and the received values are written without a wait
     * ({@link Backend#writeAsync}) ahead of the gather, so the device is drained once per apply (the dot with the
     * gather), as on one rank, and the host waits once more for the boundary copy alone. The asynchronous copies'
     * conditions hold: {@code compact} is next written by the next apply's gather, after the wait, and the previous
     * halo sum, the only other user of {@code received}, was queued before this apply's boundary read, which waited for it.
     */
    private double applyLocal(DeviceVector x, DeviceVector y, boolean withDot) {
        applies++;
        double dot = 0;
        if (schedule == Schedule.FUSED || !hasNeighbours) {
            // without neighbours every schedule is the fused operator: bitwise the one-rank AssembledOperator
            if (withDot) {
                dot = device.applyAssembledDot(data, z, lambda, 0, x, yL, y);
            } else {
                device.applyAssembled(data, z, lambda, 0, x, yL, y);
            }
            if (!hasNeighbours) {
                return dot;
            }
            device.scatter(rowPick, y, compact);
            Communicator.PendingExchange p = startExchange(device.readAsync(compact, compactHost));
            finishExchange(p);
            long t0 = System.nanoTime();
            device.writeAsync(halo.received(), received);
            device.sumHalo(deviceHalo, received, y);
            writeNanos += System.nanoTime() - t0;
            return dot;
        }
        if (schedule == Schedule.BLOCKING) {
            device.applyAssembledElements(data, z, lambda, 0, x, yL, 0, boundaryElements);
            device.gather(sharedGather, yL, compact);
            finishExchange(startExchange(device.readAsync(compact, compactHost)));
            device.applyAssembledElements(data, z, lambda, 0, x, yL, boundaryElements, elements);
        } else {
            int first = ends[0];
            int side = ends[1];
            if (side > first) {
                // [first, side) on the second queue, beside the boundary launch, its gather and copy
                device.applyAssembledElementsConcurrent(data, z, lambda, 0, x, yL, 0, first, side);
            } else {
                device.applyAssembledElements(data, z, lambda, 0, x, yL, 0, first);
            }
            device.gather(sharedGather, yL, compact);
            Backend.PendingRead boundary = device.readAsync(compact, compactHost);
            device.applyAssembledElements(data, z, lambda, 0, x, yL, side, elements);
            if (side > first) {
                device.joinConcurrent();   // the gather, queued after the exchange, waits for the second queue too
            }
            finishExchange(startExchange(boundary));
        }
        long t0 = System.nanoTime();
        device.writeAsync(halo.received(), received);
        writeNanos += System.nanoTime() - t0;
        if (withDot) {
            // the halo sums in the gather's pass where the backend can (the shared rows numbered last: OwnedLast)
            t0 = System.nanoTime();
            dot = device.gatherDotHalo(z, yL, x, y, deviceHalo, received);
            writeNanos += System.nanoTime() - t0;
            return dot;
        }
        // the halo sums in the gather's pass where the backend can, as with the dot
        t0 = System.nanoTime();
        device.gatherHalo(z, yL, y, deviceHalo, received);
        writeNanos += System.nanoTime() - t0;
        return dot;
    }

    /** Waits for the boundary values, then posts the exchange (a no-op one with the exchange off). */
    private Communicator.PendingExchange startExchange(Backend.PendingRead boundary) {
        long t0 = System.nanoTime();
        boundary.await();
        readNanos += System.nanoTime() - t0;
        if (!exchange) {
            return () -> { };
        }
        return halo.start(compactHost);
    }

    private void finishExchange(Communicator.PendingExchange p) {
        long t0 = System.nanoTime();
        halo.finish(p);
        waitNanos += System.nanoTime() - t0;
    }

    private double allreduce(double v) {
        return comm.allreduceSum(v);
    }

    /**
     * Completes a vector of this rank's partial sums at the shared nodes on the device (the exchange of the applies,
     * on its own): each copy of a shared node becomes the sum over the ranks that hold it, bitwise the same on each.
     * Collective. For the restriction of a distributed p-multigrid and for making vectors consistent.
     */
    public void sumShared(DeviceVector y) {
        if (y.length() != size()) {
            throw new IllegalArgumentException("sumShared: y has length " + y.length() + " but the operator has size " + size());
        }
        if (!hasNeighbours) {
            return;
        }
        device.scatter(rowPick, y, compact);
        finishExchange(startExchange(device.readAsync(compact, compactHost)));
        device.writeAsync(halo.received(), received);
        device.sumHalo(deviceHalo, received, y);
    }

    /**
     * t = owner mask o r - (this rank's partial sums of A x): the residual r - A x as partial sums over the ranks (each
     * shared node's r counted by its owner, A x summed over the ranks' elements), with no exchange: the local fused
     * operator with the residual update and the owner mask folded into its gather
     * ({@link Backend#applyAssembledMaskedResidual}: the element launch and one gather, bitwise the pointwise multiply
     * and {@link AssembledOperator#applyResidual} in turn). A p-multigrid level restricts it as it is
     * ({@link io.lobatto.solvers.PMultigrid.DistributedLevel#partialResidual}). {@code r}, {@code x} and {@code t} are
     * distinct vectors of the operator's size.
     */
    public void partialResidual(DeviceVector r, DeviceVector x, DeviceVector t) {
        if (r.length() != size() || x.length() != size() || t.length() != size()) {
            throw new IllegalArgumentException("partialResidual: r, x and t have lengths " + r.length() + ", " + x.length()
                    + " and " + t.length() + " but the operator has size " + size());
        }
        if (r == x || r == t || x == t) {
            throw new IllegalArgumentException("partialResidual: r, x and t must be distinct vectors");
        }
        if (residualScratch == null) {
            residualScratch = device.allocate(size());
        }
        if (!hasNeighbours) {
            // every node is this rank's own: t = r - A x
            device.copy(r, t);
            local.applyResidual(x, residualScratch, -1, t, 0, null);
            return;
        }
        device.applyAssembledMaskedResidual(data, z, lambda, 0, x, yL, residualScratch, -1, ownerMaskVector(), r, t);
    }

    private DeviceVector residualScratch;

    /** Whether this rank shares nodes with another (else every apply is the one-rank operator's). */
    public boolean hasNeighbours() {
        return hasNeighbours;
    }

    /** y = owner mask o x: each shared node kept where this rank owns it, else 0 ({@code x} and {@code y} may be the same). */
    public void ownerMask(DeviceVector x, DeviceVector y) {
        if (!hasNeighbours) {
            if (x != y) {
                device.copy(x, y);
            }
            return;
        }
        device.pointwiseMultiply(ownerMaskVector(), x, y);
    }

    /** The owner mask on the device, uploaded on first use. */
    private DeviceVector ownerMaskVector() {
        if (ownerMaskVector == null) {
            ownerMaskVector = device.upload(halo.sharedNodes().ownerMask());
        }
        return ownerMaskVector;
    }

    private DeviceVector ownerMaskVector;

    /** The unknowns over all ranks, each shared node once (collective at construction). */
    public long globalSize() {
        return globalSize;
    }

    /** diag(A) on the host, summed across ranks at the shared nodes (for Jacobi). */
    public double[] diagonal() {
        double[] d = local.diagonal();
        halo.sum(d);
        return d;
    }

    /** The rank's own operator (not owned by this one). */
    public AssembledOperator localOperator() {
        return local;
    }

    /** The rank's own backend. */
    public Backend localBackend() {
        return device;
    }

    /** Applies so far. */
    public long applies() {
        return applies;
    }

    /**
     * Seconds so far in the three host steps of the applies' exchanges: waiting for the compact partials (the boundary
     * elements and the copy), waiting for the exchange to finish, and queueing the write of the received values and
     * the halo sum (no wait).
     */
    public double[] exchangeSeconds() {
        return new double[] {readNanos * 1e-9, waitNanos * 1e-9, writeNanos * 1e-9};
    }

    /** Releases the distributed backend's and the exchange's device memory; the local operator stays open. */
    @Override
    public void close() {
        backend.close();
        yL.close();
        compact.close();
        received.close();
        deviceHalo.close();
        rowPick.close();
        sharedGather.close();
        if (ownerMaskVector != null) {
            ownerMaskVector.close();
        }
        if (residualScratch != null) {
            residualScratch.close();
        }
    }
}
