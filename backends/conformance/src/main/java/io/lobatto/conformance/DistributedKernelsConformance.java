package io.lobatto.conformance;

import static io.lobatto.conformance.TestProblems.random;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceHalo;
import io.lobatto.core.backend.DeviceIntVector;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.backend.HostHalo;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.ElementOperator;

/**
 * Conformance of the kernels a distributed operator overlaps its exchange with: the fused operator's element half
 * on element ranges ({@link Backend#applyAssembledElements}) followed by {@link Backend#gatherDot} gives bitwise the
 * same y_G for every split point, leaves the other elements' y_L alone and agrees with {@link Backend#applyAssembledDot}
 * to round-off; {@link Backend#sumHalo} is bitwise {@link HostHalo#sum}, and the gathers with the halo sums folded in
 * ({@link Backend#gatherDotHalo}, {@link Backend#gatherHalo}) the calls in turn; a distributed level's partial
 * residual ({@link Backend#applyAssembledMaskedResidual}) is the pointwise multiply and the residual update; the reductions less excluded rows (a rank's
 * rows that a neighbour owns) are the masked reductions to round-off, deterministic, and their updates bitwise those of
 * the plain ones; {@link Backend#readAsync} and {@link Backend#writeAsync} copy what the queue order says.
 */
public abstract class DistributedKernelsConformance {

    /** The backend under test (shared; do not close). */
    protected abstract Backend backend();

    static Stream<Arguments> kernelsDegreesMasks() {
        Function<SpectralElementMesh, ScatterOperator> dirichlet = TestProblems::dirichlet;
        Function<SpectralElementMesh, ScatterOperator> none = TestProblems::unmasked;
        return Stream.of(ElementKernel.values()).flatMap(k -> IntStream.of(1, 3, 7).boxed()
                .flatMap(n -> Stream.of(Arguments.of(k, n, "dirichlet", dirichlet), Arguments.of(k, n, "none", none))));
    }

