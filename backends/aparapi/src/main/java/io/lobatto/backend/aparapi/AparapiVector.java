package io.lobatto.backend.aparapi;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;

/** A {@link DeviceVector} of the Aparapi backend: the window [offset, offset + length) of the double pool (or, for element data, of the geometry pool). */
final class AparapiVector implements DeviceVector {

    private final AparapiBackend backend;
    final int offset;
    private final int length;
    /** True for element data in the geometry pool (not usable as a vector argument). */
    final boolean geometry;
    private boolean closed;

    AparapiVector(AparapiBackend backend, int offset, int length) {
        this(backend, offset, length, false);
    }

    AparapiVector(AparapiBackend backend, int offset, int length, boolean geometry) {
        this.backend = backend;
        this.offset = offset;
        this.length = length;
        this.geometry = geometry;
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
            if (geometry) {
                backend.releaseGeometry(offset, length);
            } else {
                backend.releaseDouble(offset, length);
            }
        }
    }

    @Override
    public String toString() {
        return "AparapiVector[offset=" + offset + ", length=" + length + (closed ? ", closed" : "") + "]";
    }
}
