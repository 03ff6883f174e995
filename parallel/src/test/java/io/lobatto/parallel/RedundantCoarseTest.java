package io.lobatto.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.core.parallel.Communicator;
import io.lobatto.core.parallel.SingleRankCommunicator;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.StiffnessBp35;
import io.lobatto.solvers.PMultigrid;

/**
 * The redundant coarse solve ({@link RedundantCoarse}, {@link DistributedLevels.Coarse#REDUNDANT}) on R ranks (threads)
 * against one rank, on the Java backend and on OpenCL (PoCL here; skipped without OpenCL unless
 * LOBATTO_REQUIRE_OPENCL=1): each rank's coarse solution x_r = P_r x_c equals one rank's coarse Chebyshev solve of the
 * whole problem at the rank's nodes to round-off (1e-13 of its size), and the V-cycle's coarse polynomial (its interval
 * and iteration count) is one rank's exactly. The V-cycle across ranks does one allgather and no halo exchange on the
 * coarse level: its halo exchanges per cycle drop by the coarse solve's applies (counted with a counting
 * communicator around the ranks' real one).
 */
class RedundantCoarseTest {

    private static final int NX = 2;
    private static final int NY = 3;
    private static final int NZ = 4;
    private static final int FINE = 3;
    private static final NodeMap MAP = NodeMap.sinusoidal(0.05, 0, 1, 0, 1, 0, 1);
    private static final Function<SpectralElementMesh, StiffnessBp35> OPERATOR = m -> StiffnessBp35.on(m, 0);

