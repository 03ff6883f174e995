package io.lobatto.backend.cpu;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import io.lobatto.core.backend.DevicePointwiseData;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.pointwise.FieldEvaluation;
import io.lobatto.core.pointwise.Quadrature;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** The user-operator kernel against the dense reference for random degree, quadrature, ncomp, evaluation and threads. */
class PointwiseOperatorPropertyTest {

    @Property(tries = 25)
    void applyPointwiseMatchesDenseReference(@ForAll @IntRange(min = 1, max = 6) int n,
                                             @ForAll Quadrature quadrature,
                                             @ForAll @IntRange(min = 1, max = 3) int ncomp,
                                             @ForAll FieldEvaluation evaluation,
                                             @ForAll @IntRange(min = 1, max = 3) int threads,
                                             @ForAll long seed) {
        Random rnd = new Random(seed);
        Basis1D basis = Basis1D.of(n);
        int elements = 1 + rnd.nextInt(3);
        int points = quadrature.pointsPerElement(basis);
        // arbitrary (not necessarily definite) data: the operator is linear in x whatever the data
        double[] pd = TestSupport.random(rnd, elements * points * 7);
        PointwiseOperatorTest.Diffusion f = new PointwiseOperatorTest.Diffusion(ncomp, evaluation);
        double[] x = TestSupport.random(rnd, ncomp * elements * basis.np());
        double[] expected = PointwiseOperatorTest.denseApply(f, basis, quadrature, elements, pd, x);
        try (CpuBackend b = new CpuBackend(threads);
             DevicePointwiseData data = b.uploadPointwise(f, basis, quadrature, elements, pd);
             DeviceVector xl = b.upload(x);
             DeviceVector yl = b.allocate(x.length)) {
            b.applyPointwise(data, xl, yl);
            double err = TestSupport.relErr(b.download(yl), expected);
            assertTrue(TestSupport.maxAbs(expected) > 0, "zero reference");
            assertTrue(err < 1e-12, "N=" + n + " " + quadrature + " ncomp=" + ncomp + " " + evaluation + ": relative error "
                    + err);
        }
    }
}
