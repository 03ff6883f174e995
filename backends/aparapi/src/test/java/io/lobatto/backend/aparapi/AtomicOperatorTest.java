package io.lobatto.backend.aparapi;

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
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The one-kernel assembled operator with atomics ({@link AparapiBackend#ATOMIC_OPERATOR_PROPERTY} {@code cas}: every
 * element's output added into y_G by a 64-bit compare-and-swap loop, no y_L and no gather) against the element kernel
 * and the gather: y_G = Z^T S_L Z x_G (+ shift W) to 1e-14 of its largest entry (the additions' order differs), for
 * BP1.0, BP3.5 and BP3.0 in every thread structure, N = 1..7, with masked nodes; one launch besides the fill of y_G.
 * NVIDIA's {@code ptx} form compiles only there: the GPU runbook checks it the same way ({@code op}'s check of y_G).
 */
@ExtendWith(io.lobatto.backend.aparapi.conformance.SkipWithoutOpenCl.class)
class AtomicOperatorTest {

    @AfterEach
    void clear() {
        System.clearProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY);
    }

    private static void assertAtomicAgrees(AparapiBackend be, ElementKernel kernel, SpectralElementMesh mesh, ScatterOperator z,
                                           double shift, String what) {
        assertAtomicAgrees(be, ElementOperator.of(kernel, mesh, 0.75), mesh, z, shift, what, "");
    }

    /** As above for {@code op}, whose atomic launch's label must also contain {@code label}. */
    private static void assertAtomicAgrees(AparapiBackend be, ElementOperator op, SpectralElementMesh mesh, ScatterOperator z,
                                           double shift, String what, String label) {
        int degree = mesh.degree();
        try (AssembledOperator a = AssembledOperator.bind(op, z, be, shift);
             DeviceVector x = be.upload(TestProblems.random(z.globalSize(), degree * 37L + (shift > 0 ? 1 : 0)));
             DeviceVector y2 = be.allocate(z.globalSize()); DeviceVector y1 = be.allocate(z.globalSize())) {
            a.apply(x, y2);
            be.fill(y1, 7);
            System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "cas");
            List<String> ops;
            try {
                ops = OneKernelOperatorTest.launched(be, () -> a.apply(x, y1));
            } finally {
                System.clearProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY);
            }
            assertTrue(ops.stream().anyMatch(s -> s.endsWith("one kernel, atomic)") && s.contains("N=" + degree + " ")
                    && s.contains(label)), what + ": " + ops);
            assertFalse(ops.stream().anyMatch(s -> s.startsWith("gather")), what + ": no gather, " + ops);
            double[] want = be.download(y2);
            assertTrue(java.util.Arrays.stream(want).anyMatch(v -> v != 0), what + ": y_G is not zero");
            assertClose(want, be.download(y1), what + ": y_G");
        }
    }

    @Test
    void everyKernelAndDegreeWithMaskedNodes() {
        AparapiBackend be = OpenClAvailability.backend();
        OneKernelOperatorTest.everyKernelAndDegree((kernel, mesh, z, shift, what) -> assertAtomicAgrees(be, kernel, mesh, z, shift, what));
    }

    @Test
    void theSharedPipelinedAndPointsThreadStructures() {
        for (AparapiBackend be : new AparapiBackend[] {SharedVariantBackend.get(), PipelinedVariantBackend.get(),
                VariantBackends.get(ElementVariant.POINTS)}) {
            for (int degree : new int[] {2, 5, 7}) {
                SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
                for (ElementKernel kernel : ElementKernel.values()) {
                    assertAtomicAgrees(be, kernel, mesh, TestProblems.partlyMasked(mesh), 0.6, be + " " + kernel + " N=" + degree);
                }
            }
        }
    }

    /** BP3.5 with the geometric factors on the fly in the atomic form, in each of its thread structures. */
    @Test
    void theOnTheFlyThreadStructures() {
        for (ElementVariant v : new ElementVariant[] {ElementVariant.REGISTERS, ElementVariant.SHARED, ElementVariant.POINTS}) {
            AparapiBackend be = VariantBackends.at48KiB(v);
            for (int degree : new int[] {1, 4, 7, 10}) {
                SpectralElementMesh mesh = TestProblems.perturbedBox(3, 2, 2, degree, 0.2, 17L * degree);
                ElementOperator op = io.lobatto.operators.StiffnessBp35.on(mesh, 0.75).withGeometryOnTheFly();
                // the kernel that ran: the forced one where it fits 48 KiB (points to N = 10, shared to N = 12)
                String label = v == ElementVariant.REGISTERS ? "(factors on the fly, one kernel"
                        : "(factors on the fly, " + v.name().toLowerCase(java.util.Locale.ROOT) + ", one kernel";
                assertAtomicAgrees(be, op, mesh, TestProblems.partlyMasked(mesh), 0.6, v + " on the fly N=" + degree, label);
            }
        }
    }

    /**
     * CG's calls in the atomic form (the element kernel adds into y_G; then one pass p = z + beta p with p . y, or the dot
     * x . y) against the element kernel and the gather with its fused update and dot: y_G and p to 1e-14, the dots to
     * 1e-13; no gather launched. With {@code -Dlobatto.aparapi.atomicCg=false} they keep the gather.
     */
    @Test
    void cgsCallsAgree() {
        AparapiBackend be = OpenClAvailability.backend();
        for (int degree : new int[] {1, 3, 7}) {
            SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
            for (ElementKernel kernel : ElementKernel.values()) {
                ScatterOperator z = TestProblems.dirichlet(mesh);
                String what = kernel + " N=" + degree;
                try (AssembledOperator a = AssembledOperator.bind(ElementOperator.of(kernel, mesh, 0.75), z, be);
                     DeviceVector x = be.upload(TestProblems.random(z.globalSize(), degree * 41L));
                     DeviceVector dir = be.upload(TestProblems.random(z.globalSize(), degree * 43L));
                     DeviceVector p2 = be.upload(TestProblems.random(z.globalSize(), degree * 47L));
                     DeviceVector p1 = be.upload(be.download(p2));
                     DeviceVector y2 = be.allocate(z.globalSize()); DeviceVector y1 = be.allocate(z.globalSize())) {
                    double d2 = a.applyDot(x, y2);
                    double u2 = a.updateApplyDot(dir, 0.3, p2, y2);
                    double[] want = be.download(y2);
                    double[] dots = new double[2];
                    System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "cas");
                    List<String> ops;
                    try {
                        ops = OneKernelOperatorTest.launched(be, () -> {
                            dots[0] = a.applyDot(x, y1);
                            dots[1] = a.updateApplyDot(dir, 0.3, p1, y1);
                        });
                    } finally {
                        System.clearProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY);
                    }
                    // the folded p update where the operator folds it (BP3.5, BP3.0), else the axpby and the apply with its dot
                    assertTrue(ops.contains("updateDot") && ops.stream().anyMatch(o -> o.endsWith("(one kernel, atomic, p update)"))
                            || ops.contains("axpby") && ops.contains("dot") && ops.stream().anyMatch(o -> o.endsWith("(one kernel, atomic)")),
                            what + ": " + ops);
                    assertFalse(ops.stream().anyMatch(o -> o.startsWith("gather")), what + ": no gather, " + ops);
                    assertEquals(d2, dots[0], 1e-13 * Math.abs(d2), what + ": x . A x");
                    assertEquals(u2, dots[1], 1e-13 * Math.abs(u2), what + ": p . A p");
                    assertClose(want, be.download(y1), what + ": y_G = A p");
                    assertClose(be.download(p2), be.download(p1), what + ": p = z + beta p");
                }
            }
        }
        System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "cas");
        System.setProperty(AparapiBackend.ATOMIC_CG_PROPERTY, "false");
        try {
            SpectralElementMesh mesh = TestProblems.deformedBox(2, 2, 2, 3);
            ScatterOperator z = TestProblems.dirichlet(mesh);
            try (AssembledOperator a = AssembledOperator.bind(ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0), z, be);
                 DeviceVector x = be.upload(TestProblems.random(z.globalSize(), 5)); DeviceVector y = be.allocate(z.globalSize())) {
                List<String> ops = OneKernelOperatorTest.launched(be, () -> a.applyDot(x, y));
                assertTrue(ops.stream().anyMatch(o -> o.startsWith("gather")), "atomicCg=false keeps the gather: " + ops);
            }
        } finally {
            System.clearProperty(AparapiBackend.ATOMIC_CG_PROPERTY);
        }
    }

    /**
     * CG's call with the search direction folded into the operator ({@code foldSearchDirection}, off by default): in the
     * atomic form the element kernel reads z + beta p through Z and adds into y_G, then {@code ReductionKernel.UPDATE_DOT}
     * writes p and sums p . y; against the element kernel and the gather with its fused update and dot, for BP3.5 and
     * BP3.0 (the operators that fold it), on 2 x 2 x 1 elements (one reduction group) and 10 x 10 x 8 (19343 rows at
     * N = 3: many groups). Until the reductions' kernel cache had room for this op it threw.
     */
    @Test
    void foldedSearchDirectionAgrees() {
        try (AparapiBackend be = new AparapiBackend()) {
            be.foldSearchDirection(true);
            for (int[] box : new int[][] {{2, 2, 1}, {10, 10, 8}}) {
                SpectralElementMesh mesh = TestProblems.deformedBox(box[0], box[1], box[2], 3);
                for (ElementKernel kernel : new ElementKernel[] {ElementKernel.STIFFNESS_BP35, ElementKernel.STIFFNESS_BP30}) {
                    ScatterOperator z = TestProblems.dirichlet(mesh);
                    String what = kernel + " " + z.globalSize() + " rows";
                    try (AssembledOperator a = AssembledOperator.bind(ElementOperator.of(kernel, mesh, 0.75), z, be);
                         DeviceVector dir = be.upload(TestProblems.random(z.globalSize(), 53));
                         DeviceVector p2 = be.upload(TestProblems.random(z.globalSize(), 59));
                         DeviceVector p1 = be.upload(be.download(p2));
                         DeviceVector y2 = be.allocate(z.globalSize()); DeviceVector y1 = be.allocate(z.globalSize())) {
                        double want = a.updateApplyDot(dir, 0.3, p2, y2);
                        double got;
                        System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "cas");
                        List<String> ops;
                        double[] dot = new double[1];
                        try {
                            ops = OneKernelOperatorTest.launched(be, () -> dot[0] = a.updateApplyDot(dir, 0.3, p1, y1));
                        } finally {
                            System.clearProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY);
                        }
                        got = dot[0];
                        assertTrue(ops.contains("updateDot") && ops.stream().anyMatch(o -> o.endsWith("(one kernel, atomic, p update)")),
                                what + ": " + ops);
                        assertEquals(want, got, 1e-13 * Math.abs(want), what + ": p . A p");
                        assertClose(be.download(y2), be.download(y1), what + ": y_G = A p");
                        assertClose(be.download(p2), be.download(p1), what + ": p = z + beta p");
                    }
                }
            }
        }
    }

    /** Jacobi PCG to 1e-10 with the atomic form: the same iterations (within one) and solution (to 1e-9 of its max). */
    @Test
    void cgConvergesAlike() {
        AparapiBackend be = OpenClAvailability.backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 3, 2, 5);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        double[][] x = new double[2][];
        int[] iterations = new int[2];
        for (int v = 0; v < 2; v++) {
            if (v == 1) {
                System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "cas");
            }
            try (AssembledOperator a = AssembledOperator.bind(ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0), z, be);
                 io.lobatto.solvers.JacobiPreconditioner jacobi = io.lobatto.solvers.JacobiPreconditioner.of(a);
                 DeviceVector b = be.upload(TestProblems.random(z.globalSize(), 9)); DeviceVector xv = be.allocate(z.globalSize());
                 io.lobatto.solvers.ConjugateGradient cg = new io.lobatto.solvers.ConjugateGradient(a, jacobi)
                         .relativeTolerance(1e-10).maxIterations(2000)) {
                iterations[v] = cg.solve(b, xv).iterations();
                x[v] = be.download(xv);
            } finally {
                System.clearProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY);
            }
        }
        assertTrue(iterations[0] > 10, "iterations " + iterations[0]);
        assertTrue(Math.abs(iterations[0] - iterations[1]) <= 1, "iterations " + iterations[0] + " and " + iterations[1]);
        double scale = 0;
        double diff = 0;
        for (int i = 0; i < x[0].length; i++) {
            scale = Math.max(scale, Math.abs(x[0][i]));
            diff = Math.max(diff, Math.abs(x[0][i] - x[1][i]));
        }
        assertTrue(diff <= 1e-9 * scale, "max |x - x_atomic| = " + diff + ", max |x| = " + scale);
    }

    private static void assertClose(double[] want, double[] got, String what) {
        double scale = 0;
        for (double v : want) {
            scale = Math.max(scale, Math.abs(v));
        }
        for (int i = 0; i < want.length; i++) {
            assertEquals(want[i], got[i], 1e-14 * scale, what + " [" + i + "]");
        }
    }

    /** The atomic form's variant table: the shared BP3.5 kernel at N = 3 and 4, the table elsewhere and in the other modes. */
    @Test
    void theAtomicFormsVariants() {
        int atomic = io.lobatto.backend.aparapi.kernels.ElementOperands.ATOMIC_PTX;
        for (int n = 1; n <= 15; n++) {
            for (ElementKernel k : ElementKernel.values()) {
                ElementVariant want = k == ElementKernel.STIFFNESS_BP35 && (n == 3 || n == 4) ? ElementVariant.SHARED
                        : ElementVariant.table(k, n);
                assertEquals(want, ElementVariant.of(k, n, "NVIDIA H100 80GB HBM3", atomic), k + " N=" + n);
                assertEquals(ElementVariant.table(k, n), ElementVariant.of(k, n, "NVIDIA H100 80GB HBM3", 1), k + " N=" + n);
            }
        }
        assertEquals(ElementVariant.amdTable(ElementKernel.STIFFNESS_BP35, 3),
                ElementVariant.of(ElementKernel.STIFFNESS_BP35, 3, "gfx90a:sramecc+:xnack-", atomic));
    }

    @Test
    void anUnknownFormIsRejected() {
        System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "fast");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AparapiBackend.atomicOperator("NVIDIA Corporation", 1 << 22));
        assertEquals("-Dlobatto.aparapi.atomicOperator=fast: expected auto, off, cas or ptx", e.getMessage());
    }

    /** auto: NVIDIA's PTX form from 2^21 local nodes, the element kernel and the gather below and elsewhere. */
    @Test
    void autoTakesThePtxFormOnLargeNvidiaOperatorsOnly() {
        long big = AparapiBackend.ATOMIC_MIN_LOCAL;
        assertEquals(io.lobatto.backend.aparapi.kernels.ElementOperands.ATOMIC_PTX, AparapiBackend.atomicOperator("NVIDIA Corporation", big));
        assertEquals(0, AparapiBackend.atomicOperator("NVIDIA Corporation", big - 1));
        assertEquals(0, AparapiBackend.atomicOperator("The pocl project", big));
        assertEquals(0, AparapiBackend.atomicOperator("Advanced Micro Devices, Inc.", big));
        assertEquals(io.lobatto.backend.aparapi.kernels.ElementOperands.ATOMIC_PTX, AparapiBackend.atomicOperator(true, big));
        assertEquals(0, AparapiBackend.atomicOperator(false, big));
        System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "off");
        assertEquals(0, AparapiBackend.atomicOperator("NVIDIA Corporation", big));
        System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "cas");
        assertEquals(io.lobatto.backend.aparapi.kernels.ElementOperands.ATOMIC, AparapiBackend.atomicOperator("The pocl project", 1));
    }
}
