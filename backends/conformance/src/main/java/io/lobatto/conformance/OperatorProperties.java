package io.lobatto.conformance;

import static io.lobatto.conformance.TestProblems.random;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import org.junit.jupiter.api.Test;
import java.util.Random;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.geometry.GeometricFactors;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.ElementOperator;
import io.lobatto.operators.MassOperator;

/**
 * The properties every assembled operator must have on every backend (site/src/site/markdown/design.md, "Testing"):
 * symmetry x.Ay = y.Ax; positivity x.Ax > 0; S annihilates constants; 1.M1 = volume; and, on an affine
 * mesh, u.Su and u.Mu equal the exact integrals of |grad u|^2 and u^2 for the polynomials each
 * quadrature integrates exactly.
 */
public abstract class OperatorProperties {

    /** The backend under test (shared; do not close). */
    protected abstract Backend backend();

    private double quadratic(AssembledOperator a, double[] x, double[] y) {
        Backend be = backend();
        try (DeviceVector dx = be.upload(x); DeviceVector dy = be.upload(y); DeviceVector ay = be.allocate(a.size())) {
            a.apply(dy, ay);
            return be.dot(dx, ay);
        }
    }

    @Test
    void symmetric() {
        qt().withExamples(15)
                .forAll(arbitrary().enumValues(ElementKernel.class), integers().between(1, 7), integers().between(0, 2), longs().all())
                .checkAssert((kernel, degree, maskKind, seed) -> {
            SpectralElementMesh mesh = TestProblems.deformedBox(2, 2, 1, degree);
            ScatterOperator z = maskKind == 0 ? TestProblems.unmasked(mesh)
                    : maskKind == 1 ? TestProblems.partlyMasked(mesh) : TestProblems.dirichlet(mesh);
            try (AssembledOperator a = AssembledOperator.bind(ElementOperatorConformance.make(kernel, mesh, 0.5), z, backend())) {
                double[] x = random(a.size(), seed), y = random(a.size(), seed ^ 0x5DEECE66DL);
                double xay = quadratic(a, x, y), yax = quadratic(a, y, x);
                double scale = Math.sqrt(Math.abs(quadratic(a, x, x) * quadratic(a, y, y)));
                assertEquals(xay, yax, 1e-12 * scale, kernel + " N=" + degree);
            }
        });
    }

    @Test
    void positiveDefinite() {
        qt().withExamples(15)
                .forAll(arbitrary().enumValues(ElementKernel.class), integers().between(1, 7), booleans().all(), longs().all())
                .checkAssert((kernel, degree, dirichlet, seed) -> {
            SpectralElementMesh mesh = TestProblems.deformedBox(2, 1, 2, degree);
            // positive definite with lambda > 0, or with lambda = 0 and a Dirichlet mask
            double lambda = dirichlet ? 0 : 0.1;
            ScatterOperator z = dirichlet ? TestProblems.dirichlet(mesh) : TestProblems.unmasked(mesh);
            if (z.globalSize() == 0) {
                return;
            }
            try (AssembledOperator a = AssembledOperator.bind(ElementOperatorConformance.make(kernel, mesh, lambda), z, backend())) {
                double[] x = random(a.size(), seed);
                assertTrue(quadratic(a, x, x) > 0, kernel + " N=" + degree);
            }
        });
    }

    @Test
    void stiffnessAnnihilatesConstants() {
        qt().withExamples(12).forAll(integers().between(1, 8), booleans().all()).checkAssert((degree, bp30) -> {
            SpectralElementMesh mesh = TestProblems.deformedBox(2, 2, 2, degree);
            ScatterOperator z = TestProblems.unmasked(mesh);
            ElementKernel k = bp30 ? ElementKernel.STIFFNESS_BP30 : ElementKernel.STIFFNESS_BP35;
            Backend be = backend();
            double[] ones = new double[z.globalSize()];
            java.util.Arrays.fill(ones, 1);
            try (AssembledOperator a = AssembledOperator.bind(ElementOperatorConformance.make(k, mesh, 0), z, be);
                 DeviceVector x = be.upload(ones); DeviceVector y = be.allocate(a.size())) {
                a.apply(x, y);
                double[] d = a.diagonal();
                double scale = TestProblems.maxAbs(d);
                assertTrue(TestProblems.maxAbs(be.download(y)) < 1e-12 * scale * 10, k + " N=" + degree);
            }
        });
    }

