package io.lobatto.backend.cpu;

import java.util.stream.IntStream;

import io.lobatto.core.backend.ElementMatrixDiagonal;
import io.lobatto.core.basis.Basis1D;

/**
 * The Java backend's setup kernels beyond {@link io.lobatto.core.backend.HostSetup}: element-matrix diagonals from the
 * uploaded geometric data and the checked reciprocal, elements (entries) in parallel on the common pool.
 */
final class CpuSetup {

    /** Elements per parallel task. */
    private static final int CHUNK = 32;

    private CpuSetup() {
    }

    /** diag(L^e) of every element of {@code d} into {@code out} ([E][Np]), as {@link ElementMatrixDiagonal}. */
    static void elementDiagonal(CpuElementData d, double lambda, double[] out) {
        int stride = d.kernel.factorsPerPoint();
        int perElement = d.npq * stride;
        int chunks = (d.elements + CHUNK - 1) / CHUNK;
        Basis1D basis = Basis1D.of(d.degree);
        IntStream.range(0, chunks).parallel().forEach(c -> {
            ElementMatrixDiagonal diagonal = new ElementMatrixDiagonal(d.kernel, basis);
            for (int e = c * CHUNK, end = Math.min(d.elements, (c + 1) * CHUNK); e < end; e++) {
                diagonal.element(d.factors, e * perElement, stride, lambda, out, e * d.np);
            }
        });
    }

    /** y = 1/x; the number of entries of x that are not positive and finite. */
    static long reciprocal(double[] x, double[] y) {
        return IntStream.range(0, x.length).parallel().mapToLong(i -> {
            double v = x[i];
            y[i] = 1 / v;
            return v > 0 && Double.isFinite(v) ? 0 : 1;
        }).sum();
    }
}
