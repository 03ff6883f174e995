package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.backend.aparapi.kernels.ElementOperands;
import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.ElementOperator;
import io.lobatto.solvers.ConjugateGradient;
import io.lobatto.solvers.JacobiPreconditioner;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The one-kernel assembled operator ({@link AparapiBackend#ONE_KERNEL_PROPERTY}: the element kernel writes the rows of
 * Z^T of degree 1 to y_G, the gather sums only the shared rows) against the element kernel and the gather of the rows
 * kind: y_G = Z^T S_L Z x_G (+ shift W) bit for bit, the dot x_G . y_G to 1e-14, the same CG iterations; for BP1.0,
 * BP3.5 and BP3.0 in both thread structures (and the pipelined ones of BP3.0 and BP3.5), N = 1..7, with masked nodes.
 */
@ExtendWith(io.lobatto.backend.aparapi.conformance.SkipWithoutOpenCl.class)
class OneKernelOperatorTest {

    @AfterEach
    void clear() {
        System.clearProperty(AparapiBackend.ONE_KERNEL_PROPERTY);
        System.clearProperty(GatherScatter.KIND_PROPERTY);
    }

    private static AssembledOperator bind(AparapiBackend be, ElementOperator op, ScatterOperator z, double shift, boolean one) {
        System.setProperty(AparapiBackend.ONE_KERNEL_PROPERTY, Boolean.toString(one));
        try {
            return AssembledOperator.bind(op, z, be, shift);
        } finally {
            System.clearProperty(AparapiBackend.ONE_KERNEL_PROPERTY);
        }
    }

    /** One check of a one-kernel form against the element kernel and the gather, on one mesh, mask and shift. */
    interface MaskedCheck {
        void check(ElementKernel kernel, SpectralElementMesh mesh, ScatterOperator z, double shift, String what);
    }

    /**
     * {@code check} for BP1.0, BP3.5 and BP3.0 at N = 1..7 on a deformed 3 x 2 x 2 box, with the Dirichlet mask and shift 0
     * and with a partial mask and shift 0.6 (also {@link AtomicOperatorTest}'s).
     */
    static void everyKernelAndDegree(MaskedCheck check) {
        for (int degree = 1; degree <= 7; degree++) {
            SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
            for (ElementKernel kernel : ElementKernel.values()) {
                check.check(kernel, mesh, TestProblems.dirichlet(mesh), 0, kernel + " N=" + degree + " Dirichlet");
                check.check(kernel, mesh, TestProblems.partlyMasked(mesh), 0.6, kernel + " N=" + degree + " partly masked, shift 0.6");
            }
        }
    }

    /** The labels of the kernels {@code r} launched on {@code be} (also {@link AtomicOperatorTest}'s). */
    static List<String> launched(AparapiBackend be, Runnable r) {
        java.util.Map<String, Long> before = new java.util.HashMap<>();
        be.builtKernels().forEach((label, k) -> before.put(label, k.launches()));
        r.run();
        List<String> out = new ArrayList<>();
        be.builtKernels().forEach((label, k) -> {
            if (k.launches() > before.getOrDefault(label, 0L)) {
                out.add(label);
            }
        });
        return out;
    }

    private static void assertOneKernelAgrees(AparapiBackend be, ElementKernel kernel, SpectralElementMesh mesh, ScatterOperator z,
                                              double shift, String what) {
        int degree = mesh.degree();
        ElementOperator op = ElementOperator.of(kernel, mesh, 0.75);
        try (AssembledOperator two = bind(be, op, z, shift, false); AssembledOperator one = bind(be, op, z, shift, true);
             DeviceVector x = be.upload(TestProblems.random(z.globalSize(), degree * 31L + (shift > 0 ? 1 : 0)));
             DeviceVector y2 = be.allocate(z.globalSize()); DeviceVector y1 = be.allocate(z.globalSize())) {
            be.fill(y1, 7);
            two.apply(x, y2);
            List<String> ops = launched(be, () -> one.apply(x, y1));
            assertTrue(ops.stream().anyMatch(s -> s.endsWith("(one kernel)") && s.startsWith("gather ")), what + ": " + ops);
            assertTrue(ops.stream().anyMatch(s -> s.endsWith(" (one kernel)") && s.contains("N=" + degree)), what + ": " + ops);
            double[] want = be.download(y2);
            assertArrayEquals(want, be.download(y1), 0.0, what + ": apply");
            be.fill(y1, 7);
            double d2 = two.applyDot(x, y2);
            double d1 = one.applyDot(x, y1);
            assertArrayEquals(want, be.download(y1), 0.0, what + ": applyDot y_G");
            assertEquals(d2, d1, 1e-14 * Math.abs(d2), what + ": applyDot's dot");
        }
    }

    @Test
    void everyKernelAndDegreeWithMaskedNodes() {
        AparapiBackend be = OpenClAvailability.backend();
        everyKernelAndDegree((kernel, mesh, z, shift, what) -> assertOneKernelAgrees(be, kernel, mesh, z, shift, what));
    }

    @Test
    void theSharedThreadStructure() {
        AparapiBackend be = SharedVariantBackend.get();
        for (int degree : new int[] {2, 5, 7}) {
            SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
            for (ElementKernel kernel : ElementKernel.values()) {
                assertOneKernelAgrees(be, kernel, mesh, TestProblems.dirichlet(mesh), 0, "shared " + kernel + " N=" + degree);
            }
        }
    }

    /** The pipelined BP3.0 kernel ({@link ElementVariant#PIPELINED}) writes the degree-1 rows of y_G as the others do. */
    @Test
    void thePipelinedBp30() {
        AparapiBackend be = PipelinedVariantBackend.get();
        for (int degree : new int[] {2, 5, 7}) {
            SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
            assertOneKernelAgrees(be, ElementKernel.STIFFNESS_BP30, mesh, TestProblems.dirichlet(mesh), 0,
                    "pipelined BP3.0 N=" + degree + " Dirichlet");
            assertOneKernelAgrees(be, ElementKernel.STIFFNESS_BP30, mesh, TestProblems.partlyMasked(mesh), 0.6,
                    "pipelined BP3.0 N=" + degree + " partly masked, shift 0.6");
        }
    }

    /** The pipelined BP3.5 kernel ({@link ElementVariant#PIPELINED}) writes the degree-1 rows of y_G as the others do. */
    @Test
    void thePipelinedBp35() {
        AparapiBackend be = PipelinedVariantBackend.get();
        for (int degree : new int[] {1, 2, 5, 7}) {
            SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
            assertOneKernelAgrees(be, ElementKernel.STIFFNESS_BP35, mesh, TestProblems.dirichlet(mesh), 0,
                    "pipelined BP3.5 N=" + degree + " Dirichlet");
            assertOneKernelAgrees(be, ElementKernel.STIFFNESS_BP35, mesh, TestProblems.partlyMasked(mesh), 0.6,
                    "pipelined BP3.5 N=" + degree + " partly masked, shift 0.6");
        }
    }

    /** Z built on the device ({@link ScatterBuild}, the main job's path) takes the flagged ids too. */
    @Test
    void zBuiltOnTheDevice() {
        AparapiBackend be = OpenClAvailability.backend();
        for (int degree : new int[] {3, 7}) {
            SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
            boolean[] mask = mesh.boundaryMaskAllTagged();
            ElementOperator op = ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0);
            AssembledOperator two = AssembledOperator.bind(op, mesh, mask, be);
            System.setProperty(AparapiBackend.ONE_KERNEL_PROPERTY, "true");
            AssembledOperator one;
            try {
                one = AssembledOperator.bind(op, mesh, mask, be);
            } finally {
                System.clearProperty(AparapiBackend.ONE_KERNEL_PROPERTY);
            }
            try (two; one; DeviceVector x = be.upload(TestProblems.random(two.size(), degree));
                 DeviceVector y2 = be.allocate(two.size()); DeviceVector y1 = be.allocate(two.size())) {
                double d2 = two.applyDot(x, y2);
                double[] d1 = new double[1];
                List<String> ops = launched(be, () -> d1[0] = one.applyDot(x, y1));
                assertTrue(ops.contains("gather+dot (one kernel)"), "N = " + degree + ": " + ops);
                assertArrayEquals(be.download(y2), be.download(y1), 0.0, "N = " + degree + ": y_G");
                assertEquals(d2, d1[0], 1e-14 * Math.abs(d2), "N = " + degree + ": the dot");
            }
        }
    }

    /** Jacobi PCG to 1e-10 takes the same iterations and gives the same solution either way. */
    @Test
    void cgTakesTheSameIterations() {
        AparapiBackend be = OpenClAvailability.backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 3, 2, 5);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        ElementOperator op = ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0);
        double[][] x = new double[2][];
        int[] iterations = new int[2];
        for (int v = 0; v < 2; v++) {
            try (AssembledOperator a = bind(be, op, z, 0, v == 1); JacobiPreconditioner jacobi = JacobiPreconditioner.of(a);
                 DeviceVector b = be.upload(TestProblems.random(z.globalSize(), 9)); DeviceVector xv = be.allocate(z.globalSize());
                 ConjugateGradient cg = new ConjugateGradient(a, jacobi).relativeTolerance(1e-10).maxIterations(2000)) {
                iterations[v] = cg.solve(b, xv).iterations();
                x[v] = be.download(xv);
            }
        }
        assertTrue(iterations[0] > 10, "iterations " + iterations[0]);
        assertEquals(iterations[0], iterations[1], "iterations, element kernel + gather against one kernel");
        assertArrayEquals(x[0], x[1], 0.0, "solution");
    }

    /** The flagged ids: + 2^30 exactly at the local nodes that are their row's only entry; masked nodes stay -1. */
    @Test
    void directIdsFlagTheDegreeOneRows() {
        ScatterOperator z = TestProblems.partlyMasked(TestProblems.deformedBox(2, 2, 2, 3));
        int[] ids = z.scatterIds();
        int[] deg = z.degree();
        int[] flagged = GatherScatter.directIds(ids, z.gatherStarts(), z.globalSize());
        int interior = 0;
        for (int i = 0; i < ids.length; i++) {
            boolean one = ids[i] >= 0 && deg[ids[i]] == 1;
            assertEquals(one ? ids[i] + ElementOperands.DIRECT_FLAG : ids[i], flagged[i], "local node " + i);
            interior += one ? 1 : 0;
        }
        assertTrue(interior >= 8 * 8, interior + " degree-1 local nodes (8 elements of 2^3 interior nodes)");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> GatherScatter.directIds(new int[0], new int[] {0}, (1 << 30) + 1));
        assertEquals("-Dlobatto.aparapi.oneKernelOperator=true: globalSize 1073741825 is above the one-kernel operator's "
                + "limit 1073741824", e.getMessage());
    }

    /** The blocks kind keeps the element kernel and the gather. */
    @Test
    void theBlocksKindIgnoresTheProperty() {
        AparapiBackend be = OpenClAvailability.backend();
        ScatterOperator z = TestProblems.dirichlet(TestProblems.deformedBox(2, 2, 2, 3));
        System.setProperty(GatherScatter.KIND_PROPERTY, "blocks");
        System.setProperty(AparapiBackend.ONE_KERNEL_PROPERTY, "true");
        try (ClScatter s = (ClScatter) be.uploadScatter(z.scatterIds(), z.gatherStarts(), z.gatherIds(), z.blockStarts(),
                z.inverseDegree(), z.globalSize())) {
            assertNull(s.directIds);
        }
    }
}
