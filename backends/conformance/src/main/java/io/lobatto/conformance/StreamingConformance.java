package io.lobatto.conformance;

import static io.lobatto.conformance.TestProblems.random;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import org.junit.jupiter.api.Test;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;

/**
 * Conformance of the streaming kernels BS1-BS5 (and fill, pointwise multiply, host transfers):
 * each against plain Java loops. A backend module runs it by subclassing and returning its backend.
 */
public abstract class StreamingConformance {

    /** The backend under test (shared; do not close). */
    protected abstract Backend backend();


    @Test
    void uploadDownloadRoundTrip() {
        qt().withExamples(25).forAll(integers().between(1, 70_000), longs().all()).checkAssert((n, seed) -> {
            double[] x = random(n, seed);
            try (DeviceVector v = backend().upload(x)) {
                assertArrayEquals(x, backend().download(v), 0.0);
                double[] y = random(n, seed + 1);
                backend().write(y, v);
                double[] back = new double[n];
                backend().read(v, back);
                assertArrayEquals(y, back, 0.0);
            }
        });
    }

    @Test
    void fillCopyAxpbyPointwise() {
        qt().withExamples(25)
                .forAll(integers().between(1, 70_000), longs().all(), integers().between(-3, 3), integers().between(-3, 3))
                .checkAssert((n, seed, ai, bi) -> {
            Backend be = backend();
            double a = ai * 0.75, b = bi * 1.25;
            double[] x = random(n, seed), y = random(n, seed + 7), w = random(n, seed + 13);
            try (DeviceVector dx = be.upload(x); DeviceVector dy = be.upload(y); DeviceVector dw = be.upload(w);
                 DeviceVector dz = be.allocate(n)) {
                assertArrayEquals(new double[n], be.download(dz), 0.0, "allocate gives zeros");
                be.fill(dz, 2.5);
                for (double v : be.download(dz)) {
                    assertEquals(2.5, v, 0.0);
                }
                be.copy(dx, dz);
                assertArrayEquals(x, be.download(dz), 0.0, "copy");
                be.axpby(a, dx, b, dy);
                double[] expect = new double[n];
                for (int i = 0; i < n; i++) {
                    expect[i] = a * x[i] + b * y[i];
                }
                assertArrayEquals(expect, be.download(dy), 1e-15 * 8, "axpby");
                be.pointwiseMultiply(dw, dx, dz);
                for (int i = 0; i < n; i++) {
                    expect[i] = w[i] * x[i];
                }
                assertArrayEquals(expect, be.download(dz), 0.0, "pointwise multiply");
                be.pointwiseMultiply(dw, dz, dz);
                for (int i = 0; i < n; i++) {
                    expect[i] = w[i] * (w[i] * x[i]);
                }
                assertArrayEquals(expect, be.download(dz), 0.0, "pointwise multiply in place");
            }
        });
    }

    @Test
    void reductionsAgreeWithLoops() {
        qt().withExamples(25).forAll(integers().between(1, 300_000), longs().all()).checkAssert((n, seed) -> {
            Backend be = backend();
            double[] x = random(n, seed), y = random(n, seed + 3);
            double dot = 0, nn = 0, abs = 0;
            for (int i = 0; i < n; i++) {
                dot += x[i] * y[i];
                nn += x[i] * x[i];
                abs += Math.abs(x[i] * y[i]);
            }
            try (DeviceVector dx = be.upload(x); DeviceVector dy = be.upload(y)) {
                assertEquals(dot, be.dot(dx, dy), 1e-12 * abs + 1e-300, "dot");
                assertEquals(nn, be.norm2(dx), 1e-12 * nn, "norm2");
                assertEquals(be.dot(dx, dy), be.dot(dx, dy), 0.0, "dot is deterministic");
            }
        });
    }

    @Test
    void fusedCgUpdateEqualsSeparateOps() {
        qt().withExamples(20).forAll(integers().between(1, 200_000), longs().all()).checkAssert((n, seed) -> {
            Backend be = backend();
            double alpha = 0.37;
            double[] p = random(n, seed), ap = random(n, seed + 1), x = random(n, seed + 2), r = random(n, seed + 3);
            double[] xe = new double[n], re = new double[n];
            double rr = 0, abs = 0;
            for (int i = 0; i < n; i++) {
                xe[i] = x[i] + alpha * p[i];
                re[i] = r[i] - alpha * ap[i];
                rr += re[i] * re[i];
            }
            abs = rr;
            try (DeviceVector dp = be.upload(p); DeviceVector dap = be.upload(ap); DeviceVector dx = be.upload(x);
                 DeviceVector dr = be.upload(r)) {
                double got = be.cgUpdate(alpha, dp, dap, dx, dr);
                assertEquals(rr, got, 1e-13 * abs, "r.r");
                assertArrayEquals(xe, be.download(dx), 1e-15 * 4, "x");
                assertArrayEquals(re, be.download(dr), 1e-15 * 4, "r");
                assertEquals(be.norm2(dr), got, 1e-13 * abs, "returned r.r equals norm2(r)");
            }
        });
    }

    @Test
    void agreesWithReferenceBackend() {
        qt().withExamples(10).forAll(integers().between(1, 100_000), longs().all()).checkAssert((n, seed) -> {
            Backend be = backend(), ref = BackendFixture.reference();
            double[] x = random(n, seed), y = random(n, seed + 5);
            try (DeviceVector a = be.upload(x); DeviceVector b = be.upload(y); DeviceVector ra = ref.upload(x);
                 DeviceVector rb = ref.upload(y)) {
                double d1 = be.dot(a, b), d2 = ref.dot(ra, rb);
                assertEquals(d2, d1, 1e-12 * Math.sqrt(be.norm2(a) * be.norm2(b)));
            }
        });
    }

    @Test
    void lengthMismatchIsAnError() {
        Backend be = backend();
        try (DeviceVector a = be.allocate(10); DeviceVector b = be.allocate(11)) {
            assertThrows(IllegalArgumentException.class, () -> be.copy(a, b));
            assertThrows(IllegalArgumentException.class, () -> be.axpby(1, a, 1, b));
            assertThrows(IllegalArgumentException.class, () -> be.dot(a, b));
            assertThrows(IllegalArgumentException.class, () -> be.cgUpdate(1, a, a, b, a));
            assertThrows(IllegalArgumentException.class, () -> be.write(new double[3], a));
            assertThrows(IllegalArgumentException.class, () -> be.read(a, new double[3]));
        }
    }

    @Test
    void closedVectorIsAnError() {
        Backend be = backend();
        DeviceVector a = be.allocate(4);
        DeviceVector b = be.allocate(4);
        a.close();
        a.close(); // idempotent
        RuntimeException ex = assertThrows(RuntimeException.class, () -> be.copy(a, b));
        org.junit.jupiter.api.Assertions.assertTrue(ex instanceof IllegalStateException || ex instanceof IllegalArgumentException,
                "closed vector must be rejected, got " + ex);
        b.close();
    }

    @Test
    void vectorOfAnotherBackendIsRejected() {
        Backend be = backend();
        Backend other = be.name().equals("cpu") ? null : BackendFixture.reference();
        if (other == null) {
            return; // the reference backend cannot be compared with itself here; the CPU module tests it
        }
        try (DeviceVector a = be.allocate(4); DeviceVector b = other.allocate(4)) {
            assertThrows(IllegalArgumentException.class, () -> be.copy(a, b));
        }
    }
}
