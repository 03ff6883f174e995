package io.lobatto.backend.aparapi.runtime;

import org.jocl.cl_mem;

/**
 * One {@code cl_mem} buffer of a {@link ClContext}, of any size up to the device's
 * {@code CL_DEVICE_MAX_MEM_ALLOC_SIZE}. Closing releases the device memory; idempotent.
 */
public final class ClBuffer implements AutoCloseable {

    private final ClContext context;
    final cl_mem mem;
    private final long bytes;
    private boolean closed;

    ClBuffer(ClContext context, cl_mem mem, long bytes) {
        this.context = context;
        this.mem = mem;
        this.bytes = bytes;
    }

    /** Size in bytes. */
    public long bytes() {
        return bytes;
    }

    /** The context that owns this buffer. */
    public ClContext context() {
        return context;
    }

    /** True once closed (or once its context is closed). */
    public boolean isClosed() {
        return closed || context.isClosed();
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            context.release(this);
        }
    }

    @Override
    public String toString() {
        return "ClBuffer[" + bytes + " bytes" + (closed ? ", closed" : "") + "]";
    }
}
