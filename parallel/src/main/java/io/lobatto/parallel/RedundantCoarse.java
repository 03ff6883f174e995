package io.lobatto.parallel;

import java.util.Arrays;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceIntVector;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.core.parallel.Communicator;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.solvers.PMultigrid;

/**
 * The redundant coarse solve of the p-multigrid V-cycle across ranks ({@link PMultigrid.WholeCoarse}): every rank holds
 * the whole coarse problem A_c x_c = b_c (the whole mesh at the coarsest degree, numbered as one rank numbers it) and
 * solves it with one rank's Chebyshev iterations, so the coarse solve costs no halo exchange per iteration. Per V-cycle:
 * b_c = sum over ranks of P_r^T O_r b_r (O_r the owner mask, P_r the injection of rank r's coarse unknowns into the
 * whole numbering), as one allgather of the owned entries; afterwards x_r = P_r x_c. P_r comes from the elements:
 * local element e is whole element g(e) with the same node order, so the unknown at node i of e maps to the unknown at
 * node i of g(e).
 *
 * <p>By default ({@link DistributedLevels.CoarseLink#PARTIAL}) the restriction's halo sum into the coarse level is left
 * out: each rank's partial b_r (all its coarse unknowns) is read without a drain ({@link Backend#readAsync}: the host
 * waits for that copy and the work queued before it), all parts are allgathered, written without a wait
 * ({@link Backend#writeAsync}) and summed into the whole numbering by a gather (Z^T from the gathered positions, each
 * whole entry summed from 0 in rank order, as the halo sum sums it); x_r = P_r x_c is an indexed gather
 * ({@link Backend#indexedGather}): one wait on the host and no halo exchange per V-cycle. With
 * {@link DistributedLevels.CoarseLink#DEVICE} b_r is complete (after the halo sum) and its owned entries O_r b_r are
 * picked into a compact vector on the device, read without a drain, allgathered, and put in the whole numbering by an
 * indexed gather through the inverse of the gathered order. {@link DistributedLevels.CoarseLink#HOST} (the path of
 * commit 9cfda5d, for A/B runs) reads b_r and x_c whole with blocking reads and does the injections on the host: two
 * drains of the queue per V-cycle. The three give the same whole b_c (bitwise, where the partial sums are those the halo
 * sum would have summed), so the same x_r.
 */
final class RedundantCoarse implements PMultigrid.WholeCoarse {

    private final Communicator comm;
    private final Backend backend;
    /** The whole unknown of each of this rank's coarse unknowns (P_r). */
    private final int[] toWhole;
    /** This rank's owned unknowns, in the order they are sent. */
    private final int[] owned;
    /** The owned count of every rank. */
    private final int[] counts;
    /** The whole unknown at each position of the gathered array (every rank's owned ones in rank order). */
    private final int[] gatheredAt;
    private final double[] part;
    private final double[] send;
    private final double[] gathered;
    private final double[] whole;
    private volatile DistributedLevels.CoarseLink link;
    /** For the device link: P_r, the owned rows, the gathered position of each whole unknown, the two compact vectors. */
    private final DeviceIntVector toWholeIds;
    private final DeviceIntVector ownedIds;
    private final DeviceIntVector wholeFrom;
    private final DeviceVector sendDevice;
    private final DeviceVector gatheredDevice;
    /** For the partial link: every rank's unknown count, the gathered parts, and their sum into the whole numbering. */
    private final int[] partCounts;
    private final double[] partsGathered;
    private final DeviceVector partsDevice;
    private final DeviceScatter sumParts;
    /** Host time so far: waiting for the owned right-hand side on the host, the allgather, the rest (queueing, host loops). */
    private long readNanos;
    private long allgatherNanos;
    private long otherNanos;
    private long gathers;

