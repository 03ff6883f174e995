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
 * <p>
 * Below N = 1, where every rank's part is a z-slab of a box with even sides ({@link SlabPartition}), the levels go on
 * distributed by geometric h-coarsening ({@link #hCoarsen}): each rank halves its own slab, the h-level's operator is a
 * {@link DistributedOperator} on the halved slab's shared nodes and the transfers P_h = Z_h^T W_h J_(1-&gt;2) Z_c stay local
 * as the p-transfers do. By default ({@link #H_LEVELS_PROPERTY} auto) they go down until the whole coarse problem has at
 * most {@link #GATHER_MAX_PROPERTY} unknowns, so the redundant coarse solve gathers and solves a problem whose size
 * does not grow with the ranks.
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

    /**
     * The system property that sets how many h-levels the distributed levels add below N = 1 ({@link #hCoarsen}):
     * {@code auto} (default: until the whole coarse problem has at most {@link #GATHER_MAX_PROPERTY} unknowns) or a count
     * K &gt;= 0 (0: the coarsest level is N = 1 of the fine mesh, the path before the distributed h-levels).
     */
    public static final String H_LEVELS_PROPERTY = "lobatto.parallel.hLevels";

    /**
     * The system property that sets the most unknowns of the whole coarse problem that {@link #H_LEVELS_PROPERTY} auto
     * gathers (default {@value #DEFAULT_GATHER_MAX}).
     */
    public static final String GATHER_MAX_PROPERTY = "lobatto.parallel.gatherMax";

    /**
     * The default of {@link #GATHER_MAX_PROPERTY}: h-levels below N = 1 where the whole N = 1 problem has more than 100,000
     * unknowns. Measured on two H200s (dist8, 581e450): the whole coarse solve's Chebyshev iterations are launch-bound up
     * to about that size (about 30-40 us each at 30k-104k unknowns on one GPU) and cost 60 us each at 210k, and the
     * allgather and link grow with it (0.65 ms in the allgather at 210k), while one smoothed h-level costs about
     * 0.7-0.8 ms per V-cycle (launch-bound, hcoarse.sh on the H100). So an h-level pays where it takes a whole problem
     * above about 100k down (48x48x96 at N = 1, 210k, to 24x24x48, 25k), not where the redundant solve is already
     * launch-bound (31x31x62, 55k: 1.40 ms against 0.93 ms on one rank). On one rank it is the size where
     * {@link io.lobatto.solvers.HCoarsening#AUTO_START_SIDE} starts h-levels (48^3 at N = 1: 104k unknowns).
     */
    public static final long DEFAULT_GATHER_MAX = 100_000;

    /** {@link #H_LEVELS_PROPERTY}: -1 for auto, else the count. */
    private int hLevels = hLevelsProperty();
    private long gatherMax = gatherMaxProperty();
    /** The parts of the h-levels made so far, by their mesh (the finer levels' parts are {@link #partition}). */
    private final java.util.Map<io.lobatto.core.mesh.HexMesh, MeshPartition> hParts = new java.util.IdentityHashMap<>();
    /** Why auto made no (more) h-levels where it would have, or null. */
    private String hNote;

    /** Parses a value of {@link #H_LEVELS_PROPERTY} or {@code --h-levels}: auto (-1) or a count &gt;= 0. */
    public static int parseHLevels(String what, String v) {
        String t = v.strip();
        if (t.equals("auto")) {
            return -1;
        }
        try {
            int k = Integer.parseInt(t);
            if (k >= 0) {
                return k;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException(what + " is '" + v + "'; expected auto or a count >= 0");
    }

    /** Parses a value of {@link #GATHER_MAX_PROPERTY} or {@code --gather-max}: a count &gt;= 1. */
    public static long parseGatherMax(String what, String v) {
        try {
            long m = Long.parseLong(v.strip().replace("_", ""));
            if (m >= 1) {
                return m;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException(what + " is '" + v + "'; expected a number of unknowns >= 1");
    }

    private static int hLevelsProperty() {
        String v = System.getProperty(H_LEVELS_PROPERTY);
        return v == null || v.isBlank() ? -1 : parseHLevels(H_LEVELS_PROPERTY, v);
    }

    private static long gatherMaxProperty() {
        String v = System.getProperty(GATHER_MAX_PROPERTY);
        return v == null || v.isBlank() ? DEFAULT_GATHER_MAX : parseGatherMax(GATHER_MAX_PROPERTY, v);
    }

    /**
     * Sets how many h-levels auto adds below N = 1 ({@code -1}: until the whole coarse problem has at most
     * {@code gatherMax} unknowns; {@code 0}: none); for the levels built after the call; returns this.
     */
    public synchronized DistributedLevels hLevels(int count, long gatherMax) {
        if (count < -1) {
            throw new IllegalArgumentException("h-levels: count must be -1 (auto) or >= 0, got " + count);
        }
        if (gatherMax < 1) {
            throw new IllegalArgumentException("h-levels: gatherMax must be >= 1, got " + gatherMax);
        }
        this.hLevels = count;
        this.gatherMax = gatherMax;
        return this;
    }

    /** The h-levels setting: -1 auto, else the count. */
    public synchronized int hLevels() {
        return hLevels;
    }

    /** The most unknowns of the whole coarse problem that auto gathers. */
    public synchronized long gatherMax() {
        return gatherMax;
    }

    /** Why auto made no (more) h-levels where the size asked for them (a part that is no slab with even sides), or null. */
    public synchronized String hCoarseningNote() {
        return hNote;
    }

    /** The part of the partition that {@code mesh} (this rank's part of a level, any degree) is made of. */
    private synchronized MeshPartition partitionOf(SpectralElementMesh mesh) {
        return hParts.getOrDefault(mesh.hexMesh(), partition);
    }

    /** The shared nodes of a level's mesh and numbering: of its part (an h-level's own), else as made. */
    private SharedNodes shared(SpectralElementMesh mesh, ScatterOperator z) {
        return partition == null ? sharedNodes.apply(mesh, z) : partitionOf(mesh).sharedNodes(mesh, z);
    }

    /**
     * This rank's part of the h-level below {@code fine}: its slab halved ({@link SlabPartition#coarsened}), at N = 1 with
     * {@code fine}'s node map, and Z_h's map from the two slabs' lattices. Ends (empty) where the whole box has an odd
     * side or a half below {@code minSide} (as on one rank); without {@code asked}, also where the h-levels setting says
     * so (a count reached, or the whole problem of {@code fine} at most the gather size) or where a part is no slab with
     * even sides (then {@link #hCoarseningNote} says which). With {@code asked}, such a part is an error naming the rank
     * and its slab. Collective (one or two reductions).
     */
    @Override
    public java.util.Optional<io.lobatto.solvers.HCoarsening.Step> hCoarsen(SpectralElementMesh fine, boolean[] fineMask,
                                                                          int depth, int minSide, boolean asked) {
        int count;
        long gather;
        synchronized (this) {
            count = hLevels;
            gather = gatherMax;
        }
        if (fine.degree() != 1) {
            return java.util.Optional.empty();
        }
        if (partition == null) {
            if (asked) {
                throw new IllegalArgumentException("h-coarsening across ranks needs the levels made from a partition (slabs)");
            }
            return java.util.Optional.empty();
        }
        if (!asked && (count == 0 || (count > 0 && depth >= count))) {
            return java.util.Optional.empty();
        }
        MeshPartition part = partitionOf(fine);
        // the whole box's rule, the same on every rank (as HCoarsening.coarsen on one rank)
        java.util.Optional<io.lobatto.core.mesh.HexMesh.Box> box = part.globalMesh().structuredBox();
        if (box.isPresent()) {
            io.lobatto.core.mesh.HexMesh.Box b = box.get();
            if (!b.evenSides() || b.nx() / 2 < minSide || b.ny() / 2 < minSide || b.nz() / 2 < minSide) {
                return java.util.Optional.empty();
            }
        }
        if (!asked && count < 0) {
            // auto: h-levels while the whole problem of this level has more unknowns than the gather size
            ScatterOperator z = ScatterOperator.build(fine.localToGlobal(), fine.globalNodeCount(), fineMask);
            double[] owner = part.sharedNodes(fine, z).ownerMask();
            long owned = 0;
            for (double o : owner) {
                owned += o != 0 ? 1 : 0;
            }
            if (sum(owned) <= gather) {
                return java.util.Optional.empty();
            }
        }
        String why = box.isEmpty() ? "rank " + comm.rank() + "'s part (" + part.describe() + ") is cut from no structured box"
                : part instanceof SlabPartition s ? s.whyNotCoarsened()
                : "rank " + comm.rank() + "'s part (" + part.describe() + ", " + part.elementCount()
                        + " elements) is no z-slab of the box";
        double[] bad = new double[comm.size()];
        bad[comm.rank()] = why == null ? 0 : 1;
        comm.allreduceSum(bad);
        int first = -1;
        for (int r = 0; r < bad.length && first < 0; r++) {
            first = bad[r] > 0 ? r : -1;
        }
        if (first >= 0) {
            String msg = why != null ? why : "rank " + first + "'s part cannot be halved (its own message names it)";
            if (asked) {
                throw new IllegalArgumentException("h-coarsening across ranks: " + msg);
            }
            synchronized (this) {
                hNote = "no h-levels below N = 1: " + msg;
            }
            return java.util.Optional.empty();
        }
        SlabPartition slab = (SlabPartition) part;
        SlabPartition half = slab.coarsened();
        SpectralElementMesh coarse = SpectralElementMesh.of(half.localMesh(), 1, fine.nodeMap());
        int[] ids = io.lobatto.solvers.HCoarsening.fineIdsOfCoarsePoints(fine, slab.lattice(), half.lattice());
        synchronized (this) {
            hParts.put(coarse.hexMesh(), half);
        }
        return java.util.Optional.of(new io.lobatto.solvers.HCoarsening.Step(coarse, ids));
    }

    /** The split of the levels below the fine one, or null for each operator's default ({@link DistributedOperator.Split#PROPERTY}). */
    private DistributedOperator.Split coarseSplit = levelSplitProperty();

    /**
     * The system property that sets how the levels below the fine one split their overlapped element launch: any
     * {@link DistributedOperator.Split#parse} form, such as {@code serial} (boundary elements, their gather and copy, then
     * the interior, on one queue), or {@code default} (the default: each operator's own, {@link DistributedOperator.Split#PROPERTY}).
     * An A/B switch. Measured on 2 x H200 at N = 7 (8b7ef28 against f6cee87, rank 0): {@code serial} took 0.21-0.33 ms
     * less device time per CG iteration at N = 3 and N = 1 (10 launches fewer), but its first profile row at 48^3 per GPU
     * took 30.18 ms per iteration against 29.07 ms for the alongside row of the same process, 1.2 ms above its own
     * device time: the coarse levels' exchange is then not hidden. So the operators keep their own split.
     */
    public static final String LEVEL_SPLIT_PROPERTY = "lobatto.parallel.levelSplit";

    private static DistributedOperator.Split levelSplitProperty() {
        String v = System.getProperty(LEVEL_SPLIT_PROPERTY, "default").trim();
        if (v.equalsIgnoreCase("default")) {
            return null;
        }
        try {
            return DistributedOperator.Split.parse(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(LEVEL_SPLIT_PROPERTY + " is '" + v + "': " + e.getMessage()
                    + ", or default", e);
        }
    }

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
        return SpectralElementMesh.of(partitionOf(coarse).globalMesh(), coarse.degree(), coarse.nodeMap());
    }

    @Override
    public PMultigrid.WholeCoarse linkWhole(SpectralElementMesh part, ScatterOperator partZ, SpectralElementMesh whole,
                                            ScatterOperator wholeZ, io.lobatto.core.backend.Backend backend) {
        if (partition == null) {
            throw new IllegalStateException("the levels were made without a partition: no whole coarse level");
        }
        RedundantCoarse link = new RedundantCoarse(comm, partitionOf(part), part, partZ, shared(part, partZ).ownerMask(),
                whole, wholeZ, backend, coarseLink);
        synchronized (this) {
            wholeLink = link;
        }
        return link;
    }

    @Override
    public PMultigrid.DistributedLevel level(AssembledOperator op, SpectralElementMesh mesh, boolean[] mask) {
        boolean reuse = fine != null && fine.localOperator() == op;
        DistributedOperator d = reuse ? fine : new DistributedOperator(op, shared(mesh, op.scatterOperator()), comm);
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
