package io.lobatto.backend.cpu;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;

/** A {@link DeviceVector} of the Java backend: a host {@code double[]} owned by the vector. */
final class CpuVector implements DeviceVector {

    private final CpuBackend backend;
    private final int length;
    private volatile double[] data;

    CpuVector(CpuBackend backend, double[] data) {
        this.backend = backend;
        this.data = data;
        this.length = data.length;
    }

    /** The backing array, or null once closed. */
    double[] data() {
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

    CpuBackend owner() {
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
        return data == null ? "CpuVector[closed]" : "CpuVector[length=" + data.length + "]";
    }
}
