package io.lobatto.parallel;

import java.util.Objects;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceInfo;
import io.lobatto.core.backend.DeviceIntVector;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceTransfer;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.parallel.Communicator;

/**
 * The {@link Backend} that a solver sees on one rank of a distributed solve: every kernel runs on the rank's own
 * backend, and the reductions over assembled vectors ({@link #dot}, {@link #norm2}, {@link #cgUpdate},
 * {@link #pcgUpdate}) weight each node by the owner mask, so that a node shared by several ranks is counted once,
 * and sum over the ranks (Allreduce). So the unchanged {@link io.lobatto.solvers.ConjugateGradient} runs distributed
 * when its operator's {@code backend()} is this one ({@link DistributedOperator}). Vectors are the local backend's.
 *
 * <p>The reductions are the local ones less the rows this rank shares but does not own
 * ({@link Backend#dot(DeviceVector, DeviceVector, DeviceIntVector)}, {@link Backend#pcgUpdate(double, DeviceVector,
 * DeviceVector, DeviceVector, DeviceVector, DeviceVector, DeviceVector, DeviceIntVector, double[])}): the correction
 * reads only those rows (a face of the slab) and comes back to the host with the reduction, so the fused Jacobi PCG
 * update stays one pass and one read-back, as on one rank; a rank that owns all its rows runs the local reductions
 * unchanged. A backend without those reductions gets the masked ones (a pointwise product with the owner mask into
 * a work vector, then the dot product: two more passes and read-backs per reduction). Reductions accept only vectors
 * of the assembled length, the mask's.
 */
public final class DistributedBackend implements Backend {

    private final Backend local;
    private final Communicator comm;
    /** The rows this rank holds but a neighbour owns, ascending; null when it owns all. */
    private final DeviceIntVector notOwned;
    /** The owner mask and a work vector, only where the backend has no reductions less excluded rows. */
    private final DeviceVector ownerMask;
    private final DeviceVector work;
    private final int size;
    private final double[] pair = new double[2];
    private long reductionNanos;

    /**
     * Wraps {@code local} for a rank whose assembled vectors have the owner mask {@code ownerMask} (1 where this
     * rank owns the node, else 0). Does not take ownership of {@code local} or {@code comm}.
     */
    public DistributedBackend(Backend local, Communicator comm, double[] ownerMask) {
        this.local = Objects.requireNonNull(local, "local");
        this.comm = Objects.requireNonNull(comm, "comm");
        this.size = ownerMask.length;
        int count = 0;
        for (double m : ownerMask) {
            count += m == 0 ? 1 : 0;
        }
        int[] rows = new int[count];
        for (int i = 0, k = 0; i < size; i++) {
            if (ownerMask[i] == 0) {
                rows[k++] = i;
            }
        }
        DeviceIntVector excluded = count == 0 ? null : local.upload(rows);
        DeviceVector mask = null;
        DeviceVector w = null;
        if (excluded != null) {
            try (DeviceVector probe = local.allocate(size)) {
                local.dot(probe, probe, excluded);
            } catch (UnsupportedOperationException e) {
                excluded.close();
                excluded = null;
                mask = local.upload(ownerMask);
                w = local.allocate(size);
            }
        }
        this.notOwned = excluded;
        this.ownerMask = mask;
        this.work = w;
    }

    /** Whether a reduction needs the masked fallback (the backend has no reductions less excluded rows). */
    private boolean masked() {
        return ownerMask != null;
    }

    /** The rank's own backend. */
    public Backend local() {
        return local;
    }

    /** The communicator the reductions sum over. */
    public Communicator communicator() {
        return comm;
    }

    /** Seconds spent in the Allreduce of the reductions so far. */
    public double reductionSeconds() {
        return reductionNanos * 1e-9;
    }

    /** This rank's share of x . y: each of its rows that it owns. */
    private double ownedDot(DeviceVector x, DeviceVector y) {
        if (x.length() != size || y.length() != size) {
            throw new IllegalArgumentException("distributed dot: x has length " + x.length() + " and y " + y.length()
                    + " but the assembled vectors of this rank have length " + size);
        }
        if (masked()) {
            local.pointwiseMultiply(ownerMask, x, work);
            return local.dot(work, y);
        }
        return notOwned == null ? local.dot(x, y) : local.dot(x, y, notOwned);
    }

    private double sum(double v) {
        long t0 = System.nanoTime();
        double s = comm.allreduceSum(v);
        reductionNanos += System.nanoTime() - t0;
        return s;
    }

    @Override
    public String name() {
        return local.name();
    }

    @Override
    public DeviceInfo device() {
        return local.device();
    }

    @Override
    public DeviceVector allocate(int length) {
        return local.allocate(length);
    }

    @Override
    public DeviceVector upload(double[] values) {
        return local.upload(values);
    }

    @Override
    public DeviceIntVector upload(int[] values) {
        return local.upload(values);
    }

    @Override
    public void write(double[] values, DeviceVector target) {
        local.write(values, target);
    }

    @Override
    public void read(DeviceVector source, double[] values) {
        local.read(source, values);
    }

    @Override
    public PendingRead readAsync(DeviceVector source, double[] values) {
        return local.readAsync(source, values);
    }

    @Override
    public void writeAsync(double[] values, DeviceVector target) {
        local.writeAsync(values, target);
    }

    @Override
    public void synchronize() {
        local.synchronize();
    }

    @Override
    public void profileScope(String scope) {
        local.profileScope(scope);
    }

    @Override
    public void fill(DeviceVector y, double value) {
        local.fill(y, value);
    }

    @Override
    public void copy(DeviceVector x, DeviceVector y) {
        local.copy(x, y);
    }

