package io.lobatto.backend.aparapi;

import io.lobatto.core.backend.DeviceHalo;

/** The halo sums of a distributed gather on the device: the shared rows, the CSR offsets and the sources. */
final class ClHalo implements DeviceHalo, ClHandle {

    /** The area that made it (handles are checked against it). */
    final GatherScatter owner;

    final ClVector rowIds;
    final ClVector starts;
    final ClVector sources;
    private final int rows;
    private final int receivedSize;
    private final int globalSize;

    ClHalo(GatherScatter owner, ClVector rowIds, ClVector starts, ClVector sources, int rows, int receivedSize,
           int globalSize) {
        this.owner = owner;
        this.rowIds = rowIds;
        this.starts = starts;
        this.sources = sources;
        this.rows = rows;
        this.receivedSize = receivedSize;
        this.globalSize = globalSize;
    }

    @Override
    public int rows() {
        return rows;
    }

    @Override
    public int receivedSize() {
        return receivedSize;
    }

    @Override
    public int globalSize() {
        return globalSize;
    }

    @Override
    public boolean isClosed() {
        return rowIds.isClosed();
    }

    @Override
    public Object owner() {
        return owner;
    }

    @Override
    public void close() {
        rowIds.close();
        starts.close();
        sources.close();
    }
}
