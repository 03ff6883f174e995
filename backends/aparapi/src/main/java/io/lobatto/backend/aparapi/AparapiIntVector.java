package io.lobatto.backend.aparapi;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceIntVector;

/** A {@link DeviceIntVector} of the Aparapi backend: the window [offset, offset + length) of the int pool. */
final class AparapiIntVector implements DeviceIntVector {

    private final AparapiBackend backend;
    final int offset;
    private final int length;
    private boolean closed;

    AparapiIntVector(AparapiBackend backend, int offset, int length) {
        this.backend = backend;
        this.offset = offset;
        this.length = length;
    }

    @Override
    public int length() {
        return length;
    }

    @Override
    public Backend backend() {
        return backend;
    }

    @Override
    public boolean isClosed() {
        return closed || backend.isClosed();
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            backend.releaseInt(offset, length);
        }
    }
}
