package io.lobatto.backend.cpu;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceIntVector;

/** A {@link DeviceIntVector} of the Java backend: a host {@code int[]} owned by the vector. */
final class CpuIntVector implements DeviceIntVector {

    private final CpuBackend backend;
    private final int length;
    private volatile int[] data;

    CpuIntVector(CpuBackend backend, int[] data) {
        this.backend = backend;
        this.data = data;
        this.length = data.length;
    }

    int[] data() {
        return data;
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
        return data == null;
    }

    @Override
    public void close() {
        data = null;
    }

    @Override
    public String toString() {
        return data == null ? "CpuIntVector[closed]" : "CpuIntVector[length=" + data.length + "]";
    }
}
