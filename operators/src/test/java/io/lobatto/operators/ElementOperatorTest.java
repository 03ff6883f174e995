package io.lobatto.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;

import org.ejml.data.DMatrixRMaj;
import org.junit.jupiter.api.Test;

import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.geometry.GeometricFactors;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;

/** Host-side checks of the element operators: matrix-free diagonal vs the dense reference, the reference itself, validation. */
class ElementOperatorTest {

    static SpectralElementMesh mesh(int n) {
        return SpectralElementMesh.of(HexMesh.box(2, 1, 1, 0, 1, 0, 1, 0, 2), n, NodeMap.sinusoidal(0.1, 0, 1, 0, 1, 0, 2));
    }

    static ElementOperator make(ElementKernel k, SpectralElementMesh m, double lambda) {
        return ElementOperator.of(k, m, lambda);
    }

    @Test
    void matrixFreeDiagonalEqualsDenseDiagonal() {
        qt().withExamples(120)
                .forAll(arbitrary().enumValues(ElementKernel.class), integers().between(1, 5))
                .checkAssert((kernel, n) -> {
            ElementOperator op = make(kernel, mesh(n), 0.4);
            double[] diag = op.elementDiagonal();
            int np = op.basis().np();
            for (int e = 0; e < op.elementCount(); e++) {
                DMatrixRMaj a = DenseReference.elementMatrix(op, e);
                for (int i = 0; i < np; i++) {
                    assertEquals(a.get(i, i), diag[e * np + i], 1e-12 * Math.abs(a.get(i, i)) + 1e-15, kernel + " e=" + e + " i=" + i);
                }
            }
        });
    }

    @Test
    void denseReferenceIsSymmetricAndStiffnessKillsConstants() {
        qt().withExamples(12)
                .forAll(arbitrary().enumValues(ElementKernel.class), integers().between(1, 5))
                .checkAssert((kernel, n) -> {
            ElementOperator op = make(kernel, mesh(n), 0);
            DMatrixRMaj a = DenseReference.elementMatrix(op, 1);
            double scale = 0;
            for (double v : a.data) {
                scale = Math.max(scale, Math.abs(v));
            }
            for (int i = 0; i < a.numRows; i++) {
                double rowSum = 0;
                for (int j = 0; j < a.numCols; j++) {
                    assertEquals(a.get(i, j), a.get(j, i), 1e-13 * scale);
                    rowSum += a.get(i, j);
                }
                if (kernel != ElementKernel.MASS_BP10) {
                    assertEquals(0, rowSum, 1e-12 * scale * a.numCols, "row " + i);
                }
            }
        });
    }

    @Test
    void massOfOneIsTheElementVolume() {
        SpectralElementMesh m = mesh(4);
        MassOperator mass = MassOperator.on(m);
        double total = 0;
        for (int e = 0; e < mass.elementCount(); e++) {
            DMatrixRMaj a = DenseReference.elementMatrix(mass, e);
            for (double v : a.data) {
                total += v;
            }
        }
        assertEquals(GeometricFactors.atGauss(m).volume(), total, 1e-12);
    }

    @Test
    void mismatchedFactorsAndBadLambdaAreRejected() {
        SpectralElementMesh m3 = mesh(3);
        SpectralElementMesh m4 = mesh(4);
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> new StiffnessBp35(m4.basis(), GeometricFactors.atGll(m3), 1));
        assertTrue(ex.getMessage().contains("N = 4"), ex.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new StiffnessBp30(m3.basis(), GeometricFactors.atGll(m3), 1));
        assertThrows(IllegalArgumentException.class, () -> new MassOperator(m3.basis(), GeometricFactors.atGll(m3)));
        assertThrows(IllegalArgumentException.class, () -> StiffnessBp35.on(m3, Double.NaN));
        assertThrows(IndexOutOfBoundsException.class, () -> DenseReference.elementMatrix(StiffnessBp35.on(m3, 1), 2));
    }

    @Test
    void geometricDataHasTheLayoutTheKernelReads() {
        SpectralElementMesh m = mesh(3);
        assertEquals(2 * 64 * 7, StiffnessBp35.on(m, 1).geometricData().length);
        assertEquals(2 * 125 * 7, StiffnessBp30.on(m, 1).geometricData().length);
        assertEquals(2 * 125, MassOperator.on(m).geometricData().length);
    }
}
