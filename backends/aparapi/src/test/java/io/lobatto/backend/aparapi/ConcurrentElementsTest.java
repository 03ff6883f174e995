package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.ElementOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The element launch of the fused operator split over two kernel queues
 * ({@link AparapiBackend#applyAssembledElementsConcurrent}, {@link AparapiBackend#joinConcurrent}): elements [0, mid) on
 * the kernel queue, [mid, side) on the second queue behind a marker of the work queued before, [side, E) on the kernel
 * queue after other work, then the join and the gather give bitwise y_G = Z^T S_L Z x_G of one launch over all elements,
 * with x_G changed by 40 launches on the kernel queue before every apply (a second-queue launch that did not wait for
 * them could read an older x_G), for every split of a 4 x 3 x 5 mesh.
 */
@ExtendWith(io.lobatto.backend.aparapi.conformance.SkipWithoutOpenCl.class)
class ConcurrentElementsTest {

    @Test
    void twoQueuesGiveBitwiseTheOneLaunch() {
        AparapiBackend be = OpenClAvailability.backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(4, 3, 5, 3);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        ElementOperator op = ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0.5);
        int e = op.elementCount();
        int ng = z.globalSize();
        try (AssembledOperator a = AssembledOperator.bind(op, z, be);
             DeviceVector x0 = be.upload(TestProblems.random(ng, 5));
             DeviceVector x = be.upload(TestProblems.random(ng, 6));
             DeviceVector yl = be.allocate(z.localSize()); DeviceVector yl2 = be.allocate(z.localSize());
             DeviceVector want = be.allocate(ng); DeviceVector got = be.allocate(ng); DeviceVector other = be.allocate(ng)) {
            DeviceElementData data = a.boundElementOperator().data();
            DeviceScatter dz = a.deviceScatter();
            int[][] splits = {{12, 36}, {12, 60}, {0, 60}, {30, 30}, {1, 2}, {59, 60}, {0, 0}};
            for (int[] s : splits) {
                for (int rep = 0; rep < 3; rep++) {
                    for (int k = 0; k < 40; k++) {
                        be.axpby(1, x0, 1, x);                    // x += x0: x changes on the kernel queue before the apply
                    }
                    be.fill(yl2, 7);
                    long before = be.launches();
                    be.applyAssembledElementsConcurrent(data, dz, 0.5, 0, x, yl2, 0, s[0], s[1]);
                    be.fill(other, 3);                             // other work on the kernel queue meanwhile
                    be.applyAssembledElements(data, dz, 0.5, 0, x, yl2, s[1], e);
                    be.joinConcurrent();
                    double dotGot = be.gatherDot(dz, yl2, x, got);
                    long launches = be.launches() - before;
                    be.applyAssembledElements(data, dz, 0.5, 0, x, yl, 0, e);   // the reference, on the same x
                    double dotWant = be.gatherDot(dz, yl, x, want);
                    String what = "split " + s[0] + "/" + s[1] + " of " + e + ", rep " + rep;
                    int ranges = (s[0] > 0 ? 1 : 0) + (s[1] > s[0] ? 1 : 0) + (e > s[1] ? 1 : 0);
                    assertEquals(ranges + 2, launches, what + ": element launches, the fill and the gather");
                    assertArrayEquals(be.download(want), be.download(got), 0.0, what);
                    assertEquals(dotWant, dotGot, 0.0, what + ": x . y");
                }
            }
            // ranges out of order or past the elements
            assertThrows(IllegalArgumentException.class,
                    () -> be.applyAssembledElementsConcurrent(data, dz, 0.5, 0, x, yl2, 0, 20, 10));
            assertThrows(IllegalArgumentException.class,
                    () -> be.applyAssembledElementsConcurrent(data, dz, 0.5, 0, x, yl2, 0, 20, e + 1));
        }
    }
}
