package io.lobatto.backend.aparapi;

import io.lobatto.core.backend.DeviceScatter;

/**
 * Z on the device: the scatter ids, the CSR of Z^T (row starts, local ids), the row-block starts of
 * the gather and W (the inverse degree), each in a buffer of its own.
 */
final class ClScatter implements DeviceScatter {

    /** The area that made it (handles are checked against it). */
    final GatherScatter owner;
    final ClVector scatterIds;
    final ClVector gatherStarts;
    final ClVector gatherIds;
    final ClVector blockStarts;
    final ClVector inverseDegree;
    final int blocks;
    /** The plain gather and scatter run the rows kernels (else the block kernels): {@code -Dlobatto.aparapi.gatherScatter}. */
    final boolean rows;
    private final int globalSize;

    ClScatter(GatherScatter owner, ClVector scatterIds, ClVector gatherStarts, ClVector gatherIds,
              ClVector blockStarts, ClVector inverseDegree, int blocks, int globalSize, boolean rows) {
        this.owner = owner;
        this.scatterIds = scatterIds;
        this.gatherStarts = gatherStarts;
        this.gatherIds = gatherIds;
        this.blockStarts = blockStarts;
        this.inverseDegree = inverseDegree;
        this.blocks = blocks;
        this.globalSize = globalSize;
        this.rows = rows;
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
        return scatterIds.isClosed();
    }

    @Override
    public void close() {
        scatterIds.close();
        gatherStarts.close();
        gatherIds.close();
        blockStarts.close();
        inverseDegree.close();
    }
}
