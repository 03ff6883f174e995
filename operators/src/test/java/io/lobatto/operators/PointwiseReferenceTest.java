package io.lobatto.operators;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;

import java.util.function.Supplier;

import org.ejml.data.DMatrixRMaj;
import org.junit.jupiter.api.Test;

import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.PointwiseSetup;
import io.lobatto.core.pointwise.Quadrature;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.physics.Coefficient;
import io.lobatto.operators.physics.Diffusion;
import io.lobatto.operators.physics.IsotropicElasticity;
import io.lobatto.operators.physics.Mass;
import io.lobatto.operators.physics.ScreenedDiffusion;
import io.lobatto.operators.physics.VectorDiffusion;
import io.lobatto.operators.physics.VectorMass;

/**
 * Host-side checks of the user operators: the dense pointwise reference reproduces the built-in element operators'
 * dense matrices (BP3.5, BP1.0, BP3.0), and the matrix-free {@link PointwiseDiagonal} equals the dense diagonal for
 * every built-in physics function and both quadratures.
 */
class PointwiseReferenceTest {

    static SpectralElementMesh mesh(int n) {
        return SpectralElementMesh.of(HexMesh.box(2, 1, 1, 0, 1, 0, 1, 0, 2), n, NodeMap.sinusoidal(0.1, 0, 1, 0, 1, 0, 2));
    }

    static double maxAbs(DMatrixRMaj a) {
        double m = 0;
        for (double v : a.data) {
            m = Math.max(m, Math.abs(v));
        }
        return m;
    }

    static void assertMatrixClose(DMatrixRMaj expect, DMatrixRMaj got, double tol, String what) {
        assertTrue(expect.numRows == got.numRows && expect.numCols == got.numCols, what + ": sizes differ");
        double diff = 0;
        for (int i = 0; i < expect.data.length; i++) {
            diff = Math.max(diff, Math.abs(expect.data[i] - got.data[i]));
        }
        double rel = diff / Math.max(maxAbs(expect), 1e-300);
        assertTrue(rel < tol, what + ": relative difference " + rel);
    }

    @Test
    void screenedDiffusionOnGllIsBp35() {
        qt().withExamples(48).forAll(integers().between(1, 6)).checkAssert(n -> {
            SpectralElementMesh m = mesh(n);
            double lambda = 0.7;
            PointwiseOperator pw = PointwiseOperator.of(m, new ScreenedDiffusion(), Quadrature.GLL, ScreenedDiffusion.setup(lambda));
            ElementOperator bp35 = StiffnessBp35.on(m, lambda);
            for (int e = 0; e < m.elementCount(); e++) {
                assertMatrixClose(DenseReference.elementMatrix(bp35, e), DensePointwiseReference.elementMatrix(pw, e), 1e-12,
                        "BP3.5 N=" + n + " e=" + e);
            }
        });
    }

    @Test
    void massOnGaussIsBp10() {
        qt().withExamples(48).forAll(integers().between(1, 6)).checkAssert(n -> {
            SpectralElementMesh m = mesh(n);
            PointwiseOperator pw = PointwiseOperator.of(m, new Mass(), Quadrature.GAUSS, Mass.setup());
            ElementOperator bp10 = MassOperator.on(m);
            for (int e = 0; e < m.elementCount(); e++) {
                assertMatrixClose(DenseReference.elementMatrix(bp10, e), DensePointwiseReference.elementMatrix(pw, e), 1e-12,
                        "BP1.0 N=" + n + " e=" + e);
            }
        });
    }

    @Test
    void screenedDiffusionOnGaussIsBp30() {
        qt().withExamples(48).forAll(integers().between(1, 6)).checkAssert(n -> {
            SpectralElementMesh m = mesh(n);
            double lambda = 1.3;
            PointwiseOperator pw = PointwiseOperator.of(m, new ScreenedDiffusion(), Quadrature.GAUSS, ScreenedDiffusion.setup(lambda));
            ElementOperator bp30 = StiffnessBp30.on(m, lambda);
            for (int e = 0; e < m.elementCount(); e++) {
                assertMatrixClose(DenseReference.elementMatrix(bp30, e), DensePointwiseReference.elementMatrix(pw, e), 1e-12,
                        "BP3.0 N=" + n + " e=" + e);
            }
        });
    }

