package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.ElementOperator;
import io.lobatto.solvers.ConjugateGradient;
import io.lobatto.solvers.JacobiPreconditioner;
import io.lobatto.solvers.SolveResult;

/**
 * The OpenCL calls of one BS3 (norm), BS4 (dot) and BS5 (fused CG update) call on a warm backend, counted with the
 * dedicated kernels and with the general one ({@link BackendCore#REDUCTION_KERNELS_PROPERTY}), and the
 * reductions over small vectors in the small work-group ({@link BackendCore#SMALL_REDUCE_GROUP_PROPERTY}) against
 * the backend's group (the path before): sums to 1e-15 relative, the same bits above the switch, the same CG
 * iterations.
 */
class ReductionCallsTest {

    /** The small group the tests use: 256, or less where the backend's own reduction group is not above 256. */
    private static int small(AparapiBackend be) {
        return Math.min(256, be.reductionGroupSize() / 4);
    }

    /**
     * On a backend of its own: one that other tests used may hold a side or copy queue, which synchronize also finishes.
     * The dedicated kernels (the default) and the general one make the same calls.
     */
    @Test
    void aWarmReductionIsOneLaunchAndOneBlockingReadWithNoArgumentSet() {
        OpenClAvailability.backend();                  // fails or skips as the other tests do without a device
        try (AparapiBackend be = new AparapiBackend()) {
            assertTrue(be.dedicatedReductions(), "the dedicated kernels by default");
            for (boolean dedicated : new boolean[] {true, false}) {
                be.dedicatedReductions(dedicated);
                calls(be);
            }
        }
    }

    private static void calls(AparapiBackend be) {
        for (int n : new int[] {128, 4096, 65536, 1 << 20}) {
            try (DeviceVector a = be.upload(TestProblems.random(n, 1)); DeviceVector b = be.upload(TestProblems.random(n, 2));
                 DeviceVector c = be.upload(TestProblems.random(n, 3)); DeviceVector d = be.upload(TestProblems.random(n, 4))) {
                for (String op : new String[] {"norm2", "dot", "cgUpdate", "cgUpdate, new alpha"}) {
                    call(be, op, 0, a, b, c, d);            // binds the vectors
                    be.synchronize();
                    long launches = be.launches();
                    long sets = be.argumentSets();
                    long waits = be.hostWaits()[0];
                    long finishes = be.queueFinishes();
                    int calls = 5;
                    for (int i = 1; i <= calls; i++) {
                        call(be, op, i, a, b, c, d);
                    }
                    String what = op + " over " + n + " entries" + (be.dedicatedReductions() ? "" : ", general kernel");
                    assertEquals(calls, be.launches() - launches, what + ": launches");
                    assertEquals(op.endsWith("new alpha") ? calls : 0, be.argumentSets() - sets, what + ": clSetKernelArg calls");
                    assertEquals(calls, be.hostWaits()[0] - waits, what + ": host waits (the blocking read of the partials)");
                    assertEquals(0, be.queueFinishes() - finishes, what + ": clFinish calls");
                    be.synchronize();
                    assertEquals(1, be.queueFinishes() - finishes, what + ": the suite's synchronize is one clFinish");
                }
            }
        }
    }

    private static void call(AparapiBackend be, String op, int i, DeviceVector a, DeviceVector b, DeviceVector c, DeviceVector d) {
        switch (op) {
            case "norm2" -> be.norm2(a);
            case "dot" -> be.dot(a, b);
            case "cgUpdate" -> be.cgUpdate(0, a, b, c, d);
            default -> be.cgUpdate(1e-9 * i, a, b, c, d);
        }
    }

