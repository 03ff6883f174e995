package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.backend.aparapi.conformance.AparapiFixture;
import io.lobatto.conformance.BackendFixture;
import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceHalo;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fused gathers in the rows and tiles kinds ({@link io.lobatto.backend.aparapi.kernels.GatherRowsFusedKernel})
 * against the block kernels ({@code blocks}) and the Java backend: y_G = Z^T x_L bit for bit in every op (the gather
 * with x_G . y_G, with CG's p update, the Chebyshev step, the halo sums, three component blocks), the updated vectors
 * bit for bit against the blocks kind, and the dots within 1e-15 of the sum of |y_G x_G| of an exactly summed
 * reference (their order of summation differs by kind). Z: mesh numberings with masked nodes at N = 1..7 (rows of
 * degree 1..8), a random map with rows of degree 1..11 and more rows than the dot's grid has work-items, no rows.
 */
@ExtendWith(io.lobatto.backend.aparapi.conformance.SkipWithoutOpenCl.class)
class GatherRowsFusedTest {

    private static final String[] KINDS = {"rows", "tiles", "blocks"};

    @AfterEach
    void clearKind() {
        System.clearProperty(GatherScatter.KIND_PROPERTY);
    }

    private static ClScatter upload(Backend be, ScatterOperator z, String kind) {
        System.setProperty(GatherScatter.KIND_PROPERTY, kind);
        try {
            return (ClScatter) be.uploadScatter(z.scatterIds(), z.gatherStarts(), z.gatherIds(), z.blockStarts(),
                    z.inverseDegree(), z.globalSize());
        } finally {
            System.clearProperty(GatherScatter.KIND_PROPERTY);
        }
    }

    /** Z^T x_L on the Java backend, [comps][N_L] to [comps][N_G]. */
    private static double[] javaGather(ScatterOperator z, double[] xl, int comps) {
        Backend cpu = BackendFixture.shared("cpu");
        int nl = z.localSize();
        int ng = z.globalSize();
        double[] out = new double[comps * ng];
        try (DeviceScatter cz = cpu.uploadScatter(z.scatterIds(), z.gatherStarts(), z.gatherIds(), z.blockStarts(),
                z.inverseDegree(), ng)) {
            for (int c = 0; c < comps; c++) {
                try (DeviceVector l = cpu.upload(java.util.Arrays.copyOfRange(xl, c * nl, (c + 1) * nl));
                     DeviceVector g = cpu.allocate(ng)) {
                    cpu.gather(cz, l, g);
                    System.arraycopy(cpu.download(g), 0, out, c * ng, ng);
                }
            }
        }
        return out;
    }

    /** x . y summed exactly (error-free products and a compensated sum), and the sum of |x_i y_i|. */
    private static double[] exactDot(double[] x, double[] y) {
        double s = 0;
        double comp = 0;
        double abs = 0;
        for (int i = 0; i < x.length; i++) {
            double p = x[i] * y[i];
            double e = Math.fma(x[i], y[i], -p);
            for (double term : new double[] {p, e}) {
                double t = s + term;
                comp += Math.abs(s) >= Math.abs(term) ? (s - t) + term : (term - t) + s;
                s = t;
            }
            abs += Math.abs(p);
        }
        return new double[] {s + comp, abs};
    }

    private static void assertDot(double[] x, double[] y, double got, String what) {
        double[] ref = exactDot(x, y);
        double err = Math.abs(got - ref[0]);
        assertTrue(err <= 1e-15 * ref[1], what + ": dot " + got + ", exact " + ref[0] + ", error " + err
                + " > 1e-15 of sum |x y| = " + ref[1]);
    }

    /** Every fused op of every kind on {@code z}: the gathers against the Java backend, the rest against blocks. */
    private static void assertFusedOps(ScatterOperator z, long seed, String what) {
        AparapiBackend gpu = (AparapiBackend) AparapiFixture.backend();
        int nl = z.localSize();
        int ng = z.globalSize();
        double[] xl = TestProblems.random(3 * nl, seed);
        double[] xg = TestProblems.random(3 * ng, seed + 1);
        double[] dir = TestProblems.random(ng, seed + 2);
        double[] d0 = TestProblems.random(ng, seed + 3);
        double[] xl1 = java.util.Arrays.copyOf(xl, nl);
        double[] xg1 = java.util.Arrays.copyOf(xg, ng);
        double[] gather1 = javaGather(z, xl1, 1);
        double[] gather3 = javaGather(z, xl, 3);
        double beta = 0.3725;
        double ca = -0.61;
        double cb = 1.37;
        double[][] blocks = null;
        for (String kind : KINDS) {
            String k = what + ", " + kind;
            java.util.Map<String, Long> before = launches(gpu);
            ClScatter s = upload(gpu, z, kind);
            try (DeviceVector l = gpu.upload(xl1); DeviceVector l3 = gpu.upload(xl); DeviceVector x = gpu.upload(xg1);
                 DeviceVector x3 = gpu.upload(xg); DeviceVector y = gpu.allocate(ng); DeviceVector y3 = gpu.allocate(3 * ng);
                 DeviceVector p = gpu.upload(xg1); DeviceVector dv = gpu.upload(dir); DeviceVector d = gpu.upload(d0);
                 DeviceVector it = gpu.upload(xg1)) {
                // the gather with the dot
                gpu.fill(y, 7);
                double dot = gpu.gatherDot(s, l, x, y);
                assertArrayEquals(gather1, gpu.download(y), 0.0, k + ": gatherDot y_G");
                assertDot(gather1, xg1, dot, k + ": gatherDot");
                // with CG's p = dir + beta p folded in
                gpu.fill(y, 7);
                double dotUpdate = s.owner.runGather(s, (ClVector) l, (ClVector) y, (ClVector) p, (ClVector) dv, beta);
                double[] pNew = gpu.download(p);
                assertArrayEquals(gather1, gpu.download(y), 0.0, k + ": gather+dot+update y_G");
                for (int i = 0; i < ng; i++) {
                    // to rounding: OpenCL may contract dir + beta p into one fma
                    assertEquals(dir[i] + beta * xg1[i], pNew[i], 1e-15 * (Math.abs(dir[i]) + Math.abs(beta * xg1[i])),
                            k + ": p[" + i + "]");
                }
                assertDot(gather1, pNew, dotUpdate, k + ": gather+dot+update");
                // the Chebyshev step d = ca d + cb Z^T x_L, x += beta d
                gpu.gatherChebyshevStep(s, l, ca, cb, beta, d, it, null);
                double[] dNew = gpu.download(d);
                double[] itNew = gpu.download(it);
                for (int i = 0; i < ng; i++) {
                    double want = ca * d0[i] + cb * gather1[i];
                    assertEquals(want, dNew[i], 1e-15 * (Math.abs(ca * d0[i]) + Math.abs(cb * gather1[i])), k + ": d[" + i + "]");
                    double scale = Math.abs(xg1[i]) + Math.abs(beta) * (Math.abs(ca * d0[i]) + Math.abs(cb * gather1[i]));
                    assertEquals(xg1[i] + beta * want, itNew[i], 1e-15 * scale, k + ": x[" + i + "]");
                }
                // three component blocks, with and without the dot
                gpu.fill(y3, 7);
                double dot3 = s.owner.gatherComponents(s, 3, (ClVector) l3, (ClVector) y3, (ClVector) x3);
                assertArrayEquals(gather3, gpu.download(y3), 0.0, k + ": gather+dot x3 y_G");
                assertDot(gather3, xg, dot3, k + ": gather+dot x3");
                gpu.fill(y3, 7);
                assertEquals(0.0, s.owner.gatherComponents(s, 3, (ClVector) l3, (ClVector) y3, null), k + ": gather x3");
                assertArrayEquals(gather3, gpu.download(y3), 0.0, k + ": gather x3 y_G");
                assertGathersOfKind(gpu, before, kind, ng == 0 ? new String[0]
                        : new String[] {"gather+dot", "gather+dot+update", "gather+chebyshev", "gather+dot x3", "gather x3"}, k);
                double[][] mine = {pNew, dNew, itNew};
                if (blocks == null) {
                    blocks = mine;
                } else {
                    for (int v = 0; v < 3; v++) {
                        assertArrayEquals(blocks[v], mine[v], 0.0, k + ": " + new String[] {"p", "d", "x"}[v] + " against rows");
                    }
                }
            } finally {
                s.close();
            }
        }
    }

    private static java.util.Map<String, Long> launches(AparapiBackend be) {
        java.util.Map<String, Long> out = new java.util.HashMap<>();
        be.builtKernels().forEach((label, k) -> out.put(label, k.launches()));
        return out;
    }

    /**
     * The gathers launched since {@code before} are all of {@code kind}'s kernels (labels ending "(rows)" or "(tiles)";
     * none for blocks), among them each of {@code ops} (rows and tiles kinds); none when {@code ops} is empty.
     */
    private static void assertGathersOfKind(AparapiBackend be, java.util.Map<String, Long> before, String kind, String[] ops,
                                            String what) {
        List<String> launched = new ArrayList<>();
        be.builtKernels().forEach((label, k) -> {
            if (label.startsWith("gather") && k.launches() > before.getOrDefault(label, 0L)) {
                launched.add(label);
            }
        });
        String suffix = kind.equals("blocks") ? "" : " (" + kind + ")";
        for (String label : launched) {
            assertTrue(kind.equals("blocks") ? !label.endsWith(")") : label.endsWith(suffix), what + ": launched " + launched);
        }
        assertEquals(ops.length > 0, !launched.isEmpty(), what + ": launched " + launched);
        if (!kind.equals("blocks")) {
            for (String op : ops) {
                assertTrue(launched.contains(op + suffix), what + ": " + op + suffix + " not among " + launched);
            }
        }
    }

    @Test
    void meshNumberingsWithMaskedNodesAtEveryDegree() {
        long seed = 101;
        for (int degree = 1; degree <= 7; degree++) {
            SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
            ScatterOperator unmasked = TestProblems.unmasked(mesh);
            if (degree == 1) {
                int[] deg = unmasked.degree();
                for (int want = 1; want <= 8; want *= 2) {
                    final int w = want;
                    assertTrue(java.util.Arrays.stream(deg).anyMatch(x -> x == w), "a row of degree " + want);
                }
            }
            assertFusedOps(unmasked, seed++, "N = " + degree + " unmasked");
            assertFusedOps(TestProblems.partlyMasked(mesh), seed++, "N = " + degree + " partly masked");
            assertFusedOps(TestProblems.dirichlet(mesh), seed++, "N = " + degree + " Dirichlet");
        }
    }

    /**
     * Rows of every degree 1..11 from a random map, and 300,000 rows: more than the dot's grid of at most
     * {@link AparapiBackend#REDUCE_GROUPS} groups has work-items, so each strides over several rows.
     */
    @Test
    void everyRowDegreeAndMoreRowsThanWorkItems() {
        Random rnd = new Random(7);
        for (int nl : new int[] {1, 1027, 40_001, 600_000}) {
            int ng = Math.max(1, nl == 600_000 ? nl / 2 : nl / 6);
            int[] l2g = new int[nl];
            for (int i = 0; i < nl; i++) {
                l2g[i] = i < ng ? i : rnd.nextInt(ng);
            }
            ScatterOperator z = ScatterOperator.build(l2g, ng, null);
            if (nl == 40_001) {
                int[] deg = z.degree();
                for (int d = 1; d <= 11; d++) {
                    final int want = d;
                    assertTrue(java.util.Arrays.stream(deg).anyMatch(x -> x == want), "a row of degree " + d);
                }
            }
            assertFusedOps(z, nl, "N_L = " + nl);
        }
    }

    /** No rows and no local nodes: every op returns 0 and launches nothing. */
    @Test
    void noRows() {
        assertFusedOps(ScatterOperator.build(new int[0], 0, null), 3, "empty");
    }

    /** The gather with the dot and the halo sums in one launch: the same bits in every kind. */
    @Test
    void theHaloGatherAgreesAcrossKinds() {
        AparapiBackend gpu = (AparapiBackend) AparapiFixture.backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 3, 2, 4);
        ScatterOperator z = TestProblems.partlyMasked(mesh);
        int ng = z.globalSize();
        int m = 300;
        int[] rows = new int[m];
        int[] hs = new int[m + 1];
        List<Integer> src = new ArrayList<>();
        int received = 0;
        for (int u = 0; u < m; u++) {
            rows[u] = ng - m + u;
            switch (u % 3) {
                case 0 -> {
                    src.add(-1);
                    src.add(received++);
                }
                case 1 -> {
                    src.add(received++);
                    src.add(-1);
                    src.add(received++);
                }
                default -> src.add(-1);
            }
            hs[u + 1] = src.size();
        }
        int[] sources = src.stream().mapToInt(Integer::intValue).toArray();
        double[] xl = TestProblems.random(z.localSize(), 41);
        double[] xg = TestProblems.random(ng, 42);
        double[] rec = TestProblems.random(received, 43);
        double[] gather = javaGather(z, xl, 1);
        double[] want = gather.clone();
        for (int u = 0; u < m; u++) {
            double sum = 0;
            for (int k = hs[u]; k < hs[u + 1]; k++) {
                sum += sources[k] < 0 ? gather[rows[u]] : rec[sources[k]];
            }
            want[rows[u]] = sum;
        }
        for (String kind : KINDS) {
            ClScatter s = upload(gpu, z, kind);
            try (DeviceHalo halo = gpu.uploadHalo(rows, hs, sources, received, ng); DeviceVector l = gpu.upload(xl);
                 DeviceVector x = gpu.upload(xg); DeviceVector r = gpu.upload(rec); DeviceVector y = gpu.allocate(ng)) {
                gpu.fill(y, 7);
                java.util.Map<String, Long> before = launches(gpu);
                double dot = gpu.gatherDotHalo(s, l, x, y, halo, r);
                assertGathersOfKind(gpu, before, kind, new String[] {"gather+dot+halo"}, kind + ": gatherDotHalo");
                assertArrayEquals(want, gpu.download(y), 0.0, kind + ": y_G with the halo sums");
                assertDot(gather, xg, dot, kind + ": the dot of the rank's partial");
            } finally {
                s.close();
            }
        }
    }
}