    /** A rank's slab of the NX x NY x NZ box (boundary elements first), its mesh at {@code degree} and its Dirichlet Z. */
    private record RankMesh(SlabPartition part, SpectralElementMesh mesh, ScatterOperator z) {
        static RankMesh of(Communicator c, int degree) {
            SlabPartition part = SlabPartition.of(NX, NY, NZ, c.size(), c.rank()).boundaryFirst();
            SpectralElementMesh mesh = SpectralElementMesh.of(part.localMesh(), degree, MAP);
            return new RankMesh(part, mesh, ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(),
                    mesh.boundaryMaskAllTagged()));
        }
    }

    private static Backend backend(String name, int rank) {
        try {
            Backend b = DistributedPoisson.rankBackend(name, rank, 1);
            if (!b.name().equals(name)) {
                b.close();
                throw new IllegalStateException("got the " + b.name() + " backend instead");
            }
            return b;
        } catch (RuntimeException e) {
            if ("1".equals(System.getenv("LOBATTO_REQUIRE_OPENCL"))) {
                throw new AssertionError("LOBATTO_REQUIRE_OPENCL=1 but the " + name + " backend did not start: " + e.getMessage(), e);
            }
            Assumptions.abort(name + " backend did not start: " + e.getMessage());
            return null;
        }
    }

    /** The position of a node, as a key both meshes agree on (same vertices, same map: bitwise the same coordinates). */
    private static String key(SpectralElementMesh mesh, int e, int n) {
        return mesh.x(e, n, 0) + "," + mesh.x(e, n, 1) + "," + mesh.x(e, n, 2);
    }

    /** The value of each unknown of {@code z} on {@code mesh}, keyed by position. */
    private static Map<String, Double> byPosition(SpectralElementMesh mesh, ScatterOperator z, double[] v) {
        Map<String, Double> m = new HashMap<>();
        for (int e = 0; e < mesh.elementCount(); e++) {
            for (int n = 0; n < mesh.nodesPerElement(); n++) {
                int id = z.assembledId(mesh.globalId(e, n));
                if (id >= 0) {
                    m.put(key(mesh, e, n), v[id]);
                }
            }
        }
        return m;
    }

    /**
     * Each link ({@link DistributedLevels.CoarseLink}): x_r = P_r x_c to round-off of one rank's solve, and the device and
     * partial links' vectors bitwise the host link's (they copy; the partial one, given b at the owned nodes and 0 at the
     * others, adds zeros). On the Aparapi backend the host waits of one gather and scatter
     * are counted: the host link drains the queue twice (two blocking reads), the device link never (one wait for one
     * asynchronous copy at most), except on a rank that owns no coarse unknown (4 ranks: the top slab's only unmasked
     * plane is its lower neighbour's), which has nothing to read and synchronises once.
     */
    @ParameterizedTest
    @CsvSource({"cpu, 2", "cpu, 4", "aparapi, 2", "aparapi, 4"})
    void coarseSolveIsOneRanksToRoundOff(String backendName, int ranks) throws Exception {
        // one rank: the whole mesh at degree 1 solved by one rank's coarse Chebyshev (a V-cycle of that one level)
        SpectralElementMesh whole1 = SpectralElementMesh.of(HexMesh.box(NX, NY, NZ, 0, 1, 0, 1, 0, 1), 1, MAP);
        ScatterOperator zWhole = ScatterOperator.build(whole1.localToGlobal(), whole1.globalNodeCount(),
                whole1.boundaryMaskAllTagged());
        double[] bWhole = new double[zWhole.globalSize()];
        java.util.SplittableRandom random = new java.util.SplittableRandom(11);
        for (int i = 0; i < bWhole.length; i++) {
            bWhole[i] = random.nextDouble() - 0.5;
        }
        Map<String, Double> expected;
        double size = 0;
        try (Backend be = backend(backendName, 0);
             PMultigrid one = PMultigrid.builder(OPERATOR, whole1, be).degrees(1).build();
             DeviceVector b = be.upload(bWhole); DeviceVector x = be.allocate(bWhole.length)) {
            one.apply(b, x);
            double[] xh = be.download(x);
            for (double v : xh) {
                size = Math.max(size, Math.abs(v));
            }
            expected = byPosition(whole1, zWhole, xh);
        }
        Map<String, Double> bAt = byPosition(whole1, zWhole, bWhole);
        assertTrue(size > 1e-3, "the coarse solution is not trivial: " + size);

        ThreadCommunicator[] comms = ThreadCommunicator.group(ranks);
        ExecutorService pool = Executors.newFixedThreadPool(ranks);
        try {
            List<Future<double[]>> f = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                ThreadCommunicator c = comms[r];
                f.add(pool.submit(() -> {
                    RankMesh rm = RankMesh.of(c, 1);
                    SlabPartition part = rm.part();
                    SpectralElementMesh mesh = rm.mesh();
                    ScatterOperator z = rm.z();
                    DistributedLevels levels = new DistributedLevels(c, part, null, DistributedLevels.Coarse.REDUNDANT);
                    SpectralElementMesh whole = levels.wholeMesh(mesh);
                    ScatterOperator zw = ScatterOperator.build(whole.localToGlobal(), whole.globalNodeCount(),
                            whole.boundaryMaskAllTagged());
                    // b_r: the whole right-hand side at this rank's unknowns (complete at its shared ones)
                    double[] b = new double[z.globalSize()];
                    for (int e = 0; e < mesh.elementCount(); e++) {
                        for (int n = 0; n < mesh.nodesPerElement(); n++) {
                            int id = z.assembledId(mesh.globalId(e, n));
                            if (id >= 0) {
                                b[id] = bAt.get(key(mesh, e, n));
                            }
                        }
                    }
                    double worst = 0;
                    double[] byLink = null;
                    // the partial link takes partial sums at the shared nodes: b at the owned ones, 0 at the others
                    double[] ownerMask = part.sharedNodes(mesh, z).ownerMask();
                    double[] bPartial = b.clone();
                    for (int i = 0; i < b.length; i++) {
                        bPartial[i] *= ownerMask[i];
                    }
                    for (DistributedLevels.CoarseLink linkKind : new DistributedLevels.CoarseLink[] {DistributedLevels.CoarseLink.HOST,
                        DistributedLevels.CoarseLink.DEVICE, DistributedLevels.CoarseLink.PARTIAL}) {
                        try (Backend be = backend(backendName, c.rank());
                             RedundantCoarse link = new RedundantCoarse(c, part, mesh, z,
                                     part.sharedNodes(mesh, z).ownerMask(), whole, zw, be, linkKind);
                             PMultigrid solve = PMultigrid.builder(OPERATOR, whole, be).degrees(1).build();
                             DeviceVector db = be.upload(linkKind == DistributedLevels.CoarseLink.PARTIAL ? bPartial : b);
                             DeviceVector dx = be.allocate(b.length);
                             DeviceVector bw = be.allocate(zw.globalSize()); DeviceVector xw = be.allocate(zw.globalSize())) {
                            be.synchronize();
                            long[] w0 = DistributedPoisson.deviceCounts(be);
                            assertEquals(backendName.equals("aparapi"), w0 != null, "the backend counts its host waits");
                            link.gather(db, bw);
                            long[] w1 = DistributedPoisson.deviceCounts(be);
                            solve.apply(bw, xw);
                            long[] w2 = DistributedPoisson.deviceCounts(be);
                            link.scatter(xw, dx);
                            long[] w3 = DistributedPoisson.deviceCounts(be);
                            double[] x = be.download(dx);
                            if (w0 != null) {
                                long drains = w1[1] - w0[1] + w3[1] - w2[1];
                                long copyWaits = w1[2] - w0[2] + w3[2] - w2[2];
                                // a rank that owns no coarse unknown sends nothing on the device link and synchronises
                                // instead of its read; the partial link sends every unknown
                                assertEquals(linkKind == DistributedLevels.CoarseLink.HOST ? 2
                                        : linkKind == DistributedLevels.CoarseLink.DEVICE && link.ownedCount() == 0 ? 1 : 0, drains,
                                        linkKind + " link: queue drains of a gather and a scatter, rank " + c.rank() + " of "
                                        + c.size() + " owning " + link.ownedCount());
                                assertTrue(copyWaits <= (linkKind == DistributedLevels.CoarseLink.HOST ? 0 : 1),
                                        linkKind + " link: copy waits of a gather and a scatter: " + copyWaits);
                            }
                            Map<String, Double> got = byPosition(mesh, z, x);
                            for (Map.Entry<String, Double> g : got.entrySet()) {
                                worst = Math.max(worst, Math.abs(g.getValue() - expected.get(g.getKey())));
                            }
                            if (byLink != null) {
                                for (int i = 0; i < x.length; i++) {
                                    assertEquals(Double.doubleToLongBits(byLink[i]), Double.doubleToLongBits(x[i]),
                                            "the " + linkKind + " link's x_r at " + i + " is the host link's");
                                }
                            }
                            byLink = x;
                        }
                    }
                    return new double[] {worst, byPosition(mesh, z, byLink).size()};
                }));
            }
            int unknowns = 0;
            for (Future<double[]> r : f) {
                double[] res = r.get();
                assertTrue(res[0] <= 1e-13 * size, backendName + ", " + ranks + " ranks: |x_r - P_r x_c| = " + res[0]
                        + " of |x_c| = " + size);
                unknowns += (int) res[1];
            }
            assertTrue(unknowns > zWhole.globalSize(), "the ranks share nodes: " + unknowns + " of " + zWhole.globalSize());
        } finally {
            pool.shutdownNow();
        }
    }

    /** Allgather on 3 ranks (threads: the zero-padded allreduce) puts each rank's values at its offset, in rank order. */
    @org.junit.jupiter.api.Test
    void allgatherConcatenatesInRankOrder() throws Exception {
        ThreadCommunicator[] comms = ThreadCommunicator.group(3);
        int[] counts = {2, 0, 3};
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<double[]>> f = new ArrayList<>();
            for (ThreadCommunicator c : comms) {
                f.add(pool.submit(() -> {
                    double[] send = new double[counts[c.rank()]];
                    for (int k = 0; k < send.length; k++) {
                        send[k] = 10 * c.rank() + k + 0.5;
                    }
                    double[] all = new double[5];
                    c.allgather(send, counts, all);
                    return all;
                }));
            }
            for (Future<double[]> r : f) {
                org.junit.jupiter.api.Assertions.assertArrayEquals(new double[] {0.5, 1.5, 20.5, 21.5, 22.5}, r.get(), 0.0);
            }
        } finally {
            pool.shutdownNow();
        }
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Communicator.checkAllgather(0, 3, new double[1], counts, new double[5]));
        assertTrue(e.getMessage().contains("send has 1 values but counts[0] = 2"), e.getMessage());
        e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> SingleRankCommunicator.INSTANCE.allgather(new double[2], new int[] {2}, new double[3]));
        assertTrue(e.getMessage().contains("receive has 3 values but the counts sum to 2"), e.getMessage());
    }

    /** A communicator that counts the calls it passes on to the rank's real one. */
    private static final class Counting implements Communicator {
        final Communicator inner;
        long exchanges;
        long allreduces;
        long allgathers;

        Counting(Communicator inner) {
            this.inner = inner;
        }

        @Override
        public int rank() {
            return inner.rank();
        }

        @Override
        public int size() {
            return inner.size();
        }

        @Override
        public void allreduceSum(double[] values) {
            allreduces++;
            inner.allreduceSum(values);
        }

        @Override
        public double allreduceMax(double value) {
            allreduces++;
            return inner.allreduceMax(value);
        }

        @Override
        public void allgather(double[] send, int[] counts, double[] receive) {
            allgathers++;
            inner.allgather(send, counts, receive);
        }

        @Override
        public void exchange(int[] neighbours, double[][] send, double[][] receive) {
            exchanges++;
            inner.exchange(neighbours, send, receive);
        }

        @Override
        public PendingExchange startExchange(int[] neighbours, double[][] send, double[][] receive) {
            exchanges++;
            return inner.startExchange(neighbours, send, receive);
        }

        @Override
        public void barrier() {
            inner.barrier();
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    /**
     * The V-cycle (degrees 3, 1) on 2 ranks with each coarse path: the redundant one has one rank's coarse interval and
     * iteration count exactly, one allgather, no allreduce and as many halo exchanges per cycle as the local path less
     * its coarse Chebyshev applies (iterations - 1) and less the restriction's halo sum into the coarse level (the partial
     * link sums the ranks' parts itself); the local one has no allgather.
     */
    @ParameterizedTest
    @CsvSource({"cpu", "aparapi"})
    void vCycleCommunication(String backendName) throws Exception {
        PMultigrid.LevelInfo oneCoarse;
        SpectralElementMesh wholeFine = SpectralElementMesh.of(HexMesh.box(NX, NY, NZ, 0, 1, 0, 1, 0, 1), FINE, MAP);
        try (Backend be = backend(backendName, 0);
             PMultigrid one = PMultigrid.builder(OPERATOR, wholeFine, be).degrees(FINE, 1).build()) {
            oneCoarse = one.levels().get(1);
        }
        Map<DistributedLevels.Coarse, long[]> counts = new HashMap<>();
        for (DistributedLevels.Coarse mode : DistributedLevels.Coarse.values()) {
            ThreadCommunicator[] comms = ThreadCommunicator.group(2);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                List<Future<long[]>> f = new ArrayList<>();
                for (ThreadCommunicator tc : comms) {
                    f.add(pool.submit(() -> {
                        Counting c = new Counting(tc);
                        RankMesh rm = RankMesh.of(c, FINE);
                        SlabPartition part = rm.part();
                        SpectralElementMesh mesh = rm.mesh();
                        ScatterOperator z = rm.z();
                        try (Backend be = backend(backendName, c.rank());
                             AssembledOperator op = AssembledOperator.bind(OPERATOR.apply(mesh), z, be);
                             DistributedOperator dop = new DistributedOperator(op, part.sharedNodes(mesh, z), c);
                             PMultigrid pm = PMultigrid.builder(OPERATOR, mesh, be).fineOperator(op).degrees(FINE, 1)
                                     .distribution(new DistributedLevels(c, part, dop, mode)).build();
                             DeviceVector r = be.allocate(z.globalSize()); DeviceVector x = be.allocate(z.globalSize())) {
                            be.fill(r, 1);
                            PMultigrid.LevelInfo coarse = pm.levels().get(1);
                            long e0 = c.exchanges, a0 = c.allreduces, g0 = c.allgathers;
                            pm.apply(r, x);
                            pm.apply(r, x);
                            return new long[] {c.exchanges - e0, c.allreduces - a0, c.allgathers - g0, coarse.smootherOrder(),
                                Double.doubleToLongBits(coarse.smootherLower()), Double.doubleToLongBits(coarse.smootherUpper())};
                        }
                    }));
                }
                for (Future<long[]> r : f) {
                    long[] got = r.get();
                    counts.put(mode, got);
                    if (mode == DistributedLevels.Coarse.REDUNDANT) {
                        assertEquals(oneCoarse.smootherOrder(), got[3], "coarse Chebyshev iterations");
                        assertEquals(oneCoarse.smootherLower(), Double.longBitsToDouble(got[4]), 0.0, "coarse interval low end");
                        assertEquals(oneCoarse.smootherUpper(), Double.longBitsToDouble(got[5]), 0.0, "coarse interval high end");
                    }
                }
            } finally {
                pool.shutdownNow();
            }
        }
        long[] local = counts.get(DistributedLevels.Coarse.LOCAL);
        long[] redundant = counts.get(DistributedLevels.Coarse.REDUNDANT);
        // two cycles each
        assertEquals(0, local[2], "allgathers of the local coarse path");
        assertEquals(2, redundant[2], "allgathers of the redundant coarse path (one per cycle)");
        assertEquals(0, local[1], "allreduces in the local V-cycle");
        assertEquals(0, redundant[1], "allreduces in the redundant V-cycle");
        // the redundant path's default link (partial) also leaves out the restriction's halo sum into the coarse level
        assertEquals(DistributedLevels.CoarseLink.PARTIAL, DistributedLevels.CoarseLink.fromProperty());
        assertEquals(local[0] - 2 * (local[3] - 1) - 2, redundant[0], "halo exchanges: local " + local[0] + " with "
                + local[3] + " coarse iterations, redundant " + redundant[0]);
    }

    /**
     * The smoothed level's residual restricted as partial sums ({@link DistributedLevels#partialResidual}) on 2 ranks,
     * degrees 3, 1: one halo exchange fewer per V-cycle than with the residual completed first (the pre-smoother's last
     * apply), and the same V-cycle to round-off (1e-12 of its size).
     */
    @ParameterizedTest
    @CsvSource({"cpu", "aparapi"})
    void partialResidualSavesOneExchangePerSmoothedLevel(String backendName) throws Exception {
        Map<Boolean, long[]> counts = new HashMap<>();
        Map<Boolean, double[][]> cycles = new HashMap<>();
        for (boolean partial : new boolean[] {false, true}) {
            ThreadCommunicator[] comms = ThreadCommunicator.group(2);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                List<Future<Object[]>> f = new ArrayList<>();
                for (ThreadCommunicator tc : comms) {
                    f.add(pool.submit(() -> {
                        Counting c = new Counting(tc);
                        RankMesh rm = RankMesh.of(c, FINE);
                        SlabPartition part = rm.part();
                        SpectralElementMesh mesh = rm.mesh();
                        ScatterOperator z = rm.z();
                        try (Backend be = backend(backendName, c.rank());
                             AssembledOperator op = AssembledOperator.bind(OPERATOR.apply(mesh), z, be);
                             DistributedOperator dop = new DistributedOperator(op, part.sharedNodes(mesh, z), c);
                             PMultigrid pm = PMultigrid.builder(OPERATOR, mesh, be).fineOperator(op).degrees(FINE, 1)
                                     .distribution(new DistributedLevels(c, part, dop, DistributedLevels.Coarse.REDUNDANT)
                                             .partialResidual(partial)).build();
                             DeviceVector r = be.allocate(z.globalSize()); DeviceVector x = be.allocate(z.globalSize())) {
                            be.fillRandom(r, 5);
                            dop.sumShared(r);   // consistent at the shared nodes
                            long e0 = c.exchanges;
                            pm.apply(r, x);
                            pm.apply(r, x);
                            return new Object[] {c.exchanges - e0, be.download(x)};
                        }
                    }));
                }
                long[] ex = new long[2];
                double[][] xs = new double[2][];
                for (int k = 0; k < 2; k++) {
                    Object[] got = f.get(k).get();
                    ex[k] = (Long) got[0];
                    xs[k] = (double[]) got[1];
                }
                counts.put(partial, ex);
                cycles.put(partial, xs);
            } finally {
                pool.shutdownNow();
            }
        }
        for (int k = 0; k < 2; k++) {
            assertEquals(counts.get(false)[k] - 2, counts.get(true)[k], "rank " + k + ": halo exchanges of two V-cycles, "
                    + "residual completed " + counts.get(false)[k] + ", partial " + counts.get(true)[k]);
            double[] a = cycles.get(false)[k];
            double[] b = cycles.get(true)[k];
            double size = 0;
            double diff = 0;
            for (int i = 0; i < a.length; i++) {
                size = Math.max(size, Math.abs(a[i]));
                diff = Math.max(diff, Math.abs(a[i] - b[i]));
            }
            assertTrue(size > 1e-3, "the V-cycle is not trivial: " + size);
            assertTrue(diff <= 1e-12 * size, "rank " + k + ": partial-residual V-cycle differs by " + diff + " of " + size);
        }
    }
}
