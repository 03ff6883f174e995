package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceOperator;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.ElementOperator;
import io.lobatto.solvers.ConjugateGradient;
import io.lobatto.solvers.JacobiPreconditioner;
import io.lobatto.solvers.Preconditioner;

/**
 * Kernel launches per CG iteration, counted between two consecutive iterations (progress callbacks), so
 * the one-off work of a solve is excluded. With the search direction folded in: the element kernel
 * reading z + beta p through the scatter ids, the gather writing the new p with p.Ap, (pcg|cg)Update =
 * 3 launches for both Jacobi PCG and plain CG, with two read-backs (p.Ap and the update's dots); by
 * default an axpby first, 4. The generic path (operator and preconditioner that hide the fusion) takes
 * 7 and 5.
 */
class CgLaunchCountTest {

    private static final int ITERATIONS = 6;

    /** Launches between consecutive iterations, and the op names launched after the first iteration. */
    private static long[] launchesPerIteration(AparapiBackend be, DeviceOperator op, Preconditioner pc, Set<String> ops) {
        List<Long> at = new ArrayList<>();
        try (DeviceVector b = be.upload(TestProblems.random(op.size(), 3)); DeviceVector x = be.allocate(op.size());
             ConjugateGradient cg = new ConjugateGradient(op, pc).fixedIterations(ITERATIONS)
                     .progress(it -> {
                         at.add(be.launches());
                         if (at.size() == 1) {
                             be.collectStatistics(true); // from the end of iteration 1: iterations only
                         }
                     })) {
            cg.solve(b, x);
            be.statistics().forEach(s -> ops.add(s.op()));
            be.collectStatistics(false);
        }
        assertEquals(ITERATIONS, at.size());
        long[] d = new long[at.size() - 1];
        for (int i = 1; i < at.size(); i++) {
            d[i - 1] = at.get(i) - at.get(i - 1);
        }
        return d;
    }

    private static DeviceOperator hideFusion(AssembledOperator a) {
        return new DeviceOperator() {
            @Override
            public Backend backend() {
                return a.backend();
            }

            @Override
            public int size() {
                return a.size();
            }

            @Override
            public void apply(DeviceVector x, DeviceVector y) {
                a.apply(x, y);
            }
        };
    }

    @Test
    void fusedCgAndJacobiPcgTakeThreeLaunchesPerIterationWithTheSearchDirectionFolded() {
        AparapiBackend be = OpenClAvailability.backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, 4);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        boolean before = be.foldSearchDirection();
        be.foldSearchDirection(true);
        try {
            try (AssembledOperator a = AssembledOperator.bind(ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0.5), z, be);
                 JacobiPreconditioner jacobi = JacobiPreconditioner.of(a)) {
                Set<String> pcgOps = new TreeSet<>();
                for (long d : launchesPerIteration(be, a, jacobi, pcgOps)) {
                    assertEquals(3, d, "fused Jacobi PCG: element (reads z + beta p), gather+dot+update, pcgUpdate");
                }
                assertTrue(pcgOps.containsAll(Set.of("BP3.5 N=4 (assembled, p update)", gather("gather+dot+update"), "pcgUpdate")),
                        pcgOps.toString());
                assertTrue(!pcgOps.contains("axpby"), "p = z + beta p is folded into the operator: " + pcgOps);
                assertTrue(!pcgOps.contains("dot") && !pcgOps.contains("pointwiseMultiply") && !pcgOps.contains("cgUpdate"),
                        "no separate dot, z = M^-1 r or cgUpdate in fused PCG: " + pcgOps);

                Set<String> cgOps = new TreeSet<>();
                for (long d : launchesPerIteration(be, a, null, cgOps)) {
                    assertEquals(3, d, "fused CG: element (reads r + beta p), gather+dot+update, cgUpdate");
                }
                assertTrue(cgOps.containsAll(Set.of("BP3.5 N=4 (assembled, p update)", gather("gather+dot+update"), "cgUpdate")),
                        cgOps.toString());
                assertTrue(!cgOps.contains("axpby"), "p = r + beta p is folded into the operator: " + cgOps);
                assertTrue(!cgOps.contains("dot") && !cgOps.contains(gather("gather")),
                        "no separate p.Ap or gather without it in fused CG: " + cgOps);

                Set<String> ignored = new TreeSet<>();
                for (long d : launchesPerIteration(be, hideFusion(a), jacobi::apply, ignored)) {
                    assertEquals(7, d, "generic PCG: element, gather, dot, cgUpdate, pointwiseMultiply, dot, axpby");
                }
                for (long d : launchesPerIteration(be, hideFusion(a), null, ignored)) {
                    assertEquals(5, d, "generic CG: element, gather, dot, cgUpdate, axpby");
                }
            }
        } finally {
            be.foldSearchDirection(before);
        }
    }

    /** The label of gather kernel {@code op} in the kind of Z the tests upload ({@code -Dlobatto.aparapi.gatherScatter}). */
    private static String gather(String op) {
        int kind = GatherScatter.kind();
        return op + (kind == GatherScatter.BLOCKS ? "" : kind == GatherScatter.ROWS ? " (rows)" : " (tiles)");
    }

    /** The default (faster on the H100): the update of p as an axpby of its own, four launches. */
    @Test
    void fusedCgAndJacobiPcgTakeFourLaunchesPerIterationByDefault() {
        AparapiBackend be = OpenClAvailability.backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, 4);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        boolean before = be.foldSearchDirection();
        be.foldSearchDirection(false);
        try (AssembledOperator a = AssembledOperator.bind(ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0.5), z, be);
             JacobiPreconditioner jacobi = JacobiPreconditioner.of(a)) {
            Set<String> pcgOps = new TreeSet<>();
            for (long d : launchesPerIteration(be, a, jacobi, pcgOps)) {
                assertEquals(4, d, "fused Jacobi PCG: axpby, element (reads p through Z), gather+dot, pcgUpdate");
            }
            assertEquals(Set.of("axpby", "BP3.5 N=4 (assembled)", gather("gather+dot"), "pcgUpdate"), pcgOps);
        } finally {
            be.foldSearchDirection(before);
        }
    }
}