    /**
     * The link of this rank's coarsest level ({@code partMesh}, numbered by {@code partZ}, owner mask {@code ownerMask},
     * its elements those of {@code partition}) to the whole coarse problem ({@code wholeMesh}, numbered by
     * {@code wholeZ}), the injections run as {@code link} says; collective (two reductions and one allgather of the
     * owned ids).
     *
     * @throws IllegalArgumentException if the meshes do not match the partition, or the owned unknowns over all ranks
     *                                  are not each whole unknown exactly once
     */
    RedundantCoarse(Communicator comm, MeshPartition partition, SpectralElementMesh partMesh, ScatterOperator partZ,
                    double[] ownerMask, SpectralElementMesh wholeMesh, ScatterOperator wholeZ, Backend backend,
                    DistributedLevels.CoarseLink link) {
        this.comm = comm;
        this.link = java.util.Objects.requireNonNull(link, "link");
        this.backend = backend;
        if (partMesh.elementCount() != partition.elementCount()) {
            throw new IllegalArgumentException("coarse mesh has " + partMesh.elementCount() + " elements but the partition "
                    + partition.elementCount());
        }
        if (partMesh.degree() != wholeMesh.degree()) {
            throw new IllegalArgumentException("coarse mesh degree " + partMesh.degree() + " but whole mesh degree "
                    + wholeMesh.degree());
        }
        if (ownerMask.length != partZ.globalSize()) {
            throw new IllegalArgumentException("owner mask has " + ownerMask.length + " entries but the coarse level has "
                    + partZ.globalSize() + " unknowns");
        }
        int n = partZ.globalSize(), np = partMesh.nodesPerElement();
        toWhole = new int[n];
        Arrays.fill(toWhole, -1);
        for (int e = 0; e < partMesh.elementCount(); e++) {
            int g = partition.globalElement(e);
            for (int i = 0; i < np; i++) {
                int p = partZ.assembledId(partMesh.globalId(e, i));
                int w = wholeZ.assembledId(wholeMesh.globalId(g, i));
                if ((p < 0) != (w < 0)) {
                    throw new IllegalArgumentException("node " + i + " of coarse element " + e + " (whole element " + g + ") is "
                            + (p < 0 ? "masked here but not in the whole mesh" : "masked in the whole mesh but not here"));
                }
                if (p >= 0) {
                    if (toWhole[p] >= 0 && toWhole[p] != w) {
                        throw new IllegalArgumentException("coarse unknown " + p + " maps to whole unknowns " + toWhole[p]
                                + " and " + w);
                    }
                    toWhole[p] = w;
                }
            }
        }
        for (int i = 0; i < n; i++) {
            if (toWhole[i] < 0) {
                throw new IllegalArgumentException("coarse unknown " + i + " is at no node of the coarse mesh");
            }
        }
        int ownedCount = 0;
        for (int i = 0; i < n; i++) {
            ownedCount += ownerMask[i] != 0 ? 1 : 0;
        }
        owned = new int[ownedCount];
        for (int i = 0, k = 0; i < n; i++) {
            if (ownerMask[i] != 0) {
                owned[k++] = i;
            }
        }
        double[] c = new double[comm.size()];
        c[comm.rank()] = ownedCount;
        comm.allreduceSum(c);
        counts = new int[c.length];
        long total = 0;
        for (int r = 0; r < c.length; r++) {
            counts[r] = (int) c[r];
            total += counts[r];
        }
        int wholeSize = wholeZ.globalSize();
        if (total != wholeSize) {
            throw new IllegalArgumentException("the ranks own " + total + " coarse unknowns, the whole coarse level has "
                    + wholeSize);
        }
        double[] ids = new double[ownedCount];
        for (int k = 0; k < ownedCount; k++) {
            ids[k] = toWhole[owned[k]];
        }
        double[] all = new double[wholeSize];
        comm.allgather(ids, counts, all);
        gatheredAt = new int[wholeSize];
        boolean[] seen = new boolean[wholeSize];
        for (int k = 0; k < wholeSize; k++) {
            int w = (int) all[k];
            if (w < 0 || w >= wholeSize || seen[w]) {
                throw new IllegalArgumentException("whole coarse unknown " + w + " is owned " + (w < 0 || w >= wholeSize
                        ? "out of range [0, " + wholeSize + ")" : "by two ranks"));
            }
            seen[w] = true;
            gatheredAt[k] = w;
        }
        part = new double[n];
        send = new double[ownedCount];
        gathered = new double[wholeSize];
        whole = new double[wholeSize];
        // the device link's arrays and vectors are made for either link (small: the whole coarse size), so that a
        // profile can switch links between solves
        int[] from = new int[wholeSize];
        for (int k = 0; k < wholeSize; k++) {
            from[gatheredAt[k]] = k;
        }
        toWholeIds = backend.upload(toWhole);
        ownedIds = backend.upload(owned);
        wholeFrom = backend.upload(from);
        sendDevice = backend.allocate(ownedCount);
        gatheredDevice = backend.allocate(wholeSize);
        // a first gather at setup: a backend that builds kernels builds this one now, not in the first V-cycle
        if (wholeSize > 0) {
            try (DeviceIntVector first = backend.upload(new int[] {0}); DeviceVector probe = backend.allocate(1)) {
                backend.indexedGather(gatheredDevice, first, probe);
            }
        }
        // the partial link: every rank's whole part in rank order, and Z^T from those positions to the whole unknowns
        // with each row's positions ascending (so each whole entry is summed from 0 in rank order, as the halo sums)
        double[] pc = new double[comm.size()];
        pc[comm.rank()] = n;
        comm.allreduceSum(pc);
        partCounts = new int[pc.length];
        int positions = 0;
        for (int r = 0; r < pc.length; r++) {
            partCounts[r] = (int) pc[r];
            positions += partCounts[r];
        }
        double[] mine = new double[n];
        for (int i = 0; i < n; i++) {
            mine[i] = toWhole[i];
        }
        double[] at = new double[positions];
        comm.allgather(mine, partCounts, at);
        int[] wholeOf = new int[positions];
        int[] starts = new int[wholeSize + 1];
        for (int k = 0; k < positions; k++) {
            wholeOf[k] = (int) at[k];
            if (wholeOf[k] < 0 || wholeOf[k] >= wholeSize) {
                throw new IllegalArgumentException("a rank's coarse unknown maps to whole unknown " + wholeOf[k] + ", not in [0, "
                        + wholeSize + ")");
            }
            starts[wholeOf[k] + 1]++;
        }
        for (int w = 0; w < wholeSize; w++) {
            starts[w + 1] += starts[w];
        }
        int[] rows = new int[positions];
        int[] next = starts.clone();
        for (int k = 0; k < positions; k++) {
            rows[next[wholeOf[k]]++] = k;   // ascending k within each row
        }
        int[] blocks = new int[(wholeSize + 31) / 32 + 1];
        for (int q = 1; q < blocks.length; q++) {
            blocks[q] = Math.min(wholeSize, 32 * q);
        }
        partsGathered = new double[positions];
        sumParts = backend.uploadScatter(wholeOf, starts, rows, blocks, new double[positions], wholeSize);
        partsDevice = backend.allocate(positions);
    }

