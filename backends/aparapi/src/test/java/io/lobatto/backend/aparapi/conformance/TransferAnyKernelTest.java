package io.lobatto.backend.aparapi.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceTransfer;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.conformance.TestProblems;
import io.lobatto.gs.ScatterOperator;

/**
 * p-multigrid's transfers through the one kernel with the pass and degrees as arguments
 * ({@code -Dlobatto.aparapi.transferKernel=any}, what a small problem on a GPU launches) give bit for bit the values of
 * the six kernels per level pair with them fixed per build ({@code fixed}), prolongation and restriction, with
 * Dirichlet-masked nodes, on the level pairs of the main job (7 -> 3, 3 -> 1) and of h-coarsening (1 -> 2).
 */
@ExtendWith(SkipWithoutOpenCl.class)
class TransferAnyKernelTest {

    private static final String KEY = "lobatto.aparapi.transferKernel";

    private static DeviceScatter upload(Backend be, ScatterOperator z) {
        return be.uploadScatter(z.scatterIds(), z.gatherStarts(), z.gatherIds(), z.blockStarts(), z.inverseDegree(), z.globalSize());
    }

    /** {P x_c, R r_f} with the transfer kernel {@code mode}. */
    private static double[][] transfers(Backend be, String mode, SpectralElementMesh coarse, SpectralElementMesh fine,
                                        double[] xc, double[] rf) {
        String before = System.getProperty(KEY);
        System.setProperty(KEY, mode);
        ScatterOperator zc = TestProblems.partlyMasked(coarse);
        ScatterOperator zf = TestProblems.partlyMasked(fine);
        try (DeviceTransfer t = be.uploadTransfer(coarse.basis(), fine.basis(), fine.elementCount());
             DeviceScatter dzc = upload(be, zc); DeviceScatter dzf = upload(be, zf);
             DeviceVector x = be.upload(xc); DeviceVector r = be.upload(rf);
             DeviceVector workF = be.allocate(zf.localSize()); DeviceVector workC = be.allocate(zc.localSize());
             DeviceVector y = be.allocate(zf.globalSize()); DeviceVector c = be.allocate(zc.globalSize())) {
            be.prolongate(t, dzc, dzf, x, workF, y);
            be.restrict(t, dzf, dzc, r, workC, c);
            return new double[][] {be.download(y), be.download(c)};
        } finally {
            if (before == null) {
                System.clearProperty(KEY);
            } else {
                System.setProperty(KEY, before);
            }
        }
    }

    @ParameterizedTest(name = "{1} -> {0}")
    @CsvSource({"7, 3", "3, 1", "2, 1"})
    void oneKernelForEveryPassGivesTheSameBits(int fineDegree, int coarseDegree) {
        Backend be = AparapiFixture.backend();
        SpectralElementMesh fine = TestProblems.deformedBox(3, 2, 2, fineDegree);
        SpectralElementMesh coarse = fine.atDegree(coarseDegree);
        int nc = TestProblems.partlyMasked(coarse).globalSize();
        int nf = TestProblems.partlyMasked(fine).globalSize();
        double[] xc = TestProblems.random(nc, 71);
        double[] rf = TestProblems.random(nf, 72);
        double[][] fixed = transfers(be, "fixed", coarse, fine, xc, rf);
        double[][] any = transfers(be, "any", coarse, fine, xc, rf);
        assertTrue(java.util.Arrays.stream(fixed[0]).anyMatch(v -> v != 0) && java.util.Arrays.stream(fixed[1]).anyMatch(v -> v != 0));
        assertArrayEquals(fixed[0], any[0], 0.0, "P x_c");
        assertArrayEquals(fixed[1], any[1], 0.0, "R r_f");
    }

    @Test
    void anUnknownModeIsRejectedNamingTheProperty() {
        Backend be = AparapiFixture.backend();
        SpectralElementMesh fine = TestProblems.deformedBox(1, 1, 1, 3);
        SpectralElementMesh coarse = fine.atDegree(1);
        double[] xc = new double[TestProblems.partlyMasked(coarse).globalSize()];
        double[] rf = new double[TestProblems.partlyMasked(fine).globalSize()];
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> transfers(be, "some", coarse, fine, xc, rf));
        assertTrue(e.getMessage().contains(KEY) && e.getMessage().contains("'some'"), e.getMessage());
    }
}
