package io.lobatto.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.lobatto.backend.cpu.CpuBackend;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.FactorStorage;

/**
 * The operator the {@code op} suite times on the Java backend is the one CG applies: {@code apply} (y = A x) and CG's
 * call {@code updateApplyDot} (p = z + beta p, y = A p, p . y) give the same y_G bit for bit, and A is the problem's
 * operator: BP1's mass integrates 1 to the volume of the unit cube, BP3's and BP5's stiffness (lambda = 0) annihilate
 * constants.
 */
class OpSuiteTest {

    @ParameterizedTest(name = "{0} N = {1}")
    @CsvSource({"BP1, 3", "BP3, 3", "BP5, 3", "BP1, 7", "BP3, 7", "BP5, 7"})
    void theTimedApplyIsCgsFusedCall(String problem, int n) {
        // the suite's mesh at a small size: K = 3 at N = 3, K = 1 at N = 7 (elementsPerSide of 1000 DOFs)
        int k = OpSuite.elementsPerSide(1000, n);
        assertEquals(n == 3 ? 3 : 1, k);
        SpectralElementMesh mesh = OpSuite.mesh(k, n);
        ScatterOperator z = OpSuite.scatter(mesh);
        assertEquals((k * n + 1) * (k * n + 1) * (k * n + 1), z.globalSize(), "no mask: every node a DOF");
        double[] x0 = new double[z.globalSize()];
        Random rnd = new Random(17 + n);
        for (int i = 0; i < x0.length; i++) {
            x0[i] = rnd.nextDouble() - 0.5;
        }
        try (CpuBackend be = new CpuBackend(2);
             AssembledOperator a = OpSuite.bind(OpSuite.kernel(problem), FactorStorage.STORED, mesh, z, be);
             DeviceVector x = be.upload(x0); DeviceVector y = be.allocate(a.size());
             DeviceVector dir = be.upload(x0); DeviceVector p = be.allocate(a.size()); DeviceVector ap = be.allocate(a.size())) {
            a.apply(x, y);
            double[] yApply = be.download(y);
            // CG's call with p = 0: p becomes dir + beta 0 = x exactly, so A p must be A x bit for bit
            double pAp = a.updateApplyDot(dir, OpSuite.CG_BETA, p, ap);
            assertArrayEquals(x0, be.download(p), 0.0, "p = z + beta p");
            assertArrayEquals(yApply, be.download(ap), 0.0, "apply and CG's updateApplyDot apply the same A");
            double xy = 0;
            double scale = 0;
            for (int i = 0; i < x0.length; i++) {
                xy += x0[i] * yApply[i];
                scale += Math.abs(x0[i] * yApply[i]);
            }
            assertEquals(xy, pAp, 1e-13 * scale, "p . A p");
            // which A: 1 . M 1 = |unit cube| = 1 for BP1; A 1 = 0 for the stiffness of BP3 and BP5 (lambda = 0)
            double[] ones = new double[x0.length];
            Arrays.fill(ones, 1.0);
            be.write(ones, x);
            a.apply(x, y);
            double[] y1 = be.download(y);
            if (problem.equals("BP1")) {
                assertEquals(1.0, Arrays.stream(y1).sum(), 1e-12, "1 . M 1 = volume");
            } else {
                double max = Arrays.stream(y1).map(Math::abs).max().orElseThrow();
                assertTrue(max < 1e-11, problem + ": |A 1|_max = " + max);
                assertTrue(Math.abs(pAp) > 1e-3, problem + ": x . A x = " + pAp + " for a random x");
            }
        }
    }

    /**
     * With element variants each point runs once per variant on the same mesh, the rows say which, and the JVM's
     * variant property is as before afterwards (the Java backend ignores it; the aparapi backend plans by it).
     */
    @Test
    void eachVariantGetsItsRowAndThePropertyIsRestored() {
        String before = System.getProperty(OpSuite.VARIANT_PROPERTY);
        System.setProperty(OpSuite.VARIANT_PROPERTY, "registers");
        try (CpuBackend be = new CpuBackend(2)) {
            Report r = new Report("op", be, "test", new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
            OpSuite.run(be, 2, 2, 1000, 1, r, java.util.List.of("BP3"), java.util.List.of(GeometryChoice.STORED),
                    java.util.List.of("table", "pipelined"));
            assertEquals(java.util.List.of("table", "pipelined"), r.rows().stream().map(m -> m.get("element_variant")).toList());
            assertEquals(r.rows().get(0).get("N_G"), r.rows().get(1).get("N_G"), "the same mesh");
            assertEquals("registers", System.getProperty(OpSuite.VARIANT_PROPERTY));
        } finally {
            if (before == null) {
                System.clearProperty(OpSuite.VARIANT_PROPERTY);
            } else {
                System.setProperty(OpSuite.VARIANT_PROPERTY, before);
            }
        }
    }

    @Test
    void anUnknownProblemIsNamed() {
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> OpSuite.kernel("BP2"));
        assertEquals("problem must be BP1, BP3 or BP5, got BP2", ex.getMessage());
    }
}