    /** Sets where the injections run from the next V-cycle on (a profile's A/B; not during a V-cycle). */
    void link(DistributedLevels.CoarseLink link) {
        this.link = java.util.Objects.requireNonNull(link, "link");
    }

    /** The number of this rank's coarse unknowns that it owns (and sends per V-cycle). */
    int ownedCount() {
        return owned.length;
    }

    /** How the injections run. */
    DistributedLevels.CoarseLink link() {
        return link;
    }

    @Override
    public boolean gathersPartialSums() {
        return link == DistributedLevels.CoarseLink.PARTIAL;
    }

    @Override
    public void gather(DeviceVector partB, DeviceVector wholeB) {
        gathers++;
        long t0 = System.nanoTime();
        if (link == DistributedLevels.CoarseLink.PARTIAL) {
            // this rank's partial b_r read without a drain, every rank's allgathered, summed into the whole numbering
            if (part.length > 0) {
                backend.readAsync(partB, part).await();
            } else {
                backend.synchronize();   // nothing to send; the write below must not overtake the last cycle's gather
            }
            long t1 = System.nanoTime();
            comm.allgather(part, partCounts, partsGathered);
            long t2 = System.nanoTime();
            backend.writeAsync(partsGathered, partsDevice);
            backend.gather(sumParts, partsDevice, wholeB);
            count(t0, t1, t2, System.nanoTime());
            return;
        }
        if (link == DistributedLevels.CoarseLink.DEVICE) {
            // O_r b_r picked on the device and read without a drain (the host waits for this copy and the work before it)
            if (owned.length > 0) {
                backend.indexedGather(partB, ownedIds, sendDevice);
                backend.readAsync(sendDevice, send).await();
            } else {
                backend.synchronize();   // nothing to send; the write below must not overtake the last cycle's gather
            }
        } else {
            backend.read(partB, part);
            for (int k = 0; k < owned.length; k++) {
                send[k] = part[owned[k]];
            }
        }
        long t1 = System.nanoTime();
        comm.allgather(send, counts, gathered);
        long t2 = System.nanoTime();
        if (link == DistributedLevels.CoarseLink.DEVICE) {
            backend.writeAsync(gathered, gatheredDevice);
            backend.indexedGather(gatheredDevice, wholeFrom, wholeB);
        } else {
            for (int k = 0; k < gathered.length; k++) {
                whole[gatheredAt[k]] = gathered[k];
            }
            backend.writeAsync(whole, wholeB); // queued: the device work before it (read above) is done
        }
        count(t0, t1, t2, System.nanoTime());
    }

    private void count(long t0, long t1, long t2, long t3) {
        readNanos += t1 - t0;
        allgatherNanos += t2 - t1;
        otherNanos += t3 - t2;
    }

    /**
     * Host seconds so far of the gathers and scatters: waiting for this rank's owned right-hand side (its copy and the
     * work before it), the allgather (including the wait for the slowest rank), and the rest (queueing the write and the
     * gathers; the host link's reads of the solution and its loops).
     */
    double[] seconds() {
        return new double[] {readNanos * 1e-9, allgatherNanos * 1e-9, otherNanos * 1e-9};
    }

    /** Gathers so far (one per V-cycle). */
    long gathers() {
        return gathers;
    }

    @Override
    public void scatter(DeviceVector wholeX, DeviceVector partX) {
        long t0 = System.nanoTime();
        if (link != DistributedLevels.CoarseLink.HOST) {
            backend.indexedGather(wholeX, toWholeIds, partX);
        } else {
            backend.read(wholeX, whole);
            for (int i = 0; i < part.length; i++) {
                part[i] = whole[toWhole[i]];
            }
            backend.writeAsync(part, partX);
        }
        otherNanos += System.nanoTime() - t0;
    }

    @Override
    public void close() {
        toWholeIds.close();
        ownedIds.close();
        wholeFrom.close();
        sendDevice.close();
        gatheredDevice.close();
        sumParts.close();
        partsDevice.close();
    }
}
