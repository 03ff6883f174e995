package io.lobatto.backend.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.Random;

import org.junit.jupiter.api.Test;

import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;


/** BS6-BS7 on random maps against plain loops; Z and Z^T adjoint; Z^T W Z = I. */
class ScatterGatherTest {

    @Test
    void scatterAndGatherMatchPlainLoops() {
        qt().withExamples(40)
                .forAll(integers().between(1, 3000), integers().between(1, 900), integers().between(1, 4), longs().all())
                .checkAssert((nL, nG, threads, seed) -> {
            Random rnd = new Random(seed);
            TestSupport.ScatterMap map = TestSupport.randomMap(rnd, nL, nG, 0.1);
            int[] ids = map.scatterIds();
            double[] xg = TestSupport.random(rnd, nG);
            double[] xl = TestSupport.random(rnd, nL);
            double[] expectedL = new double[nL];
            double[] expectedG = new double[nG];
            for (int n = 0; n < nL; n++) {
                expectedL[n] = ids[n] < 0 ? 0 : xg[ids[n]];
            }
            int[] starts = map.gatherStarts();
            for (int g = 0; g < nG; g++) {
                for (int k = starts[g]; k < starts[g + 1]; k++) {
                    expectedG[g] += xl[map.gatherIds()[k]];
                }
            }
            try (CpuBackend b = new CpuBackend(threads);
                 DeviceScatter z = map.upload(b);
                 DeviceVector dxg = b.upload(xg);
                 DeviceVector dxl = b.upload(xl);
                 DeviceVector outL = b.allocate(nL);
                 DeviceVector outG = b.allocate(nG)) {
                assertEquals(nL, z.localSize());
                assertEquals(nG, z.globalSize());
                b.scatter(z, dxg, outL);
                assertArrayEquals(expectedL, b.download(outL), 0.0);
                b.gather(z, dxl, outG);
                assertArrayEquals(expectedG, b.download(outG), 1e-14);
                // adjoint: (Z xg) . xl == xg . (Z^T xl)
                assertEquals(b.dot(outL, dxl), b.dot(dxg, outG), 1e-12 * nL);
            }
        });
    }

    @Test
    void largeMapOverManyChunksAndZtWZIsIdentity() {
        Random rnd = new Random(17);
        TestSupport.ScatterMap map = TestSupport.brick(5, 6, 5, 4, true);
        int nL = map.scatterIds().length;
        int nG = map.globalSize();
        double[] xg = TestSupport.random(rnd, nG);
        try (CpuBackend b = new CpuBackend(2);
             DeviceScatter z = map.upload(b);
             DeviceVector dxg = b.upload(xg);
             DeviceVector w = b.upload(map.inverseDegree());
             DeviceVector xl = b.allocate(nL);
             DeviceVector back = b.allocate(nG)) {
            b.scatter(z, dxg, xl);
            b.pointwiseMultiply(w, xl, xl);
            b.gather(z, xl, back);
            assertArrayEquals(xg, b.download(back), 1e-14);
        }
    }

    @Test
    void emptyGlobalSpaceIsAllowed() {
        TestSupport.ScatterMap map = TestSupport.mapOf(new int[] {-1, -1, -1}, 0, 1);
        try (CpuBackend b = new CpuBackend(2);
             DeviceScatter z = map.upload(b);
             DeviceVector xg = b.allocate(0);
             DeviceVector xl = b.upload(new double[] {1, 2, 3})) {
            b.scatter(z, xg, xl);
            assertArrayEquals(new double[3], b.download(xl));
            b.gather(z, xl, xg);
        }
    }
}
