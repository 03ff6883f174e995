package io.lobatto.backend.aparapi;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.kernels.ChebyshevKernel;
import io.lobatto.backend.aparapi.kernels.FdmKernel;
import io.lobatto.backend.aparapi.kernels.GatherScatterKernel;
import io.lobatto.backend.aparapi.kernels.HaloKernel;
import io.lobatto.backend.aparapi.kernels.ReductionKernel;
import io.lobatto.backend.aparapi.kernels.StreamKernel;
import io.lobatto.backend.aparapi.kernels.TransferKernel;
import io.lobatto.backend.aparapi.runtime.ClBuffer;
import io.lobatto.backend.aparapi.runtime.ClContext;
import io.lobatto.backend.aparapi.runtime.ClDevice;
import io.lobatto.backend.aparapi.runtime.ClKernel;
import io.lobatto.backend.aparapi.runtime.KernelSource;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.BackendException;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceGeometry;
import io.lobatto.core.backend.DeviceFdm;
import io.lobatto.core.backend.DeviceHalo;
import io.lobatto.core.backend.DeviceInfo;
import io.lobatto.core.backend.DeviceIntVector;
import io.lobatto.core.backend.DevicePointwiseData;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceTransfer;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.backend.HostHalo;
import io.lobatto.core.backend.HostSetup;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.mesh.ElementGeometry;
import io.lobatto.core.mesh.PointMap;
import io.lobatto.core.pointwise.PointFunction;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.Quadrature;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToIntFunction;

/**
 * The {@link Backend} on an OpenCL device (site/src/site/markdown/design.md, "Aparapi compiles, Lobatto runs"): the kernels are
 * Java classes ({@code kernels/}) that Aparapi's code generator translates to OpenCL C; this backend
 * builds them per device and per degree N through its own JOCL runtime ({@code runtime/}), keeps every
 * vector in a device buffer of its own, enqueues every launch without waiting and reads back only the
 * partial sums of the operations that return a scalar (dot, norm, the CG and PCG updates, the operator's
 * x . Ax). A CG iteration is three launches (fused element kernel, gather with p . Ap, PCG update) and
 * two read-backs.
 *
 * <p>Reductions are deterministic: each work-group sums its share in a fixed tree and the host adds the
 * partials in group order; the grid depends only on the vector length and the device.
 *
 * <p>No silent fallback: a build error raises with the build log, a refused launch with the kernel, the
 * sizes and the device. Limits: degree N &lt;= {@value #MAX_DEGREE}; a vector or factor buffer at most
 * {@code CL_DEVICE_MAX_MEM_ALLOC_SIZE} bytes and 2^31 - 1 entries.
 */
public final class AparapiBackend implements Backend {

    /** The name {@code LOBATTO_BACKEND} uses. */
    public static final String NAME = "aparapi";
    /** Largest supported polynomial degree (GL grid of 17^3 points in local memory, 2D structure). */
    public static final int MAX_DEGREE = 15;
    /** Most work-groups of a reduction (partials hold two doubles per group). */
    static final int REDUCE_GROUPS = 1024;
    /** Local cache of one gather block, in doubles. */
    static final int GATHER_CACHE = 2048;
    /**
     * Largest work-group of the element kernels: {@code -Dlobatto.aparapi.elementGroup}, default 256, always
     * capped by each built kernel's {@code CL_KERNEL_WORK_GROUP_SIZE}. NVIDIA's OpenCL (H100, driver 580)
     * reports 256 for every kernel, even an 8-register fill built with {@code reqd_work_group_size(1024)} and
     * {@code -cl-nv-maxrregcount=64} (kernel-info, commit db926ce), so larger groups are not launched there.
     */
    static final int ELEMENT_GROUP = Integer.getInteger("lobatto.aparapi.elementGroup", 256);
    /**
     * The default of {@link #foldSearchDirection(boolean)}: {@code -Dlobatto.aparapi.foldSearchDirection},
     * else false (measured below).
     */
    static final boolean FOLD_SEARCH_DIRECTION = Boolean.parseBoolean(
            System.getProperty("lobatto.aparapi.foldSearchDirection", "false"));
    /** Largest work-group of the streaming, reduction and gather kernels (capped by the built kernel). */
    static final int STREAM_GROUP = Integer.getInteger("lobatto.aparapi.streamGroup", 1024);

    private final ClContext cl;
    private final DeviceInfo info;
    private final Map<String, ClKernel> kernels = new HashMap<>();
    private final Map<String, Long> launchCounts = new HashMap<>();
    private final ClBuffer partials;
    /** The partials on the host, in pinned memory (the read-back of every reduction lands here). */
    private final java.nio.ByteBuffer partialsHost;
    /** Bound to the buffer arguments a variant does not read (OpenCL wants every argument set). */
    private final ClBuffer unused;
    private final int reduceGroup;
    private final int gatherGroup;
    private final long localMemBytes;
    private boolean closed;
    private boolean foldSearchDirection = FOLD_SEARCH_DIRECTION;
    /** The element-kernel variant forced by a test, or null for {@link ElementVariant#of}. */
    private final ElementVariant variant;

    /** The device chosen by {@code lobatto.opencl.device} / {@code LOBATTO_OPENCL_DEVICE}, else the first GPU, else any. */
    public AparapiBackend() {
        this(OpenClDevices.configuredSelector());
    }

    /** The device matching {@code selector} (an index into {@link OpenClDevices#list()} or a name substring). */
    public AparapiBackend(String selector) {
        this(OpenClDevices.select(selector));
    }

    /** A backend on {@code device}. */
    public AparapiBackend(ClDevice device) {
        this(device, Long.MAX_VALUE);
    }

    /**
     * A backend on {@code device} that plans its kernels for at most {@code localMemoryCap} bytes of local
     * memory per work-group (the device's own limit when that is smaller): tests use it to run the plans
     * of devices with less local memory, e.g. the in-place GL stages of large N on a GPU, on PoCL.
     */
    AparapiBackend(ClDevice device, long localMemoryCap) {
        this(device, localMemoryCap, null);
    }

    /**
     * {@link #AparapiBackend(ClDevice, long)} with every element kernel in thread structure {@code variant}
     * where it has one (null: the measured table of {@link ElementVariant}); tests use it to run both.
     */
    AparapiBackend(ClDevice device, long localMemoryCap, ElementVariant variant) {
        Objects.requireNonNull(device, "device");
        this.variant = variant;
        this.cl = new ClContext(device);
        this.info = device.info();
        this.localMemBytes = Math.min(device.localMemBytes(), localMemoryCap);
        try {
            this.partials = cl.allocate(32L * REDUCE_GROUPS, "reduction partials");
            this.partialsHost = cl.pinnedHostBuffer(32L * REDUCE_GROUPS, "reduction partials");
            this.unused = cl.allocate(8, "unused arguments");
            this.reduceGroup = powerOfTwoGroup(ReductionKernel.class);
            this.gatherGroup = powerOfTwoGroup(GatherScatterKernel.class);
        } catch (RuntimeException e) {
            cl.close();
            throw e;
        }
    }

    /** The reduction or gather group the backend launches (the choice is {@link KernelBuilds#powerOfTwoGroup}). */
    private int powerOfTwoGroup(Class<? extends Kernel> family) {
        return KernelBuilds.powerOfTwoGroup(family, cl.device().maxWorkGroupSize(), localMemBytes, s -> kernel(s).workGroupSize());
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public DeviceInfo device() {
        return info;
    }

    /** The JOCL runtime of this backend (context, queue, buffers, program cache). */
    public ClContext runtime() {
        return cl;
    }

    /** Work-items per group of the reductions (the largest power of two the built kernels allow). */
    public int reductionGroupSize() {
        return reduceGroup;
    }

    /** The OpenCL C of every kernel this backend has built so far, in build order (for kernel-info reports). */
    public synchronized List<KernelSource> builtSources() {
        List<KernelSource> out = new ArrayList<>();
        for (ClKernel k : kernels.values()) {
            out.add(k.source());
        }
        return out;
    }

    /** The kernels built so far, by label (for kernel-info reports: work-group size, memory use). */
    public synchronized Map<String, ClKernel> builtKernels() {
        Map<String, ClKernel> out = new java.util.TreeMap<>();
        for (ClKernel k : kernels.values()) {
            out.put(k.source().label(), k);
        }
        return out;
    }

    /**
     * Whether {@link #applyAssembledDotUpdate} folds CG's p = z + beta p into the operator's two launches
     * (three launches per CG iteration: the element kernel reads z + beta p through Z, the gather writes
     * the new p) or runs it as an axpby first (four). Off by default: on the H100 (README main job,
     * N = 7, 32^3 elements, commit 4f171e6) the folded element kernel took 787 us against 711 us (a second
     * random read per local node) and the gather 267 us against 197, more than the 92 us of the axpby it
     * saves: 1.42-1.46 ms against 1.345-1.356 ms per iteration.
     */
    public synchronized void foldSearchDirection(boolean fold) {
        foldSearchDirection = fold;
    }

    /** See {@link #foldSearchDirection(boolean)}. */
    public synchronized boolean foldSearchDirection() {
        return foldSearchDirection;
    }

    /** Number of kernel launches so far. */
    public synchronized long launches() {
        long n = 0;
        for (ClKernel k : kernels.values()) {
            n += k.launches();
        }
        return n;
    }

    /** Host waits so far, as {@link ClContext#hostWaits()}: blocking copies and finishes, then waits for async copies. */
    public synchronized long[] hostWaits() {
        return cl.hostWaits();
    }

    /** Switches per-launch OpenCL event profiling on (collecting {@link #statistics()} from now) or off. */
    public synchronized void collectStatistics(boolean on) {
        if (on) {
            cl.clearKernelTimes();
        }
        cl.profiling(on);
    }

    /** Profiled device time per kernel since {@link #collectStatistics(boolean) collectStatistics(true)}. */
    public synchronized List<LaunchStatistics> statistics() {
        List<LaunchStatistics> out = new ArrayList<>();
        for (ClContext.KernelTime t : cl.kernelTimes()) {
            out.add(new LaunchStatistics(t.label(), t.launches(), t.nanos()));
        }
        return out;
    }

    boolean isClosed() {
        return closed;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the aparapi backend on " + info.name() + " is closed");
        }
    }

    // ------------------------------------------------------------------ kernels

    /** The kernel of {@code spec}, built once (the choices of what to build are {@link KernelBuilds}'). */
    private ClKernel kernel(KernelBuilds.Spec spec) {
        String key = spec.key();
        ClKernel k = kernels.get(key);
        if (k == null) {
            k = cl.programs().kernel(spec.source());
            kernels.put(key, k);
        }
        return k;
    }

    /** The built kernels of the streaming, reduction and gather/scatter ops by op code (no map lookup per launch). */
    private final ClKernel[] streamKernels = new ClKernel[4];
    private final ClKernel[] reductionKernels = new ClKernel[4];
    private final ClKernel[] gatherKernels = new ClKernel[4];

    private ClKernel stream(int op) {
        ClKernel k = streamKernels[op];
        if (k == null) {
            k = buildStream(op);
            streamKernels[op] = k;
        }
        return k;
    }

    private ClKernel buildStream(int op) {
        return kernel(KernelBuilds.stream(op));
    }

    /** The reduction {@code op} built for the backend's reduction group. */
    private ClKernel reduction(int op) {
        ClKernel k = reductionKernels[op];
        if (k == null) {
            k = buildReduction(op, reduceGroup);
            reductionKernels[op] = k;
        }
        return k;
    }

    private ClKernel buildReduction(int op, int group) {
        return kernel(KernelBuilds.reduction(op, group));
    }

    /** The gather/scatter {@code op} built for the backend's gather group. */
    private ClKernel gatherKernel(int op) {
        ClKernel k = gatherKernels[op];
        if (k == null) {
            k = buildGather(op, gatherGroup);
            gatherKernels[op] = k;
        }
        return k;
    }

    private ClKernel buildGather(int op, int group) {
        return kernel(KernelBuilds.gather(op, group));
    }

    /** Launches a one-work-item-per-entry kernel over n entries. */
    private void launchPerEntry(ClKernel k, long n) {
        int g = KernelBuilds.perEntryGroup(k.workGroupSize());
        k.launch((n + g - 1) / g, g);
    }

    /** Groups of a reduction over n entries: depends only on n and the group size (determinism). */
    private int reductionGroups(int n) {
        return (int) Math.min(REDUCE_GROUPS, (n + (long) reduceGroup - 1) / reduceGroup);
    }

    /** Reads the first {@code count} partials and sums them in group order. */
    private double sumPartials(int groups) {
        cl.read(partials, 0, partialsHost, groups);
        double s = 0;
        for (int g = 0; g < groups; g++) {
            s += partialsHost.getDouble(8 * g);
        }
        return s;
    }

    // ------------------------------------------------------------------ memory

    private ClVector vec(Object v, String name) {
        ensureOpen();
        Objects.requireNonNull(v, name);
        if (!(v instanceof ClVector a) || a.backend() != this) {
            throw new IllegalArgumentException(name + " is not a vector of this aparapi backend: " + v);
        }
        if (a.isClosed()) {
            throw new IllegalStateException(name + " is closed");
        }
        return a;
    }

