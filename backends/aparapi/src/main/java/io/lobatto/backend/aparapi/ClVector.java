package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.runtime.ClBuffer;
import io.lobatto.backend.aparapi.runtime.ClContext;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceIntVector;
import io.lobatto.core.backend.DeviceVector;

/** A vector of the Aparapi backend: one device buffer of doubles or ints, no host mirror. */
final class ClVector implements DeviceVector, DeviceIntVector {

    /** The backend that made it (vectors are checked against it; its lock guards the staging). */
    private final Backend backend;
    /** The runtime of its buffer, which made its staging buffers. */
    private final ClContext cl;
    final ClBuffer buffer;
    private final int length;

    ClVector(Backend backend, ClContext cl, ClBuffer buffer, int length) {
        this.backend = backend;
        this.cl = cl;
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

    /** For an index vector: its smallest and largest entry (set at upload; checked where a kernel indexes with it). */
    int minIndex;
    int maxIndex = -1;
    /** For an index vector: its values are one ascending run lo, lo + 1, ..., hi (uploaded so; never written after). */
    boolean contiguous;

    /** Pinned host staging of {@link AparapiBackend#readAsync} and {@link AparapiBackend#writeAsync}, made on first use. */
    java.nio.ByteBuffer readStage;
    java.nio.ByteBuffer writeStage;
    /** The last copies through them, until awaited. */
    ClContext.Transfer pendingRead;
    ClContext.Transfer pendingWrite;

    /** Waits for the pending copies and releases the staging buffers, under the backend's lock, then the buffer. */
    @Override
    public void close() {
        if (!buffer.isClosed()) {
            synchronized (backend) {
                releaseStaging();
            }
        }
        buffer.close();
    }

    private void releaseStaging() {
        if (cl.isClosed()) {      // the context released every pinned buffer
            return;
        }
        if (pendingRead != null) {
            pendingRead.await();
            pendingRead = null;
        }
        if (pendingWrite != null) {
            pendingWrite.await();
            pendingWrite = null;
        }
        if (readStage != null) {
            cl.releasePinned(readStage);
            readStage = null;
        }
        if (writeStage != null) {
            cl.releasePinned(writeStage);
            writeStage = null;
        }
    }

    @Override
    public String toString() {
        return "ClVector[length=" + length + (isClosed() ? ", closed" : "") + "]";
    }
}
