package io.lobatto.backend.cpu;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import org.junit.jupiter.api.Test;
import java.util.Random;

import io.lobatto.core.backend.DevicePointwiseData;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.pointwise.FieldEvaluation;
import io.lobatto.core.pointwise.Quadrature;

/** The user-operator kernel against the dense reference for random degree, quadrature, ncomp, evaluation and threads. */
class PointwiseOperatorPropertyTest {

    @Test
    void applyPointwiseMatchesDenseReference() {
        qt().withExamples(25).forAll(integers().between(1, 6).zip(arbitrary().enumValues(Quadrature.class), integers().between(1, 3), Shape::new),
                arbitrary().enumValues(FieldEvaluation.class), integers().between(1, 3), longs().all()).checkAssert((shape, evaluation, threads, seed) -> {
            int n = shape.n(), ncomp = shape.ncomp();
            Quadrature quadrature = shape.quadrature();
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
        });
    }

    /** Degree, quadrature and component count of one case (one generator: QuickTheories takes at most four). */
    private record Shape(int n, Quadrature quadrature, int ncomp) {
    }
}
