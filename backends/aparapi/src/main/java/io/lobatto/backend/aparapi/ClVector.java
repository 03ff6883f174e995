package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.runtime.ClBuffer;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceIntVector;
import io.lobatto.core.backend.DeviceVector;

/** A vector of the Aparapi backend: one device buffer of doubles or ints, no host mirror. */
final class ClVector implements DeviceVector, DeviceIntVector {

    /** The backend that made it (vectors are checked against it). */
    private final Backend backend;
    final ClBuffer buffer;
    private final int length;

    ClVector(Backend backend, ClBuffer buffer, int length) {
        this.backend = backend;
        this.buffer = buffer;
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
        return buffer.isClosed();
    }

    @Override
    public void close() {
        buffer.close();
    }

    @Override
    public String toString() {
        return "ClVector[length=" + length + (isClosed() ? ", closed" : "") + "]";
    }
}
