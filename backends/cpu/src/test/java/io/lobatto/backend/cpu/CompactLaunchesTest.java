package io.lobatto.backend.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;

/**
 * An operator's first launches run the loop contractions ({@link BlockKernels#COMPACT_LAUNCHES}), the later ones
 * the generated contractions (here after one launch): the element apply, the fused operator and its element range give the same bits on the
 * first launch as on the second, for every kernel, on 1 and 2 threads.
 */
class CompactLaunchesTest {

    @ParameterizedTest
    @EnumSource(ElementKernel.class)
    void theFirstLaunchGivesTheBitsOfTheLaterOnes(ElementKernel kernel) {
        assertEquals(BlockKernels.AUTO, BlockKernels.COMPACT_LAUNCHES, "the default (these tests run without the property)");
        Random rnd = new Random(53 + kernel.ordinal());
        for (int n : new int[] {1, 3, 4, 7, TensorBlock.MAX_DEGREE}) {
            Basis1D basis = Basis1D.of(n);
            TestSupport.ScatterMap map = TestSupport.brick(n, 3, 2, 3, true);
            int elements = 18;
            int nl = map.scatterIds().length;
            int ng = map.globalSize();
            double[] geo = TestSupport.geometry(rnd, kernel, basis, elements, false);
            double[] xl = TestSupport.random(rnd, nl);
            double[] xg = TestSupport.random(rnd, ng);
            for (int threads : new int[] {1, 2}) {
                String where = kernel + " N=" + n + " on " + threads + " threads";
                try (CpuBackend be = new CpuBackend(threads);
                     DeviceElementData a = be.uploadElementData(kernel, basis, elements, geo);
                     DeviceElementData b = be.uploadElementData(kernel, basis, elements, geo);
                     DeviceElementData c = be.uploadElementData(kernel, basis, elements, geo);
                     DeviceScatter z = map.upload(be);
                     DeviceVector dxl = be.upload(xl); DeviceVector dxg = be.upload(xg);
                     DeviceVector yl = be.allocate(nl); DeviceVector yg = be.allocate(ng)) {
                    BlockKernels bk = ((CpuElementData) a).blocks;
                    assertEquals((int) Math.ceil((double) BlockKernels.COMPACT_WORK / (elements * Math.pow(n + 1, 3))),
                            bk.compactLaunches(), where + ": launches on the loops by default");
                    for (DeviceElementData d : new DeviceElementData[] {a, b, c}) {
                        ((CpuElementData) d).blocks.compactLaunches(1); // the first launch on the loops, then generated
                    }
                    assertSame(bk.compact, bk.contractions(), where + ": the first launch runs the loops");
                    be.applyElements(a, 0.75, dxl, yl);
                    assertSame(bk.tb, bk.contractions(), where + ": the second launch runs the generated contractions");
                    double[] first = be.download(yl);
                    be.applyElements(a, 0.75, dxl, yl);
                    assertBits(first, be.download(yl), where + ": element apply");

                    double dot1 = be.applyAssembledDot(b, z, 0.75, 0.25, dxg, yl, yg);
                    double[] firstG = be.download(yg);
                    double dot2 = be.applyAssembledDot(b, z, 0.75, 0.25, dxg, yl, yg);
                    assertBits(firstG, be.download(yg), where + ": fused y_G");
                    assertBits(new double[] {dot1}, new double[] {dot2}, where + ": fused x . y");

                    be.fill(yl, 0);
                    be.applyAssembledElements(c, z, 0.75, 0.25, dxg, yl, 2, elements - 3);
                    double[] rangeFirst = be.download(yl);
                    be.fill(yl, 0);
                    be.applyAssembledElements(c, z, 0.75, 0.25, dxg, yl, 2, elements - 3);
                    assertBits(rangeFirst, be.download(yl), where + ": element range of the fused operator");
                    assertTrue(TestSupport.maxAbs(rangeFirst) > 0, where + ": the range wrote something");
                }
            }
        }
    }

    @Test
    void theLaunchCountIsACountOrTheDefault() {
        assertEquals(BlockKernels.AUTO, BlockKernels.compactLaunches(null));
        // by work: 2^25 local nodes, at least one launch; a set count as it is
        assertEquals(304, BlockKernels.compactLaunches(BlockKernels.AUTO, 216L * 512));
        assertEquals(2, BlockKernels.compactLaunches(BlockKernels.AUTO, 32768L * 512));
        assertEquals(1, BlockKernels.compactLaunches(BlockKernels.AUTO, 1L << 30));
        assertEquals(0, BlockKernels.compactLaunches(0, 216L * 512));
        assertEquals(5, BlockKernels.compactLaunches(5, 1L << 30));
        assertEquals(0, BlockKernels.compactLaunches("0"));
        assertEquals(3, BlockKernels.compactLaunches(" 3 "));
        for (String bad : new String[] {"-1", "one", ""}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BlockKernels.compactLaunches(bad));
            assertTrue(e.getMessage().contains("lobatto.cpu.compactLaunches") && e.getMessage().contains("'" + bad + "'"),
                    e.getMessage());
        }
    }

    private static void assertBits(double[] expected, double[] actual, String where) {
        assertEquals(expected.length, actual.length, where + ": length");
        for (int i = 0; i < expected.length; i++) {
            if (Double.doubleToRawLongBits(expected[i]) != Double.doubleToRawLongBits(actual[i])) {
                throw new AssertionError(where + ": entry " + i + " is " + actual[i] + " on the generated contractions, "
                        + expected[i] + " on the loops");
            }
        }
    }
}
