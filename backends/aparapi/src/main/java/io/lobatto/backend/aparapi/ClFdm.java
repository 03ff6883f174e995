package io.lobatto.backend.aparapi;

import io.lobatto.core.backend.DeviceFdm;

/**
 * The fast diagonalisation on the device: the eigenvectors [E][3][n][n], the eigenvalues [E][3][n] and two work
 * blocks of E n^3 entries for the sum-factorised passes of {@link io.lobatto.backend.aparapi.kernels.FdmKernel}.
 */
final class ClFdm implements DeviceFdm {

    final AparapiBackend backend;
    final ClVector vectors;
    final ClVector values;
    final ClVector workA;
    final ClVector workB;
    private final int points;
    private final int elements;

    ClFdm(AparapiBackend backend, ClVector vectors, ClVector values, ClVector workA, ClVector workB, int points, int elements) {
        this.backend = backend;
        this.vectors = vectors;
        this.values = values;
        this.workA = workA;
        this.workB = workB;
        this.points = points;
        this.elements = elements;
    }

    @Override
    public int points() {
        return points;
    }

    @Override
    public int elements() {
        return elements;
    }

    @Override
    public boolean isClosed() {
        return vectors.isClosed();
    }

    @Override
    public void close() {
        vectors.close();
        values.close();
        workA.close();
        workB.close();
    }

    @Override
    public String toString() {
        return "ClFdm[n=" + points + ", E=" + elements + "]";
    }
}
