package io.lobatto.solvers;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceOperator;
import io.lobatto.core.backend.DeviceTransfer;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.ElementOperator;

/**
 * The p-multigrid V-cycle as a preconditioner z = B r: the same mesh at degrees N_0 > N_1 > ... > N_L (default
 * {@link #defaultDegrees}: halving, 7 -> 3 -> 1, with Jacobi; steps of two, 7 -> 5 -> 3 -> 2 -> 1, with Schwarz), each level with its own matrix-free operator A_l = Z_l^T L_l Z_l at its own degree and
 * quadrature (the fine level's kind: BP3.5 or BP3.0), its Jacobi diagonal and a Chebyshev smoother S_l of order k
 * (default 3; {@link Smoother}): first kind on the band [0.1, 1.1] lambda_max(M_l^-1 A_l) or Lottes' fourth kind on
 * [0, 1.1 lambda_max], with M_l^-1 Jacobi (default) or an overlapping Schwarz method with fast-diagonalisation local
 * solves ({@link SchwarzPreconditioner}); lambda_max from a few Lanczos (Arnoldi for RAS) steps at setup.
 * Levels are linked by P = Z_f^T W_f J Z_c (GLL interpolation, {@link Backend#prolongate}) and R = P^T
 * ({@link Backend#restrict}). On a structured box the schedule continues below N = 1 by geometric h-coarsening
 * ({@link HCoarsening}, {@link Builder#hCoarsening}): boxes of half the elements per direction at N = 1, linked by
 * P_h = Z_h^T W_h J_(1->2) Z_c, so the coarsest level stays small as the mesh grows; across ranks each rank halves its
 * own part of the box ({@link Distribution#hCoarsen}) and the h-levels are distributed like the p-levels. The coarsest level is solved by a
 * fixed number of Chebyshev iterations over its whole estimated spectrum (a fixed polynomial: bounded cost, linear, symmetric). One cycle on level l:
 * <pre>
 *   x = S_l b;  r = b - A_l x;  x += P V_(l+1)(R r);  x += S_l (b - A_l x)
 * </pre>
 * Across ranks ({@link Builder#distribution}) the coarsest level is solved in place, its Chebyshev iterations applying
 * the operator across ranks, or, where the distribution gives a whole coarse mesh ({@link Distribution#wholeMesh}),
 * whole on every rank: one gather of the right-hand side ({@link WholeCoarse}), then one rank's Chebyshev solve of the
 * whole coarse problem, built as one rank builds its coarsest level.
 * Pre- and post-smoother are the same polynomial S_l. With a symmetric relaxation (Jacobi, ASM) B is symmetric
 * positive definite and plain PCG stays valid; with RAS it is not, and {@link #isVariable()} asks for flexible CG. Everything runs on the backend; only the Lanczos scalars come to the host, at
 * setup. Built by {@link #builder}; owns every level's device memory (release with {@link #close()}).
 */
public final class PMultigrid implements Preconditioner {

    /** What one level is and costs, for reports. */
    public record LevelInfo(int degree, int dofs, int elements, double lambdaMin, double lambdaMax, double smootherLower,
                            double smootherUpper, int smootherOrder, int appliesPerCycle, double seconds, long cycles,
                            String smoother) {
    }

    /**
     * How the levels of a V-cycle whose mesh is one rank's part of a distributed mesh are completed across the ranks
     * (the {@code lobatto-parallel} module makes one from a partition); without one the V-cycle is that of one rank.
     * Per level it gives the operator applied complete across ranks (whose backend reduces across ranks), the Jacobi
     * diagonal summed across ranks, the owner mask and the halo sum. The transfers stay local: the prolongation
     * Z_f^T W_f J Z_c with this rank's inverse degree W_f is already complete (the interpolated value at a shared fine node
     * is the same from every element, and the local weights of a node sum to 1), and the restriction is its transpose
     * when the fine residual is first multiplied by the fine owner mask (each shared fine node contributes on one
     * rank, through that rank's weights, which sum to 1) and the coarse result summed across ranks.
     */
    public interface Distribution {
        /** The distributed form of one level's operator {@code op} on {@code mesh} with Dirichlet mask {@code mask}; collective. */
        DistributedLevel level(AssembledOperator op, SpectralElementMesh mesh, boolean[] mask);

        /** The sum of {@code v} over the ranks; collective. */
        long sum(long v);

        /**
         * The whole mesh of the coarsest level when every rank solves the whole coarse problem itself (a redundant
         * coarse solve: one gather of the right-hand side per V-cycle instead of a halo exchange per Chebyshev
         * iteration), or null (the default) to solve it across ranks. {@code coarse} is this rank's part of it, at the
         * coarsest degree; the whole mesh must be numbered as one rank numbers it, so the coarse solve is one rank's.
         * Collective.
         */
        default SpectralElementMesh wholeMesh(SpectralElementMesh coarse) {
            return null;
        }

        /**
         * The link between this rank's coarsest level ({@code part}, numbered by {@code partZ}) and the whole coarse
         * problem ({@code whole} of {@link #wholeMesh}, numbered by {@code wholeZ}) on {@code backend}. Collective.
         */
        default WholeCoarse linkWhole(SpectralElementMesh part, ScatterOperator partZ, SpectralElementMesh whole,
                                      ScatterOperator wholeZ, Backend backend) {
            throw new UnsupportedOperationException("this distribution has no whole coarse level (wholeMesh is null)");
        }

