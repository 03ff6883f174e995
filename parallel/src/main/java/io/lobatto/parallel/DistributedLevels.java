package io.lobatto.parallel;

import java.util.Objects;
import java.util.function.BiFunction;

import io.lobatto.core.backend.DeviceOperator;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.core.parallel.Communicator;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.solvers.PMultigrid;

/**
 * The levels of a p-multigrid V-cycle across ranks ({@link PMultigrid.Builder#distribution}): each level's operator
 * becomes a {@link DistributedOperator} on the shared nodes of the level's mesh (a partition's shared nodes exist at
 * every degree: {@code sharedNodes} gives them, e.g. {@link SlabPartition#sharedNodes}), with its Jacobi diagonal summed
 * across ranks, its owner mask and its halo sum for the restriction, and reductions across ranks for the Chebyshev
 * bounds (Lanczos) and the coarse solve. The fine level reuses the distributed operator that CG solves with.
 * <p>
 * Made from a {@link MeshPartition}, on more than one rank, the coarsest level is by default solved whole on every rank
 * ({@link RedundantCoarse}: one allgather of the owned coarse right-hand side per V-cycle, then one rank's Chebyshev
 * iterations on the whole coarse problem, with one rank's Lanczos bounds) instead of Chebyshev iterations across ranks
 * with a halo exchange each; {@link #COARSE_PROPERTY} selects either.
 */
public final class DistributedLevels implements PMultigrid.Distribution {

    private final Communicator comm;
    private final BiFunction<SpectralElementMesh, ScatterOperator, SharedNodes> sharedNodes;
    private final DistributedOperator fine;
    /** The operators this made for the levels below the fine one (open ones; closed ones are dropped on close). */
    private final java.util.List<DistributedOperator> coarse = new java.util.ArrayList<>();
    /** The schedule of the coarse levels' operators, or null for each operator's default. */
    private DistributedOperator.Schedule coarseSchedule = levelScheduleProperty();

    /**
     * The system property that sets the schedule of the levels below the fine one: {@code overlap}, {@code blocking}
     * or {@code fused} (default: each operator's own, overlap where the backend has element ranges). An A/B switch: on
     * the coarse levels the interior is too small to hide the exchange.
     */
    public static final String LEVEL_SCHEDULE_PROPERTY = "lobatto.parallel.levelSchedule";

