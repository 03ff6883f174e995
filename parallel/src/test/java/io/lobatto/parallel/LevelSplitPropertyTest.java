package io.lobatto.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.lobatto.core.parallel.SingleRankCommunicator;

/**
 * The split of the levels below the fine one ({@link DistributedLevels#LEVEL_SPLIT_PROPERTY}): each operator's own by
 * default (null), any split by name, and an error naming the property and the value otherwise.
 */
class LevelSplitPropertyTest {

    @AfterEach
    void clear() {
        System.clearProperty(DistributedLevels.LEVEL_SPLIT_PROPERTY);
    }

    private static DistributedLevels levels() {
        return new DistributedLevels(SingleRankCommunicator.INSTANCE, SlabPartition.of(4, 4, 4, 1, 0), null,
                DistributedLevels.Coarse.REDUNDANT);
    }

    @Test
    void theCoarseLevelsKeepTheirOperatorsSplitByDefault() {
        assertNull(levels().coarseSplit());
        System.setProperty(DistributedLevels.LEVEL_SPLIT_PROPERTY, "default");
        assertNull(levels().coarseSplit());
    }

    @Test
    void aNamedSplit() {
        System.setProperty(DistributedLevels.LEVEL_SPLIT_PROPERTY, "serial");
        assertEquals(DistributedOperator.Split.SERIAL, levels().coarseSplit());
        System.setProperty(DistributedLevels.LEVEL_SPLIT_PROPERTY, "alongside:12");
        assertEquals(new DistributedOperator.Split(DistributedOperator.Split.Kind.ALONGSIDE, 12), levels().coarseSplit());
    }

    @Test
    void anUnknownSplitIsRejectedWithItsName() {
        System.setProperty(DistributedLevels.LEVEL_SPLIT_PROPERTY, "sideways");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, LevelSplitPropertyTest::levels);
        assertTrue(e.getMessage().contains(DistributedLevels.LEVEL_SPLIT_PROPERTY) && e.getMessage().contains("sideways"),
                e.getMessage());
    }
}