        /**
         * The next level of geometric h-coarsening below {@code fine} (this rank's part of the schedule's last level, at
         * N = 1, with Dirichlet mask {@code fineMask}): this rank's part of the whole box halved in every direction and the
         * map of Z_h into {@code fine}'s numbering ({@link HCoarsening.Step}); or empty to end the schedule at
         * {@code fine}. {@code depth} is the number of h-levels above {@code fine}. With {@code asked} (the builder's
         * {@link Builder#hCoarsening(boolean) hCoarsening(true)}) the levels go down as far as {@code minSide} allows and a
         * part that is no box with even sides is an error; without it (auto) the distribution chooses the depth and falls
         * back to no h-levels where a part cannot be coarsened. Every rank gets the same answer; collective. The default
         * has no h-levels.
         */
        default java.util.Optional<HCoarsening.Step> hCoarsen(SpectralElementMesh fine, boolean[] fineMask, int depth,
                                                              int minSide, boolean asked) {
            return java.util.Optional.empty();
        }
    }

    /**
     * How a rank's coarsest level reaches the whole coarse problem that every rank solves ({@link Distribution#wholeMesh}):
     * b_whole = the owned entries of every rank's complete b_part put in place (one allgather), and x_part = the rank's
     * entries of x_whole (no communication).
     */
    public interface WholeCoarse extends AutoCloseable {
        /**
         * {@code whole} = the whole right-hand side from every rank's {@code part}: complete at the shared nodes (their
         * owned entries are gathered), or, where {@link #gathersPartialSums()}, this rank's partial sums there (every
         * rank's part is gathered and summed); collective.
         */
        void gather(DeviceVector part, DeviceVector whole);

        /**
         * Whether {@link #gather} takes this rank's partial sums at the shared nodes as they are (it sums the ranks'
         * parts itself), so that the restriction into the coarsest level needs no halo sum. The default is false.
         */
        default boolean gathersPartialSums() {
            return false;
        }

        /** {@code part} = this rank's entries of {@code whole}. */
        void scatter(DeviceVector whole, DeviceVector part);

        @Override
        void close();
    }

    /** One level across the ranks ({@link Distribution#level}); closing it releases what it made for the level. */
    public interface DistributedLevel extends AutoCloseable {
        /** The operator applied complete across ranks; its backend's reductions sum over the ranks. */
        DeviceOperator operator();

        /** diag(A)^-1 with the diagonal summed across ranks, on the level's backend. */
        DeviceVector inverseDiagonal();

        /** y = owner mask o x (each shared node kept on the rank that owns it); x and y may be the same vector. */
        void ownerMask(DeviceVector x, DeviceVector y);

        /** Completes a vector of partial sums at the shared nodes: each copy becomes the sum over the ranks; collective. */
        void sumShared(DeviceVector y);

        /**
         * Whether this level forms the residual before its restriction as partial sums ({@link #partialResidual}), which
         * saves the exchange of the pre-smoother's last apply. False (the default): the residual is completed across
         * ranks and owner-masked.
         */
        default boolean restrictsPartialResidual() {
            return false;
        }

        /**
         * t = O r - (this rank's partial sums of A d), with no exchange, where O is the owner mask and r complete: over
         * the ranks, t sums at every node to the complete r - A d. The restriction Z_c^T J^T W_f Z_f of each rank's t,
         * summed across ranks at the coarse shared nodes, is then the restriction of r - A d, because a fine node's value
         * reaches coarse unknown c with the weight phi_c(x_node) whichever of the node's elements, and whichever rank's
         * weights (summing to 1 on the rank), carry it. {@code r}, {@code d} and {@code t} are distinct. The default
         * throws {@link UnsupportedOperationException}.
         */
        default void partialResidual(DeviceVector r, DeviceVector d, DeviceVector t) {
            throw new UnsupportedOperationException("this level has no partial residual");
        }

        /** The number of unknowns over all ranks, each shared node once. */
        long globalSize();

        @Override
        void close();
    }

    /**
     * The system property that sets {@link Builder#hCoarsening(boolean)}'s default: {@code auto} (the default: h-levels
     * where every side of the N = 1 box has at least {@link HCoarsening#AUTO_START_SIDE} elements), {@code true} or
     * {@code false}.
     */
    public static final String H_COARSENING_PROPERTY = "lobatto.pmg.hCoarsening";

    /**
     * Whether {@link Builder#build()} runs the host part of the Schwarz setup ahead ({@link SchwarzHostSetup}): the
     * levels' operators first, each level's extended elements and FDM table made on a host thread meanwhile, then the
     * smoothers. {@code -Dlobatto.pmg.schwarzAhead}, else true; false builds level by level with the Schwarz setup on
     * the caller's thread (the setup of {@code 08c2908}), for an A/B in one lease. Both give the same bits.
     */
    static final boolean SCHWARZ_AHEAD = Boolean.parseBoolean(System.getProperty("lobatto.pmg.schwarzAhead", "true"));

    private final Backend backend;
    private final List<Level> levels;
    /** Level l's name in the backend's launch statistics ({@link Backend#profileScope}), made once. */
    private final String[] scopes;
    private final double setupSeconds;
    private boolean timeLevels;
    private long cycles;

    private PMultigrid(Backend backend, List<Level> levels, double setupSeconds) {
        this.backend = backend;
        this.levels = levels;
        this.setupSeconds = setupSeconds;
        this.scopes = new String[levels.size()];
        for (int l = 0; l < scopes.length; l++) {
            Level level = levels.get(l);
            scopes[l] = "p-MG L" + l + " N=" + level.mesh.degree() + (level.whole != null ? " whole" : "");
        }
    }

    /**
     * A builder of the V-cycle on {@code mesh} (the fine level) with the levels' operators made by
     * {@code operatorFactory} (called with the mesh at each level's degree, e.g. {@code m -> StiffnessBp35.on(m, λ)})
     * and bound to {@code backend}.
     */
    public static Builder builder(Function<SpectralElementMesh, ? extends ElementOperator> operatorFactory,
                                  SpectralElementMesh mesh, Backend backend) {
        return new Builder(operatorFactory, mesh, backend);
    }

