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
        int degree = mesh.degree();
        ElementOperator op = ElementOperator.of(kernel, mesh, 0.75);
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
            assertTrue(ops.stream().anyMatch(s -> s.endsWith("(one kernel, atomic)") && s.contains("N=" + degree)), what + ": " + ops);
            assertFalse(ops.stream().anyMatch(s -> s.startsWith("gather")), what + ": no gather, " + ops);
            double[] want = be.download(y2);
            double[] got = be.download(y1);
            double scale = 0;
            for (double v : want) {
                scale = Math.max(scale, Math.abs(v));
            }
            assertTrue(scale > 0, what + ": y_G is not zero");
            for (int i = 0; i < want.length; i++) {
                assertEquals(want[i], got[i], 1e-14 * scale, what + ": y_G[" + i + "]");
            }
        }
    }

    @Test
    void everyKernelAndDegreeWithMaskedNodes() {
        AparapiBackend be = OpenClAvailability.backend();
        for (int degree = 1; degree <= 7; degree++) {
            SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
            for (ElementKernel kernel : ElementKernel.values()) {
                assertAtomicAgrees(be, kernel, mesh, TestProblems.dirichlet(mesh), 0, kernel + " N=" + degree + " Dirichlet");
                assertAtomicAgrees(be, kernel, mesh, TestProblems.partlyMasked(mesh), 0.6,
                        kernel + " N=" + degree + " partly masked, shift 0.6");
            }
        }
    }

    @Test
    void theSharedAndPipelinedThreadStructures() {
        for (AparapiBackend be : new AparapiBackend[] {SharedVariantBackend.get(), PipelinedVariantBackend.get()}) {
            for (int degree : new int[] {2, 5, 7}) {
                SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
                for (ElementKernel kernel : ElementKernel.values()) {
                    assertAtomicAgrees(be, kernel, mesh, TestProblems.partlyMasked(mesh), 0.6, be + " " + kernel + " N=" + degree);
                }
            }
        }
    }

    @Test
    void anUnknownFormIsRejected() {
        System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "fast");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AparapiBackend.atomicOperator("NVIDIA Corporation", 1 << 22));
        assertEquals("-Dlobatto.aparapi.atomicOperator=fast: expected auto, off, cas or ptx", e.getMessage());
    }

    /** auto: NVIDIA's PTX form from 2^21 local nodes but BP3.5 at N = 4, the element kernel and the gather below and elsewhere. */
    @Test
    void autoTakesThePtxFormOnLargeNvidiaOperatorsOnly() {
        long big = AparapiBackend.ATOMIC_MIN_LOCAL;
        assertEquals(io.lobatto.backend.aparapi.kernels.ElementOperands.ATOMIC_PTX, AparapiBackend.atomicOperator("NVIDIA Corporation", big));
        assertEquals(0, AparapiBackend.atomicOperator("NVIDIA Corporation", big - 1));
        assertEquals(0, AparapiBackend.atomicOperator("The pocl project", big));
        assertEquals(0, AparapiBackend.atomicOperator("Advanced Micro Devices, Inc.", big));
        assertEquals(0, AparapiBackend.atomicOperator("NVIDIA Corporation", big, ElementKernel.STIFFNESS_BP35, 4));
        assertEquals(io.lobatto.backend.aparapi.kernels.ElementOperands.ATOMIC_PTX,
                AparapiBackend.atomicOperator("NVIDIA Corporation", big, ElementKernel.STIFFNESS_BP35, 5));
        System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "off");
        assertEquals(0, AparapiBackend.atomicOperator("NVIDIA Corporation", big));
        System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "cas");
        assertEquals(io.lobatto.backend.aparapi.kernels.ElementOperands.ATOMIC, AparapiBackend.atomicOperator("The pocl project", 1));
    }
}