    @ParameterizedTest(name = "{0} N={1} mask={2}")
    @MethodSource("kernelsDegreesMasks")
    void elementRangesThenGatherDotAreSplitInvariantAndMatchTheFusedOperator(ElementKernel kernel, int degree, String mask,
                                                                           Function<SpectralElementMesh, ScatterOperator> build) {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 3, degree);
        ScatterOperator z = build.apply(mesh);
        ElementOperator op = ElementOperator.of(kernel, mesh, 0.7);
        int e = mesh.elementCount();
        int np = mesh.basis().np();
        double[] x = random(z.globalSize(), 31L * degree + kernel.ordinal());
        double sentinel = 12345.0;
        double[] reference = null;
        double referenceDot = 0;
        try (AssembledOperator a = AssembledOperator.bind(op, z, be); DeviceVector dx = be.upload(x);
             DeviceVector yL = be.allocate(z.localSize()); DeviceVector y = be.allocate(z.globalSize());
             DeviceVector yF = be.allocate(z.globalSize())) {
            double fusedDot = a.applyDot(dx, yF);
            double[] fused = be.download(yF);
            for (int split : new int[] {0, 1, e / 2, e - 1, e}) {
                double[] fill = new double[z.localSize()];
                Arrays.fill(fill, sentinel);
                be.write(fill, yL);
                be.applyAssembledElements(a.boundElementOperator().data(), a.deviceScatter(), 0.7, 0, dx, yL, 0, split);
                double[] part = be.download(yL);
                for (int i = split * np; i < part.length; i++) {
                    assertEquals(sentinel, part[i], 0.0, "split " + split + ": y_L[" + i + "] of an element outside the range changed");
                }
                be.applyAssembledElements(a.boundElementOperator().data(), a.deviceScatter(), 0.7, 0, dx, yL, split, e);
                double dot = be.gatherDot(a.deviceScatter(), yL, dx, y);
                double[] h = be.download(y);
                if (reference == null) {
                    reference = h;
                    referenceDot = dot;
                } else {
                    assertArrayEquals(reference, h, 0.0, kernel + " N=" + degree + ": y_G depends on the split point " + split);
                    assertEquals(referenceDot, dot, 0.0, "x . y depends on the split point " + split);
                }
            }
            double scale = Arrays.stream(fused).map(Math::abs).max().orElse(1) + 1e-300;
            for (int i = 0; i < fused.length; i++) {
                assertEquals(fused[i], reference[i], 1e-13 * scale, "y_G[" + i + "] split vs fused");
            }
            assertEquals(fusedDot, referenceDot, 1e-12 * Math.abs(fusedDot) + 1e-300, "x . y split vs fused");
            assertEquals(be.dot(dx, y), referenceDot, 1e-12 * Math.abs(referenceDot) + 1e-300, "gatherDot vs dot");
            assertThrows(IllegalArgumentException.class, () -> be.applyAssembledElements(a.boundElementOperator().data(),
                    a.deviceScatter(), 0.7, 0, dx, yL, 2, 1));
            assertThrows(IllegalArgumentException.class, () -> be.applyAssembledElements(a.boundElementOperator().data(),
                    a.deviceScatter(), 0.7, 0, dx, yL, 0, e + 1));
        }
    }

    /**
     * A halo of up to 60 rows of a vector of {@code g} rows, 1 to 3 sources each with the own partial among them: the
     * last rows in order where {@code last}, else every other row from 1.
     */
    private record HaloCase(int[] rowIds, int[] starts, int[] sources, int received) {

        static HaloCase of(int g, boolean last) {
            int rows = Math.min(60, g / 2);
            int[] rowIds = new int[rows];
            int[] starts = new int[rows + 1];
            java.util.List<Integer> src = new java.util.ArrayList<>();
            int received = 0;
            for (int u = 0; u < rows; u++) {
                rowIds[u] = last ? g - rows + u : 2 * u + 1;
                int count = 1 + u % 3;
                for (int c = 0; c < count; c++) {
                    src.add(c == u % count ? -1 : received++);
                }
                starts[u + 1] = src.size();
            }
            return new HaloCase(rowIds, starts, src.stream().mapToInt(Integer::intValue).toArray(), received);
        }

        DeviceHalo upload(Backend be, int g) {
            return be.uploadHalo(rowIds, starts, sources, received, g);
        }
    }

    /**
     * {@link Backend#gatherDotHalo} is bitwise {@link Backend#gatherDot} then {@link Backend#sumHalo} (the dot of the
     * partial y_G), and {@link Backend#gatherHalo} bitwise {@link Backend#gather} then {@link Backend#sumHalo}, with the
     * halo's rows the last rows (where a backend folds the halo into the gather) and elsewhere.
     */
    @ParameterizedTest(name = "halo rows last: {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
    void gatherDotHaloAndGatherHaloAreBitwiseTheGatherThenTheHaloSums(boolean last) {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 3, 3);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        int g = z.globalSize();
        HaloCase c = HaloCase.of(g, last);
        double[] yl = random(z.localSize(), 41);
        double[] x = random(g, 42);
        double[] r = random(c.received(), 43);
        try (io.lobatto.core.backend.DeviceScatter dz = z.upload(be); DeviceHalo h = c.upload(be, g);
             DeviceVector dyl = be.upload(yl); DeviceVector dx = be.upload(x); DeviceVector dr = be.upload(r);
             DeviceVector y1 = be.allocate(g); DeviceVector y2 = be.allocate(g); DeviceVector y3 = be.allocate(g);
             DeviceVector y4 = be.allocate(g)) {
            double dot1 = be.gatherDot(dz, dyl, dx, y1);
            be.sumHalo(h, dr, y1);
            double dot2 = be.gatherDotHalo(dz, dyl, dx, y2, h, dr);
            assertEquals(dot1, dot2, 0.0, "x . y of the partial y_G");
            double[] expected = be.download(y1);
            assertArrayEquals(expected, be.download(y2), 0.0, "gatherDotHalo");
            be.gather(dz, dyl, y3);
            be.sumHalo(h, dr, y3);
            assertArrayEquals(expected, be.download(y3), 0.0, "gather then sumHalo against gatherDot then sumHalo");
            be.gatherHalo(dz, dyl, y4, h, dr);
            assertArrayEquals(expected, be.download(y4), 0.0, "gatherHalo");
        }
    }

    /**
     * {@link Backend#applyAssembledMaskedResidual} (a distributed level's partial residual t = O r - A x) is bitwise
     * {@link Backend#pointwiseMultiply} then {@link Backend#applyAssembledResidual}, leaves r and the mask as they were,
     * and rejects t aliasing r.
     */
    @ParameterizedTest(name = "{0} N={1} mask={2}")
    @MethodSource("kernelsDegreesMasks")
    void maskedResidualIsBitwiseTheMaskThenTheResidual(ElementKernel kernel, int degree, String mask,
                                                      Function<SpectralElementMesh, ScatterOperator> build) {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 3, degree);
        ScatterOperator z = build.apply(mesh);
        ElementOperator op = ElementOperator.of(kernel, mesh, 0.7);
        int g = z.globalSize();
        double[] x = random(g, 61L * degree + kernel.ordinal());
        double[] r = random(g, 62L * degree + kernel.ordinal());
        double[] owner = new double[g];
        for (int i = 0; i < g; i++) {
            owner[i] = i % 3 == 1 ? 0 : 1;   // the rows a neighbour owns
        }
        try (AssembledOperator a = AssembledOperator.bind(op, z, be); DeviceVector dx = be.upload(x);
             DeviceVector dr = be.upload(r); DeviceVector dm = be.upload(owner); DeviceVector yL = be.allocate(z.localSize());
             DeviceVector y = be.allocate(g); DeviceVector t1 = be.allocate(g); DeviceVector t2 = be.allocate(g)) {
            var data = a.boundElementOperator().data();
            be.pointwiseMultiply(dm, dr, t1);
            be.applyAssembledResidual(data, a.deviceScatter(), 0.7, 0, dx, yL, y, -1, t1, 0, null);
            be.applyAssembledMaskedResidual(data, a.deviceScatter(), 0.7, 0, dx, yL, y, -1, dm, dr, t2);
            double[] expected = be.download(t1);
            assertArrayEquals(expected, be.download(t2), 0.0, kernel + " N=" + degree + ": t = O r - A x");
            assertArrayEquals(r, be.download(dr), 0.0, "r unchanged");
            assertArrayEquals(owner, be.download(dm), 0.0, "mask unchanged");
            // a row a neighbour owns holds -(A x) alone, a row of this rank's r - (A x)
            be.applyAssembled(data, a.deviceScatter(), 0.7, 0, dx, yL, y);
            double[] ax = be.download(y);
            double scale = Arrays.stream(ax).map(Math::abs).max().orElse(1) + Arrays.stream(r).map(Math::abs).max().orElse(1);
            for (int i = 0; i < g; i++) {
                assertEquals(owner[i] * r[i] - ax[i], expected[i], 1e-14 * scale, "t[" + i + "]");
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () ->
                    be.applyAssembledMaskedResidual(data, a.deviceScatter(), 0.7, 0, dx, yL, y, -1, dm, dr, dr));
            assertTrue(e.getMessage().contains("distinct"), e.getMessage());
        }
    }

    @Test
    void sumHaloIsBitwiseTheHostSumInSourceOrder() {
        Backend be = backend();
        int n = 1000, received = 300;
        // rows 0, 7, 14, ... with 1 to 4 sources each: own (-1) somewhere among received values
        int rows = 120;
        int[] rowIds = new int[rows];
        int[] starts = new int[rows + 1];
        int[] sources = new int[4 * rows];
        int k = 0;
        for (int u = 0; u < rows; u++) {
            rowIds[u] = 7 * u + (u % 3);
            int count = 1 + u % 4;
            int own = u % count;
            for (int c = 0; c < count; c++) {
                sources[k++] = c == own ? -1 : (u * 5 + c * 11) % received;
            }
            starts[u + 1] = k;
        }
        sources = Arrays.copyOf(sources, k);
        double[] y = random(n, 5);
        double[] r = random(received, 6);
        for (int i = 0; i < r.length; i++) {
            r[i] *= Math.pow(10, i % 7 - 3); // mixed magnitudes: the order of summation shows in the last bits
        }
        HostHalo host = new HostHalo(rowIds, starts, sources, received, n);
        double[] expected = y.clone();
        host.sum(r, expected);
        try (DeviceHalo h = be.uploadHalo(rowIds, starts, sources, received, n); DeviceVector dy = be.upload(y);
             DeviceVector dr = be.upload(r)) {
            assertEquals(rows, h.rows());
            be.sumHalo(h, dr, dy);
            assertArrayEquals(expected, be.download(dy), 0.0);
        }
        assertThrows(IllegalArgumentException.class, () -> be.uploadHalo(new int[] {3, 3}, new int[] {0, 1, 2},
                new int[] {-1, -1}, 0, 10), "a row listed twice");
        assertThrows(IllegalArgumentException.class, () -> be.uploadHalo(new int[] {3}, new int[] {0, 1},
                new int[] {5}, 5, 10), "a source out of range");
    }

    @ParameterizedTest(name = "n={0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {1, 1000, 200_003})
    void reductionsLessExcludedRowsAreTheMaskedReductions(int n) {
        Backend be = backend();
        // every 7th row and a block at the end: the rows a neighbour owns
        int[] rows = IntStream.range(0, n).filter(i -> i % 7 == 3 || i >= n - n / 10).toArray();
        double[] mask = new double[n];
        Arrays.fill(mask, 1);
        for (int e : rows) {
            mask[e] = 0;
        }
        double[] x = random(n, 41), y = random(n, 42), p = random(n, 43), ap = random(n, 44), d = random(n, 45);
        for (int i = 0; i < n; i++) {
            d[i] = 1 + Math.abs(d[i]);
        }
        double alpha = 0.37;
        double[] r1 = y.clone();
        double[] z1 = new double[n];
        double mxy = 0, mxx = 0, mrr = 0, mrz = 0, axy = 0, arr = 0;
        for (int i = 0; i < n; i++) {
            r1[i] = -alpha * ap[i] + r1[i];
            z1[i] = d[i] * r1[i];
            mxy += mask[i] * x[i] * y[i];
            mxx += mask[i] * x[i] * x[i];
            mrr += mask[i] * r1[i] * r1[i];
            mrz += mask[i] * r1[i] * z1[i];
            axy += Math.abs(x[i] * y[i]);
            arr += r1[i] * r1[i] + Math.abs(r1[i] * z1[i]);
        }
        try (DeviceIntVector ex = be.upload(rows); DeviceIntVector none = be.upload(new int[0]);
             DeviceVector dx = be.upload(x); DeviceVector dy = be.upload(y)) {
            double dot = be.dot(dx, dy, ex);
            assertEquals(mxy, dot, 1e-13 * axy, "x . y less the excluded rows");
            assertEquals(dot, be.dot(dx, dy, ex), 0.0, "deterministic");
            assertEquals(mxx, be.dot(dx, dx, ex), 1e-13 * mxx + 1e-300, "x . x less the excluded rows");
            assertEquals(be.dot(dx, dy), be.dot(dx, dy, none), 0.0, "no excluded rows: bitwise dot");
            assertThrows(IllegalArgumentException.class, () -> {
                try (DeviceIntVector bad = be.upload(new int[] {n})) {
                    be.dot(dx, dy, bad);
                }
            }, "an excluded row out of range");
        }
        for (boolean jacobi : new boolean[] {false, true}) {
            try (DeviceIntVector ex = be.upload(rows); DeviceVector dp = be.upload(p); DeviceVector dap = be.upload(ap);
                 DeviceVector dd = be.upload(d); DeviceVector xa = be.upload(x); DeviceVector ra = be.upload(y);
                 DeviceVector za = be.allocate(n); DeviceVector xb = be.upload(x); DeviceVector rb = be.upload(y);
                 DeviceVector zb = be.allocate(n)) {
                double[] dots = new double[2];
                double[] plain = new double[2];
                if (jacobi) {
                    be.pcgUpdate(alpha, dp, dap, xa, ra, dd, za, ex, dots);
                    be.pcgUpdate(alpha, dp, dap, xb, rb, dd, zb, plain);
                    assertEquals(mrz, dots[1], 1e-13 * arr, "r . z less the excluded rows");
                    assertArrayEquals(be.download(zb), be.download(za), 0.0, "z: the update covers every row");
                } else {
                    dots[0] = be.cgUpdate(alpha, dp, dap, xa, ra, ex);
                    plain[0] = be.cgUpdate(alpha, dp, dap, xb, rb);
                }
                assertEquals(mrr, dots[0], 1e-13 * arr, "r . r less the excluded rows");
                assertArrayEquals(be.download(xb), be.download(xa), 0.0, "x: the update covers every row");
                assertArrayEquals(be.download(rb), be.download(ra), 0.0, "r: the update covers every row");
            }
        }
    }

    @Test
    void asyncCopiesFollowTheQueueOrder() {
        Backend be = backend();
        int n = 5000;
        double[] a = random(n, 51), b = random(n, 52), w = random(n, 53);
        try (DeviceVector v = be.upload(a); DeviceVector dw = be.upload(w); DeviceVector u = be.upload(a)) {
            double[] sent = b.clone();
            be.writeAsync(sent, v);
            Arrays.fill(sent, -1); // may change at once
            be.axpby(1, dw, 1, v); // sees the written values
            double[] got = new double[n];
            Backend.PendingRead read = be.readAsync(v, got);
            be.axpby(2, dw, 1, u); // work queued after the read, on another vector
            read.await();
            read.await();
            for (int i = 0; i < n; i++) {
                assertEquals(b[i] + w[i], got[i], 0.0, "v[" + i + "]");
            }
            double[] again = new double[n];
            be.writeAsync(a, v);
            be.readAsync(v, again).await();
            assertArrayEquals(a, again, 0.0, "a second write through the same staging");
            double[] uh = be.download(u);
            for (int i = 0; i < n; i++) {
                assertEquals(2 * w[i] + a[i], uh[i], 0.0, "u[" + i + "]");
            }
            assertThrows(IllegalArgumentException.class, () -> be.readAsync(v, new double[n + 1]));
            assertThrows(IllegalArgumentException.class, () -> be.writeAsync(new double[n - 1], v));
        }
    }
}
