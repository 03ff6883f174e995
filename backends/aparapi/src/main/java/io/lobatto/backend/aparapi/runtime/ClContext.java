package io.lobatto.backend.aparapi.runtime;

import static org.jocl.CL.CL_MEM_READ_WRITE;
import static org.jocl.CL.CL_PROFILING_COMMAND_END;
import static org.jocl.CL.CL_PROFILING_COMMAND_START;
import static org.jocl.CL.CL_QUEUE_PROFILING_ENABLE;
import static org.jocl.CL.CL_TRUE;
import static org.jocl.CL.clCreateBuffer;
import static org.jocl.CL.clCreateCommandQueue;
import static org.jocl.CL.clCreateContext;
import static org.jocl.CL.clEnqueueFillBuffer;
import static org.jocl.CL.clEnqueueReadBuffer;
import static org.jocl.CL.clEnqueueWriteBuffer;
import static org.jocl.CL.clFinish;
import static org.jocl.CL.clGetEventProfilingInfo;
import static org.jocl.CL.clReleaseCommandQueue;
import static org.jocl.CL.clReleaseContext;
import static org.jocl.CL.clReleaseEvent;
import static org.jocl.CL.clReleaseMemObject;

import io.lobatto.core.backend.BackendException;
import org.jocl.CLException;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_command_queue;
import org.jocl.cl_context;
import org.jocl.cl_context_properties;
import org.jocl.cl_device_id;
import org.jocl.cl_event;
import org.jocl.cl_mem;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The OpenCL runtime of the backend (site/src/site/markdown/design.md, "Aparapi compiles, Lobatto runs"): one context and one
 * in-order command queue on one device, the {@link ClBuffer}s allocated in it with the bytes they hold,
 * the built programs ({@link ProgramCache}) and the launches of their kernels. Launches and
 * device-to-device work are enqueued and never waited for; only {@link #read} and {@link #finish} wait. The
 * asynchronous host copies ({@link #readAsync}, {@link #writeAsync}) run on a second queue, ordered against the kernel
 * queue by events, so that they overlap the kernels. Launches between {@link #fork()} and {@link #join()} may go to a
 * second kernel queue ({@link #alongside}), which runs them concurrently with the kernel queue.
 * When profiling is on, every launch carries an event whose device time is summed per kernel label.
 */
public final class ClContext implements AutoCloseable {

    /** Allocations from this size on are waited for, so that a full device fails at the allocation. */
    private static final long CHECKED_ALLOCATION = 64L << 20;

    private final ClDevice device;
    final cl_context context;
    /**
     * The kernel queue: {@link #plainQueue}, or while launches are profiled ({@link #profiling(boolean)})
     * {@link #profilingQueue}. A queue created with {@code CL_QUEUE_PROFILING_ENABLE} costs time on every command
     * (the BS3-BS5 reductions' T0 was 24-28 us against raw JOCL's 16 us on the H100), so it is made only when asked for.
     */
    volatile cl_command_queue queue;
    private final cl_command_queue plainQueue;
    private cl_command_queue profilingQueue;
    /** System property: {@code always} creates the kernel queue with profiling enabled from the start (the old way, for A/B). */
    public static final String PROFILING_QUEUE_PROPERTY = "lobatto.opencl.profilingQueue";
    private final ProgramCache programs;
    private final List<ClBuffer> buffers = new ArrayList<>();
    private final List<cl_mem> pinned = new ArrayList<>();
    private final List<java.nio.ByteBuffer> pinnedMaps = new ArrayList<>();
    private long bytesHeld;
    private long peakBytesHeld;
    private boolean profiling;
    private final List<cl_event> pendingEvents = new ArrayList<>();
    private final List<String> pendingLabels = new ArrayList<>();
    /** {@link #profileScope(String)}'s name, "" for none. */
    private String scope = "";
    private final Map<String, KernelTime> profile = new LinkedHashMap<>();
    private boolean closed;
    /** Host waits: blocking copies and finishes (each drains the queue), and waits for one async copy. */
    private long drains;
    private long transferWaits;

    /**
     * JOCL records every context in one native map (for its callbacks) that {@code clCreateContext} and
     * {@code clReleaseContext} change without a lock, whether or not a callback is given: contexts made or released on
     * several threads at once (ranks as threads, a benchmark's raw context beside a backend's) corrupt it, and the JVM
     * crashed at exit in the map's destructor (the parallel module's tests on PoCL, once). Every context of Lobatto is
     * made and released through {@link #createContext} and {@link #releaseContext}, which hold this lock.
     */
    private static final Object JOCL_CONTEXTS = new Object();

    /** {@code clCreateContext} of {@code device} on {@code platform} alone, no callback, under JOCL's context lock. */
    public static cl_context createContext(org.jocl.cl_platform_id platform, cl_device_id device) {
        cl_context_properties properties = new cl_context_properties();
        properties.addProperty(org.jocl.CL.CL_CONTEXT_PLATFORM, platform);
        synchronized (JOCL_CONTEXTS) {
            return clCreateContext(properties, 1, new cl_device_id[] {device}, null, null, null);
        }
    }

    /** {@code clReleaseContext} under JOCL's context lock ({@link #createContext}). */
    public static void releaseContext(cl_context context) {
        synchronized (JOCL_CONTEXTS) {
            clReleaseContext(context);
        }
    }

    /** A context and an in-order queue (with profiling support) on {@code device}. */
    public ClContext(ClDevice device) {
        this.device = Objects.requireNonNull(device, "device");
        try {
            context = createContext(device.platform, device.id);
            boolean always = "always".equals(System.getProperty(PROFILING_QUEUE_PROPERTY, "").trim());
            @SuppressWarnings("deprecation")
            cl_command_queue q = clCreateCommandQueue(context, device.id, always ? CL_QUEUE_PROFILING_ENABLE : 0, null);
            plainQueue = q;
            profilingQueue = always ? q : null;
            queue = q;
        } catch (CLException e) {
            throw new BackendException("aparapi: creating an OpenCL context on " + device + " failed: " + e.getMessage(), e);
        }
        programs = new ProgramCache(this);
    }

    /** The device of this context. */
    public ClDevice device() {
        return device;
    }

    /** The programs built in this context (memory and disk cache). */
    public ProgramCache programs() {
        return programs;
    }

    /** Bytes of device memory held by open buffers of this context. */
    public synchronized long bytesHeld() {
        return bytesHeld;
    }

    /** The most device memory that open buffers of this context held at one time, in bytes. */
    public synchronized long peakBytesHeld() {
        return peakBytesHeld;
    }

    /** Open buffers of this context. */
    public synchronized int buffersHeld() {
        return buffers.size();
    }

    /**
     * A zero-filled buffer of {@code bytes} bytes for {@code what}. Throws {@link BackendException}
     * naming the bytes asked for, the device limit and the bytes this context holds when the device
     * cannot give it.
     */
    public synchronized ClBuffer allocate(long bytes, String what) {
        ensureOpen();
        if (bytes <= 0) {
            throw new IllegalArgumentException(what + ": buffer size " + bytes + " bytes must be positive");
        }
        if (bytes > device.maxAllocBytes()) {
            throw new BackendException("aparapi: " + what + " needs one buffer of " + bytes + " bytes but "
                    + device.name() + " allows at most CL_DEVICE_MAX_MEM_ALLOC_SIZE = " + device.maxAllocBytes()
                    + " bytes per buffer (this backend holds " + bytesHeld + " bytes)");
        }
        cl_mem mem;
        try {
            mem = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, null, null);
            clEnqueueFillBuffer(queue, mem, Pointer.to(new double[] {0}), bytesPerFill(bytes), 0, bytes, 0, null, null);
            if (bytes >= CHECKED_ALLOCATION) {
                clFinish(queue);
            }
        } catch (CLException e) {
            throw allocationFailed(bytes, what, e);
        }
        return held(mem, bytes);
    }

    /**
     * {@code -Dlobatto.opencl.copyHostPtr=false}: {@link #upload} allocates, fills and writes (three calls) instead of one
     * {@code clCreateBuffer} with {@code CL_MEM_COPY_HOST_PTR} (for A/B runs).
     */
    public static final String COPY_HOST_PTR_PROPERTY = "lobatto.opencl.copyHostPtr";

    private static final boolean COPY_HOST_PTR =
            !"false".equalsIgnoreCase(System.getProperty(COPY_HOST_PTR_PROPERTY, "true").trim());

    /**
     * A new buffer holding {@code src}: below {@link #CHECKED_ALLOCATION} bytes one {@code clCreateBuffer} with
     * {@code CL_MEM_COPY_HOST_PTR}, no fill and no write; larger ones as {@link #allocate} then a blocking write. Why:
     * on NVIDIA's OpenCL an enqueue on this queue waits while other threads build programs (the cold README job's
     * geometry uploads spent 0.9 s in fills and writes until the builds in flight had ended), so the setup's small
     * uploads make one call each, not three.
     */
    public synchronized ClBuffer upload(double[] src, String what) {
        return upload(Pointer.to(src), src.length * 8L, what, () -> {
            ClBuffer b = allocate(Math.max(8, src.length * 8L), what);
            write(src, 0, src.length, b, 0);
            return b;
        });
    }

    /** As {@link #upload(double[], String)}, for ints. */
    public synchronized ClBuffer upload(int[] src, String what) {
        return upload(Pointer.to(src), src.length * 4L, what, () -> {
            ClBuffer b = allocate(Math.max(4, src.length * 4L), what);
            write(src, 0, src.length, b, 0);
            return b;
        });
    }

    private ClBuffer upload(Pointer host, long bytes, String what, java.util.function.Supplier<ClBuffer> large) {
        ensureOpen();
        if (bytes == 0 || bytes >= CHECKED_ALLOCATION || !COPY_HOST_PTR) {
            return large.get();
        }
        cl_mem mem;
        try {
            mem = clCreateBuffer(context, CL_MEM_READ_WRITE | org.jocl.CL.CL_MEM_COPY_HOST_PTR, bytes, host, null);
        } catch (CLException e) {
            throw allocationFailed(bytes, what, e);
        }
        return held(mem, bytes);
    }

    /** The error of a failed allocation: its size, its purpose and what this backend holds of the device's memory. */
    private BackendException allocationFailed(long bytes, String what, CLException e) {
        return new BackendException("aparapi: allocating " + bytes + " bytes for " + what + " on " + device.name()
                + " failed (" + e.getMessage() + "); this backend holds " + bytesHeld + " bytes of the device's "
                + device.globalMemBytes(), e);
    }

    /** {@code mem} as a buffer of this context, counted in the bytes held. */
    private ClBuffer held(cl_mem mem, long bytes) {
        ClBuffer b = new ClBuffer(this, mem, bytes);
        buffers.add(b);
        bytesHeld += bytes;
        peakBytesHeld = Math.max(peakBytesHeld, bytesHeld);
        return b;
    }

    private static int bytesPerFill(long bytes) {
        return bytes % 8 == 0 ? 8 : bytes % 4 == 0 ? 4 : 1;
    }

    synchronized void release(ClBuffer b) {
        if (buffers.remove(b)) {
            bytesHeld -= b.bytes();
            if (!closed) {
                clReleaseMemObject(b.mem);
            }
        }
    }

    /** Copies {@code count} doubles from {@code src[from..]} to {@code target} at double index {@code at}; waits. */
    public synchronized void write(double[] src, int from, int count, ClBuffer target, long at) {
        checkRange(target, at * 8, count * 8L, "write");
        if (count > 0) {
            drains++;
            clEnqueueWriteBuffer(queue, target.mem, CL_TRUE, at * 8, count * 8L,
                    Pointer.to(src).withByteOffset(from * 8L), 0, null, null);
        }
    }

    /** Copies {@code count} ints from {@code src[from..]} to {@code target} at int index {@code at}; waits. */
    public synchronized void write(int[] src, int from, int count, ClBuffer target, long at) {
        checkRange(target, at * 4, count * 4L, "write");
        if (count > 0) {
            drains++;
            clEnqueueWriteBuffer(queue, target.mem, CL_TRUE, at * 4, count * 4L,
                    Pointer.to(src).withByteOffset(from * 4L), 0, null, null);
        }
    }

    /** Copies {@code count} ints of {@code source} from int index {@code at} into {@code dst[to..]}; waits. */
    public synchronized void read(ClBuffer source, long at, int[] dst, int to, int count) {
        checkRange(source, at * 4, count * 4L, "read");
        if (count > 0) {
            drains++;
            clEnqueueReadBuffer(queue, source.mem, CL_TRUE, at * 4, count * 4L,
                    Pointer.to(dst).withByteOffset(to * 4L), 0, null, null);
        }
    }

    /** Copies {@code count} doubles of {@code source} from double index {@code at} into {@code dst[to..]}; waits. */
    public synchronized void read(ClBuffer source, long at, double[] dst, int to, int count) {
        checkRange(source, at * 8, count * 8L, "read");
        if (count > 0) {
            drains++;
            clEnqueueReadBuffer(queue, source.mem, CL_TRUE, at * 8, count * 8L,
                    Pointer.to(dst).withByteOffset(to * 8L), 0, null, null);
        }
    }

    /**
     * Copies {@code count} doubles of {@code source} from double index {@code at} into the direct buffer
     * {@code dst} (from its position 0); waits. A direct buffer spares the JNI copy of a Java array,
     * which matters for the small read-backs of the reductions.
     */
    public synchronized void read(ClBuffer source, long at, java.nio.ByteBuffer dst, int count) {
        checkRange(source, at * 8, count * 8L, "read");
        if (!dst.isDirect() || dst.capacity() < count * 8L) {
            throw new IllegalArgumentException("read: dst must be a direct buffer of at least " + count * 8L + " bytes");
        }
        if (count > 0) {
            drains++;
            clEnqueueReadBuffer(queue, source.mem, CL_TRUE, at * 8, count * 8L, Pointer.to(dst), 0, null, null);
        }
    }

    private void checkRange(ClBuffer b, long offset, long bytes, String what) {
        ensureOpen();
        if (b.context() != this || b.isClosed()) {
            throw new IllegalArgumentException(what + ": buffer is closed or belongs to another context");
        }
        if (offset < 0 || offset + bytes > b.bytes()) {
            throw new IllegalArgumentException(what + ": bytes [" + offset + ", " + (offset + bytes)
                    + ") outside the buffer of " + b.bytes() + " bytes");
        }
    }

    /**
     * A host buffer of {@code bytes} in page-locked memory (a buffer created with
     * {@code CL_MEM_ALLOC_HOST_PTR}, mapped once for the context's life), native byte order: reads into it
     * skip the driver's staging copy, which is most of the cost of the small read-backs of the reductions.
     */
    public synchronized java.nio.ByteBuffer pinnedHostBuffer(long bytes, String what) {
        ensureOpen();
        try {
            cl_mem mem = clCreateBuffer(context, org.jocl.CL.CL_MEM_READ_WRITE | org.jocl.CL.CL_MEM_ALLOC_HOST_PTR, bytes, null, null);
            java.nio.ByteBuffer mapped = org.jocl.CL.clEnqueueMapBuffer(queue, mem, CL_TRUE,
                    org.jocl.CL.CL_MAP_READ | org.jocl.CL.CL_MAP_WRITE, 0, bytes, 0, null, null, null);
            pinned.add(mem);
            pinnedMaps.add(mapped);
            return mapped.order(java.nio.ByteOrder.nativeOrder());
        } catch (CLException e) {
            throw new BackendException("aparapi: allocating " + bytes + " bytes of pinned host memory for " + what
                    + " on " + device.name() + " failed: " + e.getMessage(), e);
        }
    }

    /** The second in-order queue of the asynchronous copies (made on first use), so that they overlap the kernels. */
    private cl_command_queue transfers;

    /**
     * Whether the asynchronous copies get their own queue: system property {@code lobatto.opencl.copyQueue} (default
     * true); false puts them on the kernel queue, in order (no overlap of the copies with the kernels, still no drain).
     */
    static final boolean COPY_QUEUE = !"false".equalsIgnoreCase(System.getProperty("lobatto.opencl.copyQueue", "true"));

    private cl_command_queue transfers() {
        if (!COPY_QUEUE) {
            return queue;
        }
        if (transfers == null) {
            try {
                @SuppressWarnings("deprecation")
                cl_command_queue q = clCreateCommandQueue(context, device.id, 0, null);
                transfers = q;
            } catch (CLException e) {
                throw new BackendException("aparapi: creating the copy queue on " + device + " failed: " + e.getMessage(), e);
            }
        }
        return transfers;
    }

    /**
     * Queues a copy of {@code count} doubles of {@code source}, as the work queued before this call leaves it, into the
     * direct (best: pinned, {@link #pinnedHostBuffer}) buffer {@code dst} and returns without waiting. The copy runs on
     * a second queue behind a marker of the kernel queue, so the kernels queued after this call run while it copies;
     * both queues are flushed. {@code dst} holds the values once {@link Transfer#await()} returns; {@code source} must
     * not be written by kernels queued before then.
     */
    public synchronized Transfer readAsync(ClBuffer source, java.nio.ByteBuffer dst, int count) {
        checkRange(source, 0, count * 8L, "readAsync");
        if (!dst.isDirect() || dst.capacity() < count * 8L) {
            throw new IllegalArgumentException("readAsync: dst must be a direct buffer of at least " + count * 8L + " bytes");
        }
        if (count == 0) {
            return new Transfer(null);
        }
        cl_command_queue t = transfers();
        cl_event e = new cl_event();
        if (t == queue) {
            clEnqueueReadBuffer(queue, source.mem, org.jocl.CL.CL_FALSE, 0, count * 8L, Pointer.to(dst), 0, null, e);
            org.jocl.CL.clFlush(queue);
            return new Transfer(e);
        }
        cl_event before = new cl_event();
        org.jocl.CL.clEnqueueMarkerWithWaitList(queue, 0, null, before);
        org.jocl.CL.clFlush(queue);
        try {
            clEnqueueReadBuffer(t, source.mem, org.jocl.CL.CL_FALSE, 0, count * 8L, Pointer.to(dst), 1,
                    new cl_event[] {before}, e);
        } finally {
            clReleaseEvent(before);
        }
        org.jocl.CL.clFlush(t);
        return new Transfer(e);
    }

    /**
     * Queues a copy of {@code count} doubles from the direct (best: pinned) buffer {@code src} into {@code target} on the
     * copy queue and returns without waiting; the kernel queue waits for it (a barrier) before the work queued after
     * this call, but the work queued before may still run while it copies, so that work must not use {@code target}.
     * {@code src} must not change until {@link Transfer#await()} of the result returns.
     */
    public synchronized Transfer writeAsync(java.nio.ByteBuffer src, int count, ClBuffer target) {
        checkRange(target, 0, count * 8L, "writeAsync");
        if (!src.isDirect() || src.capacity() < count * 8L) {
            throw new IllegalArgumentException("writeAsync: src must be a direct buffer of at least " + count * 8L + " bytes");
        }
        if (count == 0) {
            return new Transfer(null);
        }
        cl_command_queue t = transfers();
        cl_event e = new cl_event();
        clEnqueueWriteBuffer(t, target.mem, org.jocl.CL.CL_FALSE, 0, count * 8L, Pointer.to(src), 0, null, e);
        if (t != queue) {
            org.jocl.CL.clFlush(t);
            org.jocl.CL.clEnqueueBarrierWithWaitList(queue, 1, new cl_event[] {e}, null);
        }
        return new Transfer(e);
    }

    /** The second kernel queues (plain and profiling, made on first use) of {@link #alongside}. */
    private cl_command_queue sidePlain;
    private cl_command_queue sideProfiling;
    /** Where launches go: the kernel queue, or inside {@link #alongside} the side queue. */
    private boolean onSide;
    /** The kernel queue's marker of the last {@link #fork()}, which the side queue's launches wait for; null when none. */
    private cl_event forkMarker;
    /** Whether a launch went to the side queue since the last {@link #fork()}. */
    private boolean sideUsed;

    /**
     * Marks the point of the kernel queue that the launches of the next {@link #alongside} calls start from: they wait
     * for all work queued on the kernel queue before this call, and for nothing queued after it. Flushes the kernel
     * queue. A fork not joined yet is joined first.
     */
    public synchronized void fork() {
        ensureOpen();
        join();
        cl_event m = new cl_event();
        org.jocl.CL.clEnqueueMarkerWithWaitList(queue, 0, null, m);
        org.jocl.CL.clFlush(queue);
        forkMarker = m;
    }

    /**
     * Runs {@code launches} with every kernel launch they make queued on the second kernel queue behind the marker of
     * {@link #fork()}, so that they run concurrently with what the kernel queue holds after that marker (the kernel
     * queue is flushed first, so that the device sees its work before the side queue's). Not for copies or reads.
     */
    public synchronized void alongside(Runnable launches) {
        ensureOpen();
        if (forkMarker == null) {
            throw new IllegalStateException("alongside: no fork() to start from");
        }
        if (onSide) {
            throw new IllegalStateException("alongside: already inside alongside");
        }
        org.jocl.CL.clFlush(queue);
        onSide = true;
        try {
            launches.run();
        } finally {
            onSide = false;
        }
        sideUsed = true;
        org.jocl.CL.clFlush(side());
    }

    /**
     * Makes the kernel queue wait (a barrier, no host wait) for the launches queued {@link #alongside} since the last
     * {@link #fork()}, and ends that fork; nothing where there is none.
     */
    public synchronized void join() {
        if (forkMarker == null) {
            return;
        }
        cl_event m = forkMarker;
        forkMarker = null;
        if (sideUsed && !closed) {
            cl_event done = new cl_event();
            org.jocl.CL.clEnqueueMarkerWithWaitList(side(), 0, null, done);
            org.jocl.CL.clFlush(side());
            org.jocl.CL.clEnqueueBarrierWithWaitList(queue, 1, new cl_event[] {done}, null);
            clReleaseEvent(done);
        }
        sideUsed = false;
        clReleaseEvent(m);
    }

    /** The side queue with the kernel queue's profiling setting (made on first use). */
    @SuppressWarnings("deprecation")
    private cl_command_queue side() {
        try {
            if (profiling) {
                if (sideProfiling == null) {
                    sideProfiling = clCreateCommandQueue(context, device.id, CL_QUEUE_PROFILING_ENABLE, null);
                }
                return sideProfiling;
            }
            if (sidePlain == null) {
                sidePlain = clCreateCommandQueue(context, device.id, 0, null);
            }
            return sidePlain;
        } catch (CLException e) {
            throw new BackendException("aparapi: creating the second kernel queue on " + device + " failed: " + e.getMessage(), e);
        }
    }

    /** The queue a launch goes to now: the side queue inside {@link #alongside}, else the kernel queue. */
    synchronized cl_command_queue launchQueue() {
        return onSide ? side() : queue;
    }

    /** The events a launch queued now waits for: the fork's marker inside {@link #alongside}, else none (null). */
    synchronized cl_event[] launchWaits() {
        return onSide ? new cl_event[] {forkMarker} : null;
    }

    private void finishSide() {
        if (sidePlain != null) {
            clFinish(sidePlain);
        }
        if (sideProfiling != null) {
            clFinish(sideProfiling);
        }
    }

    /**
     * Whether {@link Transfer#await()} polls the copy's status for up to {@link #SPIN_NANOS} before it blocks in
     * {@code clWaitForEvents}: system property {@code lobatto.opencl.spinWait} (default false). An A/B switch for the
     * exchanges of a distributed apply, whose short copies a blocking wait may wake up late for.
     */
    static final boolean SPIN_WAIT = Boolean.getBoolean("lobatto.opencl.spinWait");
    /** The longest poll of {@link #SPIN_WAIT}: 1 ms, then the blocking wait. */
    static final long SPIN_NANOS = 1_000_000;

    /** Polls {@code e} until it is complete (true) or {@link #SPIN_NANOS} have passed (false). */
    private static boolean spin(cl_event e) {
        long t0 = System.nanoTime();
        while (System.nanoTime() - t0 < SPIN_NANOS) {
            if (complete(e)) {
                return true;
            }
            Thread.onSpinWait();
        }
        return false;
    }

    private static boolean complete(cl_event e) {
        int[] status = new int[1];
        org.jocl.CL.clGetEventInfo(e, org.jocl.CL.CL_EVENT_COMMAND_EXECUTION_STATUS, Sizeof.cl_int, Pointer.to(status), null);
        return status[0] == org.jocl.CL.CL_COMPLETE;
    }

    /** A copy queued by {@link #readAsync} or {@link #writeAsync}. */
    public final class Transfer {
        private cl_event event;

        Transfer(cl_event event) {
            this.event = event;
        }

        /**
         * Waits for the copy (and the work queued before it, not after it), flushing the queue first so that the work
         * queued since starts; idempotent. A copy already complete is only released (not counted as a wait).
         */
        public void await() {
            synchronized (ClContext.this) {
                if (event == null) {
                    return;
                }
                cl_event e = event;
                event = null;
                if (!closed) {
                    // the work queued since the copy goes to the device now, whether or not the copy is done
                    org.jocl.CL.clFlush(queue);
                    if (transfers != null) {
                        org.jocl.CL.clFlush(transfers);
                    }
                    if (!complete(e)) {
                        transferWaits++;
                        if (!SPIN_WAIT || !spin(e)) {
                            org.jocl.CL.clWaitForEvents(1, new cl_event[] {e});
                        }
                    }
                }
                clReleaseEvent(e);
            }
        }
    }

    /**
     * Host waits so far: {@code [0]} blocking copies and finishes, each of which drains the queue (the device idles
     * until the host queues more); {@code [1]} waits for one copy of {@link #readAsync} or {@link #writeAsync}, which
     * leave the work queued after it running.
     */
    public synchronized long[] hostWaits() {
        return new long[] {drains, transferWaits};
    }

    /** Releases a buffer of {@link #pinnedHostBuffer} (no copy may be using it). */
    public synchronized void releasePinned(java.nio.ByteBuffer buffer) {
        for (int i = 0; i < pinnedMaps.size(); i++) {
            java.nio.ByteBuffer m = pinnedMaps.get(i);
            if (m == buffer) {
                if (!closed) {
                    org.jocl.CL.clEnqueueUnmapMemObject(queue, pinned.get(i), m, 0, null, null);
                    clFinish(queue);
                    clReleaseMemObject(pinned.get(i));
                }
                pinned.remove(i);
                pinnedMaps.remove(i);
                return;
            }
        }
    }

    /** Waits for all queued work. */
    public synchronized void finish() {
        ensureOpen();
        drains++;
        join();
        clFinish(queue);
        finishSide();
        if (transfers != null) {
            clFinish(transfers);
        }
        queueFinishes += 1 + (sidePlain != null ? 1 : 0) + (sideProfiling != null ? 1 : 0) + (transfers != null ? 1 : 0);
    }

    /** clFinish calls of {@link #finish()} so far: one per queue that exists (kernel, side, copies). */
    private long queueFinishes;

    /** See {@link #queueFinishes}. */
    public synchronized long queueFinishes() {
        return queueFinishes;
    }

    /**
     * Switches per-launch event profiling on or off (off by default: events cost host time). The work queued so far
     * is finished first, then the kernel queue becomes the profiling one (made on first use) or the plain one again.
     */
    @SuppressWarnings("deprecation")
    public synchronized void profiling(boolean on) {
        if (on == profiling || closed) {
            profiling = on;
            return;
        }
        join();
        clFinish(queue);
        finishSide();
        if (transfers != null) {
            clFinish(transfers);
        }
        if (on && profilingQueue == null) {
            try {
                profilingQueue = clCreateCommandQueue(context, device.id, CL_QUEUE_PROFILING_ENABLE, null);
            } catch (CLException e) {
                throw new BackendException("aparapi: creating a profiling queue on " + device + " failed: " + e.getMessage(), e);
            }
        }
        queue = on ? profilingQueue : plainQueue;
        profiling = on;
    }

    /** Whether launches are profiled. */
    public synchronized boolean profiling() {
        return profiling;
    }

    /**
     * The name the launches from now on carry in {@link #kernelTimes()}: "scope | label", or the label alone for "".
     * Only read while profiling.
     */
    public synchronized void profileScope(String scope) {
        this.scope = scope;
    }

    /** The event a launch with {@code label} should record, or null when profiling is off. */
    synchronized cl_event launchEvent(String label) {
        if (!profiling) {
            return null;
        }
        cl_event e = new cl_event();
        pendingEvents.add(e);
        pendingLabels.add(scope.isEmpty() ? label : scope + " | " + label);
        return e;
    }

    /**
     * Waits for the queue, folds the device times of the profiled launches into per-label sums and returns
     * them in first-launch order.
     */
    public synchronized List<KernelTime> kernelTimes() {
        finish();
        long[] t = new long[1];
        for (int i = 0; i < pendingEvents.size(); i++) {
            cl_event e = pendingEvents.get(i);
            clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, Sizeof.cl_ulong, Pointer.to(t), null);
            long start = t[0];
            clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, Sizeof.cl_ulong, Pointer.to(t), null);
            clReleaseEvent(e);
            profile.merge(pendingLabels.get(i), new KernelTime(pendingLabels.get(i), 1, t[0] - start), KernelTime::plus);
        }
        pendingEvents.clear();
        pendingLabels.clear();
        return List.copyOf(profile.values());
    }

    /** Forgets the collected kernel times. */
    public synchronized void clearKernelTimes() {
        kernelTimes();
        profile.clear();
    }

    /** True once closed. */
    public synchronized boolean isClosed() {
        return closed;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the OpenCL context on " + device.name() + " is closed");
        }
    }

    /** Releases every buffer, program and kernel, the queue and the context; idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        try {
            clFinish(plainQueue);
            if (profilingQueue != null && profilingQueue != plainQueue) {
                clFinish(profilingQueue);
            }
            finishSide();
            if (transfers != null) {
                clFinish(transfers);
            }
        } finally {
            if (forkMarker != null) {
                clReleaseEvent(forkMarker);
                forkMarker = null;
            }
            for (cl_event e : pendingEvents) {
                clReleaseEvent(e);
            }
            pendingEvents.clear();
            for (ClBuffer b : buffers) {
                clReleaseMemObject(b.mem);
                bytesHeld -= b.bytes();
            }
            buffers.clear();
            for (int i = 0; i < pinned.size(); i++) {
                org.jocl.CL.clEnqueueUnmapMemObject(queue, pinned.get(i), pinnedMaps.get(i), 0, null, null);
            }
            clFinish(queue);
            for (cl_mem m : pinned) {
                clReleaseMemObject(m);
            }
            pinned.clear();
            pinnedMaps.clear();
            programs.release();
            if (transfers != null) {
                clReleaseCommandQueue(transfers);
            }
            if (sidePlain != null) {
                clReleaseCommandQueue(sidePlain);
            }
            if (sideProfiling != null) {
                clReleaseCommandQueue(sideProfiling);
            }
            if (profilingQueue != null && profilingQueue != plainQueue) {
                clReleaseCommandQueue(profilingQueue);
            }
            clReleaseCommandQueue(plainQueue);
            releaseContext(context);
            closed = true;
        }
    }

    /**
     * Summed device time of the profiled launches of one kernel label.
     *
     * @param label    the kernel's label, e.g. "axpby", "BP3.5 N=7 (assembled)"
     * @param launches profiled launches
     * @param nanos    summed {@code CL_PROFILING_COMMAND_END - START}
     */
    public record KernelTime(String label, long launches, long nanos) {
        KernelTime plus(KernelTime o) {
            return new KernelTime(label, launches + o.launches, nanos + o.nanos);
        }

        /** Mean device time per launch in microseconds. */
        public double microsPerLaunch() {
            return launches == 0 ? 0 : nanos / 1e3 / launches;
        }
    }
}
