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
        System.clearProperty(AparapiBackend.CG_QUEUE_PROPERTY);
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

    /**
     * Where it does not run: switched off, no atomic form, off the table, a shift, BP3.0; it says why; a bad value. The
     * queue the same, and switched off on its own.
     */
    @Test
    void whereItDoesNotRun() {
        AparapiBackend be = OpenClAvailability.backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(2, 2, 2, 1);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        try (AssembledOperator a = AssembledOperator.bind(ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0), z, be);
             AssembledOperator shifted = AssembledOperator.bind(ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0), z, be, 0.5);
             AssembledOperator bp30 = AssembledOperator.bind(ElementOperator.of(ElementKernel.STIFFNESS_BP30, mesh, 0), z, be);
             DeviceVector d = be.allocate(z.globalSize()); DeviceVector p = be.allocate(z.globalSize());
             DeviceVector y = be.allocate(z.globalSize()); DeviceVector w = be.allocate(z.globalSize())) {
            assertFalse(a.foldsDirectionDot(), "the atomic form is off on PoCL by default");
            System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "cas");
            assertFalse(a.foldsDirectionDot(), "N = 1: not in the table");
            assertFalse(a.queuesCgIterations(), "N = 1: not in the table");
            System.setProperty(AparapiBackend.ELEMENT_DOT_PROPERTY, "true");
            assertTrue(a.foldsDirectionDot());
            assertTrue(a.queuesCgIterations());
            assertFalse(shifted.queuesCgIterations(), "shift");
            System.setProperty(AparapiBackend.CG_QUEUE_PROPERTY, "false");
            assertFalse(a.queuesCgIterations(), "queue switched off");
            assertTrue(a.foldsDirectionDot(), "the iteration on the device stays");
            System.setProperty(AparapiBackend.CG_QUEUE_PROPERTY, "later");
            IllegalArgumentException badQueue = assertThrows(IllegalArgumentException.class, a::queuesCgIterations);
            assertTrue(badQueue.getMessage().contains("lobatto.aparapi.cgQueue=later"), badQueue.getMessage());
            System.clearProperty(AparapiBackend.CG_QUEUE_PROPERTY);
            UnsupportedOperationException noQueue = assertThrows(UnsupportedOperationException.class,
                    () -> shifted.queueCgIteration(1, true, 0, 1, 0, true, p, y, d, w));
            assertTrue(noQueue.getMessage().contains("shift 0.5"), noQueue.getMessage());
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

    /** The measured table: on at N = 2..13, off at 1 and above 13. */
    @Test
    void theTable() {
        for (int n = 1; n <= 15; n++) {
            assertEquals(n >= 2 && n <= 13, AparapiBackend.elementDotTable(n), "N = " + n);
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
     * Plain CG on BP5 (masked box) in three arms: the path before (arm 0), the iteration on the device with one read-back
     * each (arm 1, {@code cgIteration}) and the iterations queued with beta on the device (arm 2,
     * {@code queueCgIteration}). The same iterations (the queued arm one more at most: it checks one iteration late), the
     * same solution to 1e-9 of its largest entry (the dots' order differs), and at fixed counts, odd and even, x to 1e-11.
     * Each arm launches its own kernels and no gather.
     */
    @Test
    void plainCgConvergesTheSame() {
        AparapiBackend be = OpenClAvailability.backend();
        for (int degree : new int[] {3, 7}) {
            SpectralElementMesh mesh = TestProblems.deformedBox(3, 3, 2, degree);
            ScatterOperator z = TestProblems.dirichlet(mesh);
            int n = z.globalSize();
            double[] rhs = TestProblems.random(n, 61L * degree);
            SolveResult[] r = new SolveResult[3];
            double[][] x = new double[3][];
            System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "cas");
            for (int arm = 0; arm < 3; arm++) {
                arm(arm);
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
                    assertEquals(arm == 2, ops.contains("cgStep (alpha, beta on the device, x deferred)")
                            && ops.contains("cgStep (alpha, beta on the device, x for two steps)")
                            && ops.contains("cgAlpha (r . r on the device)") && ops.contains("cgBeta"),
                            degree + " arm " + arm + ": " + ops);
                    assertEquals(arm == 1, ops.stream().anyMatch(o -> o.endsWith("atomic, p . A p)")), degree + ": " + ops);
                    assertEquals(arm == 2, ops.stream().anyMatch(o -> o.endsWith("p . A p, beta on the device)")),
                            degree + ": " + ops);
                    assertFalse(ops.stream().anyMatch(o -> o.startsWith("gather")), degree + ": " + ops);
                    x[arm] = be.download(xv);
                }
            }
            // fixed iteration counts, odd and even: the last step's x deferred or not
            for (int fixed : new int[] {1, 2, 7, 8}) {
                double[][] xf = new double[3][];
                for (int arm = 0; arm < 3; arm++) {
                    arm(arm);
                    try (AssembledOperator a = AssembledOperator.bind(ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0), z, be);
                         DeviceVector b = be.upload(rhs); DeviceVector xv = be.allocate(n);
                         ConjugateGradient cg = new ConjugateGradient(a).fixedIterations(fixed)) {
                        be.fill(xv, 0);
                        assertEquals(fixed, cg.solve(b, xv).iterations());
                        xf[arm] = be.download(xv);
                    }
                }
                double s = java.util.Arrays.stream(xf[0]).map(Math::abs).max().orElse(0);
                for (int arm = 1; arm < 3; arm++) {
                    for (int i = 0; i < n; i++) {
                        assertEquals(xf[0][i], xf[arm][i], 1e-11 * s, "N=" + degree + ", " + fixed + " iterations, arm " + arm
                                + ": x[" + i + "]");
                    }
                }
            }
            String what = "N=" + degree;
            assertTrue(r[0].iterations() > 10, what + ": " + r[0]);
            assertTrue(Math.abs(r[0].iterations() - r[1].iterations()) <= 1, what + ": " + r[0] + " / " + r[1]);
            assertTrue(r[2].iterations() - r[0].iterations() >= 0 && r[2].iterations() - r[0].iterations() <= 2,
                    what + ": " + r[0] + " / " + r[2]);
            assertTrue(r[2].finalResidual() <= 1e-10 * r[2].rhsNorm(), what + ": " + r[2]);
            double scale = java.util.Arrays.stream(x[0]).map(Math::abs).max().orElse(0);
            for (int arm = 1; arm < 3; arm++) {
                for (int i = 0; i < n; i++) {
                    assertEquals(x[0][i], x[arm][i], 1e-9 * scale, what + ", arm " + arm + ": x[" + i + "]");
                }
            }
        }
    }

    /** The path before (0), the iteration on the device (1), the iterations queued (2). */
    private static void arm(int arm) {
        System.setProperty(AparapiBackend.ELEMENT_DOT_PROPERTY, arm == 0 ? "false" : "true");
        System.setProperty(AparapiBackend.CG_QUEUE_PROPERTY, arm == 2 ? "true" : "false");
    }

    /**
     * Three iterations queued (deferring, adding both, deferring) against three of {@code cgIteration} fed the same betas
     * (beta = r . r / r . r before, as the device sets it): p . A p, r . r and alpha to 1e-12, p, x and r to 1e-14 of their
     * largest entries; the launches; and the misuse: an iteration not in flight, a deferral after a deferral, and a fifth
     * iteration queued before the first is awaited.
     */
    @Test
    void queuedIterationsAgreeWithTheIterationOnTheDevice() {
        AparapiBackend be = OpenClAvailability.backend();
        for (int degree : new int[] {2, 7}) {
            SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
            ScatterOperator z = TestProblems.partlyMasked(mesh);
            int n = z.globalSize();
            double[] r0 = TestProblems.random(n, 79L * degree);
            double[] p0 = TestProblems.random(n, 83L * degree);
            double[] x0 = TestProblems.random(n, 89L * degree);
            System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "cas");
            System.setProperty(AparapiBackend.ELEMENT_DOT_PROPERTY, "true");
            try (AssembledOperator a = AssembledOperator.bind(ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0), z, be);
                 DeviceVector r1 = be.upload(r0); DeviceVector p1 = be.upload(p0); DeviceVector x1 = be.upload(x0);
                 DeviceVector y1 = be.allocate(n);
                 DeviceVector r2 = be.upload(r0); DeviceVector p2 = be.upload(p0); DeviceVector x2 = be.upload(x0);
                 DeviceVector y2 = be.allocate(n)) {
                String what = "N=" + degree;
                be.fill(y1, 0);
                be.fill(y2, 0);
                assertTrue(a.queuesCgIterations(), what + ": queues");
                double beta = 0.4;
                double rz = 2.5;
                double[][] want = new double[3][3];
                double pending = 0;
                for (int j = 0; j < 3; j++) {
                    a.cgIteration(beta, rz, pending, j != 1, p2, y2, x2, r2, want[j]);
                    pending = want[j][2];
                    want[j][2] = io.lobatto.core.backend.Backend.cgAlpha(rz, want[j][0]);   // the queued step's alpha always
                    beta = want[j][1] / rz;
                    rz = want[j][1];
                }
                List<String> ops = OneKernelOperatorTest.launched(be, () -> {
                    for (int j = 0; j < 3; j++) {
                        a.queueCgIteration(j + 1, j == 0, 0.4, 2.5, 0, j != 1, p1, y1, x1, r1);
                    }
                });
                assertTrue(ops.contains("cgAlpha (r . r on the device)") && ops.contains("cgBeta")
                        && ops.contains("cgStep (alpha, beta on the device, x deferred)")
                        && ops.contains("cgStep (alpha, beta on the device, x for two steps)"), what + ": " + ops);
                assertTrue(ops.stream().anyMatch(o -> o.endsWith("p . A p, beta on the device)") && o.contains("N=" + degree)),
                        what + ": " + ops);
                assertFalse(ops.contains("fill") || ops.contains("dot") || ops.contains("cgAlpha"), what + ": " + ops);
                double[] got = new double[3];
                for (int j = 0; j < 3; j++) {
                    a.awaitCgIteration(j + 1, got);
                    for (int i = 0; i < 3; i++) {
                        assertEquals(want[j][i], got[i], 1e-12 * Math.abs(want[j][i]), what + ": step " + j + ", out[" + i + "]");
                    }
                    assertTrue(got[2] != 0, what + ": step " + j + ": alpha");
                }
                assertClose(be.download(p2), be.download(p1), what + ": p");
                assertClose(be.download(x2), be.download(x1), what + ": x (step 3's x deferred in both)");
                assertClose(be.download(r2), be.download(r1), what + ": r");
                assertTrue(java.util.Arrays.stream(be.download(y1)).allMatch(v -> v == 0), what + ": Ap left zero");
                assertThrows(IllegalStateException.class, () -> a.awaitCgIteration(3, got), "awaited already");
                assertThrows(IllegalStateException.class, () -> a.awaitCgIteration(9, got), "never queued");
                assertThrows(IllegalArgumentException.class,
                        () -> a.queueCgIteration(4, false, 0, 0, 0, true, p1, y1, x1, r1), "deferring after a deferral");
                assertThrows(IllegalArgumentException.class,
                        () -> a.queueCgIteration(1, true, 0.5, 1, 0.25, true, p1, y1, x1, r1), "pending and deferred at once");
                a.queueCgIteration(1, true, 0.5, 1, 0, false, p1, y1, x1, r1);
                for (int k = 2; k <= 4; k++) {
                    a.queueCgIteration(k, false, 0, 0, 0, false, p1, y1, x1, r1);
                }
                assertThrows(IllegalStateException.class, () -> a.queueCgIteration(5, false, 0, 0, 0, false, p1, y1, x1, r1),
                        "a fifth in flight");
                for (int k = 1; k <= 4; k++) {
                    a.awaitCgIteration(k, got);
                }
            }
        }
    }

    /**
     * CG's step length over many partials (the element kernel's at low degree): with {@code alphaStages=auto}
     * {@code TermSumKernel} sums them first, with {@code 1} one group alone; both give p . A p = the sum of the terms to
     * 1e-13, in the iteration with one read-back and in the queued one.
     */
    @Test
    void longSumsInTwoStages() {
        AparapiBackend be = OpenClAvailability.backend();
        int count = 40 * Vectors.ONE_STAGE_TERMS * be.reductionGroupSize() + 7;
        double[] t = TestProblems.random(count, 97L);
        double want = 0;
        for (double v : t) {
            want += v;
        }
        int n = 33;
        try (DeviceVector terms = be.upload(t); DeviceVector p = be.upload(TestProblems.random(n, 1L));
             DeviceVector ap = be.allocate(n); DeviceVector x = be.allocate(n); DeviceVector r = be.upload(TestProblems.random(n, 2L))) {
            for (String stages : new String[] {"auto", "1"}) {
                System.setProperty(Vectors.ALPHA_STAGES_PROPERTY, stages);
                double[] out = new double[3];
                List<String> ops = OneKernelOperatorTest.launched(be,
                        () -> be.cgStepOnDevice(terms, count, 1, 0.5, 0, false, p, ap, x, r, out));
                assertEquals(stages.equals("auto"), ops.contains("termSum"), stages + ": " + ops);
                assertEquals(want, out[0], 1e-13 * Math.abs(want), stages + ": p . A p");
                List<String> queued = OneKernelOperatorTest.launched(be, () -> {
                    be.queueCgEnd(terms, count, 1, true, 0.5, 1, 0, true, p, ap, x, r);
                    be.awaitCgIteration(1, out);
                });
                assertEquals(stages.equals("auto"), queued.contains("termSum"), stages + ": " + queued);
                assertEquals(want, out[0], 1e-13 * Math.abs(want), stages + ": queued p . A p");
            }
            System.setProperty(Vectors.ALPHA_STAGES_PROPERTY, "2");
            IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                    () -> be.cgStepOnDevice(terms, count, 1, 0.5, 0, false, p, ap, x, r, new double[3]));
            assertTrue(bad.getMessage().contains("lobatto.aparapi.alphaStages=2"), bad.getMessage());
        } finally {
            System.clearProperty(Vectors.ALPHA_STAGES_PROPERTY);
        }
    }

    /**
     * The queued solve checks one iteration late, and CG's residual is not monotone: with a tolerance between ||r_j|| and
     * ||r_j+1|| where ||r_j+1|| > ||r_j|| (from the history of the iteration with one read-back each), the iteration after
     * the converged one has raised ||r|| above the target again, so the queued solve goes on and still ends converged,
     * with its final residual within the target and its history, monitor and progress calls one per counted iteration
     * (where it stopped at the follower, it would end above the target).
     */
    @Test
    void queuedSolveEndsWithinItsTolerance() {
        AparapiBackend be = OpenClAvailability.backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 3, 2, 7);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        int n = z.globalSize();
        double[] rhs = TestProblems.random(n, 427L);
        System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "cas");
        System.setProperty(AparapiBackend.ELEMENT_DOT_PROPERTY, "true");
        try (AssembledOperator a = AssembledOperator.bind(ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0), z, be);
             DeviceVector b = be.upload(rhs); DeviceVector xv = be.allocate(n)) {
            System.setProperty(AparapiBackend.CG_QUEUE_PROPERTY, "false");
            double[] h;
            double bNorm;
            try (ConjugateGradient cg = new ConjugateGradient(a).fixedIterations(150).recordHistory(true)) {
                be.fill(xv, 0);
                SolveResult r = cg.solve(b, xv);
                h = r.residualHistory();
                bNorm = r.rhsNorm();
            }
            // the first j at which ||r|| reaches a new low by at least 0.5 % and then rises by at least 0.5 %: margins far
            // above the runs' differences (the atomic sums' order differs from run to run: 1e-5 to 1e-3 relative after
            // 100 steps)
            int j = -1;
            double low = h[0];
            for (int i = 1; i + 1 < h.length && j < 0; i++) {
                if (1.005 * h[i] < low && h[i + 1] > 1.005 * h[i]) {
                    j = i;
                }
                low = Math.min(low, h[i]);
            }
            double worst = 1;
            for (int i = 1; i + 1 < h.length; i++) {
                worst = Math.max(worst, h[i + 1] / h[i]);
            }
            assertTrue(j > 1, "a rise after a new low within " + (h.length - 1) + " iterations; the largest rise " + worst);
            double lowBefore = java.util.Arrays.stream(h, 0, j).min().orElseThrow();
            double target = 0.5 * (h[j] + Math.min(h[j + 1], lowBefore));
            System.setProperty(AparapiBackend.CG_QUEUE_PROPERTY, "true");
            int[] calls = new int[2];
            try (ConjugateGradient cg = new ConjugateGradient(a).relativeTolerance(target / bNorm).recordHistory(true)
                    .monitor((it, norm, t) -> calls[0]++).progress(it -> calls[1]++)) {
                be.fill(xv, 0);
                SolveResult r = cg.solve(b, xv);
                assertTrue(r.converged(), j + ": " + r);
                assertTrue(r.finalResidual() <= target, j + ": " + r + " against " + target);
                assertTrue(r.iterations() > j + 1, "it went on past j + 1 = " + (j + 1) + ": " + r);
                assertEquals(r.iterations() + 1, calls[0], "monitor: the start and each iteration");
                assertEquals(r.iterations(), calls[1], "progress: each iteration");
                assertEquals(r.finalResidual(), r.residualHistory()[r.iterations()], "the history's last entry");
                // half the 0.5 % margins of j: the two solves' atomic sums differ in order (a fresh-clone CI at 251cd74
                // measured 1.04e-3 relative at j, above the 1e-3 this allowed before)
                assertEquals(h[j], r.residualHistory()[j], 2.5e-3 * h[j], "the residuals of one read-back each");
            }
        }
    }

    /**
     * An indefinite operator (lambda = -50): the queued solve throws the breakdown at the iteration the one-read-back
     * iteration throws it, and leaves x as that one does (the steps queued after it do not move, the deferred alpha of the
     * last step that moved is added), to 1e-10 of its largest entry.
     */
    @Test
    void queuedBreakdownLeavesXAsTheIterationWithOneReadBack() {
        AparapiBackend be = OpenClAvailability.backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 3, 2, 3);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        int n = z.globalSize();
        double[] rhs = TestProblems.random(n, 431L);
        System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "cas");
        System.setProperty(AparapiBackend.ELEMENT_DOT_PROPERTY, "true");
        int[] at = new int[2];
        double[][] x = new double[2][];
        for (int arm = 0; arm < 2; arm++) {
            System.setProperty(AparapiBackend.CG_QUEUE_PROPERTY, arm == 1 ? "true" : "false");
            try (AssembledOperator a = AssembledOperator.bind(ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, -50), z, be);
                 DeviceVector b = be.upload(rhs); DeviceVector xv = be.allocate(n);
                 ConjugateGradient cg = new ConjugateGradient(a).relativeTolerance(1e-12)) {
                assertEquals(arm == 1, a.queuesCgIterations());
                be.fill(xv, 0);
                io.lobatto.solvers.SolverBreakdownException e = assertThrows(io.lobatto.solvers.SolverBreakdownException.class,
                        () -> cg.solve(b, xv));
                assertEquals(io.lobatto.solvers.SolverBreakdownException.Kind.NOT_POSITIVE_DEFINITE, e.kind(), e.getMessage());
                at[arm] = e.iteration();
                x[arm] = be.download(xv);
                // the backend's read-back slots are free again: a new solve starts
                be.fill(xv, 0);
                assertThrows(io.lobatto.solvers.SolverBreakdownException.class, () -> cg.solve(b, xv));
            }
        }
        assertTrue(at[0] > 2, "breaks down after a few iterations: " + at[0]);
        assertEquals(at[0], at[1], "the same iteration");
        double scale = java.util.Arrays.stream(x[0]).map(Math::abs).max().orElse(0);
        assertTrue(scale > 0);
        for (int i = 0; i < n; i++) {
            assertEquals(x[0][i], x[1][i], 1e-10 * scale, "x[" + i + "]");
        }
    }
}