    /**
     * The default schedule of {@code smoother}: {@link #halving} with Jacobi relaxation, {@link #stepsOfTwo} with a
     * Schwarz relaxation. Measured on the cpu backend, Kershaw epsilon 0.3, cheb4opt-ras, relative residual 1e-10
     * (flexible CG iterations): 12^3 elements, N = 7, order 3: 7,3,1: 40, 7,5,3,1: 28; order 4: 31 and 22; 24^3, N = 3,
     * order 3: 3,1: 45, 3,2,1: 29; order 4: 32 and 22. With 7,3,2,1 (39) the jump 7 -> 3 stayed the limit. Jacobi keeps
     * halving, the main job's measured schedule.
     */
    public static int[] defaultDegrees(int degree, Smoother smoother) {
        Objects.requireNonNull(smoother, "smoother");
        return smoother.relaxation().isSchwarz() ? stepsOfTwo(degree) : halving(degree);
    }

    /**
     * N, N-2, N-4, ... down to 3 (odd N) or 4 (even N), then 2 and 1: no step coarsens by more than a factor of 2
     * (3 -> 2 -> 1, 4 -> 2 -> 1), e.g. 7,5,3,2,1 and 8,6,4,2,1.
     */
    public static int[] stepsOfTwo(int degree) {
        if (degree < 1) {
            throw new IllegalArgumentException("degree must be >= 1, got " + degree);
        }
        List<Integer> list = new ArrayList<>();
        int n = degree;
        for (; n > 4; n -= 2) {
            list.add(n);
        }
        for (; n >= 1; n = n == 4 ? 2 : n - 1) {
            list.add(n);
        }
        return list.stream().mapToInt(Integer::intValue).toArray();
    }

