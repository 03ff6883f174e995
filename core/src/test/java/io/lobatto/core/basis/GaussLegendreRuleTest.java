package io.lobatto.core.basis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.hipparchus.analysis.integration.gauss.GaussIntegrator;
import org.hipparchus.analysis.integration.gauss.GaussIntegratorFactory;
import org.junit.jupiter.api.Test;

/**
 * The Gauss-Legendre rules of {@link Basis1D} (a table read from a resource) equal Hipparchus' correctly rounded
 * high-precision rules bit for bit, for every point count a basis uses and one beyond the table.
 */
class GaussLegendreRuleTest {

    @Test
    void tableEqualsHipparchusHighPrecisionBitForBit() {
        GaussIntegratorFactory factory = new GaussIntegratorFactory();
        for (int points = 1; points <= Basis1D.MAX_DEGREE + 3; points++) {
            QuadratureRule rule = Basis1D.gaussLegendre(points);
            GaussIntegrator reference = factory.legendreHighPrecision(points);
            assertEquals(points, rule.size(), "points");
            for (int i = 0; i < points; i++) {
                assertEquals(reference.getPoint(i), rule.node(i), 0, points + " points, node " + i);
                assertEquals(reference.getWeight(i), rule.weight(i), 0, points + " points, weight " + i);
            }
        }
    }
}
