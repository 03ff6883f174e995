package io.lobatto.backend.aparapi;

import io.lobatto.core.backend.DeviceFdm;
import io.lobatto.core.backend.DeviceVector;

import java.util.function.IntFunction;

/**
 * The fast diagonalisation on the device: the eigenvectors [L][n][n], the eigenvalues [L][n] of L distinct 1D problems
 * (L = 3 E for a dense upload), the line of each element and direction [E][3] and two work
 * blocks of E n^3 entries for the sum-factorised passes of {@link io.lobatto.backend.aparapi.kernels.FdmKernel},
 * allocated at the first unfused apply (the fused Schwarz kernel keeps its blocks in local memory and needs none).
 */
final class ClFdm implements DeviceFdm, ClHandle {

    /** The area that made it (handles are checked against it). */
    final Schwarz owner;

    final ClVector vectors;
    final ClVector values;
    /** [E][3] ints: the line of element e in direction d. */
    final ClVector lines;
    private ClVector workA;
    private ClVector workB;
    private final int points;
    private final int elements;

    ClFdm(Schwarz owner, ClVector vectors, ClVector values, ClVector lines, int points, int elements) {
        this.owner = owner;
        this.vectors = vectors;
        this.values = values;
        this.lines = lines;
        this.points = points;
        this.elements = elements;
    }

    /**
     * The two work blocks of the unfused passes, allocated by {@code allocate} at the first call (the caller holds the
     * backend's lock).
     */
    ClVector[] work(IntFunction<DeviceVector> allocate) {
        if (workA == null) {
            int block = elements * points * points * points;
            ClVector a = (ClVector) allocate.apply(block);
            try {
                workB = (ClVector) allocate.apply(block);
            } catch (RuntimeException e) {
                a.close();
                throw e;
            }
            workA = a;
        }
        return new ClVector[] {workA, workB};
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
    public Object owner() {
        return owner;
    }

    @Override
    public void close() {
        vectors.close();
        values.close();
        lines.close();
        if (workA != null) {
            workA.close();
            workB.close();
        }
    }

    @Override
    public String toString() {
        return "ClFdm[n=" + points + ", E=" + elements + "]";
    }
}