    /** N, N/2, N/4, ..., 1 (integer halving): the default schedule with Jacobi relaxation. */
    public static int[] halving(int degree) {
        if (degree < 1) {
            throw new IllegalArgumentException("degree must be >= 1, got " + degree);
        }
        List<Integer> list = new ArrayList<>();
        for (int n = degree; n >= 1; n /= 2) {
            list.add(n);
        }
        return list.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Builds a {@link PMultigrid}; every setting has a default. */
    public static final class Builder {
        private final Function<SpectralElementMesh, ? extends ElementOperator> factory;
        private final SpectralElementMesh mesh;
        private final Backend backend;
        private int[] degrees;
        private int order = 3;
        private Smoother smoother = Smoother.CHEBYSHEV_JACOBI;
        private double bandLow = 0.1;
        private double bandHigh = 1.1;
        private int lanczosSteps = 10;
        private int coarseLanczosSteps = 40;
        private double coarseReduction = 0.1;
        private int coarseMaxIterations = 60;
        private Function<SpectralElementMesh, boolean[]> mask = SpectralElementMesh::boundaryMaskAllTagged;
        private AssembledOperator fine;
        private boolean timed;
        private SetupPhases phases = new SetupPhases();
        private Distribution distribution;
        /** {@link #hCoarsening(boolean)}'s choice; null: auto (see {@link #H_COARSENING_PROPERTY}). */
        private Boolean hCoarsening = hCoarseningDefault();
        private boolean schwarzAhead = SCHWARZ_AHEAD;
        private int hMinSide = HCoarsening.DEFAULT_MIN_SIDE;

        private Builder(Function<SpectralElementMesh, ? extends ElementOperator> factory, SpectralElementMesh mesh,
                        Backend backend) {
            this.factory = Objects.requireNonNull(factory, "operatorFactory");
            this.mesh = Objects.requireNonNull(mesh, "mesh");
            this.backend = Objects.requireNonNull(backend, "backend");
        }

        /** The schedule {@link #build} will use: the one given to {@link #degrees}, else {@link #defaultDegrees}. */
        public int[] schedule() {
            return degrees != null ? degrees.clone() : defaultDegrees(mesh.degree(), smoother);
        }

        /**
         * The degrees of the levels, fine first: strictly decreasing, starting at the mesh's degree, all >= 1; default
         * {@link #defaultDegrees} of the smoother.
         */
        public Builder degrees(int... schedule) {
            if (schedule == null || schedule.length == 0) {
                throw new IllegalArgumentException("degrees: the schedule must name at least the fine degree " + mesh.degree());
            }
            if (schedule[0] != mesh.degree()) {
                throw new IllegalArgumentException("degrees: the schedule must start at the mesh's degree " + mesh.degree()
                        + ", got " + Arrays.toString(schedule));
            }
            for (int i = 1; i < schedule.length; i++) {
                if (schedule[i] < 1 || schedule[i] >= schedule[i - 1]) {
                    throw new IllegalArgumentException("degrees: the schedule must decrease strictly down to >= 1, got "
                            + Arrays.toString(schedule));
                }
            }
            this.degrees = schedule.clone();
            return this;
        }

        /** The Chebyshev order k of the smoother (operator applies per smoothing), 1..10; default 3. */
        public Builder smootherOrder(int k) {
            if (k < 1 || k > 10) {
                throw new IllegalArgumentException("smoother order must be in 1..10, got " + k);
            }
            this.order = k;
            return this;
        }

        /**
         * The smoother's polynomial: Chebyshev of the first kind on the smoothing band (default) or, when
         * {@code fourth}, Lottes' Chebyshev polynomial of the fourth kind on [0, high lambda_max].
         */
        public Builder fourthKind(boolean fourth) {
            this.smoother = new Smoother(fourth ? Smoother.Polynomial.FOURTH_KIND : Smoother.Polynomial.FIRST_KIND,
                    smoother.relaxation());
            return this;
        }

        /** The smoother of the smoothed levels (polynomial and relaxation); default {@link Smoother#CHEBYSHEV_JACOBI}. */
        public Builder smoother(Smoother s) {
            this.smoother = Objects.requireNonNull(s, "smoother");
            return this;
        }

        /** The smoothing band [low, high] lambda_max (default 0.1, 1.1, NekRS's). */
        public Builder smoothingBand(double low, double high) {
            if (!(low > 0 && high > low)) {
                throw new IllegalArgumentException("smoothing band must satisfy 0 < low < high, got [" + low + ", " + high + "]");
            }
            this.bandLow = low;
            this.bandHigh = high;
            return this;
        }

        /**
         * Lanczos (Jacobi-PCG) steps for lambda_max of the smoothed levels; default 10 (each costs an operator apply at
         * setup). Ritz values approach lambda_max from below: with the order-3 smoother on [0.1, 1.1] lambda the V-cycle
         * stays positive definite only while the true lambda_max is below 1.2 times the estimate. 6 steps were too few
         * (PCG broke down on the 14^3, N = 7 main-job mesh: r . z &lt; 0); 10 passed every measured case.
         */
        public Builder lanczosSteps(int steps) {
            if (steps < 2) {
                throw new IllegalArgumentException("Lanczos steps must be >= 2, got " + steps);
            }
            this.lanczosSteps = steps;
            return this;
        }

        /**
         * The coarsest level's solve: Lanczos steps for its spectrum (default 40), the error reduction 1/T_m(sigma)
         * its Chebyshev iterations aim at (default 0.1) and their cap (default 60).
         */
        public Builder coarseSolve(int lanczos, double reduction, int maxIterations) {
            if (lanczos < 2) {
                throw new IllegalArgumentException("coarse Lanczos steps must be >= 2, got " + lanczos);
            }
            if (!(reduction > 0 && reduction < 1)) {
                throw new IllegalArgumentException("coarse reduction must be in (0, 1), got " + reduction);
            }
            if (maxIterations < 1) {
                throw new IllegalArgumentException("coarse iterations must be >= 1, got " + maxIterations);
            }
            this.coarseLanczosSteps = lanczos;
            this.coarseReduction = reduction;
            this.coarseMaxIterations = maxIterations;
            return this;
        }

        /** The Dirichlet mask of each level's mesh (default: every tagged boundary face). */
        public Builder mask(Function<SpectralElementMesh, boolean[]> dirichletMask) {
            this.mask = Objects.requireNonNull(dirichletMask, "mask");
            return this;
        }

        /**
         * Reuses an already bound fine operator (the one CG solves with) instead of binding the factory's again; it
         * must act on the mesh's degree and mask. Not closed by the preconditioner.
         */
        public Builder fineOperator(AssembledOperator operator) {
            this.fine = Objects.requireNonNull(operator, "fineOperator");
            return this;
        }

        private static int unknowns(boolean[] masked) {
            int n = 0;
            if (masked == null) {
                return Integer.MAX_VALUE;
            }
            for (boolean b : masked) {
                n += b ? 0 : 1;
            }
            return n;
        }

        /**
         * Distributes the levels across ranks (the mesh is this rank's part); null (default) for one rank. Needs the
         * Jacobi relaxation (the Schwarz smoothers are not distributed).
         */
        public Builder distribution(Distribution d) {
            this.distribution = d;
            return this;
        }

        /**
         * Geometric h-coarsening below the p = 1 level ({@link HCoarsening}): when the schedule ends at N = 1 on a
         * structured box ({@link io.lobatto.core.mesh.HexMesh#structuredBox()}) with even sides, the box halved in every
         * direction is the next level, at N = 1, repeated while the sides stay even and at least
         * {@link HCoarsening#DEFAULT_MIN_SIDE} elements; the last is the coarsest (the Chebyshev solve), the levels above it
         * are smoothed. With a {@link #distribution}, each rank coarsens its part ({@link Distribution#hCoarsen}), and a
         * part that is no box with even sides is an error. Without a call, {@code auto} (system property
         * {@value #H_COARSENING_PROPERTY}): on one rank, on where every side of the N = 1 box has at least
         * {@link HCoarsening#AUTO_START_SIDE} elements; across ranks, as deep as the distribution chooses (none where it
         * cannot coarsen the parts).
         */
        public Builder hCoarsening(boolean on) {
            this.hCoarsening = on;
            return this;
        }

        /** {@link #hCoarsening(boolean)}'s choice, or null for auto. */
        public Boolean hCoarsening() {
            return hCoarsening;
        }

        private static Boolean hCoarseningDefault() {
            String v = System.getProperty(H_COARSENING_PROPERTY, "auto").strip();
            return switch (v) {
                case "auto" -> null;
                case "true" -> Boolean.TRUE;
                case "false" -> Boolean.FALSE;
                default -> throw new IllegalArgumentException(H_COARSENING_PROPERTY + " is '" + v
                        + "'; it is one of auto, true, false");
            };
        }

        /** As {@link #hCoarsening(boolean)}, with at least {@code minSide} (>= 1) elements per side on the coarsest box. */
        public Builder hCoarsening(boolean on, int minSide) {
            if (minSide < 1) {
                throw new IllegalArgumentException("h-coarsening: minSide must be >= 1, got " + minSide);
            }
            this.hCoarsening = on;
            this.hMinSide = minSide;
            return this;
        }

        /**
         * Whether the host part of the Schwarz setup runs ahead on a host thread while the levels' operators are built
         * ({@link #SCHWARZ_AHEAD}'s default); the levels are the same either way, bit for bit.
         */
        Builder schwarzAhead(boolean on) {
            this.schwarzAhead = on;
            return this;
        }

        /** Whether the built V-cycle times its levels ({@link PMultigrid#timeLevels}); default off. */
        public Builder timeLevels(boolean on) {
            this.timed = on;
            return this;
        }

        /** Records the setup of the levels into {@code phases} (numbering and Z, geometry, diagonals, eigenvalue bounds, transfers). */
        public Builder phases(SetupPhases phases) {
            this.phases = java.util.Objects.requireNonNull(phases, "phases");
            return this;
        }

        /** Sets up every level on the backend (operators, diagonals, eigenvalue bounds, transfers). */
        public PMultigrid build() {
            if (distribution != null && smoother.relaxation().isSchwarz()) {
                throw new IllegalArgumentException("smoother " + smoother.cliName() + ": the distributed V-cycle has the Jacobi"
                        + " relaxation only");
            }
            if (smoother.polynomial() == Smoother.Polynomial.FOURTH_KIND_OPTIMAL && order > ChebyshevSmoother.MAX_OPTIMAL_ORDER) {
                throw new IllegalArgumentException("smoother " + smoother.cliName() + ": the optimised weights are tabulated for"
                        + " orders 1.." + ChebyshevSmoother.MAX_OPTIMAL_ORDER + ", got order " + order);
            }
            long t0 = System.nanoTime();
            int[] degrees = schedule();
            // the meshes and masks first: a coarse level without unknowns ends the schedule above it
            List<SpectralElementMesh> meshes = new ArrayList<>();
            List<boolean[]> masks = new ArrayList<>();
            for (int l = 0; l < degrees.length; l++) {
                int degree = degrees[l];
                SpectralElementMesh m = phases.time("p-MG numbering", () -> mesh.atDegree(degree));
                boolean[] mk = phases.time("p-MG numbering", () -> mask.apply(m));
                long unknowns = phases.time("p-MG numbering",   // a pass over the mask: part of the numbering's cost
                        () -> distribution == null ? unknowns(mk) : distribution.sum(unknowns(mk)));
                if (l > 0 && unknowns == 0) {
                    break;
                }
                meshes.add(m);
                masks.add(mk);
            }
            int pLevels = meshes.size();
            // auto: one rank's rule (HCoarsening.autoApplies), or across ranks the distribution's (it chooses the depth)
            boolean hLevels = hCoarsening != null ? hCoarsening
                    : distribution != null || HCoarsening.autoApplies(meshes.get(meshes.size() - 1));
            // per h-level, the map of Z_h from the level above (across ranks, from the distribution)
            List<int[]> hIds = new ArrayList<>();
            if (hLevels) {
                // h-levels below N = 1 on a structured box (across ranks: each rank's part of it); one without unknowns ends them
                while (true) {
                    SpectralElementMesh up = meshes.get(meshes.size() - 1);
                    boolean[] upMask = masks.get(masks.size() - 1);
                    int depth = meshes.size() - pLevels;
                    java.util.Optional<HCoarsening.Step> c = phases.time("p-MG numbering", () -> distribution == null
                            ? HCoarsening.coarsen(up, hMinSide).map(m -> new HCoarsening.Step(m, HCoarsening.fineIdsOfCoarsePoints(up)))
                            : distribution.hCoarsen(up, upMask, depth, hMinSide, hCoarsening != null));
                    if (c.isEmpty()) {
                        break;
                    }
                    boolean[] mk = phases.time("p-MG numbering", () -> mask.apply(c.get().coarse()));
                    long unknowns = distribution == null ? unknowns(mk) : distribution.sum(unknowns(mk));
                    if (unknowns == 0) {
                        break;
                    }
                    meshes.add(c.get().coarse());
                    masks.add(mk);
                    hIds.add(c.get().fineIds());
                }
            }
            List<Level> built = new ArrayList<>();
            int last = meshes.size() - 1;
            SpectralElementMesh whole = distribution != null && last > 0 ? distribution.wholeMesh(meshes.get(last)) : null;
            // Schwarz ahead: every level's operator first, each level's Schwarz host setup started on a host thread as
            // soon as its operator (its lambda) is there, then the smoothers, which wait for it
            boolean ahead = schwarzAhead && smoother.relaxation().isSchwarz() && distribution == null;
            AssembledOperator[] ops = new AssembledOperator[meshes.size()];
            SchwarzHostSetup[] hostSetups = new SchwarzHostSetup[meshes.size()];
            java.util.concurrent.ExecutorService host = ahead ? java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "lobatto-schwarz-setup");
                t.setDaemon(true);
                return t;
            }) : null;
            boolean ok = false;
            try {
                if (ahead) {
                    for (int l = 0; l < meshes.size(); l++) {
                        SpectralElementMesh m = meshes.get(l);
                        ops[l] = l == 0 && fine != null ? fine : Level.operator(this, m, masks.get(l));
                        // the levels Level smooths with Schwarz: above the coarsest, N > 1
                        if (l < last && m.degree() > 1) {
                            boolean compactRas = SchwarzPreconditioner.compactRas(backend, m.degree(),
                                    smoother.relaxation() == Smoother.Relaxation.RAS, SchwarzPreconditioner.COMPACT);
                            hostSetups[l] = SchwarzHostSetup.ahead(host, m, masks.get(l), ops[l].elementOperator().lambda(),
                                    compactRas);
                        }
                    }
                }
                for (int l = 0; l < meshes.size(); l++) {
                    SpectralElementMesh m = meshes.get(l);
                    AssembledOperator given = ahead ? ops[l] : l == 0 ? fine : null;
                    ops[l] = null; // the level owns the operators built above
                    Level level = new Level(this, m, masks.get(l), given, given != null && given != fine, l == last, distribution,
                            l < last || whole == null, hostSetups[l]);
                    built.add(level);
                    if (l == last && whole != null) {
                        // the whole coarse problem on this rank's device, built as one rank builds its coarsest level
                        level.whole = new Level(this, whole, mask.apply(whole), null, false, true, null, true, null);
                        level.link = phases.time("p-MG coarse gather", () -> distribution.linkWhole(m,
                                level.op.scatterOperator(), whole, level.whole.op.scatterOperator(), backend));
                    }
                    if (l > 0 && l >= pLevels) {
                        // h: P = Z_h^T W_h J_(1->2) Z_c on the coarse elements, Z_h into the fine level's numbering
                        Level up = built.get(l - 1);
                        boolean[] upMask = masks.get(l - 1);
                        up.transfer = phases.time("p-MG transfers",
                                () -> backend.uploadTransfer(m.basis(), io.lobatto.core.basis.Basis1D.of(2), m.elementCount()));
                        int[] ids = hIds.get(l - pLevels);
                        up.transferScatter = phases.time("p-MG transfers", () -> {
                            int count = up.mesh.globalNodeCount();
                            return backend.buildScatter(java.nio.IntBuffer.wrap(ids), count, upMask)
                                    .orElseGet(() -> ScatterOperator.build(ids, count, upMask).upload(backend));
                        });
                        up.transferWork = backend.allocate(up.transferScatter.localSize());
                    } else if (l > 0) {
                        Level up = built.get(l - 1);
                        up.transfer = phases.time("p-MG transfers",
                                () -> backend.uploadTransfer(m.basis(), up.mesh.basis(), m.elementCount()));
                    }
                }
                ok = true;
            } catch (RuntimeException ex) {
                built.forEach(Level::close);
                for (int l = 0; l < ops.length; l++) {
                    if (ops[l] != null && ops[l] != fine) {
                        ops[l].close();
                    }
                }
                throw ex;
            } finally {
                if (host != null) {
                    if (ok) {
                        host.shutdown();
                    } else {
                        host.shutdownNow(); // a task running keeps running to its end (daemon thread)
                    }
                }
            }
            backend.synchronize();
            return new PMultigrid(backend, List.copyOf(built), (System.nanoTime() - t0) * 1e-9).timeLevels(timed);
        }
    }

    /** One level: operator, Jacobi diagonal, smoother (or coarse Chebyshev solve), vectors, transfer to the next. */
    private static final class Level implements AutoCloseable {
        final SpectralElementMesh mesh;
        final AssembledOperator op;
        final boolean ownsOp;
        final DeviceVector inverseDiagonal;
        final ChebyshevSmoother smoother;
        /** The Schwarz relaxation of a smoothed level, else null (Jacobi, or the coarsest level). */
        final SchwarzPreconditioner schwarz;
        final String smootherName;
        final SpectrumBounds bounds;
        final DeviceVector b;
        final DeviceVector x;
        final DeviceVector r;
        final DeviceVector t;
        final DeviceVector workL;
        /** The level across ranks (null on one rank) and the operator the cycle applies (its, else {@link #op}). */
        final DistributedLevel dist;
        final DeviceOperator apply;
        DeviceTransfer transfer;
        /**
         * The fine side of {@link #transfer} where the next level is an h-level (Z_h of {@link HCoarsening}, and a local
         * vector of its size); null where it is this level's own Z and {@link #workL}.
         */
        io.lobatto.core.backend.DeviceScatter transferScatter;
        DeviceVector transferWork;
        /** The whole coarse problem this coarsest level is solved by (every rank solves it), and the link to it; else null. */
        Level whole;
        WholeCoarse link;
        long nanos;

        /**
         * A level of {@code mesh}; across ranks when {@code distribution} is not null; with its smoother (or, when
         * {@code coarsest}, its Chebyshev solve) when {@code solved} (not when a whole coarse level solves it). Its
         * operator is {@code given} (owned when {@code ownsGiven}: built by {@link #operator} ahead of the levels), or
         * built here where null; {@code schwarzHost} is the host part of its Schwarz setup made ahead, or null.
         */
        Level(Builder cfg, SpectralElementMesh mesh, boolean[] mask, AssembledOperator given, boolean ownsGiven,
              boolean coarsest, Distribution distribution, boolean solved, SchwarzHostSetup schwarzHost) {
            this.mesh = mesh;
            Backend backend = cfg.backend;
            AssembledOperator o = given;
            if (o == null) {
                o = operator(cfg, mesh, mask);
                ownsOp = true;
            } else if (ownsGiven) {
                ownsOp = true;
            } else {
                if (o.elementOperator().degree() != mesh.degree() || o.backend() != backend) {
                    throw new IllegalArgumentException("fineOperator acts on degree " + o.elementOperator().degree()
                            + " on backend " + o.backend().name() + ", expected degree " + mesh.degree() + " on " + backend.name());
                }
                ownsOp = false;
            }
            this.op = o;
            int n = o.size();
            if (n == 0) {
                if (ownsOp) {
                    o.close();
                }
                throw new IllegalArgumentException("p-multigrid level N = " + mesh.degree() + " has no unknowns (every node is masked)");
            }
            AssembledOperator op0 = o;
            try {
                this.dist = distribution == null ? null : distribution.level(o, mesh, mask);
            } catch (RuntimeException e) {
                if (ownsOp) {
                    o.close();
                }
                throw e;
            }
            this.apply = dist == null ? o : dist.operator();
            this.inverseDiagonal = dist != null ? dist.inverseDiagonal() : cfg.phases.time("diagonals",
                    () -> op0.inverseDiagonal("p-multigrid level N = " + mesh.degree()));
            // the Lanczos steps: the same on every rank (the global unknowns)
            long unknowns = dist == null ? n : dist.globalSize();
            java.util.function.Consumer<DeviceVector> consistent = dist == null ? v -> { } : v -> {
                dist.ownerMask(v, v);
                dist.sumShared(v);
            };
            long tVectors = System.nanoTime();
            this.b = backend.allocate(n);
            this.x = backend.allocate(n);
            this.r = backend.allocate(n);
            this.t = backend.allocate(n);
            this.workL = backend.allocate(o.deviceScatter().localSize());
            cfg.phases.add("p-MG vectors", System.nanoTime() - tVectors);
            long tBounds = System.nanoTime();
            if (!solved) {
                bounds = null;
                smoother = null;
                schwarz = null;
                smootherName = "solved whole on every rank";
            } else if (coarsest) {
                bounds = SpectrumBounds.estimate(apply, inverseDiagonal, (int) Math.min(cfg.coarseLanczosSteps, unknowns),
                        0x5eed + mesh.degree(), consistent);
                double lo = bounds.lambdaMin();
                double hi = cfg.bandHigh * bounds.lambdaMax();
                if (!(lo > 0 && lo < hi)) {
                    lo = hi / 1000;
                }
                double sigma = (hi + lo) / (hi - lo);
                int m = (int) Math.ceil(acosh(1 / cfg.coarseReduction) / acosh(sigma));
                m = Math.max(1, Math.min(cfg.coarseMaxIterations, m));
                smoother = new ChebyshevSmoother(apply, inverseDiagonal, lo, hi, m);
                schwarz = null;
                smootherName = "coarse Chebyshev(Jacobi)";
            } else {
                Smoother kind = cfg.smoother;
                if (mesh.degree() == 1 && kind.relaxation().isSchwarz()) {
                    // a smoothed N = 1 level (above h-levels): the Schwarz FDM is not made for N = 1 (measured on Kershaw
                    // 12^3, cheb4opt-ras: Arnoldi bounds of +-1e16 there, 72 iterations instead of 27), so Jacobi
                    kind = new Smoother(kind.polynomial(), Smoother.Relaxation.JACOBI);
                }
                int steps = (int) Math.min(cfg.lanczosSteps, unknowns);
                long seed = 0x5eed + mesh.degree();
                if (kind.relaxation().isSchwarz()) {
                    long tSchwarz = System.nanoTime();
                    schwarz = SchwarzPreconditioner.bind(o, mesh, mask, kind.relaxation() == Smoother.Relaxation.RAS,
                            cfg.phases, SchwarzPreconditioner.COMPACT, schwarzHost);
                    tBounds += System.nanoTime() - tSchwarz; // recorded as the Schwarz phases, not as bounds
                    bounds = kind.isSymmetric() ? SpectrumBounds.estimate(o, schwarz, steps, seed)
                            : SpectrumBounds.arnoldi(o, schwarz, steps, seed);
                } else {
                    schwarz = null;
                    bounds = SpectrumBounds.estimate(apply, inverseDiagonal, steps, seed, consistent);
                }
                smoother = new ChebyshevSmoother(apply, inverseDiagonal, schwarz, cfg.bandLow * bounds.lambdaMax(),
                        cfg.bandHigh * bounds.lambdaMax(), cfg.order, kind.polynomial());
                smootherName = kind.describe();
            }
            backend.synchronize();
            cfg.phases.add("eigenvalue bounds", System.nanoTime() - tBounds);
        }

        /** The operator of a level of {@code mesh} with Dirichlet {@code mask}: its Z ("p-MG Z") and element operator ("p-MG geometry"). */
        static AssembledOperator operator(Builder cfg, SpectralElementMesh mesh, boolean[] mask) {
            Backend backend = cfg.backend;
            io.lobatto.core.backend.DeviceScatter z = cfg.phases.time("p-MG Z",
                    () -> ScatterOperator.buildOn(backend, mesh, mask));         // where the levels run
            return cfg.phases.time("p-MG geometry", () -> {
                io.lobatto.operators.ElementOperator e;
                try {
                    e = cfg.factory.apply(mesh);
                } catch (RuntimeException ex) {
                    z.close();
                    throw ex;
                }
                return AssembledOperator.bind(e, z, mesh, mask, backend);
            });
        }

        /** Z_f of the transfer to the next level: Z_h below an h-coarsening, else this level's Z. */
        io.lobatto.core.backend.DeviceScatter transferZ() {
            return transferScatter != null ? transferScatter : op.deviceScatter();
        }

        /** The fine-side local vector of the transfer ({@link #transferZ()}'s local size). */
        DeviceVector transferLocal() {
            return transferWork != null ? transferWork : workL;
        }

        private static double acosh(double v) {
            return Math.log(v + Math.sqrt(v * v - 1));
        }

        @Override
        public void close() {
            if (link != null) {
                link.close();
            }
            if (whole != null) {
                whole.close();
            }
            if (transfer != null) {
                transfer.close();
            }
            if (transferScatter != null) {
                transferScatter.close();
            }
            if (transferWork != null) {
                transferWork.close();
            }
            if (smoother != null) {
                smoother.close();
            }
            if (schwarz != null) {
                schwarz.close();
            }
            if (dist != null) {
                dist.close(); // its inverse diagonal too
            } else {
                inverseDiagonal.close();
            }
            b.close();
            x.close();
            r.close();
            t.close();
            workL.close();
            if (ownsOp) {
                op.close();
            }
        }
    }

    /** When on, each level's share of the cycle time is measured (the backend is synchronised at level changes). */
    public PMultigrid timeLevels(boolean on) {
        this.timeLevels = on;
        return this;
    }

    /** True when a level's smoother is not symmetric (RAS): the V-cycle is not symmetric, so CG must be flexible. */
    @Override
    public boolean isVariable() {
        return levels.stream().anyMatch(v -> v.schwarz != null && v.schwarz.isVariable());
    }

    /** z = B r: one V-cycle from z = 0. */
    @Override
    public void apply(DeviceVector r, DeviceVector z) {
        Level fine = levels.get(0);
        if (r.length() != fine.op.size() || z.length() != fine.op.size()) {
            throw new IllegalArgumentException("p-multigrid acts on vectors of length " + fine.op.size() + ", got r of length "
                    + r.length() + " and z of length " + z.length());
        }
        cycles++;
        cycle(0, r, z, timeLevels ? System.nanoTime() : 0);
        backend.profileScope("");
    }

    /** Names level {@code l}'s launches in the backend's launch statistics ({@link Backend#profileScope}). */
    private void scope(int l) {
        backend.profileScope(scopes[l]);
    }

    /** One V-cycle on level l from x = 0; returns the clock when timing. */
    private long cycle(int l, DeviceVector b, DeviceVector x, long clock) {
        Level level = levels.get(l);
        scope(l);
        if (level.whole != null) {
            // the whole coarse problem on every rank: one gather, one rank's Chebyshev solve, this rank's entries of it
            Level w = level.whole;
            level.link.gather(b, w.r);
            backend.fill(w.x, 0);
            w.smoother.smooth(w.r, w.x, false, w.t);
            level.link.scatter(w.x, x);
            return lap(level, clock);
        }
        backend.fill(x, 0);
        backend.copy(b, level.r);
        if (l == levels.size() - 1) {
            level.smoother.smooth(level.r, x, false, level.t);
            return lap(level, clock);
        }
        Level coarse = levels.get(l + 1);
        if (level.dist != null && level.dist.restrictsPartialResidual()
                && level.smoother.polynomial() != Smoother.Polynomial.FOURTH_KIND_OPTIMAL) {
            // the residual b - A x as partial sums, without the exchange of the smoother's last apply; restricted as it is
            level.smoother.smooth(level.r, x, false, level.t);
            level.dist.partialResidual(level.r, level.smoother.lastCorrection(), level.t);
            backend.restrict(level.transfer, level.transferZ(), coarse.op.deviceScatter(), level.t, coarse.workL, coarse.b);
            sumRestricted(coarse);
            clock = lap(level, clock);
            clock = cycle(l + 1, coarse.b, coarse.x, clock);
            scope(l);
            return postSmooth(level, coarse, b, x, clock);
        }
        level.smoother.smooth(level.r, x, true, level.t);
        if (level.dist == null) {
            backend.restrict(level.transfer, level.transferZ(), coarse.op.deviceScatter(), level.r, coarse.workL, coarse.b);
        } else {
            // R = P^T across ranks: each shared fine node restricted by its owner, the coarse partials summed
            level.dist.ownerMask(level.r, level.t);
            backend.restrict(level.transfer, level.transferZ(), coarse.op.deviceScatter(), level.t, coarse.workL, coarse.b);
            sumRestricted(coarse);
        }
        clock = lap(level, clock);
        clock = cycle(l + 1, coarse.b, coarse.x, clock);
        scope(l);
        return postSmooth(level, coarse, b, x, clock);
    }

    /**
     * Completes the restricted right-hand side of {@code coarse} across ranks (its halo sum), unless the coarse level
     * is solved whole and its gather sums the ranks' partial sums itself.
     */
    private static void sumRestricted(Level coarse) {
        if (coarse.link == null || !coarse.link.gathersPartialSums()) {
            coarse.dist.sumShared(coarse.b);
        }
    }

    /** The second half of a V-cycle on {@code level}: x += P x_c, r = b - A x, the post-smoother; returns the clock. */
    private long postSmooth(Level level, Level coarse, DeviceVector b, DeviceVector x, long clock) {
        backend.prolongate(level.transfer, coarse.op.deviceScatter(), level.transferZ(), coarse.x, level.transferLocal(), level.t);
        backend.axpby(1, level.t, 1, x);
        backend.copy(b, level.r);
        level.apply.applyResidual(x, level.t, -1, level.r, 0, null);
        level.smoother.smooth(level.r, x, false, level.t);
        return lap(level, clock);
    }

    private long lap(Level level, long clock) {
        if (!timeLevels) {
            return 0;
        }
        backend.synchronize();
        long now = System.nanoTime();
        level.nanos += now - clock;
        return now;
    }

    /** Seconds spent building the levels (operators, diagonals, eigenvalue bounds, transfers). */
    public double setupSeconds() {
        return setupSeconds;
    }

    /** V-cycles applied so far. */
    public long cycles() {
        return cycles;
    }

    /** The levels, fine first, with their bounds, applies per cycle and (when timed) their time so far. */
    public List<LevelInfo> levels() {
        List<LevelInfo> out = new ArrayList<>();
        for (int l = 0; l < levels.size(); l++) {
            Level v = levels.get(l);
            boolean coarsest = l == levels.size() - 1;
            // a coarsest level solved whole on every rank: the whole level's bounds and solve, this rank's DOFs and time
            Level s = v.whole != null ? v.whole : v;
            int k = s.smoother.order();
            int applies = coarsest ? k - 1 : 2 * k;
            out.add(new LevelInfo(v.mesh.degree(), v.op.size(), v.mesh.elementCount(), s.bounds.lambdaMin(),
                    s.bounds.lambdaMax(), s.smoother.lower(), s.smoother.upper(), k, applies, v.nanos * 1e-9, cycles,
                    v.whole != null ? s.smootherName + ", whole on every rank (" + s.op.size() + " DOFs)" : s.smootherName));
        }
        return out;
    }

    /** Clears the per-level times and the cycle count. */
    public void resetTimes() {
        levels.forEach(v -> v.nanos = 0);
        cycles = 0;
    }

    /** One line per level: degree, DOFs, smoother and bounds. */
    public String describe() {
        StringBuilder s = new StringBuilder();
        List<LevelInfo> infos = levels();
        for (int l = 0; l < infos.size(); l++) {
            LevelInfo i = infos.get(l);
            boolean coarsest = l == infos.size() - 1;
            s.append(String.format("  N = %2d: %9d DOFs, %s, lambda(M^-1 A) in [%.3g, %.3g] (Lanczos), %d applies per cycle%n",
                    i.degree(), i.dofs(), coarsest
                            ? String.format("coarse solve: %d Chebyshev iterations on [%.3g, %.3g]", i.smootherOrder(), i.smootherLower(), i.smootherUpper())
                            : String.format("%s order %d on [%.3g, %.3g]", i.smoother(), i.smootherOrder(), i.smootherLower(), i.smootherUpper()),
                    i.lambdaMin(), i.lambdaMax(), i.appliesPerCycle()));
        }
        return s.toString();
    }

    @Override
    public void close() {
        levels.forEach(Level::close);
    }
}
