package io.lobatto.backend.aparapi;

import io.lobatto.core.backend.DeviceTransfer;

/**
 * The p-multigrid transfer on the device: the 1D GLL interpolation J (Nf+1 x Nc+1) and the two intermediate tensors
 * of the sum-factorised passes (E (Nc+1) (Nf+1)^2 and E (Nc+1)^2 (Nf+1) entries), each in a buffer of its own.
 */
final class ClTransfer implements DeviceTransfer, ClHandle {

    /** The area that made it (handles are checked against it). */
    final Multigrid owner;

    final ClVector matrix;
    /** E (Nc+1) (Nf+1)^2 entries: after one contraction on the fine side. */
    final ClVector wide;
    /** E (Nc+1)^2 (Nf+1) entries: after two contractions on the fine side. */
    final ClVector narrow;
    private final int coarseDegree;
    private final int fineDegree;
    private final int elements;

    ClTransfer(Multigrid owner, ClVector matrix, ClVector wide, ClVector narrow, int coarseDegree, int fineDegree,
               int elements) {
        this.owner = owner;
        this.matrix = matrix;
        this.wide = wide;
        this.narrow = narrow;
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
    public Object owner() {
        return owner;
    }

    @Override
    public void close() {
        matrix.close();
        wide.close();
        narrow.close();
    }

    @Override
    public String toString() {
        return "ClTransfer[Nc=" + coarseDegree + ", Nf=" + fineDegree + ", E=" + elements + "]";
    }
}
