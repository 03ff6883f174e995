package io.lobatto.solvers;

import java.util.logging.Level;
import java.util.logging.Logger;

import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;

/**
 * Warms the just-in-time compiler up on the host part of a solve's setup, for short-lived processes such as the
 * {@code lobatto poisson} command: the numbering of a {@link SpectralElementMesh}, the mask, the build of Z
 * ({@link ScatterOperator#of}) at every p-multigrid degree, and the eigenvalue bounds' start vector, run on a tiny
 * mesh (2 x 2 x 2 elements) a hundred times on one thread.
 *
 * <p>Why: these passes are parallel loops over 10^7 entries. On a fresh JVM every thread first runs them in the
 * interpreter and then in profiled C1 code, whose counters all threads update, until C2 code is installed. On the
 * H100 machine's 16-core host, building Z of the main job's 32^3-element, N = 7 mesh took 1.06 s the first time in a
 * process and 0.08 s the second; with 100 rounds of this warm-up first (0.12 s on one thread) the first build took
 * 0.30 s and the numbering 0.12 s instead of 0.29 s. Start the warm-up while the backend opens its device, which keeps
 * the host waiting on the driver anyway: {@link #start(int)} returns at once.
 *
 * <p>The warm-up computes nothing a solve uses and holds no state; a failure in it is logged at {@code FINE} and
 * otherwise ignored (the real setup then simply runs cold).
 */
public final class SetupWarmup {

    private static final Logger LOG = Logger.getLogger("io.lobatto.solvers");

    /** Rounds of the tiny setup: past HotSpot's invocation thresholds of C1 and C2 for the chunk loops. */
    public static final int DEFAULT_ROUNDS = 100;

    /** Element-local nodes the rounds of {@link #run} build in all, at most (unless 20 rounds already exceed it). */
    static final long NODE_BUDGET = 4_000_000;

    private SetupWarmup() {
    }

    /**
     * Starts {@link #run(int, int)} with {@link #DEFAULT_ROUNDS} on a daemon thread named {@code lobatto-warmup} and
     * returns it (already started).
     *
     * @param degree the solve's polynomial degree N (its p-multigrid levels are warmed too)
     * @throws IllegalArgumentException if {@code degree} is not in {@link io.lobatto.core.basis.Basis1D#MIN_DEGREE}..{@link io.lobatto.core.basis.Basis1D#MAX_DEGREE}
     */
    public static Thread start(int degree) {
        return start(degree, false);
    }

    /**
     * As {@link #start(int)}; with {@code schwarz} (a Schwarz-smoothed p-multigrid follows) the rounds also run the
     * Schwarz smoother's host setup ({@link #runSchwarz}), unless {@code -Dlobatto.schwarz.fastSetup=false}.
     *
     * @throws IllegalArgumentException if {@code degree} is out of range
     */
    public static Thread start(int degree, boolean schwarz) {
        requireDegree(degree);
        boolean withSchwarz = schwarz && SchwarzPreconditioner.FAST_SETUP;
        Thread t = new Thread(() -> {
            try {
                if (TOPOLOGY && Runtime.getRuntime().availableProcessors() >= TOPOLOGY_MIN_PROCESSORS) {
                    runTopology(degree, TOPOLOGY_ROUNDS);
                }
                if (withSchwarz) {
                    runSchwarz(degree, SCHWARZ_ROUNDS);
                }
                run(degree, DEFAULT_ROUNDS);
            } catch (RuntimeException | Error e) {
                LOG.log(Level.FINE, "setup warm-up stopped early", e);
            }
        }, "lobatto-warmup");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
        return t;
    }