    private static DistributedOperator.Schedule levelScheduleProperty() {
        String v = System.getProperty(LEVEL_SCHEDULE_PROPERTY);
        if (v == null || v.isBlank()) {
            return null;
        }
        try {
            return DistributedOperator.Schedule.valueOf(v.trim().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(LEVEL_SCHEDULE_PROPERTY + " is '" + v + "'; expected overlap, blocking or fused");
        }
    }

    /**
     * The system property that sets how the coarsest level is solved across ranks: {@code redundant} (default where the
     * levels know the partition: the whole coarse problem on every rank, one allgather per V-cycle) or {@code local}
     * (Chebyshev iterations across ranks, one halo exchange per iteration: the path before the redundant solve).
     */
    public static final String COARSE_PROPERTY = "lobatto.parallel.coarse";

    /** How the coarsest level is solved across ranks ({@link #COARSE_PROPERTY}). */
    public enum Coarse {
        /** Chebyshev iterations across ranks, a halo exchange each. */
        LOCAL,
        /** The whole coarse problem on every rank ({@link RedundantCoarse}), one allgather per V-cycle. */
        REDUNDANT;

        /** The value of {@link #COARSE_PROPERTY}; {@link #REDUNDANT} when it is not set. */
        public static Coarse fromProperty() {
            String v = System.getProperty(COARSE_PROPERTY);
            if (v == null || v.isBlank()) {
                return REDUNDANT;
            }
            try {
                return valueOf(v.trim().toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(COARSE_PROPERTY + " is '" + v + "'; expected local or redundant");
            }
        }
    }

    /**
     * The system property that selects the {@link CoarseLink} of a redundant coarse solve: {@code partial} (default),
     * {@code device}, or {@code host} (the path of commit 9cfda5d, for A/B runs).
     */
    public static final String COARSE_LINK_PROPERTY = "lobatto.parallel.coarseLink";

    /** How a rank's coarse vectors reach the whole ones of a redundant coarse solve, and back. */
    public enum CoarseLink {
        /**
         * Every rank's partial coarse right-hand side (no halo sum after the restriction) read without a drain,
         * allgathered whole and summed in rank order by a gather on the device (as the halo sum would have summed it);
         * x_r = P_r x_c by an indexed gather ({@link io.lobatto.core.backend.Backend#indexedGather}). No queue drain and
         * no halo exchange on the coarse level per V-cycle.
         */
        PARTIAL,
        /**
         * The complete right-hand side's owned entries (after the restriction's halo sum) picked and placed by indexed
         * gathers on the device; no queue drain per V-cycle.
         */
        DEVICE,
        /** Blocking reads of the rank's complete right-hand side and of the whole solution, the injections on the host. */
        HOST;

        /** The link of {@link #COARSE_LINK_PROPERTY}; {@link #PARTIAL} when it is not set. */
        public static CoarseLink fromProperty() {
            String v = System.getProperty(COARSE_LINK_PROPERTY);
            if (v == null || v.isBlank()) {
                return PARTIAL;
            }
            try {
                return valueOf(v.trim().toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(COARSE_LINK_PROPERTY + " is '" + v + "'; expected partial, device or host");
            }
        }
    }

    /**
     * The system property that says whether a smoothed level restricts its residual as partial sums
     * ({@link DistributedOperator#partialResidual}: no exchange for the pre-smoother's last apply, one exchange fewer per
     * smoothed level and V-cycle): {@code true} (default) or {@code false} (the residual completed across ranks, then
     * owner-masked: the path of commit 9cfda5d, for A/B runs).
     */
    public static final String PARTIAL_RESIDUAL_PROPERTY = "lobatto.parallel.partialResidual";

    private boolean partialResidual = !"false".equalsIgnoreCase(System.getProperty(PARTIAL_RESIDUAL_PROPERTY, "true").trim());

    /** Sets whether the smoothed levels restrict their residual as partial sums ({@link #PARTIAL_RESIDUAL_PROPERTY}); returns this. */
    public synchronized DistributedLevels partialResidual(boolean on) {
        this.partialResidual = on;
        return this;
    }

    /** Whether the smoothed levels restrict their residual as partial sums. */
    public synchronized boolean partialResidual() {
        return partialResidual;
    }

    private CoarseLink coarseLink = CoarseLink.fromProperty();
    /** The last redundant coarse solve's link made ({@link #linkWhole}), for the profile's times; null if none. */
    private RedundantCoarse wholeLink;

    /**
     * The host seconds so far of the redundant coarse solve's link (waiting for the owned right-hand side, the allgather,
     * the rest) and its gathers (V-cycles), or null when the coarse level is not solved whole on every rank.
     */
    public synchronized double[] coarseLinkSeconds() {
        if (wholeLink == null) {
            return null;
        }
        double[] s = wholeLink.seconds();
        return new double[] {s[0], s[1], s[2], wholeLink.gathers()};
    }

    /** The operators of the levels below the fine one, open now (for the profile's exchange times). */
    public synchronized java.util.List<DistributedOperator> coarseOperators() {
        return java.util.List.copyOf(coarse);
    }

    /** Sets the link of the redundant coarse solve, made so far and made later ({@link #linkWhole}); returns this. */
    public synchronized DistributedLevels coarseLink(CoarseLink link) {
        this.coarseLink = Objects.requireNonNull(link, "link");
        if (wholeLink != null) {
            wholeLink.link(link);
        }
        return this;
    }

    /** The link of the redundant coarse solve. */
    public synchronized CoarseLink coarseLink() {
        return coarseLink;
    }

    private final MeshPartition partition;
    private final Coarse coarseSolve;

    /** The split of the levels below the fine one, or null for each operator's default ({@link DistributedOperator.Split#PROPERTY}). */
    private DistributedOperator.Split coarseSplit;

    /**
     * Sets how the levels below the fine one, made so far and made later, split their overlapped element launch
     * ({@code null}: the default of {@link DistributedOperator.Split#PROPERTY}); returns the split they had.
     */
    public synchronized DistributedOperator.Split coarseSplit(DistributedOperator.Split s) {
        DistributedOperator.Split old = coarseSplit;
        coarseSplit = s;
        for (DistributedOperator d : coarse) {
            d.split(s != null ? s : DistributedOperator.Split.fromProperty());
        }
        return old;
    }

    /** The split of the levels below the fine one, or null for each operator's default. */
    public synchronized DistributedOperator.Split coarseSplit() {
        return coarseSplit;
    }

    /** The schedule of the levels below the fine one, or null for each operator's default. */
    public synchronized DistributedOperator.Schedule coarseSchedule() {
        return coarseSchedule;
    }

    /**
     * Sets the schedule of the levels below the fine one, made so far and made later ({@code null}: each operator's
     * default); returns the schedule they had.
     */
    public synchronized DistributedOperator.Schedule coarseSchedule(DistributedOperator.Schedule s) {
        DistributedOperator.Schedule old = coarseSchedule;
        coarseSchedule = s;
        for (DistributedOperator d : coarse) {
            if (s != null) {
                d.schedule(s);
                continue;
            }
            try {
                d.schedule(DistributedOperator.Schedule.OVERLAP);   // the operator's default where it has element ranges
            } catch (IllegalArgumentException e) {
                d.schedule(DistributedOperator.Schedule.FUSED);
            }
        }
        return old;
    }

    /**
     * The levels over {@code comm} with the shared nodes of a level's mesh and numbering from {@code sharedNodes};
     * {@code fine} (may be null) is used as the level of its own local operator.
     */
    public DistributedLevels(Communicator comm, BiFunction<SpectralElementMesh, ScatterOperator, SharedNodes> sharedNodes,
                             DistributedOperator fine) {
        this.comm = Objects.requireNonNull(comm, "comm");
        this.sharedNodes = Objects.requireNonNull(sharedNodes, "sharedNodes");
        this.fine = fine;
        this.partition = null;
        this.coarseSolve = Coarse.LOCAL;
    }

    /**
     * The levels over {@code comm} of the parts of {@code partition} (its shared nodes at each level), with the coarsest
     * level solved as {@code coarse} says (on one rank it is solved in place either way); {@code fine} (may be null) as
     * above.
     */
    public DistributedLevels(Communicator comm, MeshPartition partition, DistributedOperator fine, Coarse coarse) {
        this.comm = Objects.requireNonNull(comm, "comm");
        this.partition = Objects.requireNonNull(partition, "partition");
        this.sharedNodes = partition::sharedNodes;
        this.fine = fine;
        this.coarseSolve = Objects.requireNonNull(coarse, "coarse");
    }

    /** How the coarsest level is solved across ranks. */
    public Coarse coarse() {
        return coarseSolve;
    }

    /** The whole coarse mesh (the partition's whole mesh, same degree and node map) when solved redundantly on several ranks. */
    @Override
    public SpectralElementMesh wholeMesh(SpectralElementMesh coarse) {
        if (coarseSolve != Coarse.REDUNDANT || partition == null || comm.size() == 1) {
            return null;
        }
        return SpectralElementMesh.of(partition.globalMesh(), coarse.degree(), coarse.nodeMap());
    }

    @Override
    public PMultigrid.WholeCoarse linkWhole(SpectralElementMesh part, ScatterOperator partZ, SpectralElementMesh whole,
                                            ScatterOperator wholeZ, io.lobatto.core.backend.Backend backend) {
        if (partition == null) {
            throw new IllegalStateException("the levels were made without a partition: no whole coarse level");
        }
        RedundantCoarse link = new RedundantCoarse(comm, partition, part, partZ, sharedNodes.apply(part, partZ).ownerMask(),
                whole, wholeZ, backend, coarseLink);
        synchronized (this) {
            wholeLink = link;
        }
        return link;
    }

    @Override
    public PMultigrid.DistributedLevel level(AssembledOperator op, SpectralElementMesh mesh, boolean[] mask) {
        boolean reuse = fine != null && fine.localOperator() == op;
        DistributedOperator d = reuse ? fine : new DistributedOperator(op, sharedNodes.apply(mesh, op.scatterOperator()), comm);
        if (!reuse) {
            synchronized (this) {
                if (coarseSchedule != null) {
                    d.schedule(coarseSchedule);
                }
                if (coarseSplit != null) {
                    d.split(coarseSplit);
                }
                coarse.add(d);
            }
        }
        DeviceVector inverse;
        try {
            // the device diagonal (the backend's element-diagonal kernel and gather) summed across ranks, then inverted
            inverse = op.inverseDiagonal("p-multigrid level N = " + mesh.degree(), d::sumShared);
        } catch (RuntimeException e) {
            if (!reuse) {
                d.close();
            }
            throw e;
        }
        return new PMultigrid.DistributedLevel() {
            @Override
            public DeviceOperator operator() {
                return d;
            }

            @Override
            public DeviceVector inverseDiagonal() {
                return inverse;
            }

            @Override
            public void ownerMask(DeviceVector x, DeviceVector y) {
                d.ownerMask(x, y);
            }

            @Override
            public void sumShared(DeviceVector y) {
                d.sumShared(y);
            }

            @Override
            public boolean restrictsPartialResidual() {
                return DistributedLevels.this.partialResidual() && d.hasNeighbours();
            }

            @Override
            public void partialResidual(DeviceVector r, DeviceVector dir, DeviceVector t) {
                d.partialResidual(r, dir, t);
            }

            @Override
            public long globalSize() {
                return d.globalSize();
            }

            @Override
            public void close() {
                inverse.close();
                if (!reuse) {
                    synchronized (DistributedLevels.this) {
                        coarse.remove(d);
                    }
                    d.close();
                }
            }
        };
    }

    @Override
    public long sum(long v) {
        return (long) comm.allreduceSum((double) v);
    }
}
