package io.lobatto.solvers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import org.junit.jupiter.api.Test;

/** The default p-multigrid schedules: halving with Jacobi, steps of two with Schwarz. */
class PMultigridScheduleTest {

    @Test
    void stepsOfTwoExamples() {
        assertArrayEquals(new int[] {7, 5, 3, 2, 1}, PMultigrid.stepsOfTwo(7));
        assertArrayEquals(new int[] {8, 6, 4, 2, 1}, PMultigrid.stepsOfTwo(8));
        assertArrayEquals(new int[] {3, 2, 1}, PMultigrid.stepsOfTwo(3));
        assertArrayEquals(new int[] {2, 1}, PMultigrid.stepsOfTwo(2));
        assertArrayEquals(new int[] {1}, PMultigrid.stepsOfTwo(1));
        assertArrayEquals(new int[] {10, 8, 6, 4, 2, 1}, PMultigrid.stepsOfTwo(10));
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> PMultigrid.stepsOfTwo(0));
        assertTrue(ex.getMessage().contains("degree must be >= 1, got 0"), ex.getMessage());
    }

    @Test
    void defaultFollowsTheRelaxation() {
        assertArrayEquals(new int[] {7, 3, 1}, PMultigrid.defaultDegrees(7, Smoother.CHEBYSHEV_JACOBI));
        assertArrayEquals(new int[] {7, 3, 1}, PMultigrid.defaultDegrees(7, Smoother.parse("cheb4opt-jacobi")));
        assertArrayEquals(new int[] {7, 5, 3, 2, 1}, PMultigrid.defaultDegrees(7, Smoother.parse("cheb4opt-ras")));
        assertArrayEquals(new int[] {6, 4, 2, 1}, PMultigrid.defaultDegrees(6, Smoother.parse("cheb-asm")));
    }

    @Test
    void stepsOfTwoDecreaseToOneAndNeverMoreThanHalve() {
        qt().forAll(integers().between(1, 30)).checkAssert(n -> {
            int[] s = PMultigrid.stepsOfTwo(n);
            assertEquals(n, s[0]);
            assertEquals(1, s[s.length - 1]);
            for (int i = 1; i < s.length; i++) {
                assertTrue(s[i] < s[i - 1] && s[i - 1] - s[i] <= 2 && 2 * s[i] >= s[i - 1], n + ": " + java.util.Arrays.toString(s));
            }
        });
    }
}