    /** The built-in physics: a function and its setup. */
    enum Physics {
        MASS(Mass::new, Mass.setup()),
        VECTOR_MASS(VectorMass::new, Mass.setup()),
        DIFFUSION(Diffusion::new, Diffusion.setup(Physics::kappa)),
        VECTOR_DIFFUSION(VectorDiffusion::new, Diffusion.setup()),
        SCREENED_DIFFUSION(ScreenedDiffusion::new, ScreenedDiffusion.setup(Physics::kappa, Coefficient.constant(0.6))),
        ELASTICITY(IsotropicElasticity::new, IsotropicElasticity.setup(2, 1));

        final Supplier<PointwiseFunction> function;
        final PointwiseSetup setup;

        Physics(Supplier<PointwiseFunction> function, PointwiseSetup setup) {
            this.function = function;
            this.setup = setup;
        }

        static double kappa(double x, double y, double z) {
            return 1 + 0.5 * Math.sin(Math.PI * x) * Math.sin(Math.PI * y) * Math.sin(Math.PI * z);
        }

        PointwiseOperator on(SpectralElementMesh m, Quadrature q) {
            return PointwiseOperator.of(m, function.get(), q, setup);
        }
    }

    @Test
    void matrixFreeDiagonalEqualsDenseDiagonal() {
        qt().withExamples(30)
                .forAll(arbitrary().enumValues(Physics.class), arbitrary().enumValues(Quadrature.class), integers().between(1, 4))
                .checkAssert((physics, quadrature, n) -> {
            PointwiseOperator op = physics.on(mesh(n), quadrature);
            double[] diag = PointwiseDiagonal.compute(op);
            int np = op.basis().np();
            int ne = op.elementCount();
            int nc = op.components();
            double scale = 0;
            double diff = 0;
            for (int e = 0; e < ne; e++) {
                DMatrixRMaj a = DensePointwiseReference.elementMatrix(op, e);
                for (int r = 0; r < nc * np; r++) {
                    double dense = a.get(r, r);
                    scale = Math.max(scale, Math.abs(dense));
                    diff = Math.max(diff, Math.abs(dense - diag[((r / np) * ne + e) * np + r % np]));
                }
            }
            assertTrue(scale > 0, physics + ": zero diagonal");
            assertTrue(diff < 1e-12 * scale, physics + " " + quadrature + " N=" + n + ": relative error " + diff / scale);
        });
    }

    @Test
    void pointwiseDiagonalOfScreenedDiffusionIsTheElementDiagonal() {
        SpectralElementMesh m = mesh(4);
        for (Quadrature q : Quadrature.values()) {
            PointwiseOperator pw = PointwiseOperator.of(m, new ScreenedDiffusion(), q, ScreenedDiffusion.setup(0.4));
            ElementOperator op = q == Quadrature.GLL ? StiffnessBp35.on(m, 0.4) : StiffnessBp30.on(m, 0.4);
            double[] a = PointwiseDiagonal.compute(pw), b = op.elementDiagonal();
            double diff = 0, scale = 0;
            for (int i = 0; i < a.length; i++) {
                diff = Math.max(diff, Math.abs(a[i] - b[i]));
                scale = Math.max(scale, Math.abs(b[i]));
            }
            assertTrue(diff < 1e-12 * scale, q + ": relative error " + diff / scale);
        }
    }

    @Test
    void applyLocalAndAssembledAgree() {
        // Z^T (L (Z x)) through the element matrices equals A x through the assembled matrix, for a coupled field
        SpectralElementMesh m = mesh(2);
        ScatterOperator z = ScatterOperator.build(m.localToGlobal(), m.globalNodeCount(), m.boundaryMask(HexMesh.TAG_XMIN));
        PointwiseOperator op = Physics.ELASTICITY.on(m, Quadrature.GAUSS);
        DMatrixRMaj a = DensePointwiseReference.assembledMatrix(op, z);
        int ng = z.globalSize(), nl = z.localSize();
        double[] x = new double[3 * ng];
        java.util.Random rnd = new java.util.Random(3);
        for (int i = 0; i < x.length; i++) {
            x[i] = rnd.nextDouble() - 0.5;
        }
        double[] xl = new double[3 * nl];
        double[] block = new double[nl];
        double[] blockG = new double[ng];
        for (int c = 0; c < 3; c++) {
            System.arraycopy(x, c * ng, blockG, 0, ng);
            z.scatter(blockG, block);
            System.arraycopy(block, 0, xl, c * nl, nl);
        }
        double[] yl = DensePointwiseReference.applyLocal(op, xl);
        double[] y = new double[3 * ng];
        for (int c = 0; c < 3; c++) {
            System.arraycopy(yl, c * nl, block, 0, nl);
            z.gather(block, blockG);
            System.arraycopy(blockG, 0, y, c * ng, ng);
        }
        double[] expect = DensePointwiseReference.multiply(a, x);
        double diff = 0, scale = 0;
        for (int i = 0; i < y.length; i++) {
            diff = Math.max(diff, Math.abs(y[i] - expect[i]));
            scale = Math.max(scale, Math.abs(expect[i]));
        }
        assertTrue(diff < 1e-12 * scale, "relative error " + diff / scale);
    }