    @Override
    public void axpby(double a, DeviceVector x, double b, DeviceVector y) {
        local.axpby(a, x, b, y);
    }

    @Override
    public void pointwiseMultiply(DeviceVector a, DeviceVector x, DeviceVector y) {
        local.pointwiseMultiply(a, x, y);
    }

    /** The rank's own indexed gather (no communication). */
    @Override
    public void indexedGather(DeviceVector x, DeviceIntVector idx, DeviceVector y) {
        local.indexedGather(x, idx, y);
    }

    /** x . y over all ranks, each shared node once. */
    @Override
    public double dot(DeviceVector x, DeviceVector y) {
        return sum(ownedDot(x, y));
    }

    /** x . x over all ranks, each shared node once. */
    @Override
    public double norm2(DeviceVector x) {
        return sum(ownedDot(x, x));
    }

    /** The local fused update with r . r less the rows not owned, summed over all ranks. */
    @Override
    public double cgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r) {
        if (masked()) {
            local.cgUpdate(alpha, p, ap, x, r);
            return sum(ownedDot(r, r));
        }
        return sum(notOwned == null ? local.cgUpdate(alpha, p, ap, x, r) : local.cgUpdate(alpha, p, ap, x, r, notOwned));
    }

    /** The local fused update with r . r and r . z less the rows not owned, summed over all ranks in one Allreduce. */
    @Override
    public void pcgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r,
                          DeviceVector inverseDiagonal, DeviceVector z, double[] dots) {
        if (dots == null || dots.length < 2) {
            throw new IllegalArgumentException("pcgUpdate: dots must be an array of length >= 2, got "
                    + (dots == null ? "null" : "length " + dots.length));
        }
        if (masked()) {
            local.pcgUpdate(alpha, p, ap, x, r, inverseDiagonal, z, dots);
            pair[0] = ownedDot(r, r);
            pair[1] = ownedDot(r, z);
        } else if (notOwned == null) {
            local.pcgUpdate(alpha, p, ap, x, r, inverseDiagonal, z, pair);
        } else {
            local.pcgUpdate(alpha, p, ap, x, r, inverseDiagonal, z, notOwned, pair);
        }
        long t0 = System.nanoTime();
        comm.allreduceSum(pair);
        reductionNanos += System.nanoTime() - t0;
        dots[0] = pair[0];
        dots[1] = pair[1];
    }

    @Override
    public DeviceScatter uploadScatter(int[] scatterIds, int[] gatherStarts, int[] gatherIds, int[] blockStarts,
                                       double[] inverseDegree, int globalSize) {
        return local.uploadScatter(scatterIds, gatherStarts, gatherIds, blockStarts, inverseDegree, globalSize);
    }

    @Override
    public void scatter(DeviceScatter z, DeviceVector xG, DeviceVector xL) {
        local.scatter(z, xG, xL);
    }

    /** The local gather only: {@link HaloExchange} completes it across ranks. */
    @Override
    public void gather(DeviceScatter z, DeviceVector xL, DeviceVector xG) {
        local.gather(z, xL, xG);
    }

    @Override
    public DeviceElementData uploadElementData(ElementKernel kernel, Basis1D basis, int elements, double[] geometricData) {
        return local.uploadElementData(kernel, basis, elements, geometricData);
    }

    @Override
    public void applyElements(DeviceElementData data, double lambda, DeviceVector xL, DeviceVector yL) {
        local.applyElements(data, lambda, xL, yL);
    }

    @Override
    public void applyAssembled(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                               DeviceVector xG, DeviceVector yL, DeviceVector yG) {
        local.applyAssembled(data, z, lambda, shift, xG, yL, yG);
    }

    /** The local fused apply and its local x . y (not summed over ranks: see {@link DistributedOperator}). */
    @Override
    public double applyAssembledDot(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                    DeviceVector xG, DeviceVector yL, DeviceVector yG) {
        return local.applyAssembledDot(data, z, lambda, shift, xG, yL, yG);
    }

    /** The local fused update and apply and its local p . y (not summed over ranks). */
    @Override
    public double applyAssembledDotUpdate(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                          DeviceVector zG, double beta, DeviceVector pG, DeviceVector yL, DeviceVector yG) {
        return local.applyAssembledDotUpdate(data, z, lambda, shift, zG, beta, pG, yL, yG);
    }

    @Override
    public DeviceTransfer uploadTransfer(Basis1D coarse, Basis1D fine, int elements) {
        return local.uploadTransfer(coarse, fine, elements);
    }

    @Override
    public void prolongate(DeviceTransfer t, DeviceScatter zc, DeviceScatter zf, DeviceVector xc, DeviceVector workF,
                           DeviceVector xf) {
        local.prolongate(t, zc, zf, xc, workF, xf);
    }

    @Override
    public void restrict(DeviceTransfer t, DeviceScatter zf, DeviceScatter zc, DeviceVector rf, DeviceVector workC,
                         DeviceVector rc) {
        local.restrict(t, zf, zc, rf, workC, rc);
    }

    @Override
    public void chebyshevStep(double a, double b, DeviceVector inverseDiagonal, DeviceVector r, DeviceVector d,
                              DeviceVector x, DeviceVector scratch) {
        local.chebyshevStep(a, b, inverseDiagonal, r, d, x, scratch);
    }

    /** Releases the excluded rows (or the mask and work vectors); the local backend stays open (it is not this object's). */
    @Override
    public void close() {
        if (notOwned != null) {
            notOwned.close();
        }
        if (ownerMask != null) {
            ownerMask.close();
            work.close();
        }
    }

    @Override
    public String toString() {
        return local.name() + " on " + comm;
    }
}