    private static void sameLength(String what, DeviceVector a, String an, DeviceVector b, String bn) {
        if (a.length() != b.length()) {
            throw new IllegalArgumentException(what + ": " + an + " has length " + a.length() + " but " + bn + " has length " + b.length());
        }
    }

    private static void checkLen(String what, String name, int actual, int expected) {
        if (actual != expected) {
            throw new IllegalArgumentException(what + ": " + name + " has length " + actual + " but must have length " + expected);
        }
    }

    /** A buffer of at least one entry (OpenCL has no empty buffers) of {@code bytesPerEntry}. */
    private ClBuffer buffer(long entries, int bytesPerEntry, String what) {
        return cl.allocate(Math.max(1, entries) * bytesPerEntry, what);
    }

    @Override
    public synchronized DeviceVector allocate(int length) {
        ensureOpen();
        if (length < 0) {
            throw new IllegalArgumentException("allocate: length " + length + " < 0");
        }
        return new ClVector(this, buffer(length, 8, "a vector of " + length + " doubles"), length);
    }

    @Override
    public synchronized DeviceVector upload(double[] values) {
        ensureOpen();
        ClVector v = new ClVector(this, buffer(values.length, 8, "a vector of " + values.length + " doubles"), values.length);
        cl.write(values, 0, values.length, v.buffer, 0);
        return v;
    }

    @Override
    public synchronized DeviceIntVector upload(int[] values) {
        ensureOpen();
        ClVector v = new ClVector(this, buffer(values.length, 4, "an index vector of " + values.length + " ints"), values.length);
        cl.write(values, 0, values.length, v.buffer, 0);
        int min = Integer.MAX_VALUE, max = Integer.MIN_VALUE;
        for (int i : values) {
            min = Math.min(min, i);
            max = Math.max(max, i);
        }
        v.minIndex = values.length == 0 ? 0 : min;
        v.maxIndex = values.length == 0 ? -1 : max;
        return v;
    }

    @Override
    public synchronized void write(double[] values, DeviceVector target) {
        ClVector t = vec(target, "target");
        if (values.length != t.length()) {
            throw new IllegalArgumentException("write: values has length " + values.length + " but target has length " + t.length());
        }
        cl.write(values, 0, values.length, t.buffer, 0);
    }

    @Override
    public synchronized void read(DeviceVector source, double[] values) {
        ClVector s = vec(source, "source");
        if (values.length != s.length()) {
            throw new IllegalArgumentException("read: values has length " + values.length + " but source has length " + s.length());
        }
        cl.read(s.buffer, 0, values, 0, values.length);
    }

    /**
     * A non-blocking read into the vector's pinned staging buffer on the context's copy queue, behind a marker of the
     * kernel queue ({@link ClContext#readAsync}); {@code await} waits for that copy only (the kernels queued after this
     * call run during it) and copies the staging into {@code values}.
     */
    @Override
    public synchronized PendingRead readAsync(DeviceVector source, double[] values) {
        ClVector s = vec(source, "source");
        if (values.length != s.length()) {
            throw new IllegalArgumentException("readAsync: values has length " + values.length + " but source has length "
                    + s.length());
        }
        if (s.pendingRead != null) {
            s.pendingRead.await();
        }
        if (s.readStage == null) {
            s.readStage = cl.pinnedHostBuffer(Math.max(8, 8L * s.length()), "the host staging of a vector's reads");
        }
        ClContext.Transfer t = cl.readAsync(s.buffer, s.readStage, s.length());
        s.pendingRead = t;
        java.nio.ByteBuffer stage = s.readStage;
        return new PendingRead() {
            private boolean done;

            @Override
            public void await() {
                synchronized (AparapiBackend.this) {
                    if (done) {
                        return;
                    }
                    done = true;
                    t.await();
                    if (s.pendingRead == t) {
                        s.pendingRead = null;
                    }
                    stage.asDoubleBuffer().get(0, values, 0, values.length);
                }
            }
        };
    }

    /**
     * Copies {@code values} into the vector's pinned staging buffer (after the previous write from it has completed)
     * and queues a non-blocking write from it on the copy queue, which the kernels queued after it wait for
     * ({@link ClContext#writeAsync}): no wait for the queued work.
     */
    @Override
    public synchronized void writeAsync(double[] values, DeviceVector target) {
        ClVector t = vec(target, "target");
        if (values.length != t.length()) {
            throw new IllegalArgumentException("writeAsync: values has length " + values.length + " but target has length "
                    + t.length());
        }
        if (t.pendingWrite != null) {
            t.pendingWrite.await();
            t.pendingWrite = null;
        }
        if (t.writeStage == null) {
            t.writeStage = cl.pinnedHostBuffer(Math.max(8, 8L * t.length()), "the host staging of a vector's writes");
        }
        t.writeStage.asDoubleBuffer().put(0, values, 0, values.length);
        t.pendingWrite = cl.writeAsync(t.writeStage, t.length(), t.buffer);
    }

    /** Waits for the vector's pending copies and releases its staging buffers (when it is closed). */
    synchronized void releaseStaging(ClVector v) {
        if (closed) {
            return;
        }
        if (v.pendingRead != null) {
            v.pendingRead.await();
            v.pendingRead = null;
        }
        if (v.pendingWrite != null) {
            v.pendingWrite.await();
            v.pendingWrite = null;
        }
        if (v.readStage != null) {
            cl.releasePinned(v.readStage);
            v.readStage = null;
        }
        if (v.writeStage != null) {
            cl.releasePinned(v.writeStage);
            v.writeStage = null;
        }
    }

    @Override
    public synchronized void synchronize() {
        ensureOpen();
        cl.finish();
    }

    // ------------------------------------------------------------------ streaming

    @Override
    public synchronized void fill(DeviceVector y, double value) {
        ClVector yv = vec(y, "y");
        runStream(StreamKernel.FILL, unused, unused, yv, value, 0);
    }

    @Override
    public synchronized void copy(DeviceVector x, DeviceVector y) {
        ClVector xv = vec(x, "x");
        ClVector yv = vec(y, "y");
        sameLength("copy", x, "x", y, "y");
        runStream(StreamKernel.COPY, xv.buffer, unused, yv, 0, 0);
    }

    @Override
    public synchronized void axpby(double a, DeviceVector x, double b, DeviceVector y) {
        ClVector xv = vec(x, "x");
        ClVector yv = vec(y, "y");
        sameLength("axpby", x, "x", y, "y");
        runStream(StreamKernel.AXPBY, xv.buffer, unused, yv, a, b);
    }

    @Override
    public synchronized void pointwiseMultiply(DeviceVector a, DeviceVector x, DeviceVector y) {
        ClVector av = vec(a, "a");
        ClVector xv = vec(x, "x");
        ClVector yv = vec(y, "y");
        sameLength("pointwiseMultiply", a, "a", x, "x");
        sameLength("pointwiseMultiply", x, "x", y, "y");
        runStream(StreamKernel.PMUL, xv.buffer, av.buffer, yv, 0, 0);
    }

    private void runStream(int op, ClBuffer x, ClBuffer w, ClVector y, double a, double b) {
        if (y.length() == 0) {
            return;
        }
        ClKernel k = stream(op);
        k.set("x", x).set("w", w).set("y", y.buffer).set("a", a).set("b", b).set("n", y.length());
        launchPerEntry(k, y.length());
    }

    @Override
    public synchronized double dot(DeviceVector x, DeviceVector y) {
        ClVector xv = vec(x, "x");
        ClVector yv = vec(y, "y");
        sameLength("dot", x, "x", y, "y");
        return reduce(ReductionKernel.DOT, yv.buffer, unused, xv.buffer, unused, unused, unused, 0, xv.length(), null);
    }

    @Override
    public synchronized double norm2(DeviceVector x) {
        ClVector xv = vec(x, "x");
        return reduce(ReductionKernel.DOT, xv.buffer, unused, xv.buffer, unused, unused, unused, 0, xv.length(), null);
    }

