package io.lobatto.backend.aparapi;

import io.lobatto.core.backend.DeviceScatter;

/**
 * Z on the device: the scatter ids, the CSR of Z^T (row starts, local ids), the row-block starts of
 * the gather and W (the inverse degree), each in a buffer of its own.
 */
final class ClScatter implements DeviceScatter, ClHandle {

    /** The area that made it (handles are checked against it). */
    final GatherScatter owner;

    final ClVector scatterIds;
    final ClVector gatherStarts;
    final ClVector gatherIds;
    final ClVector blockStarts;
    final ClVector inverseDegree;
    final int blocks;
    /**
     * The kind of the plain gather and scatter ({@code -Dlobatto.aparapi.gatherScatter}): {@link GatherScatter#BLOCKS},
     * {@link GatherScatter#ROWS} or {@link GatherScatter#TILES}.
     */
    final int kind;
    /** The tiles kind's compact indices ({@link CompactTiles}) of the scatter and of the gather; null for the other kinds. */
    ClVector scatterTiles;
    ClVector scatterOffsets;
    ClVector gatherTiles;
    ClVector gatherOffsets;
    /**
     * The one-kernel operator's scatter ids ({@link AparapiBackend#ONE_KERNEL_PROPERTY}): the scatter id, plus
     * {@link io.lobatto.backend.aparapi.kernels.ElementOperands#DIRECT_FLAG} where the local node is its row's only
     * entry; null when the operator of this Z is the element kernel and the gather.
     */
    ClVector directIds;
    private final int globalSize;

    ClScatter(GatherScatter owner, ClVector scatterIds, ClVector gatherStarts, ClVector gatherIds,
              ClVector blockStarts, ClVector inverseDegree, int blocks, int globalSize, int kind) {
        this.owner = owner;
        this.scatterIds = scatterIds;
        this.gatherStarts = gatherStarts;
        this.gatherIds = gatherIds;
        this.blockStarts = blockStarts;
        this.inverseDegree = inverseDegree;
        this.blocks = blocks;
        this.globalSize = globalSize;
        this.kind = kind;
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
    public Object owner() {
        return owner;
    }

    @Override
    public void close() {
        scatterIds.close();
        gatherStarts.close();
        gatherIds.close();
        blockStarts.close();
        inverseDegree.close();
        for (ClVector v : new ClVector[] {scatterTiles, scatterOffsets, gatherTiles, gatherOffsets, directIds}) {
            if (v != null) {
                v.close();
            }
        }
    }
}
