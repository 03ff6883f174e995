package io.lobatto.operators;

import java.util.stream.IntStream;

import io.lobatto.core.backend.ElementMatrixDiagonal;
import io.lobatto.core.geometry.GeometricFactors;

/**
 * The diagonal of the element matrices of an {@link ElementOperator} with host geometric factors, matrix-free
 * ({@link ElementMatrixDiagonal} element by element, in parallel).
 */
final class ElementDiagonal {

    private ElementDiagonal() {
    }

    /** Elements per parallel task. */
    private static final int CHUNK = 32;

    static double[] compute(ElementOperator op) {
        int np = op.basis().np();
        GeometricFactors factors = op.geometricFactors();
        int mp = factors.pointsPerElement();
        int elements = op.elementCount();
        double lambda = op.lambda();
        double[] out = new double[elements * np];
        int chunks = (elements + CHUNK - 1) / CHUNK;
        IntStream.range(0, chunks).parallel().forEach(chunk -> {
            int e0 = chunk * CHUNK, e1 = Math.min(elements, e0 + CHUNK);
            double[] data = new double[(e1 - e0) * mp * GeometricFactors.PACKED_STRIDE];
            factors.copyPacked(e0, e1, data, 0);
            ElementMatrixDiagonal diagonal = new ElementMatrixDiagonal(op.kernel(), op.basis());
            for (int e = e0; e < e1; e++) {
                diagonal.element(data, (e - e0) * mp * GeometricFactors.PACKED_STRIDE, GeometricFactors.PACKED_STRIDE,
                        lambda, out, e * np);
            }
        });
        return out;
    }
}
