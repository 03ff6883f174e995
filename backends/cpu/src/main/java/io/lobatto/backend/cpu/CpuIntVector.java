package io.lobatto.backend.cpu;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceIntVector;

/** A {@link DeviceIntVector} of the Java backend: a host {@code int[]} owned by the vector. */
final class CpuIntVector implements DeviceIntVector {

    private final CpuBackend backend;
    private final int length;
    /** The smallest and largest entry (min > max when empty): an indexed gather checks its range without a pass. */
    private final int min;
    private final int max;
    private volatile int[] data;

    CpuIntVector(CpuBackend backend, int[] data) {
        this.backend = backend;
        this.data = data;
        this.length = data.length;
        int lo = Integer.MAX_VALUE, hi = Integer.MIN_VALUE;
        for (int v : data) {
            lo = Math.min(lo, v);
            hi = Math.max(hi, v);
        }
        this.min = lo;
        this.max = hi;
    }

    /** The smallest entry ({@link Integer#MAX_VALUE} when empty). */
    int min() {
        return min;
    }

    /** The largest entry ({@link Integer#MIN_VALUE} when empty). */
    int max() {
        return max;
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
