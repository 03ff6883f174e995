package io.lobatto.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.lobatto.operators.FactorStorage;
import org.junit.jupiter.api.Test;

/** {@code --geometry} entries: parsing, labels, and the on-the-fly variant forced only while the operator is bound. */
class GeometryChoiceTest {

    @Test
    void parsesTheFourEntries() {
        assertEquals(GeometryChoice.STORED, GeometryChoice.parse("stored"));
        assertEquals(new GeometryChoice(FactorStorage.ON_THE_FLY, null), GeometryChoice.parse("on-the-fly"));
        assertEquals(new GeometryChoice(FactorStorage.ON_THE_FLY, "registers"), GeometryChoice.parse("onthefly:registers"));
        assertEquals(new GeometryChoice(FactorStorage.ON_THE_FLY, "shared"), GeometryChoice.parse(" OnTheFly:Shared "));
        assertEquals(new GeometryChoice(FactorStorage.ON_THE_FLY, "points"), GeometryChoice.parse("onthefly:points"));
        assertEquals("onthefly:shared", GeometryChoice.parse("onthefly:shared").label());
        assertEquals("onthefly", GeometryChoice.parse("onthefly").label());
        assertEquals("BP5 onthefly:registers", OpSuite.label("BP5", GeometryChoice.parse("onthefly:registers")));
        assertEquals("BP5", OpSuite.label("BP5", GeometryChoice.STORED));
    }

    @Test
    void rejectsVariantsOfStoredFactorsAndUnknownOnes() {
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> GeometryChoice.parse("stored:shared"));
        assertEquals("geometry is 'stored:shared'; expected stored, onthefly, onthefly:registers, onthefly:shared or onthefly:points",
                ex.getMessage());
        ex = assertThrows(IllegalArgumentException.class, () -> GeometryChoice.parse("onthefly:columns"));
        assertEquals("geometry is 'onthefly:columns'; expected stored, onthefly, onthefly:registers, onthefly:shared or onthefly:points",
                ex.getMessage());
        ex = assertThrows(IllegalArgumentException.class, () -> GeometryChoice.parse("computed"));
        assertEquals("geometry storage is 'computed'; expected stored or onthefly", ex.getMessage());
    }

    @Test
    void bindForcesTheVariantOnlyWhileBinding() {
        String key = GeometryChoice.VARIANT_PROPERTY;
        assertNull(System.getProperty(key));
        assertEquals("shared", GeometryChoice.parse("onthefly:shared").bind(() -> System.getProperty(key)));
        assertNull(System.getProperty(key));
        assertNull(GeometryChoice.parse("onthefly").bind(() -> System.getProperty(key)));
        System.setProperty(key, "registers");
        try {
            assertEquals("shared", GeometryChoice.parse("onthefly:shared").bind(() -> System.getProperty(key)));
            assertEquals("registers", System.getProperty(key));
        } finally {
            System.clearProperty(key);
        }
    }
}
