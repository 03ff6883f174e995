package io.lobatto.backend.cpu;

import io.lobatto.core.backend.DeviceScatter;

/** The scatter operator Z in the Java backend: validated copies of the host arrays. */
final class CpuScatter implements DeviceScatter {

    final CpuBackend backend;
    final int localSize;
    final int globalSize;
    final int[] scatterIds;
    final int[] gatherStarts;
    final int[] gatherIds;
    final int[] blockStarts;
    final double[] inverseDegree;
    private volatile boolean closed;

    CpuScatter(CpuBackend backend, int[] scatterIds, int[] gatherStarts, int[] gatherIds, int[] blockStarts,
               double[] inverseDegree, int globalSize) {
        this.backend = backend;
        this.localSize = scatterIds.length;
        this.globalSize = globalSize;
        this.scatterIds = scatterIds;
        this.gatherStarts = gatherStarts;
        this.gatherIds = gatherIds;
        this.blockStarts = blockStarts;
        this.inverseDegree = inverseDegree;
    }

    /** Number of row blocks of Z^T (the parallel work units of the gather). */
    int blocks() {
        return blockStarts.length - 1;
    }

    @Override
    public int localSize() {
        return localSize;
    }

    @Override
    public int globalSize() {
        return globalSize;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public String toString() {
        return "CpuScatter[N_L=" + localSize + ", N_G=" + globalSize + ", blocks=" + blocks() + (closed ? ", closed]" : "]");
    }
}