    @Test
    void denseElementMatricesAreSymmetric() {
        qt().withExamples(12)
                .forAll(arbitrary().enumValues(Physics.class), arbitrary().enumValues(Quadrature.class), integers().between(1, 3))
                .checkAssert((physics, quadrature, n) -> {
            PointwiseOperator op = physics.on(mesh(n), quadrature);
            DMatrixRMaj a = DensePointwiseReference.elementMatrix(op, 1);
            DMatrixRMaj t = new DMatrixRMaj(a.numCols, a.numRows);
            org.ejml.dense.row.CommonOps_DDRM.transpose(a, t);
            assertMatrixClose(a, t, 1e-13, physics + " " + quadrature + " N=" + n + ": L^e vs its transpose");
        });
    }

    @Test
    void rigidBodyModesAnnihilateTheDenseElasticityMatrix() {
        for (Quadrature q : Quadrature.values()) {
            for (int n = 1; n <= 3; n++) {
                SpectralElementMesh m = mesh(n);
                ScatterOperator z = ScatterOperator.build(m.localToGlobal(), m.globalNodeCount(), null);
                DMatrixRMaj a = DensePointwiseReference.assembledMatrix(Physics.ELASTICITY.on(m, q), z);
                double norm = maxAbs(a);
                double[] coords = m.globalCoordinates();
                int ng = z.globalSize();
                for (int k = 0; k < 7; k++) {
                    double[] r = new double[3 * ng];
                    for (int g = 0; g < ng; g++) {
                        double x = coords[3 * g], y = coords[3 * g + 1], zc = coords[3 * g + 2];
                        double[] u = k < 3 ? new double[] {k == 0 ? 1 : 0, k == 1 ? 1 : 0, k == 2 ? 1 : 0}
                                : k == 3 ? new double[] {0, -zc, y} : k == 4 ? new double[] {zc, 0, -x}
                                : k == 5 ? new double[] {-y, x, 0} : new double[] {x * x, 0, 0};
                        for (int c = 0; c < 3; c++) {
                            r[c * ng + g] = u[c];
                        }
                    }
                    double res = 0, scale = 0;
                    for (double v : DensePointwiseReference.multiply(a, r)) {
                        res = Math.max(res, Math.abs(v));
                    }
                    for (double v : r) {
                        scale = Math.max(scale, Math.abs(v));
                    }
                    String what = q + " N=" + n + " mode " + k + ": |A r| = " + res + ", ||A|| |r| = " + norm * scale;
                    if (k < 6) {
                        assertTrue(res <= 1e-10 * norm * scale, what);
                    } else {
                        assertTrue(res > 1e-3 * norm * scale, "non-rigid " + what);
                    }
                }
            }
        }
    }

    @Test
    void badArgumentsNameTheirValues() {
        SpectralElementMesh m = mesh(2);
        PointwiseOperator op = Physics.MASS.on(m, Quadrature.GLL);
        IndexOutOfBoundsException ex = assertThrows(IndexOutOfBoundsException.class,
                () -> DensePointwiseReference.elementMatrix(op, 2));
        assertTrue(ex.getMessage().contains("e = 2") && ex.getMessage().contains("0..1"), ex.getMessage());
        IllegalArgumentException len = assertThrows(IllegalArgumentException.class,
                () -> DensePointwiseReference.applyLocal(op, new double[3]));
        assertTrue(len.getMessage().contains("3"), len.getMessage());
        ScatterOperator other = ScatterOperator.build(mesh(3).localToGlobal(), mesh(3).globalNodeCount(), null);
        assertThrows(IllegalArgumentException.class, () -> DensePointwiseReference.assembledMatrix(op, other));
    }
}
