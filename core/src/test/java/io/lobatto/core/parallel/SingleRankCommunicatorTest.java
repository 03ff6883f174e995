package io.lobatto.core.parallel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SingleRankCommunicatorTest {

    private final Communicator one = SingleRankCommunicator.INSTANCE;

    @Test
    void isRankZeroOfOneAndReducesToTheValuesThemselves() {
        assertEquals(0, one.rank());
        assertEquals(1, one.size());
        double[] v = {1.5, -2, 3e-300};
        one.allreduceSum(v);
        assertArrayEquals(new double[]{1.5, -2, 3e-300}, v, 0);
        assertEquals(-7.25, one.allreduceSum(-7.25), 0);
        assertEquals(4.0, one.allreduceMax(4.0), 0);
        one.exchange(new int[0], new double[0][], new double[0][]);
        one.barrier();
    }

    @Test
    void refusesANeighbourAndNamesIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> one.exchange(new int[]{1}, new double[][]{{1}}, new double[][]{{0}}));
        assertTrue(e.getMessage().contains("neighbours[0] = 1"), e.getMessage());
        assertTrue(e.getMessage().contains("[0, 1)"), e.getMessage());
        IllegalArgumentException self = assertThrows(IllegalArgumentException.class,
                () -> one.exchange(new int[]{0}, new double[][]{{1}}, new double[][]{{0}}));
        assertTrue(self.getMessage().contains("other than this rank 0"), self.getMessage());
        IllegalArgumentException lengths = assertThrows(IllegalArgumentException.class,
                () -> one.exchange(new int[]{0}, new double[0][], new double[0][]));
        assertTrue(lengths.getMessage().contains("1 neighbours need as many"), lengths.getMessage());
    }
}
