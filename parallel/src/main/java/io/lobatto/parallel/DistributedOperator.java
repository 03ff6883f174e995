package io.lobatto.parallel;

import java.util.Objects;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceOperator;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.parallel.Communicator;
import io.lobatto.operators.AssembledOperator;

/**
 * The assembled operator A = Z^T L Z of the whole mesh, applied by the ranks together: each rank applies its own
 * elements ({@link AssembledOperator}, fused as on one rank) and the {@link HaloExchange} completes the gather at the
 * shared nodes. CG's p . Ap needs no exchange: the sum over ranks of x . y before the exchange is the sum over all
 * elements of x_e^T L_e x_e = x^T A x, so the fused local reduction is summed with one Allreduce. Its
 * {@link #backend()} is a {@link DistributedBackend}, so {@link io.lobatto.solvers.ConjugateGradient} on this
 * operator is the distributed CG.
 *
 * <p>Requires {@code shift = 0}: a shift times the inverse degree W would need the degrees counted across ranks.
 */
public final class DistributedOperator implements DeviceOperator, AutoCloseable {

    private final AssembledOperator local;
    private final HaloExchange halo;
    private final DistributedBackend backend;
    private final Communicator comm;

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
        this.backend = new DistributedBackend(local.backend(), comm, shared.ownerMask());
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

    @Override
    public void apply(DeviceVector x, DeviceVector y) {
        local.apply(x, y);
        halo.sum(local.backend(), y);
    }

    @Override
    public double applyDot(DeviceVector x, DeviceVector y) {
        double xy = local.applyDot(x, y);
        halo.sum(local.backend(), y);
        return allreduce(xy);
    }

    @Override
    public double updateApplyDot(DeviceVector z, double beta, DeviceVector p, DeviceVector y) {
        double py = local.updateApplyDot(z, beta, p, y);
        halo.sum(local.backend(), y);
        return allreduce(py);
    }

    private double allreduce(double v) {
        return comm.allreduceSum(v);
    }

    /** diag(A) on the host, summed across ranks at the shared nodes (for Jacobi). */
    public double[] diagonal() {
        double[] d = local.diagonal();
        halo.sum(d);
        return d;
    }

    /** The rank's own backend. */
    public Backend localBackend() {
        return local.backend();
    }

    /** Releases the distributed backend's work vectors; the local operator stays open. */
    @Override
    public void close() {
        backend.close();
    }
}
