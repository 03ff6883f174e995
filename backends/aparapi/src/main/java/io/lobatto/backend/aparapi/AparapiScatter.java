package io.lobatto.backend.aparapi;

import io.lobatto.core.backend.DeviceScatter;

/**
 * Z on the device: windows of the int pool (scatter ids, CSR row starts and local ids of Z^T, block
 * starts) and of the double pool (inverse degree W).
 */
final class AparapiScatter implements DeviceScatter {

    final AparapiBackend backend;
    final AparapiIntVector scatterIds;
    final AparapiIntVector gatherStarts;
    final AparapiIntVector gatherIds;
    final AparapiIntVector blockStarts;
    final AparapiVector inverseDegree;
    final int blocks;
    final int maxBlockEntries;
    private final int globalSize;
    private boolean closed;

    AparapiScatter(AparapiBackend backend, AparapiIntVector scatterIds, AparapiIntVector gatherStarts,
                   AparapiIntVector gatherIds, AparapiIntVector blockStarts, AparapiVector inverseDegree,
                   int blocks, int maxBlockEntries, int globalSize) {
        this.backend = backend;
        this.scatterIds = scatterIds;
        this.gatherStarts = gatherStarts;
        this.gatherIds = gatherIds;
        this.blockStarts = blockStarts;
        this.inverseDegree = inverseDegree;
        this.blocks = blocks;
        this.maxBlockEntries = maxBlockEntries;
        this.globalSize = globalSize;
    }

    @Override
    public int localSize() {
        return scatterIds.length();
    }

    @Override
    public int globalSize() {
        return globalSize;
    }

    @Override
    public boolean isClosed() {
        return closed || backend.isClosed();
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            scatterIds.close();
            gatherStarts.close();
            gatherIds.close();
            blockStarts.close();
            inverseDegree.close();
        }
    }
}