    /**
     * Runs the tiny setup {@code rounds} times on the calling thread: a fresh 2 x 2 x 2 box, its numbering at N and at
     * each degree of {@link PMultigrid#halving(int)} and {@link PMultigrid#stepsOfTwo(int)}, the Dirichlet mask, Z, and a
     * start vector. At high N fewer rounds run: as many as fit {@value #NODE_BUDGET} local nodes, and at least 20
     * (or {@code rounds}, if fewer).
     *
     * @return a checksum of what was built (so that nothing is optimised away; of no other use)
     * @throws IllegalArgumentException if {@code degree} is out of range or {@code rounds < 0}
     */
    public static long run(int degree, int rounds) {
        requireDegree(degree);
        if (rounds < 0) {
            throw new IllegalArgumentException("rounds = " + rounds + " must be >= 0");
        }
        java.util.SortedSet<Integer> degrees = degrees(degree);
        int budgeted = rounds(degrees, rounds);
        long sum = 0;
        for (int r = 0; r < budgeted; r++) {
            HexMesh box = HexMesh.box(2, 2, 2, 0, 1, 0, 1, 0, 1);
            for (int n : degrees) {
                SpectralElementMesh mesh = SpectralElementMesh.of(box, n);
                ScatterOperator z = ScatterOperator.of(mesh, mesh.boundaryMaskAllTagged());
                sum += z.globalSize() + z.blockCount();
            }
            sum += Double.doubleToRawLongBits(SpectrumBounds.randomStart(4096, r)[r % 4096]);
        }
        return sum;
    }

    /** Elements per side of the box {@link #runTopology} numbers: 512 elements, 8 chunks of the parallel loops a round. */
    static final int TOPOLOGY_SIDE = 8;

    /** Rounds of {@link #runTopology} in {@link #start(int, boolean)}. */
    static final int TOPOLOGY_ROUNDS = 100;

    /**
     * The processors from which {@link #start(int, boolean)} runs {@link #runTopology}: the cold parallel loops it warms
     * cost 0.16-0.29 s on the H100 machine's 16 cores and 0.05 s on 2, where the rounds compete with the setup for the
     * same two CPUs instead (the Java backend's README job, pinned to 2 CPUs: setup 1.064 s without them against 1.164 s
     * with them, medians of 6, `jsetup.sh` at 769fc1f).
     */
    static final int TOPOLOGY_MIN_PROCESSORS = 8;

    /**
     * {@code -Dlobatto.setup.warmupTopology=false} leaves {@link #runTopology} out of {@link #start(int, boolean)} (for
     * A/B runs).
     */
    public static final String TOPOLOGY_PROPERTY = "lobatto.setup.warmupTopology";

    private static final boolean TOPOLOGY = !"false".equalsIgnoreCase(System.getProperty(TOPOLOGY_PROPERTY, "true").trim());

    /**
     * Runs the numbering by entities of a fresh {@value #TOPOLOGY_SIDE}^3 box {@code rounds} times: its topology (in
     * closed form for a box), the packed entities, the numbering at N (a prefix sum over the entities) and the Dirichlet
     * mask from the entities, with no local-to-global map (where Z is built on the device the host never fills one).
     * Why: these are loops over the elements in parallel chunks of 64. {@link #run}'s 2 x 2 x 2 box is one chunk, which
     * a hundred rounds leave in profiled C1 code; then a 32^3 mesh's first build ran it on every core of the H100
     * machine's host (mesh and numbering 0.16-0.25 s with 1-3.7 s of CPU, against 0.05 s on 2 cores here). Eight chunks
     * a round take the chunk bodies to C2 within the rounds.
     *
     * @return a checksum of what was built (of no other use)
     * @throws IllegalArgumentException if {@code degree} is out of range or {@code rounds < 0}
     */
    static long runTopology(int degree, int rounds) {
        requireDegree(degree);
        if (rounds < 0) {
            throw new IllegalArgumentException("rounds = " + rounds + " must be >= 0");
        }
        long sum = 0;
        for (int r = 0; r < rounds; r++) {
            HexMesh box = HexMesh.box(TOPOLOGY_SIDE, TOPOLOGY_SIDE, TOPOLOGY_SIDE, 0, 1, 0, 1, 0, 1);
            SpectralElementMesh mesh = SpectralElementMesh.of(box, degree);
            boolean[] mask = mesh.boundaryMaskAllTagged();
            sum += mesh.globalNodeCount() + (mask[0] ? 1 : 0);
        }
        return sum;
    }