    @Override
    public synchronized double cgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r) {
        ClVector pv = vec(p, "p");
        ClVector apv = vec(ap, "ap");
        ClVector xv = vec(x, "x");
        ClVector rv = vec(r, "r");
        sameLength("cgUpdate", p, "p", ap, "ap");
        sameLength("cgUpdate", p, "p", x, "x");
        sameLength("cgUpdate", p, "p", r, "r");
        return reduce(ReductionKernel.CG_UPDATE, pv.buffer, apv.buffer, xv.buffer, rv.buffer, unused, unused, alpha, pv.length(), null);
    }

    /**
     * One pass of BS5 with Jacobi fused in: x += alpha p; r -= alpha Ap; z = inverseDiagonal o r; two
     * tree reductions per work-group (r . r and r . z), summed on the host in group order.
     */
    @Override
    public synchronized void pcgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r,
                                       DeviceVector inverseDiagonal, DeviceVector z, double[] dots) {
        pcgUpdate(alpha, p, ap, x, r, inverseDiagonal, z, null, dots);
    }

    /** {@link #pcgUpdate} less the rows {@code excluded}: one more launch over them, the same single read-back. */
    @Override
    public synchronized void pcgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r,
                                       DeviceVector inverseDiagonal, DeviceVector z, DeviceIntVector excluded, double[] dots) {
        pcgUpdate(alpha, p, ap, x, r, inverseDiagonal, z, rows(excluded, r.length()), dots);
    }

    private void pcgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r,
                           DeviceVector inverseDiagonal, DeviceVector z, ClVector excluded, double[] dots) {
        ClVector pv = vec(p, "p");
        ClVector apv = vec(ap, "ap");
        ClVector xv = vec(x, "x");
        ClVector rv = vec(r, "r");
        ClVector dv = vec(inverseDiagonal, "inverseDiagonal");
        ClVector zv = vec(z, "z");
        if (dots == null || dots.length < 2) {
            throw new IllegalArgumentException("pcgUpdate: dots must have length >= 2, got "
                    + (dots == null ? "null" : "length " + dots.length));
        }
        sameLength("pcgUpdate", p, "p", ap, "ap");
        sameLength("pcgUpdate", p, "p", x, "x");
        sameLength("pcgUpdate", p, "p", r, "r");
        sameLength("pcgUpdate", p, "p", inverseDiagonal, "inverseDiagonal");
        sameLength("pcgUpdate", p, "p", z, "z");
        ClVector[] all = {pv, apv, xv, rv, dv, zv};
        String[] names = {"p", "ap", "x", "r", "inverseDiagonal", "z"};
        for (int i = 0; i < all.length; i++) {
            for (int j = i + 1; j < all.length; j++) {
                if (all[i] == all[j]) {
                    throw new IllegalArgumentException("pcgUpdate: " + names[i] + " and " + names[j] + " must be distinct vectors");
                }
            }
        }
        reduce(ReductionKernel.PCG_UPDATE, pv.buffer, apv.buffer, xv.buffer, rv.buffer, dv.buffer, zv.buffer, alpha,
                pv.length(), dots, excluded, rv.buffer, zv.buffer);
    }

    /** Launches a reduction and sums its partials (two per group into {@code dots} for the PCG update). */
    private double reduce(int op, ClBuffer p, ClBuffer ap, ClBuffer x, ClBuffer r, ClBuffer d, ClBuffer z, double alpha,
                          int n, double[] dots) {
        return reduce(op, p, ap, x, r, d, z, alpha, n, dots, null, null, null);
    }

    /**
     * {@link #reduce} less the rows {@code excluded} (null: none): after the reduction, {@link RowDotKernel} sums
     * cx_e cy_e (one sum; for the PCG update cx_e cx_e and cx_e cy_e) over the excluded rows into the partials after the
     * reduction's, both are read back at once and the correction is subtracted, each summed in group order.
     */
    private double reduce(int op, ClBuffer p, ClBuffer ap, ClBuffer x, ClBuffer r, ClBuffer d, ClBuffer z, double alpha,
                          int n, double[] dots, ClVector excluded, ClBuffer cx, ClBuffer cy) {
        int width = dots == null ? 1 : 2;
        int groups = n == 0 ? 0 : reductionGroups(n);
        if (n > 0) {
            ClKernel k = reduction(op);
            k.set("p", p).set("ap", ap).set("x", x).set("r", r).set("d", d).set("z", z).set("partials", partials)
                    .set("alpha", alpha).set("n", n).local("lds", KernelBuilds.reductionLocalBytes(reduceGroup));
            k.launch(groups, reduceGroup);
        }
        int m = excluded == null ? 0 : excluded.length();
        int rowGroups = m == 0 ? 0 : reductionGroups(m);
        if (rowGroups > 0) {
            ClKernel k = rowDotKernels[width];
            if (k == null) {
                k = kernel(KernelBuilds.rowDot(width, reduceGroup));
                rowDotKernels[width] = k;
            }
            k.set("rows", excluded.buffer).set("x", cx).set("y", cy).set("partials", partials).set("n", m)
                    .set("offset", width * groups).local("lds", KernelBuilds.reductionLocalBytes(reduceGroup));
            k.launch(rowGroups, reduceGroup);
        }
        if (groups + rowGroups == 0) {
            if (dots != null) {
                dots[0] = 0;
                dots[1] = 0;
            }
            return 0;
        }
        cl.read(partials, 0, partialsHost, width * (groups + rowGroups));
        double[] sums = new double[2];
        double[] less = new double[2];
        for (int g = 0; g < groups; g++) {
            for (int c = 0; c < width; c++) {
                sums[c] += partialsHost.getDouble(8 * (width * g + c));
            }
        }
        for (int g = groups; g < groups + rowGroups; g++) {
            for (int c = 0; c < width; c++) {
                less[c] += partialsHost.getDouble(8 * (width * g + c));
            }
        }
        if (dots != null) {
            dots[0] = sums[0] - less[0];
            dots[1] = sums[1] - less[1];
        }
        return sums[0] - less[0];
    }

    private final ClKernel[] rowDotKernels = new ClKernel[3];

    /** The index vector of excluded rows, checked to belong to this backend and to index rows [0, n). */
    private ClVector rows(DeviceIntVector excluded, int n) {
        ClVector a = rows(excluded);
        if (a.length() > 0 && (a.minIndex < 0 || a.maxIndex >= n)) {
            throw new IllegalArgumentException("excluded rows lie in [" + a.minIndex + ", " + a.maxIndex + "], not in [0, " + n + ")");
        }
        return a;
    }

    private ClVector rows(DeviceIntVector excluded) {
        ensureOpen();
        Objects.requireNonNull(excluded, "excluded");
        if (!(excluded instanceof ClVector a) || a.backend() != this) {
            throw new IllegalArgumentException("excluded is not an index vector of this aparapi backend: " + excluded);
        }
        if (a.isClosed()) {
            throw new IllegalStateException("excluded is closed");
        }
        return a;
    }

    @Override
    public synchronized double dot(DeviceVector x, DeviceVector y, DeviceIntVector excluded) {
        ClVector xv = vec(x, "x");
        ClVector yv = vec(y, "y");
        sameLength("dot", x, "x", y, "y");
        ClVector ex = rows(excluded, xv.length());
        return reduce(ReductionKernel.DOT, yv.buffer, unused, xv.buffer, unused, unused, unused, 0, xv.length(), null, ex,
                xv.buffer, yv.buffer);
    }

    @Override
    public synchronized double cgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r,
                                        DeviceIntVector excluded) {
        ClVector pv = vec(p, "p");
        ClVector apv = vec(ap, "ap");
        ClVector xv = vec(x, "x");
        ClVector rv = vec(r, "r");
        ClVector ex = rows(excluded, rv.length());
        sameLength("cgUpdate", p, "p", ap, "ap");
        sameLength("cgUpdate", p, "p", x, "x");
        sameLength("cgUpdate", p, "p", r, "r");
        return reduce(ReductionKernel.CG_UPDATE, pv.buffer, apv.buffer, xv.buffer, rv.buffer, unused, unused, alpha,
                pv.length(), null, ex, rv.buffer, rv.buffer);
    }

    // ------------------------------------------------------------------ gather / scatter

    @Override
    public synchronized DeviceScatter uploadScatter(int[] scatterIds, int[] gatherStarts, int[] gatherIds, int[] blockStarts,
                                                    double[] inverseDegree, int globalSize) {
        ensureOpen();
        int nl = scatterIds.length;
        if (globalSize < 0) {
            throw new IllegalArgumentException("globalSize " + globalSize + " < 0");
        }
        for (int n = 0; n < nl; n++) {
            if (scatterIds[n] < -1 || scatterIds[n] >= globalSize) {
                throw new IllegalArgumentException("scatterIds[" + n + "] = " + scatterIds[n] + " not in [-1, " + globalSize + ")");
            }
        }
        if (gatherStarts.length != globalSize + 1 || gatherStarts[0] != 0 || gatherStarts[globalSize] != gatherIds.length) {
            throw new IllegalArgumentException("gatherStarts must have length globalSize + 1 = " + (globalSize + 1)
                    + ", start at 0 and end at gatherIds.length = " + gatherIds.length);
        }
        for (int g = 0; g < globalSize; g++) {
            if (gatherStarts[g + 1] < gatherStarts[g]) {
                throw new IllegalArgumentException("gatherStarts not ascending at row " + g);
            }
        }
        for (int i = 0; i < gatherIds.length; i++) {
            if (gatherIds[i] < 0 || gatherIds[i] >= nl) {
                throw new IllegalArgumentException("gatherIds[" + i + "] = " + gatherIds[i] + " not in [0, " + nl + ")");
            }
        }
        if (inverseDegree.length != nl) {
            throw new IllegalArgumentException("inverseDegree has length " + inverseDegree.length + " but scatterIds has length " + nl);
        }
        int[] blocks = blockStarts;
        if (blocks == null || blocks.length == 0) {
            blocks = makeBlocks(gatherStarts, globalSize);
        }
        if (blocks[0] != 0 || blocks[blocks.length - 1] != globalSize) {
            throw new IllegalArgumentException("blockStarts must start at 0 and end at globalSize = " + globalSize);
        }
        int maxEntries = 0;
        for (int b = 0; b + 1 < blocks.length; b++) {
            if (blocks[b + 1] < blocks[b]) {
                throw new IllegalArgumentException("blockStarts not ascending at block " + b);
            }
            maxEntries = Math.max(maxEntries, gatherStarts[blocks[b + 1]] - gatherStarts[blocks[b]]);
        }
        return new ClScatter(this, (ClVector) upload(scatterIds), (ClVector) upload(gatherStarts),
                (ClVector) upload(gatherIds), (ClVector) upload(blocks), (ClVector) upload(inverseDegree),
                blocks.length - 1, globalSize);
    }

    /** Rows blocked so that each block has at most {@link #GATHER_CACHE} CSR entries (or one long row). */
    static int[] makeBlocks(int[] starts, int rows) {
        java.util.ArrayList<Integer> b = new java.util.ArrayList<>();
        b.add(0);
        int blockStart = 0;
        for (int row = 0; row < rows; row++) {
            if (row > blockStart && starts[row + 1] - starts[blockStart] > GATHER_CACHE) {
                b.add(row);
                blockStart = row;
            }
        }
        if (rows > 0) {
            b.add(rows);
        }
        return b.stream().mapToInt(Integer::intValue).toArray();
    }

    private ClScatter scat(DeviceScatter z) {
        Objects.requireNonNull(z, "z");
        if (!(z instanceof ClScatter s) || s.backend != this) {
            throw new IllegalArgumentException("z is not a scatter operator of this aparapi backend");
        }
        if (z.isClosed()) {
            throw new IllegalStateException("z is closed");
        }
        return s;
    }

    @Override
    public synchronized void scatter(DeviceScatter z, DeviceVector xG, DeviceVector xL) {
        ClScatter s = scat(z);
        ClVector g = vec(xG, "xG");
        ClVector l = vec(xL, "xL");
        checkLen("scatter", "xG", g.length(), s.globalSize());
        checkLen("scatter", "xL", l.length(), s.localSize());
        if (l.length() == 0) {
            return;
        }
        ClKernel k = gatherKernel(GatherScatterKernel.SCATTER);
        bindScatter(k, s);
        k.set("xG", g.buffer).set("xL", l.buffer).set("yG", unused).set("dirG", unused).set("beta", 0.0)
                .set("n", l.length()).local("lds", KernelBuilds.gatherLocalBytes(GatherScatterKernel.SCATTER, gatherGroup));
        launchPerEntry(k, l.length());
    }

    private void bindScatter(ClKernel k, ClScatter s) {
        k.set("scatterIds", s.scatterIds.buffer).set("starts", s.gatherStarts.buffer).set("ids", s.gatherIds.buffer)
                .set("blocks", s.blockStarts.buffer).set("partials", partials).set("strideL", 0).set("strideG", 0);
    }

    @Override
    public synchronized void gather(DeviceScatter z, DeviceVector xL, DeviceVector xG) {
        ClScatter s = scat(z);
        ClVector l = vec(xL, "xL");
        ClVector g = vec(xG, "xG");
        checkLen("gather", "xL", l.length(), s.localSize());
        checkLen("gather", "xG", g.length(), s.globalSize());
        runGather(s, l, g, null, null, 0);
    }

    /**
     * The gather: at most {@link #REDUCE_GROUPS} work-groups stride over the row blocks. With {@code x}
     * not null each group also reduces its rows' g[row] x[row] into one partial, summed on the host in
     * group order (deterministic: the grid depends only on the number of blocks), and that sum is
     * returned; else 0 and nothing is read back. With {@code dir} not null each row first updates
     * x[row] = dir[row] + beta x[row] (CG's p update, folded in).
     */
    private double runGather(ClScatter s, ClVector l, ClVector g, ClVector x, ClVector dir, double beta) {
        if (s.blocks == 0) {
            if (dir != null) {
                runStream(StreamKernel.AXPBY, dir.buffer, unused, x, 1, beta);
            }
            return 0;
        }
        int groups = Math.min(REDUCE_GROUPS, s.blocks);
        int op = x == null ? GatherScatterKernel.GATHER
                : dir == null ? GatherScatterKernel.GATHER_DOT : GatherScatterKernel.GATHER_DOT_UPDATE;
        ClKernel k = gatherKernel(op);
        bindScatter(k, s);
        k.set("xG", x == null ? unused : x.buffer).set("xL", l.buffer).set("yG", g.buffer).set("n", s.blocks)
                .set("dirG", dir == null ? unused : dir.buffer).set("beta", beta)
                .local("lds", KernelBuilds.gatherLocalBytes(op, gatherGroup));
        k.launch(groups, gatherGroup);
        return x == null ? 0 : sumPartials(groups);
    }

    // ------------------------------------------------------------------ p-multigrid transfer (TransferKernel)

    @Override
    public synchronized DeviceTransfer uploadTransfer(Basis1D coarse, Basis1D fine, int elements) {
        ensureOpen();
        Objects.requireNonNull(coarse, "coarse");
        Objects.requireNonNull(fine, "fine");
        if (coarse.degree() >= fine.degree()) {
            throw new IllegalArgumentException("transfer: the coarse degree " + coarse.degree() + " must be below the fine degree "
                    + fine.degree());
        }
        if (fine.degree() > MAX_DEGREE) {
            throw new IllegalArgumentException("transfer: fine degree " + fine.degree() + " > " + MAX_DEGREE);
        }
        if (elements < 0) {
            throw new IllegalArgumentException("elements must be >= 0, got " + elements);
        }
        double[] j = Basis1D.interpolationMatrix(coarse.gll().nodes(), fine.gll().nodes());
        long nc = coarse.nq(), nf = fine.nq();
        long wide = elements * nc * nf * nf;
        if (wide > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("transfer: E (Nc+1) (Nf+1)^2 = " + wide + " intermediate entries exceed 2^31 - 9");
        }
        ClVector jv = (ClVector) upload(j);
        ClVector w = null;
        try {
            w = (ClVector) allocate((int) wide);
            ClVector narrow = (ClVector) allocate((int) (elements * nc * nc * nf));
            return new ClTransfer(this, jv, w, narrow, coarse.degree(), fine.degree(), elements);
        } catch (RuntimeException ex) {
            jv.close();
            if (w != null) {
                w.close();
            }
            throw ex;
        }
    }

    private ClTransfer transferOf(DeviceTransfer t) {
        Objects.requireNonNull(t, "t");
        if (!(t instanceof ClTransfer c) || c.backend != this) {
            throw new IllegalArgumentException("t is not a transfer of this aparapi backend: " + t);
        }
        if (c.isClosed()) {
            throw new IllegalStateException("t is closed");
        }
        return c;
    }

    @Override
    public synchronized void prolongate(DeviceTransfer t, DeviceScatter zc, DeviceScatter zf, DeviceVector xc,
                                        DeviceVector workF, DeviceVector xf) {
        ClTransfer tt = transferOf(t);
        ClScatter c = scat(zc);
        ClScatter f = scat(zf);
        ClVector x = vec(xc, "xc");
        ClVector w = vec(workF, "workF");
        ClVector y = vec(xf, "xf");
        checkTransfer(tt, c, f);
        checkLen("prolongate", "xc", x.length(), c.globalSize());
        checkLen("prolongate", "workF", w.length(), f.localSize());
        checkLen("prolongate", "xf", y.length(), f.globalSize());
        runTransfer(TransferKernel.PROLONG_I, tt, c.scatterIds, x, f.inverseDegree, w);
        runGather(f, w, y, null, null, 0);
    }

    @Override
    public synchronized void restrict(DeviceTransfer t, DeviceScatter zf, DeviceScatter zc, DeviceVector rf,
                                      DeviceVector workC, DeviceVector rc) {
        ClTransfer tt = transferOf(t);
        ClScatter f = scat(zf);
        ClScatter c = scat(zc);
        ClVector r = vec(rf, "rf");
        ClVector w = vec(workC, "workC");
        ClVector y = vec(rc, "rc");
        checkTransfer(tt, c, f);
        checkLen("restrict", "rf", r.length(), f.globalSize());
        checkLen("restrict", "workC", w.length(), c.localSize());
        checkLen("restrict", "rc", y.length(), c.globalSize());
        runTransfer(TransferKernel.RESTRICT_K, tt, f.scatterIds, r, f.inverseDegree, w);
        runGather(c, w, y, null, null, 0);
    }

    /** The fused Chebyshev step: d = a d + b (inverseDiagonal o r); x += d in one launch ({@link ChebyshevKernel}). */
    @Override
    public synchronized void chebyshevStep(double a, double b, DeviceVector inverseDiagonal, DeviceVector r, DeviceVector d,
                                           DeviceVector x, DeviceVector scratch) {
        ClVector wv = vec(inverseDiagonal, "inverseDiagonal");
        ClVector rv = vec(r, "r");
        ClVector dv = vec(d, "d");
        ClVector xv = vec(x, "x");
        sameLength("chebyshevStep", inverseDiagonal, "inverseDiagonal", r, "r");
        sameLength("chebyshevStep", r, "r", d, "d");
        sameLength("chebyshevStep", d, "d", x, "x");
        if (d == x || d == r || x == r) {
            throw new IllegalArgumentException("chebyshevStep: r, d and x must be distinct vectors");
        }
        if (dv.length() == 0) {
            return;
        }
        ClKernel k = kernel(KernelBuilds.chebyshev());
        k.set("w", wv.buffer).set("r", rv.buffer).set("d", dv.buffer).set("x", xv.buffer).set("a", a).set("b", b)
                .set("n", dv.length());
        launchPerEntry(k, dv.length());
    }

    // ------------------------------------------------------------------ fast diagonalisation (FdmKernel)

    @Override
    public synchronized DeviceFdm uploadFdm(int points, int elements, double[] eigenvectors, double[] eigenvalues) {
        ensureOpen();
        DeviceFdm.checkUpload(points, elements, eigenvectors, eigenvalues);
        if (points < 2 || points > MAX_DEGREE + 3) {
            throw new IllegalArgumentException("fdm: points must be in [2, " + (MAX_DEGREE + 3) + "], got " + points);
        }
        int block = elements * points * points * points;
        java.util.List<ClVector> made = new java.util.ArrayList<>();
        try {
            made.add((ClVector) upload(eigenvectors));
            made.add((ClVector) upload(eigenvalues));
            made.add((ClVector) allocate(block));
            made.add((ClVector) allocate(block));
            return new ClFdm(this, made.get(0), made.get(1), made.get(2), made.get(3), points, elements);
        } catch (RuntimeException ex) {
            made.forEach(ClVector::close);
            throw ex;
        }
    }

    @Override
    public synchronized void applyFdm(DeviceFdm fdm, DeviceVector x, DeviceVector y) {
        Objects.requireNonNull(fdm, "fdm");
        if (!(fdm instanceof ClFdm f) || f.backend != this) {
            throw new IllegalArgumentException("fdm is not a fast diagonalisation of this aparapi backend: " + fdm);
        }
        if (f.isClosed()) {
            throw new IllegalStateException("fdm is closed");
        }
        ClVector xv = vec(x, "x");
        ClVector yv = vec(y, "y");
        if (x == y) {
            throw new IllegalArgumentException("applyFdm: x and y must be distinct vectors");
        }
        int n = f.points();
        int block = f.elements() * n * n * n;
        checkLen("applyFdm", "x", xv.length(), block);
        checkLen("applyFdm", "y", yv.length(), block);
        if (block == 0) {
            return;
        }
        fdmPass(FdmKernel.FORWARD_R, f, xv.buffer, f.workA.buffer, block);
        fdmPass(FdmKernel.FORWARD_S, f, f.workA.buffer, f.workB.buffer, block);
        fdmPass(FdmKernel.FORWARD_T, f, f.workB.buffer, f.workA.buffer, block);
        fdmPass(FdmKernel.BACKWARD_T, f, f.workA.buffer, f.workB.buffer, block);
        fdmPass(FdmKernel.BACKWARD_S, f, f.workB.buffer, f.workA.buffer, block);
        fdmPass(FdmKernel.BACKWARD_R, f, f.workA.buffer, yv.buffer, block);
    }

    /** One sum-factorised pass of {@link FdmKernel}: {@code n} outputs into {@code out}. */
    private void fdmPass(int op, ClFdm f, ClBuffer in, ClBuffer out, int n) {
        ClKernel k = kernel(KernelBuilds.fdm(op, f.points()));
        k.set("vm", f.vectors.buffer).set("lm", f.values.buffer).set("ta", in).set("tb", out).set("n", n);
        launchPerEntry(k, n);
    }

    private static void checkTransfer(ClTransfer t, ClScatter c, ClScatter f) {
        long nc = t.coarseDegree() + 1, nf = t.fineDegree() + 1;
        checkLen("transfer", "zc.localSize()", c.localSize(), (int) (t.elements() * nc * nc * nc));
        checkLen("transfer", "zf.localSize()", f.localSize(), (int) (t.elements() * nf * nf * nf));
    }

    /** One sum-factorised pass of {@link TransferKernel}: {@code n} outputs into {@code out}. */
    private void transferPass(int op, ClTransfer t, ClBuffer ids, ClBuffer xg, ClBuffer wf, ClBuffer in, ClBuffer out, long n) {
        if (n == 0) {
            return;
        }
        ClKernel k = kernel(KernelBuilds.transfer(op, t.coarseDegree(), t.fineDegree()));
        k.set("jm", t.matrix.buffer).set("ids", ids).set("xg", xg).set("wf", wf).set("ta", in).set("tb", out).set("n", (int) n);
        launchPerEntry(k, n);
    }

    /** The element part of prolongation (op PROLONG) or restriction into {@code out}, in three passes. */
    private void runTransfer(int op, ClTransfer t, ClVector ids, ClVector in, ClVector weights, ClVector out) {
        long e = t.elements(), nc = t.coarseDegree() + 1, nf = t.fineDegree() + 1;
        if (op == TransferKernel.PROLONG_I) {
            transferPass(TransferKernel.PROLONG_I, t, ids.buffer, in.buffer, unused, unused, t.narrow.buffer, e * nc * nc * nf);
            transferPass(TransferKernel.PROLONG_J, t, unused, unused, unused, t.narrow.buffer, t.wide.buffer, e * nc * nf * nf);
            transferPass(TransferKernel.PROLONG_K, t, unused, unused, weights.buffer, t.wide.buffer, out.buffer, e * nf * nf * nf);
        } else {
            transferPass(TransferKernel.RESTRICT_K, t, ids.buffer, in.buffer, weights.buffer, unused, t.wide.buffer, e * nc * nf * nf);
            transferPass(TransferKernel.RESTRICT_J, t, unused, unused, unused, t.wide.buffer, t.narrow.buffer, e * nc * nc * nf);
            transferPass(TransferKernel.RESTRICT_I, t, unused, unused, unused, t.narrow.buffer, out.buffer, e * nc * nc * nc);
        }
    }

    // ------------------------------------------------------------------ builds ahead of use

    /**
     * Threads that build kernels ahead of use ({@link #prepare}): {@code -Dlobatto.aparapi.buildThreads}, default the
     * host's cores, at least 2 and at most 8. Each runs one {@code clBuildProgram} (or disk-cache load) at a time.
     */
    static final int BUILD_THREADS = Integer.getInteger("lobatto.aparapi.buildThreads",
            Math.min(8, Math.max(2, Runtime.getRuntime().availableProcessors())));
    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger("io.lobatto.backend.aparapi");

    /** The pool of {@link #prepare}, started at its first call. */
    private java.util.concurrent.ExecutorService builder;
    private final List<java.util.concurrent.Future<?>> prepared = new ArrayList<>();

    /**
     * Submits the builds of every kernel a solve with {@code kernel} at {@code degrees} launches (see
     * {@link Backend#prepare}) to a pool of {@link #BUILD_THREADS} threads and returns. Each task generates a source
     * and builds it through the {@link io.lobatto.backend.aparapi.runtime.ProgramCache}, whose futures make an
     * operation that needs a kernel still building wait for that build rather than build it twice. The tasks plan
     * exactly as the operations do (with each built kernel's {@code CL_KERNEL_WORK_GROUP_SIZE}) from values read
     * here, and touch no other state of the backend, so they take none of its locks. A task that fails is logged at
     * {@code FINE}: its operation throws the same error, with the build log, when it runs.
     */
    @Override
    public synchronized void prepare(ElementKernel kernel, int[] degrees, ElementGeometry geometry, PointFunction... functions) {
        ensureOpen();
        Objects.requireNonNull(kernel, "kernel");
        Objects.requireNonNull(degrees, "degrees");
        if (builder == null) {
            java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
            builder = java.util.concurrent.Executors.newFixedThreadPool(BUILD_THREADS, r -> {
                Thread t = new Thread(r, "lobatto-kernel-build-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }
        for (Runnable task : preparations(kernel, degrees, geometry, functions == null ? new PointFunction[0] : functions)) {
            prepared.add(builder.submit(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.log(java.util.logging.Level.FINE, "aparapi: a build ahead of use failed (its operation will throw)", e);
                }
            }));
        }
    }

    /** Waits until every build submitted by {@link #prepare} so far has finished (tests; timings of builds apart). */
    public void awaitPrepared() {
        List<java.util.concurrent.Future<?>> pending;
        synchronized (this) {
            pending = new ArrayList<>(prepared);
        }
        for (java.util.concurrent.Future<?> f : pending) {
            try {
                f.get();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.CancellationException e) {
                // logged by the task; its operation throws
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** The build tasks of {@link #prepare}: each builds one source (after planning it, for the planned kernels). */
    private List<Runnable> preparations(ElementKernel kernel, int[] degrees, ElementGeometry geometry, PointFunction[] functions) {
        io.lobatto.backend.aparapi.runtime.ProgramCache programs = cl.programs();
        ToIntFunction<KernelSource> allowed = programs::workGroupSize;
        ToIntFunction<KernelBuilds.Spec> allowedSpec = s -> programs.workGroupSize(s.source());
        int maxGroup = cl.device().maxWorkGroupSize();
        long local = localMemBytes;
        String device = info.name();
        ElementVariant forced = variant;
        boolean fold = foldSearchDirection;
        boolean geometryGlobal = geometryGlobalGrids;
        boolean diagonalGlobal = diagonalGlobalGrids;
        List<Runnable> tasks = new ArrayList<>();
        List<Integer> valid = new ArrayList<>();
        for (int d : degrees) {
            if (d >= 1 && d <= MAX_DEGREE) {
                valid.add(d);
            }
        }
        // in the order of first use by a setup that binds the fine operator and the mass, then the p-MG levels (factors,
        // diagonals, eigenvalue bounds), then f and g: an operation whose build has not started builds it itself
        List<KernelBuilds.Spec> vectors = new ArrayList<>();
        if (kernel.factorsPerPoint() > 1) {
            vectors.add(KernelBuilds.factorSplit());
        }
        for (int op : new int[] {ReductionKernel.DOT, ReductionKernel.RECIPROCAL, ReductionKernel.CG_UPDATE,
            ReductionKernel.PCG_UPDATE}) {
            vectors.add(KernelBuilds.reduction(op, reduceGroup));
        }
        for (int op : new int[] {StreamKernel.FILL, StreamKernel.COPY, StreamKernel.AXPBY, StreamKernel.PMUL}) {
            vectors.add(KernelBuilds.stream(op));
        }
        for (int op : new int[] {GatherScatterKernel.SCATTER, GatherScatterKernel.GATHER, GatherScatterKernel.GATHER_DOT}) {
            vectors.add(KernelBuilds.gather(op, gatherGroup));
        }
        if (fold) {
            vectors.add(KernelBuilds.gather(GatherScatterKernel.GATHER_DOT_UPDATE, gatherGroup));
        }
        vectors.add(KernelBuilds.chebyshev());
        int order = geometry == null ? 0 : geometry.order();
        PointMap map = geometry == null ? null : geometry.map();
        Quadrature q = kernel.usesGaussQuadrature() ? Quadrature.GAUSS : Quadrature.GLL;
        for (int i = 0; i < valid.size(); i++) {
            int degree = valid.get(i);
            boolean fine = i == 0;
            if (geometry != null) {
                tasks.add(() -> geometryPlan(degree, q, order, kernel.factorsPerPoint(), map, maxGroup, local, geometryGlobal,
                        allowed));
                if (fine && kernel != ElementKernel.MASS_BP10) {
                    tasks.add(() -> geometryPlan(degree, Quadrature.GAUSS, order, ElementKernel.MASS_BP10.factorsPerPoint(),
                            map, maxGroup, local, geometryGlobal, allowed));
                }
            }
            List<ElementKernel> kinds = fine && kernel != ElementKernel.MASS_BP10
                    ? List.of(kernel, ElementKernel.MASS_BP10) : List.of(kernel);
            for (ElementKernel k : kinds) {
                tasks.add(() -> {
                    ElementVariant v = forced != null ? forced : ElementVariant.of(k, degree, device);
                    ElementPlan plan = KernelBuilds.plan(k, Basis1D.of(degree), maxGroup, local, device, v, allowedSpec);
                    if (fold) {
                        programs.build(KernelBuilds.element(k, degree, plan, 2).source());
                    }
                });
            }
            if (fine) {
                for (KernelBuilds.Spec s : vectors) {
                    tasks.add(() -> programs.build(s.source()));
                }
            }
            if (kernel == ElementKernel.STIFFNESS_BP35) {
                tasks.add(() -> programs.build(KernelBuilds.diagonalBp35(degree)));
            } else {
                tasks.add(() -> diagonalPlan(degree, maxGroup, local, diagonalGlobal, allowed));
            }
        }
        for (int i = 0; i + 1 < valid.size(); i++) {
            int fineDegree = valid.get(i);
            int coarse = valid.get(i + 1);
            if (coarse < fineDegree) {
                for (int op : new int[] {TransferKernel.PROLONG_I, TransferKernel.PROLONG_J, TransferKernel.PROLONG_K,
                    TransferKernel.RESTRICT_K, TransferKernel.RESTRICT_J, TransferKernel.RESTRICT_I}) {
                    tasks.add(() -> programs.build(KernelBuilds.transfer(op, coarse, fineDegree).source()));
                }
            }
        }
        if (geometry != null && !valid.isEmpty()) {
            for (PointFunction f : functions) {
                tasks.add(() -> programs.build(KernelBuilds.evaluate(valid.get(0), order, map, f)));
                tasks.add(() -> programs.build(KernelBuilds.errors(valid.get(0), order, map, f)));
            }
        }
        return tasks;
    }

    // ------------------------------------------------------------------ element kernels

    @Override
    public synchronized DeviceElementData uploadElementData(ElementKernel kernel, Basis1D basis, int elements, double[] geometricData) {
        ensureOpen();
        long points = checkElementData(kernel, basis, elements, geometricData.length);
        int perPoint = kernel.factorsPerPoint();
        List<ClBuffer> factors = new ArrayList<>();
        try {
            // one buffer per factor (G00, G01, G02, G11, G12, G22, wJ), filled in chunks from the point-major array
            double[] chunk = new double[(int) Math.min(points, 1 << 20)];
            for (int f = 0; f < perPoint; f++) {
                ClBuffer b = buffer(points, 8, kernel + " geometric factor " + f + " (" + points + " doubles)");
                factors.add(b);
                for (long start = 0; start < points; start += chunk.length) {
                    int count = (int) Math.min(chunk.length, points - start);
                    for (int i = 0; i < count; i++) {
                        chunk[i] = geometricData[(int) ((start + i) * perPoint + f)];
                    }
                    cl.write(chunk, 0, count, b, start);
                }
            }
        } catch (RuntimeException e) {
            factors.forEach(ClBuffer::close);
            throw e;
        }
        return elementData(kernel, basis, elements, factors);
    }

    /**
     * The geometric data already on the device (from {@link #geometricFactors}): wJ alone (BP1.0) becomes the kernel's
     * buffer as it is; the packed factors of the stiffness kernels are split on the device into the seven buffers the
     * element kernels read ({@link io.lobatto.backend.aparapi.kernels.FactorSplitKernel}: they read each factor
     * coalesced over the points), and the packed vector is closed. Nothing crosses to the host.
     */
    @Override
    public synchronized DeviceElementData uploadElementData(ElementKernel kernel, Basis1D basis, int elements,
                                                            DeviceVector geometricData) {
        ClVector v = vec(geometricData, "geometricData");
        long points = checkElementData(kernel, basis, elements, v.length());
        int perPoint = kernel.factorsPerPoint();
        List<ClBuffer> factors = new ArrayList<>();
        if (perPoint == 1) {
            factors.add(v.buffer);
        } else {
            factors = split(kernel, v, perPoint, points);
            v.close();
        }
        return elementData(kernel, basis, elements, factors);
    }

    /** The packed factors of {@code v} ([points][perPoint]) split into one buffer per factor; {@code v} stays open. */
    private List<ClBuffer> split(ElementKernel kernel, ClVector v, int perPoint, long points) {
        List<ClBuffer> factors = new ArrayList<>();
        try {
            ClKernel k = kernel(KernelBuilds.factorSplit());
            for (int f = 0; f < perPoint; f++) {
                ClBuffer b = buffer(points, 8, kernel + " geometric factor " + f + " (" + points + " doubles)");
                factors.add(b);
                if (points > 0) {
                    k.set("x", v.buffer).set("y", b).set("stride", perPoint).set("offset", f).set("n", (int) points);
                    launchPerEntry(k, points);
                }
            }
        } catch (RuntimeException e) {
            factors.forEach(ClBuffer::close);
            throw e;
        }
        return factors;
    }

    /**
     * BP3.5 reading the element vertices instead of stored factors
     * ({@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearKernel}): the data holds its own upload of the
     * vertices (24 doubles per element), D and the GLL nodes and weights. |J| {@literal >} 0 is checked here once, by the
     * geometry kernel's wJ at the GLL nodes (freed at once), with the same error as {@link #geometricFactors}.
     */
    @Override
    public synchronized DeviceElementData elementDataOnTheFly(ElementKernel kernel, Basis1D basis, DeviceGeometry geometry) {
        ClGeometry g = geom(geometry);
        ElementGeometry eg = io.lobatto.core.backend.Backend.requireOnTheFly(kernel, basis, g);
        checkDegree("elementDataOnTheFly", basis);
        int elements = eg.elementCount();
        long points = (long) elements * basis.np();
        if (points > Integer.MAX_VALUE) {
            throw new BackendException("aparapi: BP3.5 with N = " + basis.degree() + " and E = " + elements + " has " + points
                    + " nodes; the element kernels index the local vectors with int (at most " + Integer.MAX_VALUE + ")");
        }
        geometricFactors(g, basis, Quadrature.GLL, 1).close();
        ElementPlan plan = KernelBuilds.trilinearPlan(basis, cl.device().maxWorkGroupSize(), localMemBytes, info.name(),
                s -> kernel(s).workGroupSize());
        ClGeometry own = (ClGeometry) uploadGeometry(eg);
        ClBuffer diff = null;
        ClBuffer gll = null;
        try {
            double[] dm = basis.differentiation();
            diff = buffer(dm.length, 8, "D");
            cl.write(dm, 0, dm.length, diff, 0);
            double[] r = basis.gll().nodes();
            double[] w = basis.gll().weights();
            double[] rw = new double[2 * r.length];
            System.arraycopy(r, 0, rw, 0, r.length);
            System.arraycopy(w, 0, rw, r.length, w.length);
            gll = buffer(rw.length, 8, "GLL nodes and weights");
            cl.write(rw, 0, rw.length, gll, 0);
        } catch (RuntimeException e) {
            own.close();
            for (ClBuffer b : new ClBuffer[] {diff, gll}) {
                if (b != null) {
                    b.close();
                }
            }
            throw e;
        }
        return new ClElementData(this, kernel, basis.degree(), elements, plan, null, diff, List.of(), null, own, gll);
    }

    /** Checks the arguments of an element-data upload of {@code length} doubles; returns E P. */
    private long checkElementData(ElementKernel kernel, Basis1D basis, int elements, long length) {
        ensureOpen();
        Objects.requireNonNull(kernel, "kernel");
        int degree = basis.degree();
        if (degree > MAX_DEGREE) {
            throw new BackendException("aparapi: degree N = " + degree + " is above the backend's limit N <= " + MAX_DEGREE);
        }
        if (elements < 0) {
            throw new IllegalArgumentException("elements " + elements + " < 0");
        }
        int nq = basis.nq();
        int p = kernel == ElementKernel.STIFFNESS_BP35 ? nq : basis.nqGauss();
        int p3 = p * p * p;
        int perPoint = kernel.factorsPerPoint();
        long expected = (long) elements * p3 * perPoint;
        if (length != expected) {
            throw new IllegalArgumentException("geometricData has length " + length + " but " + kernel + " with N = "
                    + degree + " and E = " + elements + " needs " + expected);
        }
        long points = (long) elements * p3;
        if (points > Integer.MAX_VALUE) {
            throw new BackendException("aparapi: " + kernel + " with N = " + degree + " and E = " + elements + " has "
                    + points + " quadrature points; the kernels index one factor buffer with int (at most "
                    + Integer.MAX_VALUE + ")");
        }
        return points;
    }

    /** The element data of {@code factors} (taken over: closed here on failure): I, D and the plan's scratch added. */
    private ClElementData elementData(ElementKernel kernel, Basis1D basis, int elements, List<ClBuffer> factors) {
        int degree = basis.degree();
        int p = kernel == ElementKernel.STIFFNESS_BP35 ? basis.nq() : basis.nqGauss();
        long points = (long) elements * p * p * p;
        ClBuffer interp = null;
        ClBuffer diff = null;
        ClBuffer scratch = null;
        ElementPlan plan;
        try {
            plan = plan(kernel, basis);
            if (kernel.usesGaussQuadrature()) {
                double[] m = basis.interpolation();
                interp = buffer(m.length, 8, "I");
                cl.write(m, 0, m.length, interp, 0);
            }
            if (kernel != ElementKernel.MASS_BP10) {
                double[] m = kernel == ElementKernel.STIFFNESS_BP35 ? basis.differentiation() : basis.gaussDifferentiation();
                diff = buffer(m.length, 8, "D");
                cl.write(m, 0, m.length, diff, 0);
            }
            if (!plan.tLocal()) {
                scratch = buffer(points, 8, kernel + " t-flux scratch");
            }
        } catch (RuntimeException e) {
            factors.forEach(ClBuffer::close);
            for (ClBuffer b : new ClBuffer[] {interp, diff, scratch}) {
                if (b != null) {
                    b.close();
                }
            }
            throw e;
        }
        return new ClElementData(this, kernel, degree, elements, plan, interp, diff, factors, scratch);
    }

    /** The plan of {@code kernel} at the basis's degree on this device ({@link KernelBuilds#plan}). */
    private ElementPlan plan(ElementKernel kernel, Basis1D basis) {
        return KernelBuilds.plan(kernel, basis, cl.device().maxWorkGroupSize(), localMemBytes, info.name(),
                variant != null ? variant : ElementVariant.of(kernel, basis.degree(), info.name()), s -> kernel(s).workGroupSize());
    }

    /** The element kernel of {@code plan}; {@code fromGlobal} 0: x_L, 1: x_G through Z, 2: dir + beta x_G through Z. */
    private ClKernel elementKernel(ElementKernel kernel, int degree, ElementPlan plan, int fromGlobal) {
        return kernel(KernelBuilds.element(kernel, degree, plan, fromGlobal));
    }

    private ClElementData elem(DeviceElementData d) {
        Objects.requireNonNull(d, "data");
        if (!(d instanceof ClElementData a) || a.backend != this) {
            throw new IllegalArgumentException("data is not element data of this aparapi backend");
        }
        if (d.isClosed()) {
            throw new IllegalStateException("element data is closed");
        }
        return a;
    }

    /** The launch plan of element data, e.g. for reports: "2D, 81 work-items x 3 elements per group, ...". */
    public synchronized String plan(DeviceElementData data) {
        ClElementData d = elem(data);
        return d.kernel + " N=" + d.degree + ": " + d.plan.describe(d.kernel);
    }

    /** The element kernels' buffers of G00, G01, G02, G11, G12, G22, in the order of the factor buffers. */
    private static final String[] G_FIELDS = {"G00", "G01", "G02", "G11", "G12", "G22"};

    /** Stored factor {@code f} of {@code d}, or the unused buffer when the kernel computes the factors on the fly. */
    private ClBuffer factor(ClElementData d, int f) {
        return d.factors.isEmpty() ? unused : d.factors.get(f);
    }

    private void runElements(ClElementData d, double lambda, ClBuffer x, ClScatter z, double shift, ClBuffer y,
                             ClBuffer dir, double beta) {
        runElements(d, lambda, x, z, shift, y, dir, beta, 0, d.elements);
    }

    /** The element kernel on elements [first, end) (the kernel adds {@code firstElem} to its element index). */
    private void runElements(ClElementData d, double lambda, ClBuffer x, ClScatter z, double shift, ClBuffer y,
                             ClBuffer dir, double beta, int first, int end) {
        if (end <= first) {
            return;
        }
        int mode = z == null ? 0 : dir == null ? 1 : 2;
        ClKernel k = d.kernels[mode];
        if (k == null) {
            k = elementKernel(d.kernel, d.degree, d.plan, mode);
            d.kernels[mode] = k;
        }
        boolean stiff = d.kernel != ElementKernel.MASS_BP10;
        k.set("x", x).set("y", y)
                .bindIfUsed("ids", z == null ? unused : z.scatterIds.buffer)
                .bindIfUsed("w", z == null ? unused : z.inverseDegree.buffer)
                .bindIfUsed("matI", d.interp == null ? unused : d.interp)
                .bindIfUsed("matD", d.diff == null ? unused : d.diff)
                .bindIfUsed("wJ", factor(d, stiff ? 6 : 0))
                .bindIfUsed("scr", d.scratch == null ? unused : d.scratch)
                .bindIfUsed("verts", d.trilinear == null ? unused : d.trilinear.nodes)
                .bindIfUsed("gll", d.gll == null ? unused : d.gll)
                .bindIfUsed("dirG", dir == null ? unused : dir)
                .bindIfUsed("firstElem", first)
                .set("elems", end)
                .local("lds", KernelBuilds.elementLocalBytes(d.plan));
        for (int f = 0; f < G_FIELDS.length; f++) {
            k.bindIfUsed(G_FIELDS[f], stiff ? factor(d, f) : unused);
        }
        k.bindIfUsed("lambda", stiff ? lambda : 0).bindIfUsed("shift", shift).bindIfUsed("beta", beta);
        long groups = ((long) end - first + d.plan.elementsPerGroup() - 1) / d.plan.elementsPerGroup();
        k.launch(groups, d.plan.groupSize());
    }

    @Override
    public synchronized void applyElements(DeviceElementData data, double lambda, DeviceVector xL, DeviceVector yL) {
        ClElementData d = elem(data);
        ClVector x = vec(xL, "xL");
        ClVector y = vec(yL, "yL");
        checkLen("applyElements", "xL", x.length(), d.localSize());
        checkLen("applyElements", "yL", y.length(), d.localSize());
        if (x == y) {
            throw new IllegalArgumentException("applyElements: xL and yL must be distinct");
        }
        runElements(d, lambda, x.buffer, null, 0, y.buffer, null, 0);
    }

    @Override
    public synchronized void applyAssembled(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                            DeviceVector xG, DeviceVector yL, DeviceVector yG) {
        runAssembled("applyAssembled", data, z, lambda, shift, xG, yL, yG, false, null, 0);
    }

    /** {@link #applyAssembled} with x_G . y_G reduced in the gather: two launches, one read-back. */
    @Override
    public synchronized double applyAssembledDot(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                                 DeviceVector xG, DeviceVector yL, DeviceVector yG) {
        return runAssembled("applyAssembledDot", data, z, lambda, shift, xG, yL, yG, true, null, 0);
    }

    /**
     * p_G = z_G + beta p_G, y_G = A p_G and p_G . y_G in two launches: the element kernel reads
     * z_G + beta p_G through the scatter ids, the gather (which owns each row) writes the new p_G and
     * reduces p_G . y_G. CG then needs three launches per iteration.
     */
    @Override
    public synchronized double applyAssembledDotUpdate(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                                       DeviceVector zG, double beta, DeviceVector pG, DeviceVector yL,
                                                       DeviceVector yG) {
        ClVector dir = vec(zG, "zG");
        if (zG == pG || zG == yG) {
            throw new IllegalArgumentException("applyAssembledDotUpdate: zG must be distinct from pG and yG");
        }
        if (!foldSearchDirection) {
            axpby(1, zG, beta, pG);
            return runAssembled("applyAssembledDot", data, z, lambda, shift, pG, yL, yG, true, null, 0);
        }
        return runAssembled("applyAssembledDotUpdate", data, z, lambda, shift, pG, yL, yG, true, dir, beta);
    }

    /** The element launch of the fused operator on elements [first, end) only; the gather is {@link #gatherDot}. */
    @Override
    public synchronized void applyAssembledElements(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                                    DeviceVector xG, DeviceVector yL, int first, int end) {
        ClScatter s = scat(z);
        ClVector yl = vec(yL, "yL");
        ClElementData d = elem(data);
        ClVector x = vec(xG, "xG");
        checkLen("applyAssembledElements", "z.localSize", s.localSize(), d.localSize());
        checkLen("applyAssembledElements", "xG", x.length(), s.globalSize());
        checkLen("applyAssembledElements", "yL", yl.length(), d.localSize());
        if (first < 0 || end < first || end > d.elements) {
            throw new IllegalArgumentException("applyAssembledElements: elements [" + first + ", " + end + ") not within [0, "
                    + d.elements + ")");
        }
        runElements(d, lambda, x.buffer, s, shift, yl.buffer, null, 0, first, end);
    }

    /** The gather with x_G . y_G reduced in its pass (one launch, one read-back), as in {@link #applyAssembledDot}. */
    @Override
    public synchronized double gatherDot(DeviceScatter z, DeviceVector yL, DeviceVector xG, DeviceVector yG) {
        ClScatter s = scat(z);
        ClVector l = vec(yL, "yL");
        ClVector x = vec(xG, "xG");
        ClVector g = vec(yG, "yG");
        checkLen("gatherDot", "yL", l.length(), s.localSize());
        checkLen("gatherDot", "xG", x.length(), s.globalSize());
        checkLen("gatherDot", "yG", g.length(), s.globalSize());
        if (x == g) {
            throw new IllegalArgumentException("gatherDot: xG and yG must be distinct");
        }
        return runGather(s, l, g, x, null, 0);
    }

    // ------------------------------------------------------------------ distributed gather (HaloKernel)

    @Override
    public synchronized DeviceHalo uploadHalo(int[] rows, int[] starts, int[] sources, int receivedSize, int globalSize) {
        ensureOpen();
        HostHalo.validate(rows, starts, sources, receivedSize, globalSize);
        return new ClHalo(this, (ClVector) upload(rows), (ClVector) upload(starts), (ClVector) upload(sources), rows.length,
                receivedSize, globalSize);
    }

    /** One work-item per shared row sums its sources in their order ({@link HaloKernel}). */
    @Override
    public synchronized void sumHalo(DeviceHalo halo, DeviceVector received, DeviceVector yG) {
        Objects.requireNonNull(halo, "halo");
        if (!(halo instanceof ClHalo h) || h.backend != this || h.isClosed()) {
            throw new IllegalArgumentException("halo is not an open halo of this aparapi backend");
        }
        ClVector r = vec(received, "received");
        ClVector g = vec(yG, "yG");
        checkLen("sumHalo", "received", r.length(), h.receivedSize());
        checkLen("sumHalo", "yG", g.length(), h.globalSize());
        if (h.rows() == 0) {
            return;
        }
        ClKernel k = haloKernel;
        if (k == null) {
            k = kernel(KernelBuilds.halo());
            haloKernel = k;
        }
        k.set("rows", h.rowIds.buffer).set("starts", h.starts.buffer).set("sources", h.sources.buffer)
                .set("received", r.length() == 0 ? unused : r.buffer).set("y", g.buffer).set("n", h.rows());
        launchPerEntry(k, h.rows());
    }

    private ClKernel haloKernel;

    /** hipBone's fused operator: the element kernel reads x_G through the scatter ids, then the gather. */
    private double runAssembled(String what, DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                DeviceVector xG, DeviceVector yL, DeviceVector yG, boolean withDot, ClVector dir, double beta) {
        ClScatter s = scat(z);
        ClVector yl = vec(yL, "yL");
        ClVector yg = vec(yG, "yG");
        ClElementData d = elem(data);
        ClVector x = vec(xG, "xG");
        checkLen(what, "z.localSize", s.localSize(), d.localSize());
        checkLen(what, "xG", x.length(), s.globalSize());
        checkLen(what, "yL", yl.length(), d.localSize());
        checkLen(what, "yG", yg.length(), s.globalSize());
        if (x == yg) {
            throw new IllegalArgumentException(what + ": xG and yG must be distinct");
        }
        if (dir != null) {
            checkLen(what, "zG", dir.length(), s.globalSize());
        }
        runElements(d, lambda, x.buffer, s, shift, yl.buffer, dir == null ? null : dir.buffer, beta);
        return runGather(s, yl, yg, withDot ? x : null, dir, beta);
    }

    // ------------------------------------------------------------------ setup where the operator runs

    /**
     * Uploads the geometry nodes and the map's coefficients; the map (if any) is validated and translated here, so a
     * map outside the translatable subset is an {@link IllegalArgumentException} naming the construct at upload.
     */
    @Override
    public synchronized DeviceGeometry uploadGeometry(ElementGeometry geometry) {
        ensureOpen();
        if (geometry == null) {
            throw new IllegalArgumentException("uploadGeometry: geometry must not be null");
        }
        PointMap map = geometry.map();
        if (map != null) {
            PointwiseTranslator.translatePoint(map.getClass());
        }
        double[] nodes = geometry.nodes();
        double[] c = map == null ? new double[0] : map.coefficients();
        ClBuffer nb = null;
        ClBuffer cb = null;
        try {
            nb = buffer(nodes.length, 8, "geometry nodes (" + nodes.length + " doubles)");
            cl.write(nodes, 0, nodes.length, nb, 0);
            cb = buffer(c.length, 8, "point map coefficients");
            cl.write(c, 0, c.length, cb, 0);
        } catch (RuntimeException e) {
            for (ClBuffer b : new ClBuffer[] {nb, cb}) {
                if (b != null) {
                    b.close();
                }
            }
            throw e;
        }
        return new ClGeometry(this, geometry, nb, cb);
    }

    private ClGeometry geom(DeviceGeometry g) {
        ensureOpen();
        Objects.requireNonNull(g, "geometry");
        if (!(g instanceof ClGeometry c) || c.backend != this) {
            throw new IllegalArgumentException("geometry is not a geometry of this aparapi backend: " + g);
        }
        if (c.isClosed()) {
            throw new IllegalStateException("geometry is closed");
        }
        return c;
    }

    /** The shape functions of {@code g} at the GLL nodes of {@code basis}, uploaded once per degree. */
    private ClBuffer shapes(ClGeometry g, Basis1D basis) {
        ClBuffer b = g.shapes(basis.degree());
        if (b == null) {
            double[] phi = g.geometry().shapes(basis);
            b = buffer(phi.length, 8, "shape functions at the GLL nodes");
            cl.write(phi, 0, phi.length, b, 0);
            g.shapes(basis.degree(), b);
        }
        return b;
    }

    private static void checkDegree(String what, Basis1D basis) {
        if (basis == null) {
            throw new IllegalArgumentException(what + ": basis must not be null");
        }
        if (basis.degree() > MAX_DEGREE) {
            throw new IllegalArgumentException(what + ": degree N = " + basis.degree() + " is above the backend's limit N <= "
                    + MAX_DEGREE);
        }
    }

    /** Tests: plan the geometry kernel with its element regions in global scratch even where they fit the local memory. */
    private boolean geometryGlobalGrids;
    /** Element slots per launch of the error kernel at most (tests: several launches on a small mesh). */
    private int errorSlotCap = Integer.MAX_VALUE;

    /** Caps the element slots per launch of the error kernel (tests). */
    synchronized void errorSlotCap(int slots) {
        errorSlotCap = slots;
    }


    synchronized void geometryGlobalGrids(boolean on) {
        geometryGlobalGrids = on;
    }

    /** The plan of the geometry kernel for this device: for the element group, then for what the build allows. */
    private KernelBuilds.GeometryPlan geometryPlan(int degree, Quadrature quadrature, int order, int fpp, PointMap map) {
        return geometryPlan(degree, quadrature, order, fpp, map, cl.device().maxWorkGroupSize(), localMemBytes,
                geometryGlobalGrids, s -> kernel(s).workGroupSize());
    }

    /** {@link #geometryPlan(int, Quadrature, int, int, PointMap)} with {@code allowed} the built kernel's group limit. */
    private static KernelBuilds.GeometryPlan geometryPlan(int degree, Quadrature quadrature, int order, int fpp, PointMap map,
                                                         int maxWorkGroupSize, long localMemBytes, boolean global,
                                                         ToIntFunction<KernelSource> allowed) {
        int cap = Math.min(ELEMENT_GROUP, maxWorkGroupSize);
        while (true) {
            KernelBuilds.GeometryPlan plan = KernelBuilds.geometryPlan(degree, quadrature, order, cap, localMemBytes, global);
            int fits = allowed.applyAsInt(KernelBuilds.geometry(degree, quadrature, order, fpp, map, plan));
            if (plan.groupSize() <= fits) {
                return plan;
            }
            if (fits >= cap) {
                throw new BackendException("aparapi: the geometry kernel N=" + degree + " plans groups of " + plan.groupSize()
                        + " but its build allows " + fits);
            }
            cap = fits;
        }
    }

    /** The launch plan of the geometry kernel for {@code geometry} at the basis's degree, e.g. for reports. */
    public synchronized String geometryPlan(DeviceGeometry geometry, Basis1D basis, Quadrature quadrature, int factorsPerPoint) {
        ClGeometry g = geom(geometry);
        return geometryPlan(basis.degree(), quadrature, g.geometry().order(), factorsPerPoint, g.geometry().map()).describe();
    }

    /**
     * The factors by {@link io.lobatto.backend.aparapi.kernels.GeometryKernel}, [E][P][factorsPerPoint]; each element
     * with a point of |J| {@literal <=} 0 flags itself, and the first flagged element is named as
     * {@link HostSetup#nonPositive} names it (one reduction and its read-back decide; the flags are read only then).
     */
    @Override
    public synchronized DeviceVector geometricFactors(DeviceGeometry geometry, Basis1D basis, Quadrature quadrature,
                                                      int factorsPerPoint) {
        ClGeometry g = geom(geometry);
        checkDegree("geometricFactors", basis);
        ElementGeometry eg = g.geometry();
        int length = HostSetup.factorsLength(eg, basis, quadrature, factorsPerPoint);
        int ne = eg.elementCount();
        int degree = basis.degree();
        ClVector out = (ClVector) allocate(length);
        if (ne == 0) {
            return out;
        }
        ClVector bad = null;
        ClBuffer mats = null;
        ClBuffer scratch = null;
        try {
            KernelBuilds.GeometryPlan plan = geometryPlan(degree, quadrature, eg.order(), factorsPerPoint, eg.map());
            ClKernel k = kernel(KernelBuilds.geometry(degree, quadrature, eg.order(), factorsPerPoint, eg.map(), plan));
            boolean gauss = quadrature == Quadrature.GAUSS;
            double[] w = gauss ? basis.gauss().weights() : basis.gll().weights();
            double[] im = gauss ? basis.interpolation() : new double[0];
            double[] dm = gauss ? basis.gaussDifferentiation() : basis.differentiation();
            double[] m = new double[w.length + im.length + dm.length];
            System.arraycopy(w, 0, m, 0, w.length);
            System.arraycopy(im, 0, m, w.length, im.length);
            System.arraycopy(dm, 0, m, w.length + im.length, dm.length);
            mats = buffer(m.length, 8, "geometry kernel matrices");
            cl.write(m, 0, m.length, mats, 0);
            bad = (ClVector) allocate(ne);
            int epg = plan.elemsPerGroup();
            long groups = (ne + (long) epg - 1) / epg;
            long perLaunch = groups;
            if (plan.globalGrids()) {
                perLaunch = Math.min(groups, Math.max(1, KernelBuilds.GEOMETRY_SCRATCH_SLOTS / epg));
                long doubles = perLaunch * epg * plan.perElem();
                scratch = buffer(doubles, 8, "geometry kernel element grids (" + doubles + " doubles)");
            }
            k.set("nodes", g.nodes).set("phi", shapes(g, basis)).set("mats", mats).set("out", out.buffer)
                    .set("bad", bad.buffer).set("elems", ne)
                    .bindIfUsed("coef", g.coefficients).bindIfUsed("scr", scratch == null ? unused : scratch)
                    .local("lds", 8L * plan.localDoubles());
            for (long g0 = 0; g0 < groups; g0 += perLaunch) {
                k.set("e0", (int) (g0 * epg));
                k.launch(Math.min(perLaunch, groups - g0), plan.groupSize());
            }
            if (norm2(bad) > 0) {
                double[] flags = new double[ne];
                read(bad, flags);
                int first = 0;
                while (flags[first] == 0) {
                    first++;
                }
                throw HostSetup.nonPositive(eg, basis, quadrature, first);
            }
        } catch (RuntimeException e) {
            out.close();
            throw e;
        } finally {
            for (ClBuffer b : new ClBuffer[] {mats, scratch, bad == null ? null : bad.buffer}) {
                if (b != null) {
                    b.close();
                }
            }
        }
        return out;
    }

    /**
     * {@code f} at the GLL nodes by {@link io.lobatto.backend.aparapi.kernels.EvaluateKernel}, one work-item per node,
     * map and function inlined.
     */
    @Override
    public synchronized void evaluate(DeviceGeometry geometry, Basis1D basis, PointFunction f, DeviceVector out) {
        ClGeometry g = geom(geometry);
        ClVector o = vec(out, "out");
        checkDegree("evaluate", basis);
        if (f == null) {
            throw new IllegalArgumentException("evaluate: f must not be null");
        }
        ElementGeometry eg = g.geometry();
        long n = (long) eg.elementCount() * basis.np();
        if (o.length() != n * f.outputs()) {
            throw new IllegalArgumentException("evaluate: out has length " + o.length() + ", expected E * Np * outputs = "
                    + eg.elementCount() + " * " + basis.np() + " * " + f.outputs());
        }
        KernelSource src = KernelBuilds.evaluate(basis.degree(), eg.order(), eg.map(), f);
        if (n == 0) {
            return;
        }
        ClKernel k = kernel(src);
        double[] c = f.coefficients();
        ClBuffer fc = buffer(c.length, 8, "function coefficients");
        try {
            cl.write(c, 0, c.length, fc, 0);
            k.set("nodes", g.nodes).set("phi", shapes(g, basis)).set("out", o.buffer).set("n", (int) n)
                    .bindIfUsed("coef", g.coefficients).bindIfUsed("fc", fc);
            launchPerEntry(k, n);
        } finally {
            // released once the launch that reads it is done (OpenCL keeps it for enqueued commands)
            fc.close();
        }
    }

    /**
     * The errors by {@link io.lobatto.backend.aparapi.kernels.ErrorKernel}, one work-item per element: wJ at the GL
     * points first (the geometry kernel), then per element its max error at the nodes and its squared L2 error; only
     * those two numbers per element are read back, and combined in element order as {@link HostSetup#combine} does.
     */
    @Override
    public synchronized io.lobatto.core.backend.ErrorNorms errorNorms(DeviceGeometry geometry, Basis1D basis, DeviceVector uL,
                                                                      PointFunction exact) {
        ClGeometry g = geom(geometry);
        ClVector u = vec(uL, "uL");
        checkDegree("errorNorms", basis);
        if (exact == null) {
            throw new IllegalArgumentException("errorNorms: exact must not be null");
        }
        ElementGeometry eg = g.geometry();
        int ne = eg.elementCount();
        checkLen("errorNorms", "uL", u.length(), ne * basis.np());
        KernelSource src = KernelBuilds.errors(basis.degree(), eg.order(), eg.map(), exact);
        if (ne == 0) {
            return new io.lobatto.core.backend.ErrorNorms(0, 0);
        }
        ClKernel k = kernel(src);
        int per = KernelBuilds.errorScratch(basis.degree());
        int slots = (int) Math.min(Math.min(ne, errorSlotCap), Math.max(1, KernelBuilds.ERROR_SCRATCH_DOUBLES / per));
        double[] c = exact.coefficients();
        double[] im = basis.interpolation();
        try (DeviceVector wj = geometricFactors(geometry, basis, Quadrature.GAUSS, 1);
             DeviceVector sums = allocate(ne); DeviceVector maxima = allocate(ne)) {
            ClBuffer fc = buffer(Math.max(1, c.length), 8, "function coefficients");
            ClBuffer interp = buffer(im.length, 8, "GLL to GL interpolation");
            ClBuffer scratch = buffer((long) slots * per, 8, "error kernel grids (" + (long) slots * per + " doubles)");
            try {
                cl.write(c, 0, c.length, fc, 0);
                cl.write(im, 0, im.length, interp, 0);
                k.set("nodes", g.nodes).set("phi", shapes(g, basis)).set("interp", interp).set("u", u.buffer)
                        .set("wj", vec(wj, "wj").buffer).set("sums", vec(sums, "sums").buffer)
                        .set("maxima", vec(maxima, "maxima").buffer).set("scr", scratch).set("elems", ne)
                        .set("slots", slots).bindIfUsed("coef", g.coefficients).bindIfUsed("fc", fc);
                int group = KernelBuilds.perEntryGroup(k.workGroupSize());
                for (int e0 = 0; e0 < ne; e0 += slots) {
                    k.set("e0", e0);
                    k.launch((slots + group - 1) / group, group);
                }
                return HostSetup.combine(download(sums), download(maxima));
            } finally {
                fc.close();
                interp.close();
                scratch.close();
            }
        }
    }

    /**
     * The diagonal of the element matrices: BP3.5 by {@link io.lobatto.backend.aparapi.kernels.DiagonalBp35Kernel}
     * (one work-item per node, the collocated formula of {@link io.lobatto.core.backend.ElementMatrixDiagonal}); BP1.0
     * and BP3.0 by {@link io.lobatto.backend.aparapi.kernels.DiagonalKernel} (its separable contractions, sum-factorised
     * per element).
     */
    @Override
    public synchronized void elementDiagonal(DeviceElementData data, double lambda, DeviceVector diagonalL) {
        ClElementData d = elem(data);
        ClVector y = vec(diagonalL, "diagonalL");
        checkLen("elementDiagonal", "diagonalL", y.length(), d.localSize());
        if (d.elements == 0) {
            return;
        }
        Basis1D basis = Basis1D.of(d.degree);
        if (d.kernel != ElementKernel.STIFFNESS_BP35) {
            separableDiagonal(d, basis, lambda, y);
            return;
        }
        double[] dm = basis.differentiation();
        double[] bb = io.lobatto.core.backend.ElementMatrixDiagonal.hadamard(dm, dm);
        double[] m = new double[bb.length + dm.length];
        System.arraycopy(bb, 0, m, 0, bb.length);
        System.arraycopy(dm, 0, m, bb.length, dm.length);
        // factors on the fly: the stored factors for this setup kernel only, freed after it
        List<ClBuffer> factors = d.factors;
        if (d.trilinear != null) {
            try (ClVector packed = (ClVector) geometricFactors(d.trilinear, basis, Quadrature.GLL, 7)) {
                factors = split(d.kernel, packed, 7, (long) d.localSize());
            }
        }
        ClBuffer mats = null;
        try {
            mats = buffer(m.length, 8, "BP3.5 diagonal matrices");
            cl.write(m, 0, m.length, mats, 0);
            ClKernel k = kernel(KernelBuilds.diagonalBp35(d.degree));
            for (int f = 0; f < G_FIELDS.length; f++) {
                k.set(G_FIELDS[f], factors.get(f));
            }
            int n = d.localSize();
            k.set("wJ", factors.get(6)).set("mats", mats).set("y", y.buffer).set("lambda", lambda).set("n", n);
            launchPerEntry(k, n);
        } finally {
            if (mats != null) {
                mats.close();
            }
            if (d.trilinear != null) {
                // released once the launch that reads them is done (OpenCL keeps them for enqueued commands)
                factors.forEach(ClBuffer::close);
            }
        }
    }

    /** Tests: plan the element-diagonal kernel with its grids in global scratch even where they fit the local memory. */
    private boolean diagonalGlobalGrids;

    synchronized void diagonalGlobalGrids(boolean on) {
        diagonalGlobalGrids = on;
    }

    /** BP1.0 and BP3.0: {@link io.lobatto.backend.aparapi.kernels.DiagonalKernel}, launched in chunks with global grids. */
    private void separableDiagonal(ClElementData d, Basis1D basis, double lambda, ClVector y) {
        KernelBuilds.GeometryPlan plan = diagonalPlan(d.degree, cl.device().maxWorkGroupSize(), localMemBytes,
                diagonalGlobalGrids, s -> kernel(s).workGroupSize());
        ClKernel k = kernel(KernelBuilds.diagonal(d.degree, plan));
        int nq = basis.nq();
        int mq = basis.nqGauss();
        double[] interp = basis.interpolation();
        double[] deriv = io.lobatto.core.backend.ElementMatrixDiagonal.multiply(basis.gaussDifferentiation(), interp, mq, mq, nq);
        double[][] parts = {io.lobatto.core.backend.ElementMatrixDiagonal.hadamard(interp, interp),
            io.lobatto.core.backend.ElementMatrixDiagonal.hadamard(deriv, deriv),
            io.lobatto.core.backend.ElementMatrixDiagonal.hadamard(interp, deriv)};
        double[] m = new double[3 * mq * nq];
        for (int i = 0; i < 3; i++) {
            System.arraycopy(parts[i], 0, m, i * mq * nq, mq * nq);
        }
        boolean mass = d.kernel == ElementKernel.MASS_BP10;
        ClBuffer mats = null;
        ClBuffer scratch = null;
        try {
            mats = buffer(m.length, 8, "element-diagonal matrices");
            cl.write(m, 0, m.length, mats, 0);
            int epg = plan.elemsPerGroup();
            long groups = (d.elements + (long) epg - 1) / epg;
            long perLaunch = groups;
            if (plan.globalGrids()) {
                perLaunch = Math.min(groups, Math.max(1, KernelBuilds.GEOMETRY_SCRATCH_SLOTS / epg));
                long doubles = perLaunch * epg * plan.perElem();
                scratch = buffer(doubles, 8, "element-diagonal grids (" + doubles + " doubles)");
            }
            for (int f = 0; f < G_FIELDS.length; f++) {
                k.set(G_FIELDS[f], mass ? unused : d.factors.get(f));
            }
            k.set("wJ", d.factors.get(mass ? 0 : 6)).set("mats", mats).set("y", y.buffer)
                    .set("scale", mass ? 1.0 : lambda).set("first", mass ? 6 : 0).set("last", mass || lambda != 0 ? 7 : 6)
                    .set("elems", d.elements).bindIfUsed("scr", scratch == null ? unused : scratch)
                    .local("lds", 8L * plan.localDoubles());
            for (long g0 = 0; g0 < groups; g0 += perLaunch) {
                k.set("e0", (int) (g0 * epg));
                k.launch(Math.min(perLaunch, groups - g0), plan.groupSize());
            }
        } finally {
            for (ClBuffer b : new ClBuffer[] {mats, scratch}) {
                if (b != null) {
                    b.close();
                }
            }
        }
    }

    /** The plan of {@link io.lobatto.backend.aparapi.kernels.DiagonalKernel}: for the element group, then for what the build allows. */
    private static KernelBuilds.GeometryPlan diagonalPlan(int degree, int maxWorkGroupSize, long localMemBytes, boolean global,
                                                         ToIntFunction<KernelSource> allowed) {
        int cap = Math.min(ELEMENT_GROUP, maxWorkGroupSize);
        while (true) {
            KernelBuilds.GeometryPlan plan = KernelBuilds.diagonalPlan(degree, cap, localMemBytes, global);
            int fits = allowed.applyAsInt(KernelBuilds.diagonal(degree, plan));
            if (plan.groupSize() <= fits) {
                return plan;
            }
            if (fits >= cap) {
                throw new BackendException("aparapi: the element-diagonal kernel N=" + degree + " plans groups of "
                        + plan.groupSize() + " but its build allows " + fits);
            }
            cap = fits;
        }
    }

    /** y = 1 / x and the count of entries not positive and finite, in one reduction ({@link ReductionKernel#RECIPROCAL}). */
    @Override
    public synchronized long reciprocal(DeviceVector x, DeviceVector y) {
        ClVector xv = vec(x, "x");
        ClVector yv = vec(y, "y");
        sameLength("reciprocal", x, "x", y, "y");
        double bad = reduce(ReductionKernel.RECIPROCAL, unused, unused, xv.buffer, unused, unused, yv.buffer, 0, xv.length(), null);
        return Math.round(bad);
    }

    // ------------------------------------------------------------------ user operators (PointwiseKernel)

    /**
     * Validates and translates {@code function} ({@link PointwiseTranslator}: {@link IllegalArgumentException}
     * naming the construct outside the subset), plans and builds its element kernel for this device, and uploads
     * I, D and the point data.
     */
    @Override
    public synchronized DevicePointwiseData uploadPointwise(PointwiseFunction function, Basis1D basis, Quadrature quadrature,
                                                            int elements, double[] pointData) {
        ensureOpen();
        if (function == null || basis == null || quadrature == null || pointData == null) {
            throw new IllegalArgumentException("uploadPointwise: function, basis, quadrature and pointData must not be null");
        }
        int degree = basis.degree();
        if (degree > MAX_DEGREE) {
            throw new IllegalArgumentException("uploadPointwise: degree N = " + degree + " is above the backend's limit N <= "
                    + MAX_DEGREE);
        }
        if (elements < 0) {
            throw new IllegalArgumentException("uploadPointwise: elements = " + elements + " must be >= 0");
        }
        int p3 = quadrature.pointsPerElement(basis);
        int ndata = function.dataPerPoint();
        long points = (long) elements * p3;
        long expected = points * ndata;
        if (pointData.length != expected) {
            throw new IllegalArgumentException("uploadPointwise: pointData has length " + pointData.length + " but " + function
                    + " with N = " + degree + ", " + quadrature + " quadrature (P = " + p3 + " points per element) and E = "
                    + elements + " needs E P dataPerPoint = " + expected);
        }
        long local = (long) function.components() * elements * basis.nq() * basis.nq() * basis.nq();
        if (local > Integer.MAX_VALUE - 8 || points > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("uploadPointwise: E = " + elements + " gives ncomp E (N+1)^3 = " + local
                    + " and E P = " + points + "; the kernels index with int, limit " + (Integer.MAX_VALUE - 8));
        }
        // validation and translation first: a function outside the subset is the user's error, named here
        PointwiseTranslator.translate(function.getClass());
        KernelBuilds.PointwisePlan plan = pointwisePlan(function, quadrature, degree);
        ClBuffer interp = null;
        ClBuffer diff = null;
        ClBuffer data = null;
        ClBuffer scratch = null;
        try {
            if (plan.globalGrids()) {
                long slots = (elements + (long) plan.elemsPerGroup() - 1) / plan.elemsPerGroup() * plan.elemsPerGroup();
                long doubles = slots * plan.perElem();
                if (doubles > Integer.MAX_VALUE - 8) {
                    throw new IllegalArgumentException("uploadPointwise: E = " + elements + " needs " + doubles
                            + " doubles of element-grid scratch (" + plan.perElem() + " per element), above the int index"
                            + " limit " + (Integer.MAX_VALUE - 8) + "; use fewer elements per backend call");
                }
                scratch = buffer(doubles, 8, function + " element grids (" + doubles + " doubles)");
            }
            if (quadrature == Quadrature.GAUSS) {
                double[] m = basis.interpolation();
                interp = buffer(m.length, 8, "I");
                cl.write(m, 0, m.length, interp, 0);
            }
            if (function.evaluation().readsGradients()) {
                double[] m = quadrature == Quadrature.GAUSS ? basis.gaussDifferentiation() : basis.differentiation();
                diff = buffer(m.length, 8, "D");
                cl.write(m, 0, m.length, diff, 0);
            }
            data = buffer(expected, 8, function + " point data (" + expected + " doubles)");
            double[] chunk = new double[(int) Math.min(Math.max(points, 1), 1 << 20)];
            for (int k = 0; k < ndata; k++) {
                for (long start = 0; start < points; start += chunk.length) {
                    int count = (int) Math.min(chunk.length, points - start);
                    for (int i = 0; i < count; i++) {
                        chunk[i] = pointData[(int) ((start + i) * ndata + k)];
                    }
                    cl.write(chunk, 0, count, data, k * points + start);
                }
            }
        } catch (RuntimeException e) {
            for (ClBuffer b : new ClBuffer[] {interp, diff, data, scratch}) {
                if (b != null) {
                    b.close();
                }
            }
            throw e;
        }
        ClPointwiseData d = new ClPointwiseData(this, function, quadrature, degree, elements, plan, interp, diff, data,
                scratch);
        d.kernels[0] = kernel(KernelBuilds.pointwise(function, quadrature, degree, plan, 0));
        return d;
    }

    /** Tests: plan user operators with their element grids in global scratch even where they fit the local memory. */
    private boolean pointwiseGlobalGrids;

    synchronized void pointwiseGlobalGrids(boolean on) {
        pointwiseGlobalGrids = on;
    }

    /**
     * Tests and benchmarks: plan user operators with the general kernel even for functions of values only (the default
     * from {@code -Dlobatto.aparapi.pointwiseVariant=general}).
     */
    private boolean pointwiseGeneral = KernelBuilds.PointwiseShape.forcedGeneral();

    synchronized void pointwiseGeneral(boolean on) {
        pointwiseGeneral = on;
    }

    /** Tests: plan one-component functions of gradients on the column kernel wherever it fits. */
    private boolean pointwiseColumns;

    synchronized void pointwiseColumns(boolean on) {
        pointwiseColumns = on;
    }

    /** The plan for this device: for the backend's element group, then again for what the built kernel allows. */
    private KernelBuilds.PointwisePlan pointwisePlan(PointwiseFunction function, Quadrature quadrature, int degree) {
        int cap = Math.min(ELEMENT_GROUP, cl.device().maxWorkGroupSize());
        while (true) {
            KernelBuilds.PointwisePlan plan = KernelBuilds.pointwisePlan(function, quadrature, degree, cap, localMemBytes,
                    pointwiseGlobalGrids, pointwiseGeneral, pointwiseColumns);
            KernelSource src = KernelBuilds.pointwise(function, quadrature, degree, plan, 0);
            int fits = kernel(src).workGroupSize();
            if (plan.groupSize() <= fits) {
                return plan;
            }
            if (fits >= cap) {
                throw new BackendException("aparapi: user operator " + function + " N=" + degree + " plans groups of "
                        + plan.groupSize() + " but its build allows " + fits);
            }
            cap = fits;
        }
    }

    /**
     * A user operator's kernel, built once per source text (which holds the function's translated code, so two
     * classes of one name from different class loaders never share a kernel).
     */
    private ClKernel kernel(KernelSource source) {
        String key = "pointwise:" + source.source();
        ClKernel k = kernels.get(key);
        if (k == null) {
            k = cl.programs().kernel(source);
            kernels.put(key, k);
        }
        return k;
    }

    private ClPointwiseData pointwiseData(DevicePointwiseData d) {
        Objects.requireNonNull(d, "data");
        if (!(d instanceof ClPointwiseData a) || a.backend != this) {
            throw new IllegalArgumentException("data is not user-operator data of this aparapi backend: " + d);
        }
        if (d.isClosed()) {
            throw new IllegalStateException("user-operator data is closed");
        }
        return a;
    }

    /** The launch plan of a user operator, e.g. "3D, 256 work-items x 1 elements per group, ...". */
    public synchronized String plan(DevicePointwiseData data) {
        ClPointwiseData d = pointwiseData(data);
        return d.function + " N=" + d.degree + " " + d.quadrature + ": " + d.plan.describe();
    }

    /** The OpenCL C of a user operator's element kernel as built here (mode 0: x_L, 1: x_G through Z). */
    public synchronized KernelSource pointwiseSource(DevicePointwiseData data, int mode) {
        ClPointwiseData d = pointwiseData(data);
        return pointwiseKernel(d, mode).source();
    }

    private ClKernel pointwiseKernel(ClPointwiseData d, int mode) {
        ClKernel k = d.kernels[mode];
        if (k == null) {
            k = kernel(KernelBuilds.pointwise(d.function, d.quadrature, d.degree, d.plan, mode));
            d.kernels[mode] = k;
        }
        return k;
    }

    private void runPointwise(ClPointwiseData d, ClBuffer x, ClScatter z, ClBuffer y) {
        if (d.elements == 0) {
            return;
        }
        int mode = z == null ? 0 : 1;
        ClKernel k = pointwiseKernel(d, mode);
        int np = (d.degree + 1) * (d.degree + 1) * (d.degree + 1);
        k.set("x", x).set("y", y)
                .bindIfUsed("ids", z == null ? unused : z.scatterIds.buffer)
                .bindIfUsed("qdata", d.data);
        if (d.plan.shape() == KernelBuilds.PointwiseShape.COLUMNS) {
            // the operands of the built-in kernels it shares (RegisterKernelBase) that a user operator has not
            for (String b : new String[] {"w", "dirG", "G00", "G01", "G02", "G11", "G12", "G22", "wJ"}) {
                k.bindIfUsed(b, unused);
            }
            k.bindIfUsed("beta", 0.0).bindIfUsed("lambda", 0.0).bindIfUsed("shift", 0.0);
        } else {
            k.set("ng", z == null ? 0 : z.globalSize());
        }
        if (d.plan.shape() == KernelBuilds.PointwiseShape.MAP) {
            int nodes = d.elements * np;
            k.set("nodes", nodes);
            k.launch((nodes + (long) d.plan.groupSize() - 1) / d.plan.groupSize(), d.plan.groupSize());
            return;
        }
        k.bindIfUsed("matI", d.interp == null ? unused : d.interp)
                .bindIfUsed("matD", d.diff == null ? unused : d.diff)
                .bindIfUsed("scr", d.scratch == null ? unused : d.scratch)
                .set("elems", d.elements)
                .local("lds", 8L * d.plan.localDoubles());
        long groups = (d.elements + (long) d.plan.elemsPerGroup() - 1) / d.plan.elemsPerGroup();
        k.launch(groups, d.plan.groupSize());
    }

    @Override
    public synchronized void applyPointwise(DevicePointwiseData data, DeviceVector xL, DeviceVector yL) {
        ClPointwiseData d = pointwiseData(data);
        ClVector x = vec(xL, "xL");
        ClVector y = vec(yL, "yL");
        checkLen("applyPointwise", "xL", x.length(), d.localSize());
        checkLen("applyPointwise", "yL", y.length(), d.localSize());
        if (x == y) {
            throw new IllegalArgumentException("applyPointwise: xL and yL must be distinct");
        }
        runPointwise(d, x.buffer, null, y.buffer);
    }

    @Override
    public synchronized void applyPointwiseAssembled(DevicePointwiseData data, DeviceScatter z, DeviceVector xG,
                                                     DeviceVector yL, DeviceVector yG) {
        runPointwiseAssembled("applyPointwiseAssembled", data, z, xG, yL, yG, false);
    }

    /** {@link #applyPointwiseAssembled} with x_G . y_G reduced in the gather over all components: two launches. */
    @Override
    public synchronized double applyPointwiseAssembledDot(DevicePointwiseData data, DeviceScatter z, DeviceVector xG,
                                                          DeviceVector yL, DeviceVector yG) {
        return runPointwiseAssembled("applyPointwiseAssembledDot", data, z, xG, yL, yG, true);
    }

    /**
     * The element kernel reads each component block of x_G through the scatter ids and writes y_L; then one gather
     * over the ncomp blocks (and the dot over all of them).
     */
    private double runPointwiseAssembled(String what, DevicePointwiseData data, DeviceScatter z, DeviceVector xG,
                                         DeviceVector yL, DeviceVector yG, boolean withDot) {
        ClPointwiseData d = pointwiseData(data);
        ClScatter s = scat(z);
        ClVector x = vec(xG, "xG");
        ClVector yl = vec(yL, "yL");
        ClVector yg = vec(yG, "yG");
        int nc = d.components();
        checkLen(what, "ncomp z.localSize", nc * s.localSize(), d.localSize());
        checkLen(what, "xG", x.length(), nc * s.globalSize());
        checkLen(what, "yL", yl.length(), d.localSize());
        checkLen(what, "yG", yg.length(), nc * s.globalSize());
        if (x == yg || x == yl || yl == yg) {
            throw new IllegalArgumentException(what + ": xG, yL and yG must be distinct");
        }
        runPointwise(d, x.buffer, s, yl.buffer);
        if (s.blocks == 0) {
            // no local nodes: Z^T of nothing is zero
            fill(yg, 0);
            return 0;
        }
        int groups = Math.min(REDUCE_GROUPS, s.blocks);
        int op = withDot ? GatherScatterKernel.GATHER_DOT : GatherScatterKernel.GATHER;
        ClKernel k = kernel(KernelBuilds.gather(op, gatherGroup, nc));
        bindScatter(k, s);
        k.set("xG", withDot ? x.buffer : unused).set("xL", yl.buffer).set("yG", yg.buffer).set("n", s.blocks)
                .set("dirG", unused).set("beta", 0.0).set("strideL", s.localSize()).set("strideG", s.globalSize())
                .local("lds", KernelBuilds.gatherLocalBytes(op, gatherGroup));
        k.launch(groups, gatherGroup);
        return withDot ? sumPartials(groups) : 0;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            if (builder != null) {
                // the builds not started are dropped; those running finish before the context goes
                builder.shutdownNow();
                boolean interrupted = false;
                while (true) {
                    try {
                        if (builder.awaitTermination(10, java.util.concurrent.TimeUnit.MINUTES)) {
                            break;
                        }
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            cl.close();
        }
    }

    @Override
    public String toString() {
        return "AparapiBackend[" + info + "]";
    }
}