    @Test
    void massIntegratesOneToTheVolume() {
        qt().withExamples(64).forAll(integers().between(1, 8)).checkAssert(degree -> {
            SpectralElementMesh mesh = TestProblems.deformedBox(2, 3, 1, degree);
            ScatterOperator z = TestProblems.unmasked(mesh);
            double[] ones = new double[z.globalSize()];
            java.util.Arrays.fill(ones, 1);
            try (AssembledOperator a = AssembledOperator.bind(MassOperator.on(mesh), z, backend())) {
                double volume = GeometricFactors.atGauss(mesh).volume();
                assertEquals(volume, quadratic(a, ones, ones), 1e-13 * volume * 10, "1.M1 = sum of wJ at the GL points");
                // the deformation vanishes on the boundary, so the volume is the box's 1 * 2 * 1.5 = 3,
                // integrated exactly up to the quadrature error of the (smooth) map; a sanity bound:
                assertEquals(3.0, quadratic(a, ones, ones), degree >= 4 ? 1e-3 : 0.2);
            }
        });
    }

    /**
     * On an affine box, u(x,y,z) = sum c_abc x^a y^b z^c with a,b,c <= p: BP3.0 (GL, N+2 points) is
     * exact for p <= N (|grad u|^2 has degree 2N per direction); BP3.5 (GLL, exact to degree 2N-1)
     * only for p <= N-1; BP1.0 integrates u^2 exactly for p <= N.
     */
    @Test
    void exactForPolynomialsOnAffineMeshes() {
        qt().withExamples(20)
                .forAll(arbitrary().enumValues(ElementKernel.class), integers().between(1, 7), longs().all())
                .checkAssert((kernel, degree, seed) -> {
            int p = kernel == ElementKernel.STIFFNESS_BP35 ? degree - 1 : degree;
            double[] box = {0.5, 2.0, -1.0, 0.25, 0.0, 0.75};
            SpectralElementMesh mesh = TestProblems.box(2, 1, 2, degree, box);
            ScatterOperator z = TestProblems.unmasked(mesh);
            Random rnd = new Random(seed);
            double[][][] c = new double[p + 1][p + 1][p + 1];
            for (double[][] cc : c) {
                for (double[] ccc : cc) {
                    for (int i = 0; i < ccc.length; i++) {
                        ccc[i] = 2 * rnd.nextDouble() - 1;
                    }
                }
            }
            double[] coords = mesh.globalCoordinates();
            double[] uOrig = new double[mesh.globalNodeCount()];
            for (int g = 0; g < uOrig.length; g++) {
                uOrig[g] = Polynomials.eval(c, coords[3 * g], coords[3 * g + 1], coords[3 * g + 2]);
            }
            double[] u = z.toAssembled(uOrig);
            double lambda = kernel == ElementKernel.MASS_BP10 ? 1 : 0.6;
            ElementOperator op = ElementOperatorConformance.make(kernel, mesh, lambda);
            double exact = (kernel == ElementKernel.MASS_BP10 ? 0 : Polynomials.gradientEnergy(c, box))
                    + lambda * Polynomials.l2Squared(c, box);
            try (AssembledOperator a = AssembledOperator.bind(op, z, backend())) {
                double got = quadratic(a, u, u);
                assertEquals(exact, got, 1e-11 * Math.max(1, Math.abs(exact)), kernel + " N=" + degree + " p=" + p);
            }
        });
    }
}
