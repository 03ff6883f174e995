package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.ElementOperator;
import io.lobatto.solvers.ConjugateGradient;
import io.lobatto.solvers.SolveResult;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * p . A p summed in BP3.5's element kernel ({@link io.lobatto.backend.aparapi.kernels.ElementOperands#ATOMIC_DOT}, in the
 * atomic form's {@code cas} build on PoCL): with q = z + beta p, {@code applyDirectionDot} gives y_G = A q to 1e-14 of
 * its largest entry and q . A q = sum_e q_e . A_e q_e to 1e-12 against the apply and a dot, leaves p as it was, for the
 * register and pipelined columns and the points kernels at N = 1..8 and the shared 3D kernel at N = 1..5, with masked
 * nodes, lambda != 0 at even N; and
 * plain CG that takes it (alpha on the device, then one pass p = r + beta p, x += alpha p, r -= alpha Ap: {@code cgIteration})
 * converges as CG without it.
 */
@ExtendWith(io.lobatto.backend.aparapi.conformance.SkipWithoutOpenCl.class)
class ElementDotTest {

    @AfterEach
    void clear() {
        System.clearProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY);
        System.clearProperty(AparapiBackend.ELEMENT_DOT_PROPERTY);
    }

    private static void assertDirectionDot(AparapiBackend be, SpectralElementMesh mesh, double lambda, String what) {
        ScatterOperator z = TestProblems.partlyMasked(mesh);
        int n = z.globalSize();
        double beta = 0.3;
        double[] dirHost = TestProblems.random(n, mesh.degree() * 53L);
        double[] pHost = TestProblems.random(n, mesh.degree() * 59L);
        double[] qHost = new double[n];
        for (int i = 0; i < n; i++) {
            qHost[i] = dirHost[i] + beta * pHost[i];
        }
        try (AssembledOperator a = AssembledOperator.bind(ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, lambda), z, be);
             DeviceVector dir = be.upload(dirHost); DeviceVector p = be.upload(pHost); DeviceVector q = be.upload(qHost);
             DeviceVector y2 = be.allocate(n); DeviceVector y1 = be.allocate(n)) {
            a.apply(q, y2);
            double want = be.dot(q, y2);
            System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "cas");
            System.setProperty(AparapiBackend.ELEMENT_DOT_PROPERTY, "true");   // every degree, not only the table's
            assertTrue(a.foldsDirectionDot(), what + ": folds");
            double[] got = new double[1];
            List<String> ops = OneKernelOperatorTest.launched(be, () -> got[0] = a.applyDirectionDot(dir, beta, p, y1));
            assertTrue(ops.stream().anyMatch(o -> o.endsWith("atomic, p . A p)") && o.contains("N=" + mesh.degree())),
                    what + ": " + ops);
            assertFalse(ops.stream().anyMatch(o -> o.startsWith("gather") || o.equals("updateDot") || o.equals("axpby")),
                    what + ": " + ops);
            assertTrue(Math.abs(want) > 0, what + ": q . A q is not 0");
            assertEquals(want, got[0], 1e-12 * Math.abs(want), what + ": q . A q");
            double[] y = be.download(y2);
            double scale = java.util.Arrays.stream(y).map(Math::abs).max().orElse(0);
            double[] yGot = be.download(y1);
            for (int i = 0; i < n; i++) {
                assertEquals(y[i], yGot[i], 1e-14 * scale, what + ": y_G[" + i + "]");
            }
            assertArrayEquals(pHost, be.download(p), what + ": p unchanged");
        }
    }

    @Test
    void everyStructureAndDegree() {
        for (ElementVariant v : new ElementVariant[] {ElementVariant.REGISTERS, ElementVariant.PIPELINED, ElementVariant.POINTS,
                ElementVariant.SHARED}) {
            AparapiBackend be = VariantBackends.at48KiB(v);
            // the shared kernel sums u . y in its 3D structure only: (N + 1)^3 points in one group, N <= 5
            int top = v == ElementVariant.SHARED ? 5 : 8;
            for (int degree = 1; degree <= top; degree++) {
                SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
                assertDirectionDot(be, mesh, degree % 2 == 0 ? 0.75 : 0, v + " N=" + degree);
            }
        }
    }

    @Test
    void theDefaultPlans() {
        AparapiBackend be = OpenClAvailability.backend();
        for (int degree : new int[] {2, 6, 9, 10}) {
            assertDirectionDot(be, TestProblems.deformedBox(2, 2, 3, degree), 0, "table N=" + degree);
        }
    }

    /** Where it does not run: switched off, no atomic form, off the table, a shift, BP3.0; it says why; a bad value. */
    @Test
    void whereItDoesNotRun() {
        AparapiBackend be = OpenClAvailability.backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(2, 2, 2, 3);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        try (AssembledOperator a = AssembledOperator.bind(ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0), z, be);
             AssembledOperator shifted = AssembledOperator.bind(ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0), z, be, 0.5);
             AssembledOperator bp30 = AssembledOperator.bind(ElementOperator.of(ElementKernel.STIFFNESS_BP30, mesh, 0), z, be);
             DeviceVector d = be.allocate(z.globalSize()); DeviceVector p = be.allocate(z.globalSize());
             DeviceVector y = be.allocate(z.globalSize())) {
            assertFalse(a.foldsDirectionDot(), "the atomic form is off on PoCL by default");
            System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "cas");
            assertFalse(a.foldsDirectionDot(), "N = 3: not in the table");
            System.setProperty(AparapiBackend.ELEMENT_DOT_PROPERTY, "true");
            assertTrue(a.foldsDirectionDot());
            assertFalse(shifted.foldsDirectionDot(), "shift");
            assertFalse(bp30.foldsDirectionDot(), "BP3.0");
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                    () -> shifted.applyDirectionDot(d, 0.5, p, y));
            assertTrue(e.getMessage().contains("shift 0.5"), e.getMessage());
            IllegalArgumentException alias = assertThrows(IllegalArgumentException.class, () -> a.applyDirectionDot(d, 0.5, d, y));
            assertTrue(alias.getMessage().contains("distinct"), alias.getMessage());
            System.setProperty(AparapiBackend.ELEMENT_DOT_PROPERTY, "false");
            assertFalse(a.foldsDirectionDot(), "switched off");
            System.setProperty(AparapiBackend.ELEMENT_DOT_PROPERTY, "sometimes");
            IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, a::foldsDirectionDot);
            assertTrue(bad.getMessage().contains("lobatto.aparapi.elementDot=sometimes"), bad.getMessage());
        }
    }

    /** The measured table: on at N = 4 and 6..10, off at 1, 2, 3, 5 and above 10. */
    @Test
    void theTable() {
        for (int n = 1; n <= 15; n++) {
            assertEquals(n == 4 || n >= 6 && n <= 10, AparapiBackend.elementDotTable(n), "N = " + n);
        }
    }

    /**
     * CG's whole iteration on the device ({@code cgIteration}: the element kernel's p . A p, alpha from it on the device,
     * cgStep, one read-back) against its parts called in turn, over three steps: the first updating x, the second
     * deferring it (out[2] its alpha, x untouched), the third adding both: p, x and r to 1e-14 of their largest entries,
     * p . A p and r . r to 1e-12, Ap left zero; and where p . A p is 0 (r and p zero), alpha 0: x and r stay.
     */
    @Test
    void theIterationOnTheDeviceAgreesWithItsParts() {
        AparapiBackend be = OpenClAvailability.backend();
        for (int degree : new int[] {2, 7}) {
            SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
            ScatterOperator z = TestProblems.partlyMasked(mesh);
            int n = z.globalSize();
            double[] r0 = TestProblems.random(n, 67L * degree);
            double[] p0 = TestProblems.random(n, 71L * degree);
            double[] x0 = TestProblems.random(n, 73L * degree);
            System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "cas");
            System.setProperty(AparapiBackend.ELEMENT_DOT_PROPERTY, "true");
            try (AssembledOperator a = AssembledOperator.bind(ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0), z, be);
                 DeviceVector r1 = be.upload(r0); DeviceVector p1 = be.upload(p0); DeviceVector x1 = be.upload(x0);
                 DeviceVector y1 = be.allocate(n);
                 DeviceVector r2 = be.upload(r0); DeviceVector p2 = be.upload(p0); DeviceVector x2 = be.upload(x0);
                 DeviceVector y2 = be.allocate(n)) {
                be.fill(y1, 0);
                double[] out = new double[3];
                double[] betas = {0.4, 0.7, 0.2};
                double[] rzs = {2.5, 1.5, 0.5};
                String what = "N=" + degree + " step 0";
                double pAp = a.applyDirectionDot(r2, betas[0], p2, y2);
                double rr = be.cgStep(io.lobatto.core.backend.Backend.cgAlpha(rzs[0], pAp), betas[0], p2, y2, x2, r2);
                List<String> ops = OneKernelOperatorTest.launched(be,
                        () -> a.cgIteration(betas[0], rzs[0], 0, false, p1, y1, x1, r1, out));
                assertTrue(ops.contains("cgAlpha") && ops.contains("cgStep (alpha on the device)"), what + ": " + ops);
                assertFalse(ops.contains("fill") || ops.contains("dot"), what + ": " + ops);
                assertEquals(pAp, out[0], 1e-12 * Math.abs(pAp), what + ": p . A p");
                assertEquals(rr, out[1], 1e-12 * rr, what + ": r . r");
                assertEquals(0, out[2], what + ": nothing deferred");
                assertClose(be.download(p2), be.download(p1), what + ": p");
                assertClose(be.download(x2), be.download(x1), what + ": x");
                assertClose(be.download(r2), be.download(r1), what + ": r");
                assertTrue(java.util.Arrays.stream(be.download(y1)).allMatch(v -> v == 0), what + ": Ap left zero");
                // step 1 deferred, step 2 adding both
                be.fill(y2, 0);
                double[] xStep0 = be.download(x1);
                double pAp1 = a.applyDirectionDot(r2, betas[1], p2, y2);
                be.cgStep(io.lobatto.core.backend.Backend.cgAlpha(rzs[1], pAp1), betas[1], p2, y2, x2, r2);
                be.fill(y2, 0);
                List<String> ops1 = OneKernelOperatorTest.launched(be,
                        () -> a.cgIteration(betas[1], rzs[1], 0, true, p1, y1, x1, r1, out));
                assertTrue(ops1.contains("cgStep (alpha on the device, x deferred)"), "deferred: " + ops1);
                assertEquals(io.lobatto.core.backend.Backend.cgAlpha(rzs[1], out[0]), out[2], "the deferred alpha");
                assertTrue(out[2] != 0, "a deferred alpha");
                assertArrayEquals(xStep0, be.download(x1), "x untouched while deferred");
                assertClose(be.download(r2), be.download(r1), "step 1: r");
                double deferred = out[2];
                double pAp2 = a.applyDirectionDot(r2, betas[2], p2, y2);
                double rr2 = be.cgStep(io.lobatto.core.backend.Backend.cgAlpha(rzs[2], pAp2), betas[2], p2, y2, x2, r2);
                List<String> ops2 = OneKernelOperatorTest.launched(be,
                        () -> a.cgIteration(betas[2], rzs[2], deferred, false, p1, y1, x1, r1, out));
                assertTrue(ops2.contains("cgStep (alpha on the device, x for two steps)"), "both: " + ops2);
                assertEquals(0, out[2], "step 2: nothing deferred");
                assertEquals(rr2, out[1], 1e-12 * rr2, "step 2: r . r");
                assertClose(be.download(x2), be.download(x1), "step 2: x with both steps");
                assertClose(be.download(p2), be.download(p1), "step 2: p");
                assertClose(be.download(r2), be.download(r1), "step 2: r");
                assertThrows(IllegalArgumentException.class, () -> a.cgIteration(0.5, 1, 0.25, true, p1, y1, x1, r1, out),
                        "pending and deferred at once");
                // p . A p = 0 (r = -beta p: q = 0 exactly, beta a power of two) with an alpha pending: alpha 0, x moves by
                // the pending step only, r stays
                double[] xKeep = be.download(x1);
                double[] pKeep = be.download(p1);
                double[] rZero = new double[n];
                for (int i = 0; i < n; i++) {
                    rZero[i] = -0.5 * pKeep[i];
                }
                be.write(rZero, r1);
                a.cgIteration(0.5, 1, 0.3, false, p1, y1, x1, r1, out);
                assertEquals(0, out[0], "p . A p of q = 0");
                assertEquals(0, out[2], "nothing deferred at alpha 0");
                double[] xWant = new double[n];
                for (int i = 0; i < n; i++) {
                    xWant[i] = xKeep[i] + 0.3 * pKeep[i];
                }
                assertClose(xWant, be.download(x1), "x moves by the pending step only");
                assertArrayEquals(rZero, be.download(r1), "r stays");
            }
        }
    }

    private static void assertClose(double[] want, double[] got, String what) {
        double scale = java.util.Arrays.stream(want).map(Math::abs).max().orElse(0);
        assertTrue(scale > 0, what + ": not zero");
        for (int i = 0; i < want.length; i++) {
            assertEquals(want[i], got[i], 1e-14 * scale, what + " [" + i + "]");
        }
    }

    /**
     * Plain CG on BP5 (masked box) with p . A p from the element kernel and cgStep, against CG without them: the same
     * iterations to 1e-10 and the same solution to 1e-9 of its largest entry (the dots' order differs); the element kernel's
     * dot, cgAlpha and cgStep run, no dot, cgUpdate or gather.
     */
    @Test
    void plainCgConvergesTheSame() {
        AparapiBackend be = OpenClAvailability.backend();
        for (int degree : new int[] {3, 7}) {
            SpectralElementMesh mesh = TestProblems.deformedBox(3, 3, 2, degree);
            ScatterOperator z = TestProblems.dirichlet(mesh);
            int n = z.globalSize();
            double[] rhs = TestProblems.random(n, 61L * degree);
            SolveResult[] r = new SolveResult[2];
            double[][] x = new double[2][];
            System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "cas");
            for (int arm = 0; arm < 2; arm++) {
                System.setProperty(AparapiBackend.ELEMENT_DOT_PROPERTY, arm == 0 ? "false" : "true");
                try (AssembledOperator a = AssembledOperator.bind(ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0), z, be);
                     DeviceVector b = be.upload(rhs); DeviceVector xv = be.allocate(n);
                     ConjugateGradient cg = new ConjugateGradient(a).relativeTolerance(1e-10)) {
                    be.fill(xv, 0);
                    int k = arm;
                    List<String> ops = OneKernelOperatorTest.launched(be, () -> r[k] = cg.solve(b, xv));
                    // x moves every other step: the deferring and the two-step builds alternate
                    assertEquals(arm == 1, ops.contains("cgStep (alpha on the device, x deferred)")
                            && ops.contains("cgStep (alpha on the device, x for two steps)") && ops.contains("cgAlpha"),
                            degree + " arm " + arm + ": " + ops);
                    assertEquals(arm == 1, ops.stream().anyMatch(o -> o.endsWith("atomic, p . A p)")), degree + ": " + ops);
                    assertFalse(ops.stream().anyMatch(o -> o.startsWith("gather")), degree + ": " + ops);
                    x[arm] = be.download(xv);
                }
            }
            // fixed iteration counts, odd and even: the last step's x deferred or not
            for (int fixed : new int[] {7, 8}) {
                double[][] xf = new double[2][];
                for (int arm = 0; arm < 2; arm++) {
                    System.setProperty(AparapiBackend.ELEMENT_DOT_PROPERTY, arm == 0 ? "false" : "true");
                    try (AssembledOperator a = AssembledOperator.bind(ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0), z, be);
                         DeviceVector b = be.upload(rhs); DeviceVector xv = be.allocate(n);
                         ConjugateGradient cg = new ConjugateGradient(a).fixedIterations(fixed)) {
                        be.fill(xv, 0);
                        assertEquals(fixed, cg.solve(b, xv).iterations());
                        xf[arm] = be.download(xv);
                    }
                }
                double s = java.util.Arrays.stream(xf[0]).map(Math::abs).max().orElse(0);
                for (int i = 0; i < n; i++) {
                    assertEquals(xf[0][i], xf[1][i], 1e-11 * s, "N=" + degree + ", " + fixed + " iterations: x[" + i + "]");
                }
            }
            String what = "N=" + degree;
            assertTrue(r[0].iterations() > 10, what + ": " + r[0]);
            assertTrue(Math.abs(r[0].iterations() - r[1].iterations()) <= 1, what + ": " + r[0] + " / " + r[1]);
            double scale = java.util.Arrays.stream(x[0]).map(Math::abs).max().orElse(0);
            for (int i = 0; i < n; i++) {
                assertEquals(x[0][i], x[1][i], 1e-9 * scale, what + ": x[" + i + "]");
            }
        }
    }
}