    /** Rounds of {@link #runSchwarz} in {@link #start(int, boolean)}. */
    static final int SCHWARZ_ROUNDS = 40;

    /**
     * Runs the Schwarz smoother's host setup {@code rounds} times on the calling thread, at each degree of
     * {@link PMultigrid#stepsOfTwo(int)} but 1: the faces-only extended elements ({@link ExtendedElements#faces}: face
     * codes and the mean lengths through the element geometry and Kershaw's map) and the FDM table
     * ({@link FastDiagonalization#table}, the Jacobi eigensolves) of a fresh 6 x 2 x 2 box under Kershaw's map.
     * On a fresh JVM the first Schwarz setup otherwise runs these in the interpreter: on 2 cores the FDM table of
     * Kershaw's 30^3 mesh at N = 7 took 0.39 s of CPU the first time and 0.05 s the tenth.
     *
     * @return a checksum of what was built (of no other use)
     * @throws IllegalArgumentException if {@code degree} is out of range or {@code rounds < 0}
     */
    public static long runSchwarz(int degree, int rounds) {
        requireDegree(degree);
        if (rounds < 0) {
            throw new IllegalArgumentException("rounds = " + rounds + " must be >= 0");
        }
        long sum = 0;
        for (int r = 0; r < rounds; r++) {
            HexMesh box = HexMesh.box(6, 2, 2, 0, 1, 0, 1, 0, 1);
            for (int n : PMultigrid.stepsOfTwo(degree)) {
                if (n == 1 && degree > 1) {
                    continue; // the coarsest level has no smoother
                }
                SpectralElementMesh mesh = SpectralElementMesh.of(box, n, io.lobatto.core.mesh.NodeMap.kershaw(0.3));
                boolean[] masked = FastDiagonalization.extendedMask(mesh.boundaryMaskAllTagged(), mesh.globalNodeCount());
                ExtendedElements ext = ExtendedElements.faces(mesh);
                FastDiagonalization.Table t = FastDiagonalization.table(ext, masked, 0);
                sum += t.lines() + Double.doubleToRawLongBits(t.values()[r % t.values().length]);
            }
        }
        return sum;
    }

    /** The warm-up's degrees: N and those of both default p-multigrid schedules, ascending. */
    static java.util.SortedSet<Integer> degrees(int degree) {
        java.util.SortedSet<Integer> degrees = new java.util.TreeSet<>();
        for (int n : PMultigrid.halving(degree)) {
            degrees.add(n);
        }
        for (int n : PMultigrid.stepsOfTwo(degree)) {
            degrees.add(n);
        }
        return degrees;
    }

    /**
     * The rounds that run of {@code rounds} asked: at high N a round is large and far fewer rounds pass the thresholds,
     * so at most about {@value #NODE_BUDGET} local nodes in all, but at least 20 rounds (or {@code rounds}, if fewer).
     */
    static int rounds(java.util.Set<Integer> degrees, int rounds) {
        long nodesPerRound = 0;
        for (int n : degrees) {
            nodesPerRound += 8L * (n + 1) * (n + 1) * (n + 1);
        }
        return (int) Math.min(rounds, Math.max(Math.min(rounds, 20), NODE_BUDGET / nodesPerRound));
    }

    private static void requireDegree(int degree) {
        if (degree < io.lobatto.core.basis.Basis1D.MIN_DEGREE || degree > io.lobatto.core.basis.Basis1D.MAX_DEGREE) {
            throw new IllegalArgumentException("degree = " + degree + " is out of range [" + io.lobatto.core.basis.Basis1D.MIN_DEGREE + ", "
                    + io.lobatto.core.basis.Basis1D.MAX_DEGREE + "]");
        }
    }
}
