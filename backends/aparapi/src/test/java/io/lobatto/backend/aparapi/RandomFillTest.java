package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.lobatto.backend.aparapi.conformance.AparapiFixture;
import io.lobatto.conformance.BackendFixture;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.RandomFill;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link Backend#fillRandom} on the device and on the Java backend against {@link RandomFill} on the host and against
 * {@link java.util.SplittableRandom}'s stream, bit for bit, for seeds whose high halves are zero, negative and large.
 */
@ExtendWith(io.lobatto.backend.aparapi.conformance.SkipWithoutOpenCl.class)
class RandomFillTest {

    @Test
    void sameBitsOnEveryBackendAndAsSplittableRandom() {
        Backend gpu = AparapiFixture.backend();
        Backend cpu = BackendFixture.shared("cpu");
        for (long seed : new long[] {0, 7, 0x5eed + 7, -1, Long.MIN_VALUE, 0x123456789abcdefL}) {
            for (int n : new int[] {1, 1000, 70001}) {
                double[] host = RandomFill.of(n, seed);
                java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
                double[] stream = new double[n];
                for (int i = 0; i < n; i++) {
                    stream[i] = r.nextDouble() - 0.5;
                }
                assertArrayEquals(stream, host, 0.0, "RandomFill against SplittableRandom, seed " + seed);
                for (Backend be : new Backend[] {gpu, cpu}) {
                    try (DeviceVector v = be.allocate(n)) {
                        be.fill(v, 9);
                        be.fillRandom(v, seed);
                        assertArrayEquals(host, be.download(v), 0.0, be.name() + ", seed " + seed + ", n " + n);
                    }
                }
            }
        }
    }
}
