package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.lobatto.core.backend.DeviceHalo;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The gather with p . Ap and the halo sums of a distributed apply in one pass ({@link AparapiBackend#gatherDotHalo}),
 * and without the dot ({@link AparapiBackend#gatherHalo}): bitwise the values of {@link AparapiBackend#gatherDot} (or
 * {@link AparapiBackend#gather}) followed by {@link AparapiBackend#sumHalo}, in one launch where the halo's rows are the
 * last rows (a rank's shared rows numbered last), in the two launches where they are not; in each kind of Z.
 */
class GatherDotHaloTest {

    private static final int G = 20_011;

    @AfterEach
    void clearKind() {
        System.clearProperty(GatherScatter.KIND_PROPERTY);
    }

    @ParameterizedTest(name = "{0}, halo rows last: {1}")
    @CsvSource({"rows, true", "rows, false", "tiles, true", "blocks, true", "blocks, false"})
    void oneLaunchGivesBitwiseTheGatherThenTheHaloSums(String kind, boolean rowsLast) {
        AparapiBackend b = AparapiBackendTest.b();
        // Z^T with two local copies of every row (local nodes r and r + G)
        int[] scatterIds = new int[2 * G];
        int[] starts = new int[G + 1];
        int[] ids = new int[2 * G];
        for (int r = 0; r < G; r++) {
            scatterIds[r] = r;
            scatterIds[r + G] = r;
            starts[r + 1] = 2 * r + 2;
            ids[2 * r] = r;
            ids[2 * r + 1] = r + G;
        }
        double[] ones = new double[2 * G];
        java.util.Arrays.fill(ones, 0.5);
        // 700 halo rows: 1, 2 or 3 sources each, the own partial first, second or alone
        int m = 700;
        int[] rows = new int[m];
        int[] hs = new int[m + 1];
        List<Integer> src = new ArrayList<>();
        int received = 0;
        for (int u = 0; u < m; u++) {
            rows[u] = rowsLast ? G - m + u : 3 * u + 1;
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
        Random rnd = new Random(11);
        double[] yl = new double[2 * G], x = new double[G], rec = new double[received];
        for (int i = 0; i < yl.length; i++) {
            yl[i] = rnd.nextDouble() - 0.5;
        }
        for (int i = 0; i < G; i++) {
            x[i] = rnd.nextDouble() - 0.5;
        }
        for (int i = 0; i < received; i++) {
            rec[i] = rnd.nextDouble() - 0.5;
        }
        System.setProperty(GatherScatter.KIND_PROPERTY, kind);
        try (DeviceScatter z = b.uploadScatter(scatterIds, starts, ids, null, ones, G);
             DeviceHalo halo = b.uploadHalo(rows, hs, sources, received, G);
             DeviceVector dyl = b.upload(yl); DeviceVector dx = b.upload(x); DeviceVector drec = b.upload(rec);
             DeviceVector y1 = b.allocate(G); DeviceVector y2 = b.allocate(G); DeviceVector y3 = b.allocate(G);
             DeviceVector y4 = b.allocate(G)) {
            System.clearProperty(GatherScatter.KIND_PROPERTY);
            double dot1 = b.gatherDot(z, dyl, dx, y1);
            b.sumHalo(halo, drec, y1);
            long before = b.launches();
            double dot2 = b.gatherDotHalo(z, dyl, dx, y2, halo, drec);
            assertEquals(rowsLast ? 1 : 2, b.launches() - before, "launches");
            assertEquals(dot1, dot2, 0.0, "p . Ap of the partials");
            double[] a = b.download(y1);
            double[] c = b.download(y2);
            assertArrayEquals(a, c, 0.0);
            // and the halo sums are there: a row with the own partial and one received value
            int r0 = rows[0];
            assertEquals(yl[r0] + yl[r0 + G] + rec[0], c[r0], 0.0);

            b.gather(z, dyl, y3);
            b.sumHalo(halo, drec, y3);
            before = b.launches();
            b.gatherHalo(z, dyl, y4, halo, drec);
            assertEquals(rowsLast ? 1 : 2, b.launches() - before, "launches of gatherHalo");
            double[] e = b.download(y4);
            assertArrayEquals(b.download(y3), e, 0.0, "gatherHalo against the gather, then the halo sums");
            assertArrayEquals(c, e, 0.0, "gatherHalo against gatherDotHalo's y_G");
        }
    }
}
