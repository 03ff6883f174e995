package io.lobatto.backend.aparapi;

import io.lobatto.core.backend.DeviceTransfer;

/** The p-multigrid transfer on the device: the 1D GLL interpolation J (Nf+1 x Nc+1) in a buffer of its own. */
final class ClTransfer implements DeviceTransfer {

    final AparapiBackend backend;
    final ClVector matrix;
    private final int coarseDegree;
    private final int fineDegree;
    private final int elements;

    ClTransfer(AparapiBackend backend, ClVector matrix, int coarseDegree, int fineDegree, int elements) {
        this.backend = backend;
        this.matrix = matrix;
        this.coarseDegree = coarseDegree;
        this.fineDegree = fineDegree;
        this.elements = elements;
    }

    @Override
    public int coarseDegree() {
        return coarseDegree;
    }

    @Override
    public int fineDegree() {
        return fineDegree;
    }

    @Override
    public int elements() {
        return elements;
    }

    @Override
    public boolean isClosed() {
        return matrix.isClosed();
    }

    @Override
    public void close() {
        matrix.close();
    }

    @Override
    public String toString() {
        return "ClTransfer[Nc=" + coarseDegree + ", Nf=" + fineDegree + ", E=" + elements + "]";
    }
}