    @Test
    void theSmallGroupSumsAgreeTo1e15RelativeAndKeepTheBitsAboveTheSwitch() {
        AparapiBackend be = OpenClAvailability.backend();
        int small = small(be);
        int before = be.smallReduceGroup();
        int limit = small * BackendCore.SMALL_REDUCE_GROUPS;
        try {
            for (int n : new int[] {1, 100, 128, 1000, 4096, limit / 2 + 3, limit, limit + 1, 4 * limit + 7}) {
                double[] x = positive(n, 11);
                double[] y = positive(n, 12);
                double[][] old = reductions(be, 0, x, y);
                double[][] now = reductions(be, small, x, y);
                for (int k = 0; k < old.length; k++) {
                    if (n > limit) {
                        assertArrayEquals(old[k], now[k], 0, "n = " + n + " above the switch: the same bits, sum " + k);
                    } else {
                        for (int c = 0; c < old[k].length; c++) {
                            double rel = Math.abs(now[k][c] - old[k][c]) / Math.abs(old[k][c]);
                            if (System.getProperty("bst0.print") != null) {
                                System.out.println("n " + n + " sum " + k + "." + c + " rel " + rel);
                            }
                            assertTrue(rel <= 1e-15, "n = " + n + ", sum " + k + "." + c + ": " + now[k][c] + " against "
                                    + old[k][c] + " (relative " + rel + ")");
                        }
                    }
                }
                if (n <= limit && n > small) {
                    assertTrue(BackendCore.reductionGroups(n, small) != BackendCore.reductionGroups(n, be.reductionGroupSize()),
                            "n = " + n + ": the small path changes the number of groups");
                }
            }
        } finally {
            be.smallReduceGroup(before);
        }
    }

    /** Entries in (0.5, 1.5): sums without cancellation, so that 1e-15 relative is a statement about the order. */
    private static double[] positive(int n, long seed) {
        double[] r = TestProblems.random(n, seed);
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = 1 + 0.5 * Math.sin(7 * r[i] + i);
        }
        return v;
    }

    /** dot, norm², the CG update's r.r and the PCG update's (r.r, r.z) with small group {@code small} (0: the old path). */
    private static double[][] reductions(AparapiBackend be, int small, double[] x, double[] y) {
        be.smallReduceGroup(small);
        int n = x.length;
        try (DeviceVector a = be.upload(x); DeviceVector b = be.upload(y); DeviceVector p = be.upload(y);
             DeviceVector xx = be.upload(x); DeviceVector r = be.upload(x); DeviceVector d = be.upload(y);
             DeviceVector z = be.allocate(n)) {
            double dot = be.dot(a, b);
            double norm = be.norm2(a);
            double cg = be.cgUpdate(0.25, p, b, xx, r);
            double[] dots = new double[2];
            be.pcgUpdate(0.125, p, b, xx, r, d, z, dots);
            return new double[][] {{dot}, {norm}, {cg}, dots};
        }
    }

    @Test
    void cgTakesTheSameIterationsWithTheSmallGroup() {
        AparapiBackend be = OpenClAvailability.backend();
        int small = small(be);
        int before = be.smallReduceGroup();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 3, 2, 4);
        ScatterOperator zop = TestProblems.dirichlet(mesh);
        try (AssembledOperator a = AssembledOperator.bind(ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0.5), zop, be);
             JacobiPreconditioner jacobi = JacobiPreconditioner.of(a)) {
            assertTrue(a.size() <= small * BackendCore.SMALL_REDUCE_GROUPS && a.size() > small, "the problem is in the small range");
            double[] b = TestProblems.random(a.size(), 5);
            for (boolean pcg : new boolean[] {false, true}) {
                SolveResult[] res = new SolveResult[2];
                double[][] sol = new double[2][];
                for (int v = 0; v < 2; v++) {
                    be.smallReduceGroup(v == 0 ? 0 : small);
                    try (DeviceVector bv = be.upload(b); DeviceVector x = be.allocate(a.size());
                         ConjugateGradient cg = new ConjugateGradient(a, pcg ? jacobi : null).relativeTolerance(1e-10).maxIterations(2000)) {
                        res[v] = cg.solve(bv, x);
                        sol[v] = be.download(x);
                    }
                }
                String what = pcg ? "Jacobi PCG" : "CG";
                assertEquals(res[0].iterations(), res[1].iterations(), what + ": iterations, old path against the small group");
                assertTrue(res[0].iterations() > 10, what + ": " + res[0].iterations() + " iterations");
                double diff = 0;
                double size = 0;
                for (int i = 0; i < sol[0].length; i++) {
                    diff = Math.max(diff, Math.abs(sol[0][i] - sol[1][i]));
                    size = Math.max(size, Math.abs(sol[0][i]));
                }
                assertTrue(diff <= 1e-9 * size, what + ": solutions differ by " + diff + " (max |x| " + size + ")");
            }
        } finally {
            be.smallReduceGroup(before);
        }
    }
}
