package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.lobatto.backend.aparapi.conformance.AparapiTestSupport;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;

/**
 * Device data must survive garbage collections: Aparapi re-creates an explicit buffer from the (stale)
 * host array when the collector has moved that array, so the backend keeps its pools where the
 * collector never moves them. On a GPU this failed with 512 KiB pools (PoCL shares host memory and
 * cannot show it).
 */
class DeviceDataSurvivesGcTest {

    @Test
    void vectorsKeepTheirValuesAcrossCollections() {
        Backend be = AparapiTestSupport.backend();
        double[] values = new double[10_000];
        for (int i = 0; i < values.length; i++) {
            values[i] = Math.sin(i) + 2;
        }
        try (DeviceVector v = be.upload(values); DeviceVector w = be.allocate(values.length)) {
            for (int round = 0; round < 8; round++) {
                List<double[]> garbage = new ArrayList<>();
                for (int k = 0; k < 200; k++) {
                    garbage.add(new double[1 << 14]);
                }
                garbage.clear();
                System.gc();
                be.copy(v, w);
                assertArrayEquals(values, be.download(w), 0.0, "after collection round " + round);
            }
        }
    }
}
