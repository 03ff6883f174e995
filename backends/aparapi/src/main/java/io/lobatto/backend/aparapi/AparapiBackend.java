package io.lobatto.backend.aparapi;

import com.aparapi.Range;
import com.aparapi.device.Device;
import com.aparapi.device.OpenCLDevice;
import com.aparapi.internal.kernel.KernelManager;
import com.aparapi.internal.kernel.KernelProfile;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.BackendException;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceInfo;
import io.lobatto.core.backend.DeviceIntVector;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;

import java.util.LinkedHashSet;
import java.util.Objects;

/**
 * The {@link Backend} on an OpenCL device through Aparapi 3.0.2 (DESIGN.md, "The Aparapi backend").
 *
 * <p>All device memory lives in one {@link DeviceProgram} (one Aparapi kernel object, explicit buffer
 * management): a double pool and an int pool carved by first-fit allocators; vectors are windows. A pool
 * grows at setup time (download, enlarge, re-upload). Single-vector transfers go through exact-length
 * staging arrays plus a copy op, never through the whole pool. Reductions are two-stage and
 * deterministic: work-group tree sums in local memory into {@code partials}, the only array fetched,
 * summed on the host in group order.
 *
 * <p>No silent fallback: every launch is checked before (work-group size against the kernel's
 * {@code CL_KERNEL_WORK_GROUP_SIZE}, local memory against {@code CL_DEVICE_LOCAL_MEM_SIZE}) and after
 * (Aparapi's per-class profile must show this OpenCL device as the device that last ran, and the device
 * must not be in Aparapi's failed list); otherwise a {@link BackendException} names the op, the device and
 * the reason. Launches of all Aparapi backends of a JVM are serialised (the check reads per-class state).
 *
 * <p>Limits: degree N &lt;= {@value #MAX_DEGREE}; pools index with {@code int} (2^31 entries, and at most
 * {@code CL_DEVICE_MAX_MEM_ALLOC_SIZE} bytes each).
 */
public final class AparapiBackend implements Backend {

    /** The name {@code LOBATTO_BACKEND} uses. */
    public static final String NAME = "aparapi";
    /** Largest supported polynomial degree (GL grid of 17^3 points in local memory, 2D structure). */
    public static final int MAX_DEGREE = 15;

    private final java.util.Map<String, LaunchStatistics> statistics = new java.util.LinkedHashMap<>();
    private final java.util.Map<Integer, double[]> localArrays = new java.util.HashMap<>();
    private boolean collectStatistics;
    /** Largest work-group the backend launches (Aparapi keeps to NVIDIA's reported 256). */
    static final int MAX_GROUP = 256;
    /**
     * Most work-groups of a reduction: {@code partials} holds 2 * REDUCE_GROUPS doubles (pcgUpdate writes
     * two per group); allocated once, never re-allocated on the hot path.
     */
    static final int REDUCE_GROUPS = 1024;
    /** Minimum local cache of the gather (doubles). */
    static final int GATHER_CACHE = 2048;
    /**
     * Initial pool sizes, 32 MiB each. Aparapi re-creates an explicit buffer from the host array (whose
     * content is stale: the device holds the truth) when the JVM has moved the array; G1 never moves
     * humongous objects (at least half a region, region size <= 32 MiB), so the pools start humongous.
     * A 512 KiB pool lost its device content after young collections on the H100 (PoCL hides this).
     */
    private static final int INITIAL_DOUBLES = Integer.getInteger("lobatto.aparapi.initialDoubles", 1 << 22);
    private static final int INITIAL_INTS = Integer.getInteger("lobatto.aparapi.initialInts", 1 << 23);
    private static final Object LAUNCH_LOCK = new Object();
    private static final java.util.List<Device> DEVICES_IN_USE = new java.util.ArrayList<>();

    private final OpenCLDevice device;
    private final DeviceInfo info;
    private final DeviceProgram program = new DeviceProgram();
    private final PoolAllocator doubles = new PoolAllocator(INITIAL_DOUBLES);
    private final PoolAllocator ints = new PoolAllocator(INITIAL_INTS);
    private final PoolAllocator geometries = new PoolAllocator(INITIAL_DOUBLES);
    private final int kernelMaxGroup;
    private final int groupCap;
    private final int streamGroup;
    private final long localMemBytes;
    private long launches;
    /**
     * Whether the assembled operator runs as one execute of two passes (element kernel, gather) or as two
     * executes. Default: one on a GPU (an Aparapi execute cost 35-65 us of host time on the H100 against
     * 11.5 us for a raw launch + wait), two on a CPU OpenCL device (PoCL: BP5 CG at N = 3, 5^3 elements,
     * median 0.86 ms per iteration with one execute against 0.63 with two; the gather pass runs on the
     * element kernel's range, and PoCL pays for every work-group, idle or not).
     * {@code -Dlobatto.aparapi.assembledInOneExecute=true|false} overrides it, e.g. for an A/B on a device.
     */
    private boolean assembledInOneExecute;
    private boolean closed;
    /** Why the device memory can no longer be trusted (a launch failed), or null. */
    private String broken;

    /** The device chosen by {@code lobatto.opencl.device} / {@code LOBATTO_OPENCL_DEVICE}, else the first GPU, else any. */
    public AparapiBackend() {
        this(OpenClDevices.configuredSelector());
    }

    /** The device matching {@code selector} (an index into {@link OpenClDevices#list()} or a name substring). */
    public AparapiBackend(String selector) {
        this(OpenClDevices.select(selector));
    }

    /** A backend on {@code device}. */
    public AparapiBackend(OpenCLDevice device) {
        this(device, Long.MAX_VALUE);
    }

    /**
     * A backend on {@code device} that plans its kernels for at most {@code localMemoryCap} bytes of local
     * memory per work-group (the device's own limit when that is smaller): tests use it to run the plans
     * of devices with less local memory, e.g. the in-place GL stages of large N on a GPU, on PoCL.
     */
    AparapiBackend(OpenCLDevice device, long localMemoryCap) {
        this.device = Objects.requireNonNull(device, "device");
        this.info = OpenClDevices.info(device);
        this.localMemBytes = Math.min(device.getLocalMemSize(), localMemoryCap);
        String oneExecute = System.getProperty("lobatto.aparapi.assembledInOneExecute");
        this.assembledInOneExecute = oneExecute == null ? device.getType() == com.aparapi.device.Device.TYPE.GPU
                : Boolean.parseBoolean(oneExecute);
        program.setExplicit(true);
        requireNonMovingPools();
        program.dpool = new double[INITIAL_DOUBLES];
        program.ipool = new int[INITIAL_INTS];
        program.gpool = new double[INITIAL_DOUBLES];
        program.partials = new double[2 * REDUCE_GROUPS];
        program.lds = new double[GATHER_CACHE];
        synchronized (LAUNCH_LOCK) {
            DEVICES_IN_USE.add(device);
            resetPreferences();
        }
        try {
            program.compile(device);
            kernelMaxGroup = program.getKernelMaxWorkGroupSize(device);
        } catch (Exception | LinkageError e) {
            program.dispose();
            throw new BackendException("aparapi: building the device program failed on " + info + ": " + e, e);
        }
        groupCap = Math.min(MAX_GROUP, kernelMaxGroup);
        streamGroup = Integer.highestOneBit(groupCap);
        checkLocalMemory("setup", program.lds.length);
        program.put(program.dpool);
        program.put(program.ipool);
        program.put(program.gpool);
        program.put(program.partials);
        program.put(program.dstage);
        program.put(program.istage);
        program.op = DeviceProgram.OP_NOP;
        launch("nop", streamGroup, streamGroup);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public DeviceInfo device() {
        return info;
    }

    /** The Aparapi device this backend runs on. */
    public OpenCLDevice openClDevice() {
        return device;
    }

    /** {@code CL_KERNEL_WORK_GROUP_SIZE} of the device program on this device. */
    public int kernelMaxWorkGroupSize() {
        return kernelMaxGroup;
    }

    /** Bytes of the {@code @Local} array the last launch reserved per work-group. */
    public synchronized long localMemoryPerGroup() {
        return program.lds.length * 8L;
    }

    /**
     * Points the program's {@code @Local} array at one of exactly {@code doubles} entries before a launch:
     * Aparapi sizes the local argument from the array at each execute, so every op reserves only what it
     * uses (a streaming op no longer pays for the largest element kernel's array, which limited the
     * resident work-groups per multiprocessor).
     */
    private void useLocal(int doubles) {
        int n = Math.max(doubles, 2 * MAX_GROUP);
        double[] a = localArrays.get(n);
        if (a == null) {
            a = new double[n];
            localArrays.put(n, a);
        }
        program.lds = a;
    }

    /**
     * The OpenCL C that Aparapi generates from the device program (one kernel, {@code run}, holding every
     * operation), for diagnostics: building it with a vendor's verbose options shows its registers and
     * spills. Uses Aparapi's internal code generator; needs no OpenCL device.
     */
    public static String generatedOpenCl() {
        try {
            DeviceProgram p = new DeviceProgram();
            com.aparapi.internal.model.ClassModel model = com.aparapi.internal.model.ClassModel.createClassModel(DeviceProgram.class);
            return com.aparapi.internal.writer.KernelWriter.writeToString(model.getEntrypoint("run", p));
        } catch (Exception e) {
            throw new BackendException("aparapi: could not generate the device program's OpenCL: " + e, e);
        }
    }

    /** Chooses one two-pass execute (true) or two executes (false) for the assembled operator. */
    public synchronized void assembledInOneExecute(boolean oneExecute) {
        assembledInOneExecute = oneExecute;
    }

    /** Whether the assembled operator runs as one two-pass execute (see {@link #assembledInOneExecute(boolean)}). */
    public synchronized boolean assembledInOneExecute() {
        return assembledInOneExecute;
    }

    /** Number of kernel launches so far (each one an Aparapi {@code execute}). */
    public synchronized long launches() {
        return launches;
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * The pools must never be moved by the garbage collector (see {@link #INITIAL_DOUBLES}): with G1,
     * arrays of 16 MiB and more are humongous and stay put. Other collectors compact large arrays, so
     * they are refused unless {@code -Dlobatto.aparapi.allowAnyGc=true}.
     */
    private static void requireNonMovingPools() {
        boolean g1 = java.lang.management.ManagementFactory.getGarbageCollectorMXBeans().stream()
                .anyMatch(gc -> gc.getName().startsWith("G1"));
        if (!g1 && !Boolean.getBoolean("lobatto.aparapi.allowAnyGc")) {
            throw new BackendException("aparapi: the backend needs the G1 garbage collector (-XX:+UseG1GC): Aparapi "
                    + "re-uploads a device pool from its stale host copy when the collector moves the array, and only G1 "
                    + "guarantees that the pools (humongous arrays) never move; found "
                    + java.lang.management.ManagementFactory.getGarbageCollectorMXBeans().stream().map(b -> b.getName()).toList());
        }
        if (INITIAL_DOUBLES < (1 << 21) || INITIAL_INTS < (1 << 22)) {
            java.util.logging.Logger.getLogger(AparapiBackend.class.getName()).warning(
                    "aparapi: initial pools below 16 MiB can be moved by the garbage collector and lose device data");
        }
    }

    // ------------------------------------------------------------------ launching

    /** Re-points Aparapi's per-class device preferences at the devices in use, clearing its failed list. */
    private void resetPreferences() {
        KernelManager.instance().setPreferredDevices(program, new LinkedHashSet<>(DEVICES_IN_USE));
    }

    private void checkLocalMemory(String what, int ldsLength) {
        if (ldsLength * 8L > localMemBytes) {
            throw new BackendException("aparapi: " + what + " needs " + ldsLength * 8L + " bytes of local memory per "
                    + "work-group but " + info.name() + " has CL_DEVICE_LOCAL_MEM_SIZE = " + localMemBytes
                    + " (out of resources)");
        }
    }

    private void launch(String what, long global, int local) {
        launch(what, global, local, 1);
    }

    /** One execute of {@code passes} passes (Aparapi multi-pass: the kernel reads its pass with getPassId()). */
    private void launch(String what, long global, int local, int passes) {
        if (local < 1 || local > groupCap) {
            throw new BackendException("aparapi: " + what + " would launch work-groups of " + local + " work-items; "
                    + "the device program allows at most " + groupCap + " on " + info.name()
                    + " (CL_INVALID_WORK_GROUP_SIZE)");
        }
        if (global > Integer.MAX_VALUE) {
            throw new BackendException("aparapi: " + what + " needs " + global + " work-items, more than 2^31-1");
        }
        checkLocalMemory(what, program.lds.length);
        launchUnchecked(what, (int) global, local, passes);
    }

    /**
     * Runs the program with the current op fields and verifies that it ran on this OpenCL device. Package
     * visible so that a test can bypass the pre-launch checks and prove the post-launch check.
     */
    void launchUnchecked(String what, int global, int local, int passes) {
        ensureOpen();
        synchronized (LAUNCH_LOCK) {
            launches++;
            Range range = Range.create(device, global, local);
            Throwable failure = null;
            long t0 = System.nanoTime();
            try {
                program.execute(range, passes);
            } catch (Throwable t) {
                failure = t;
            }
            long wall = System.nanoTime() - t0;
            KernelProfile profile = KernelManager.instance().getProfile(DeviceProgram.class);
            boolean ranHere = profile.getLastDeviceProfile() != null
                    && profile.getLastDeviceProfile() == profile.getDeviceProfile(device);
            boolean markedFailed = KernelManager.instance().getPreferences(program).getFailedDevices().contains(device);
            if (failure != null || !ranHere || markedFailed) {
                resetPreferences();
                broken = "a launch of op '" + what + "' failed";
                String reason;
                if (local > kernelMaxGroup) {
                    reason = "invalid work-group size " + local + " > CL_KERNEL_WORK_GROUP_SIZE " + kernelMaxGroup;
                } else if (program.lds.length * 8L > localMemBytes) {
                    reason = "out of resources: local memory " + program.lds.length * 8L + " > " + localMemBytes;
                } else {
                    reason = "OpenCL execution failed (Aparapi reported: "
                            + (failure != null ? failure : "fallback to a Java device") + ")";
                }
                throw new BackendException("aparapi: kernel op '" + what + "' did not run on OpenCL device " + info
                        + " [global " + global + ", local " + local + "]: " + reason
                        + "; refusing Aparapi's Java fallback", failure);
            }
            if (collectStatistics) {
                statistics.merge(what, new LaunchStatistics(what, 1, wall, kernelNanos()), (a, b) -> a.add(b.wallNanos(), b.kernelNanos()));
            }
        }
    }

    /** Profiled execution time of the last launch (0 unless Aparapi profiling is enabled). */
    private long kernelNanos() {
        java.util.List<com.aparapi.ProfileInfo> info = program.getProfileInfo();
        long sum = 0;
        if (info != null) {
            for (com.aparapi.ProfileInfo pi : info) {
                if ("X".equals(String.valueOf(pi.getType()))) {
                    sum += pi.getEnd() - pi.getStart();
                }
            }
        }
        return sum;
    }

    /**
     * Starts (or stops) accumulating per-op {@link LaunchStatistics}; starting clears earlier ones. For
     * kernel times also run with {@code -Dcom.aparapi.enableProfiling=true}.
     */
    public synchronized void collectStatistics(boolean on) {
        collectStatistics = on;
        if (on) {
            statistics.clear();
        }
    }

    /** The per-op statistics collected since {@link #collectStatistics(boolean)}, in first-launch order. */
    public synchronized java.util.List<LaunchStatistics> statistics() {
        return java.util.List.copyOf(statistics.values());
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("aparapi backend is closed");
        }
        if (broken != null) {
            throw new IllegalStateException("aparapi backend on " + info.name() + " is unusable: " + broken
                    + "; after a failed execute Aparapi re-initialises its kernel arguments, so the device pools no "
                    + "longer hold what was written (close it and create a new backend)");
        }
    }

    /**
     * Streaming ops use grid-stride loops over at most {@link #REDUCE_GROUPS} work-groups: on the H100 a
     * launch of one work-item per entry (65536 groups for 16M entries, each reserving the program's
     * shared {@code @Local} array) ran at about 330 GB/s, the grid-stride reductions at 2.3-2.6 TB/s.
     */
    private void stream(String what, int n) {
        if (n == 0) {
            return;
        }
        int groups = (int) Math.min(REDUCE_GROUPS, (n + (long) streamGroup - 1) / streamGroup);
        program.n = n;
        program.stride = groups * streamGroup;
        useLocal(0);
        launch(what, (long) groups * streamGroup, streamGroup);
    }

    // ------------------------------------------------------------------ pools

    private int allocDouble(int length) {
        int offset = doubles.allocate(length);
        if (offset < 0) {
            growDoubles(length);
            offset = doubles.allocate(length);
        }
        return offset;
    }

    private int allocInt(int length) {
        int offset = ints.allocate(length);
        if (offset < 0) {
            growInts(length);
            offset = ints.allocate(length);
        }
        return offset;
    }

    private int newCapacity(PoolAllocator allocator, int length, int bytesPerEntry, String pool) {
        int old = allocator.capacity();
        // a free window at the end of the pool is extended rather than abandoned
        long needed = (long) old + PoolAllocator.aligned(length) - allocator.freeTail();
        long want = Math.max(2L * old, needed);
        // Aparapi 3.0.2 sizes buffers in int bytes: an array of 2^31 bytes or more fails to allocate
        // (measured on the H100: 260M doubles work, 268M do not).
        long max = Math.min((Integer.MAX_VALUE - 64L) / bytesPerEntry, device.getMaxMemAllocSize() / bytesPerEntry);
        if (needed > max) {
            throw new BackendException("aparapi: out of device memory: the " + pool + " pool would need "
                    + needed + " entries, more than " + max + " (Aparapi's 2 GiB limit per array or "
                    + "CL_DEVICE_MAX_MEM_ALLOC_SIZE = " + device.getMaxMemAllocSize() + " bytes of " + info.name() + ")");
        }
        want = Math.min(want, max);
        return (int) (want / PoolAllocator.ALIGN * PoolAllocator.ALIGN);
    }

    private int allocGeometry(int length) {
        int offset = geometries.allocate(length);
        if (offset < 0) {
            int cap = newCapacity(geometries, length, 8, "geometry");
            program.get(program.gpool);
            double[] bigger = new double[cap];
            System.arraycopy(program.gpool, 0, bigger, 0, program.gpool.length);
            program.gpool = bigger;
            program.put(bigger);
            geometries.grow(cap);
            offset = geometries.allocate(length);
        }
        return offset;
    }

    /** Uploads element data (1D matrices, geometric factors) into the geometry pool. */
    private AparapiVector uploadGeometry(double[] values) {
        AparapiVector v = new AparapiVector(this, allocGeometry(values.length), values.length, true);
        copyIn(values, v);
        return v;
    }

    synchronized void releaseGeometry(int offset, int length) {
        if (!closed) {
            geometries.release(offset, length);
        }
    }

    private void growDoubles(int length) {
        int cap = newCapacity(doubles, length, 8, "double");
        program.get(program.dpool);
        double[] bigger = new double[cap];
        System.arraycopy(program.dpool, 0, bigger, 0, program.dpool.length);
        program.dpool = bigger;
        program.put(bigger);
        doubles.grow(cap);
    }

    private void growInts(int length) {
        int cap = newCapacity(ints, length, 4, "int");
        program.get(program.ipool);
        int[] bigger = new int[cap];
        System.arraycopy(program.ipool, 0, bigger, 0, program.ipool.length);
        program.ipool = bigger;
        program.put(bigger);
        ints.grow(cap);
    }

    synchronized void releaseDouble(int offset, int length) {
        if (!closed) {
            doubles.release(offset, length);
        }
    }

    synchronized void releaseInt(int offset, int length) {
        if (!closed) {
            ints.release(offset, length);
        }
    }

    private AparapiVector vec(DeviceVector v, String name) {
        ensureOpen();
        Objects.requireNonNull(v, name);
        if (!(v instanceof AparapiVector a) || v.backend() != this) {
            throw new IllegalArgumentException(name + " is not a vector of this aparapi backend: " + v);
        }
        if (v.isClosed()) {
            throw new IllegalStateException(name + " is closed");
        }
        return a;
    }

    private static void sameLength(String what, DeviceVector a, String an, DeviceVector b, String bn) {
        if (a.length() != b.length()) {
            throw new IllegalArgumentException(what + ": " + an + " has length " + a.length() + " but " + bn + " has length " + b.length());
        }
    }

    // ------------------------------------------------------------------ memory

    @Override
    public synchronized DeviceVector allocate(int length) {
        ensureOpen();
        if (length < 0) {
            throw new IllegalArgumentException("length " + length + " < 0");
        }
        AparapiVector v = new AparapiVector(this, allocDouble(length), length);
        program.op = DeviceProgram.OP_FILL;
        program.yo = v.offset;
        program.sa = 0;
        stream("allocate(fill 0)", length);
        return v;
    }

    @Override
    public synchronized DeviceVector upload(double[] values) {
        ensureOpen();
        AparapiVector v = new AparapiVector(this, allocDouble(values.length), values.length);
        copyIn(values, v);
        return v;
    }

    @Override
    public synchronized DeviceIntVector upload(int[] values) {
        ensureOpen();
        AparapiIntVector v = new AparapiIntVector(this, allocInt(values.length), values.length);
        if (values.length > 0) {
            if (program.istage.length != values.length) {
                program.istage = new int[values.length];
            }
            System.arraycopy(values, 0, program.istage, 0, values.length);
            program.put(program.istage);
            program.op = DeviceProgram.OP_COPY_IN_INT;
            program.io0 = v.offset;
            stream("upload(int[])", values.length);
        }
        return v;
    }

    @Override
    public synchronized void write(double[] values, DeviceVector target) {
        AparapiVector t = vec(target, "target");
        if (values.length != t.length()) {
            throw new IllegalArgumentException("write: values has length " + values.length + " but target has length " + t.length());
        }
        copyIn(values, t);
    }

    private void copyIn(double[] values, AparapiVector v) {
        if (values.length == 0) {
            return;
        }
        if (program.dstage.length != values.length) {
            program.dstage = new double[values.length];
        }
        System.arraycopy(values, 0, program.dstage, 0, values.length);
        program.put(program.dstage);
        program.op = v.geometry ? DeviceProgram.OP_COPY_IN_GEO : DeviceProgram.OP_COPY_IN;
        program.yo = v.offset;
        stream("upload(double[])", values.length);
    }

    @Override
    public synchronized void read(DeviceVector source, double[] values) {
        AparapiVector s = vec(source, "source");
        if (values.length != s.length()) {
            throw new IllegalArgumentException("read: source has length " + s.length() + " but values has length " + values.length);
        }
        if (values.length == 0) {
            return;
        }
        if (program.dstage.length != values.length) {
            program.dstage = new double[values.length];
        }
        program.op = DeviceProgram.OP_COPY_OUT;
        program.xo = s.offset;
        stream("download", values.length);
        program.get(program.dstage);
        System.arraycopy(program.dstage, 0, values, 0, values.length);
    }

    @Override
    public void synchronize() {
        // Aparapi's execute() returns after the kernel has finished.
    }

    // ------------------------------------------------------------------ streaming

    @Override
    public synchronized void fill(DeviceVector y, double value) {
        AparapiVector yv = vec(y, "y");
        program.op = DeviceProgram.OP_FILL;
        program.yo = yv.offset;
        program.sa = value;
        stream("fill", yv.length());
    }

    @Override
    public synchronized void copy(DeviceVector x, DeviceVector y) {
        AparapiVector xv = vec(x, "x");
        AparapiVector yv = vec(y, "y");
        sameLength("copy", x, "x", y, "y");
        program.op = DeviceProgram.OP_COPY;
        program.xo = xv.offset;
        program.yo = yv.offset;
        stream("copy", yv.length());
    }

    @Override
    public synchronized void axpby(double a, DeviceVector x, double b, DeviceVector y) {
        AparapiVector xv = vec(x, "x");
        AparapiVector yv = vec(y, "y");
        sameLength("axpby", x, "x", y, "y");
        program.op = DeviceProgram.OP_AXPBY;
        program.xo = xv.offset;
        program.yo = yv.offset;
        program.sa = a;
        program.sb = b;
        stream("axpby", yv.length());
    }

    @Override
    public synchronized void pointwiseMultiply(DeviceVector a, DeviceVector x, DeviceVector y) {
        AparapiVector av = vec(a, "a");
        AparapiVector xv = vec(x, "x");
        AparapiVector yv = vec(y, "y");
        sameLength("pointwiseMultiply", a, "a", x, "x");
        sameLength("pointwiseMultiply", x, "x", y, "y");
        program.op = DeviceProgram.OP_PMUL;
        program.zo = av.offset;
        program.xo = xv.offset;
        program.yo = yv.offset;
        stream("pointwiseMultiply", yv.length());
    }

    private double reduce(String what, int n) {
        if (n == 0) {
            return 0;
        }
        int groups = (int) Math.min(REDUCE_GROUPS, (n + (long) streamGroup - 1) / streamGroup);
        program.n = n;
        program.stride = groups * streamGroup;
        useLocal(0);
        launch(what, (long) groups * streamGroup, streamGroup);
        return sumOfPartials(groups);
    }

    /** Fetches the partials and sums the first {@code groups} in group order (deterministic for a given grid). */
    private double sumOfPartials(int groups) {
        program.get(program.partials);
        double s = 0;
        for (int g = 0; g < groups; g++) {
            s += program.partials[g];
        }
        return s;
    }

    @Override
    public synchronized double dot(DeviceVector x, DeviceVector y) {
        AparapiVector xv = vec(x, "x");
        AparapiVector yv = vec(y, "y");
        sameLength("dot", x, "x", y, "y");
        program.op = DeviceProgram.OP_DOT;
        program.xo = xv.offset;
        program.yo = yv.offset;
        return reduce("dot", xv.length());
    }

    @Override
    public synchronized double norm2(DeviceVector x) {
        AparapiVector xv = vec(x, "x");
        program.op = DeviceProgram.OP_DOT;
        program.xo = xv.offset;
        program.yo = xv.offset;
        return reduce("norm2", xv.length());
    }

    @Override
    public synchronized double cgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r) {
        AparapiVector pv = vec(p, "p");
        AparapiVector apv = vec(ap, "ap");
        AparapiVector xv = vec(x, "x");
        AparapiVector rv = vec(r, "r");
        sameLength("cgUpdate", p, "p", ap, "ap");
        sameLength("cgUpdate", p, "p", x, "x");
        sameLength("cgUpdate", p, "p", r, "r");
        program.op = DeviceProgram.OP_CG_UPDATE;
        program.sa = alpha;
        program.xo = pv.offset;
        program.yo = apv.offset;
        program.zo = xv.offset;
        program.wo = rv.offset;
        return reduce("cgUpdate", pv.length());
    }

    /**
     * One pass of BS5 with Jacobi fused in (op {@code OP_PCG_UPDATE}): x += alpha p; r -= alpha Ap;
     * z = inverseDiagonal o r; two tree reductions per work-group (r . r and r . z) into
     * {@code partials[2g]}, {@code partials[2g+1]}, summed on the host in group order.
     */
    @Override
    public synchronized void pcgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r,
                                       DeviceVector inverseDiagonal, DeviceVector z, double[] dots) {
        AparapiVector pv = vec(p, "p");
        AparapiVector apv = vec(ap, "ap");
        AparapiVector xv = vec(x, "x");
        AparapiVector rv = vec(r, "r");
        AparapiVector dv = vec(inverseDiagonal, "inverseDiagonal");
        AparapiVector zv = vec(z, "z");
        if (dots == null || dots.length < 2) {
            throw new IllegalArgumentException("pcgUpdate: dots must have length >= 2, got "
                    + (dots == null ? "null" : "length " + dots.length));
        }
        sameLength("pcgUpdate", p, "p", ap, "ap");
        sameLength("pcgUpdate", p, "p", x, "x");
        sameLength("pcgUpdate", p, "p", r, "r");
        sameLength("pcgUpdate", p, "p", inverseDiagonal, "inverseDiagonal");
        sameLength("pcgUpdate", p, "p", z, "z");
        AparapiVector[] all = {pv, apv, xv, rv, dv, zv};
        String[] names = {"p", "ap", "x", "r", "inverseDiagonal", "z"};
        for (int i = 0; i < all.length; i++) {
            for (int j = i + 1; j < all.length; j++) {
                if (all[i] == all[j]) {
                    throw new IllegalArgumentException("pcgUpdate: " + names[i] + " and " + names[j] + " must be distinct vectors");
                }
            }
        }
        int n = pv.length();
        if (n == 0) {
            dots[0] = 0;
            dots[1] = 0;
            return;
        }
        program.op = DeviceProgram.OP_PCG_UPDATE;
        program.sa = alpha;
        program.xo = pv.offset;
        program.yo = apv.offset;
        program.zo = xv.offset;
        program.wo = rv.offset;
        program.ao = dv.offset;
        program.bo = zv.offset;
        int groups = (int) Math.min(REDUCE_GROUPS, (n + (long) streamGroup - 1) / streamGroup);
        program.n = n;
        program.stride = groups * streamGroup;
        useLocal(0);
        launch("pcgUpdate", (long) groups * streamGroup, streamGroup);
        program.get(program.partials);
        double rr = 0;
        double rz = 0;
        for (int g = 0; g < groups; g++) {
            rr += program.partials[2 * g];
            rz += program.partials[2 * g + 1];
        }
        dots[0] = rr;
        dots[1] = rz;
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
        return new AparapiScatter(this, (AparapiIntVector) upload(scatterIds), (AparapiIntVector) upload(gatherStarts),
                (AparapiIntVector) upload(gatherIds), (AparapiIntVector) upload(blocks), (AparapiVector) upload(inverseDegree),
                blocks.length - 1, maxEntries, globalSize);
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

    private AparapiScatter scat(DeviceScatter z) {
        Objects.requireNonNull(z, "z");
        if (!(z instanceof AparapiScatter s) || s.backend != this) {
            throw new IllegalArgumentException("z is not a scatter operator of this aparapi backend");
        }
        if (z.isClosed()) {
            throw new IllegalStateException("z is closed");
        }
        return s;
    }

    @Override
    public synchronized void scatter(DeviceScatter z, DeviceVector xG, DeviceVector xL) {
        AparapiScatter s = scat(z);
        AparapiVector g = vec(xG, "xG");
        AparapiVector l = vec(xL, "xL");
        checkLen("scatter", "xG", g.length(), s.globalSize());
        checkLen("scatter", "xL", l.length(), s.localSize());
        program.op = DeviceProgram.OP_SCATTER;
        program.io0 = s.scatterIds.offset;
        program.xo = g.offset;
        program.yo = l.offset;
        stream("scatter", l.length());
    }

    private static void checkLen(String what, String name, int actual, int expected) {
        if (actual != expected) {
            throw new IllegalArgumentException(what + ": " + name + " has length " + actual + " but must have length " + expected);
        }
    }

    @Override
    public synchronized void gather(DeviceScatter z, DeviceVector xL, DeviceVector xG) {
        AparapiScatter s = scat(z);
        AparapiVector l = vec(xL, "xL");
        AparapiVector g = vec(xG, "xG");
        checkLen("gather", "xL", l.length(), s.localSize());
        checkLen("gather", "xG", g.length(), s.globalSize());
        runGather(s, l, g, null);
    }

    /**
     * The gather (op {@code OP_GATHER}): at most {@link #REDUCE_GROUPS} work-groups stride over the row
     * blocks. On the H100 this ran the 16.7M-entry gather of N = 7, 32^3 elements in 346 us against 611 us
     * for one work-group per block (every group reserves the program's shared local array, which limits
     * resident groups). With {@code x} not null each group also reduces its rows' g[row] x[row] into one
     * partial, summed on the host in group order (deterministic: the grid depends only on the number of
     * blocks), and that sum is returned; else 0.
     */
    private double runGather(AparapiScatter s, AparapiVector l, AparapiVector g, AparapiVector x) {
        if (s.blocks == 0) {
            return 0;
        }
        int groups = setGather(s, l, g, x, REDUCE_GROUPS);
        useLocal(GATHER_CACHE);
        launch(x == null ? "gather" : "gather+dot", (long) groups * streamGroup, streamGroup);
        return x == null ? 0 : sumOfPartials(groups);
    }

    /**
     * Sets the gather's fields (with x . g when {@code x} is not null) for at most {@code maxGroups}
     * work-groups; returns the groups that take part. The caller sizes the local array (at least
     * {@link #GATHER_CACHE} doubles).
     */
    private int setGather(AparapiScatter s, AparapiVector l, AparapiVector g, AparapiVector x, long maxGroups) {
        int groups = (int) Math.min(Math.min(REDUCE_GROUPS, s.blocks), maxGroups);
        program.withDot = x == null ? 0 : 1;
        program.gz = x == null ? 0 : x.offset;
        program.nGroups = groups;
        program.op = DeviceProgram.OP_GATHER;
        program.gStarts = s.gatherStarts.offset;
        program.gIds = s.gatherIds.offset;
        program.gBlocks = s.blockStarts.offset;
        program.gx = l.offset;
        program.gy = g.offset;
        program.nBlocks = s.blocks;
        program.cacheCap = GATHER_CACHE;
        return groups;
    }

    // ------------------------------------------------------------------ element kernels

    @Override
    public synchronized DeviceElementData uploadElementData(ElementKernel kernel, Basis1D basis, int elements, double[] geometricData) {
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
        long expected = (long) elements * p * p * p * kernel.factorsPerPoint();
        if (geometricData.length != expected) {
            throw new IllegalArgumentException("geometricData has length " + geometricData.length + " but " + kernel + " with N = "
                    + degree + " and E = " + elements + " needs " + expected);
        }
        boolean stiff = kernel != ElementKernel.MASS_BP10;
        boolean gauss = kernel.usesGaussQuadrature();
        int p2 = p * p;
        int p3 = p2 * p;
        boolean threeD = p3 <= groupCap;
        int threads = threeD ? p3 : Math.min(p2, groupCap);
        int perGroup = Math.max(1, groupCap / threads);
        // I (P x Nq) and D (P x P), staged once per work-group
        int matrices = (gauss ? p * nq : 0) + (stiff ? p2 : 0);
        long limit = localMemBytes / 8;
        // per element: the P^3 grid, then the 3D gradients, or the 2D r/s scratch and (if it fits) the t-grid
        boolean tLocal = false;
        int perElem = p3;
        if (stiff && threeD) {
            perElem = 4 * p3;
        } else if (stiff) {
            tLocal = 2L * p3 + 2L * p2 + matrices <= limit;
            perElem = p3 + 2 * p2 + (tLocal ? p3 : 0);
        }
        // point-parallel GL stages need a second P^3 grid; without room for it they run in place by lines
        // through a P^2 scratch after the grid
        boolean pointInterp = gauss && Math.max(perElem, 2 * p3) + matrices <= limit;
        if (pointInterp) {
            perElem = Math.max(perElem, 2 * p3);
        } else if (gauss) {
            perElem = Math.max(perElem, p3 + p2);
        }
        while (perGroup > 1 && (long) perGroup * perElem + matrices > limit) {
            perGroup--;
        }
        if (perElem + matrices > limit) {
            throw new BackendException("aparapi: " + kernel + " with N = " + degree + " needs " + (perElem + matrices) * 8L
                    + " bytes of local memory per element but " + info.name() + " has " + localMemBytes + " (out of resources)");
        }
        checkLocalMemory(kernel + " N=" + degree, perGroup * perElem + matrices);
        double[] interp = gauss ? basis.interpolation() : new double[0];
        double[] diff = switch (kernel) {
            case STIFFNESS_BP35 -> basis.differentiation();
            case STIFFNESS_BP30 -> basis.gaussDifferentiation();
            default -> new double[0];
        };
        double[] device = stiff ? factorsByBlock(geometricData, elements, p3, kernel.factorsPerPoint()) : geometricData;
        // 2D stiffness without room for the t-grid keeps it in global memory: E P^3 doubles
        AparapiVector scratch = stiff && !threeD && !tLocal ? (AparapiVector) allocate(Math.toIntExact((long) elements * p3)) : null;
        return new AparapiElementData(this, kernel, degree, elements, uploadGeometry(interp), uploadGeometry(diff),
                uploadGeometry(device), p, threeD, threads, perGroup, perElem, matrices, pointInterp, scratch);
    }

    /**
     * The device layout of the geometric factors: per element, factor k of every point as one block
     * (g[f e P^3 + k P^3 + p], from the SPI's point-major g[(e P^3 + p) f + k]), so that neighbouring
     * work-items read neighbouring addresses.
     */
    static double[] factorsByBlock(double[] pointMajor, int elements, int pointsPerElement, int factors) {
        double[] blocks = new double[pointMajor.length];
        int perElement = factors * pointsPerElement;
        for (int e = 0; e < elements; e++) {
            int base = e * perElement;
            for (int p = 0; p < pointsPerElement; p++) {
                for (int k = 0; k < factors; k++) {
                    blocks[base + k * pointsPerElement + p] = pointMajor[base + p * factors + k];
                }
            }
        }
        return blocks;
    }

    private AparapiElementData elem(DeviceElementData d) {
        Objects.requireNonNull(d, "data");
        if (!(d instanceof AparapiElementData a) || a.backend != this) {
            throw new IllegalArgumentException("data is not element data of this aparapi backend");
        }
        if (d.isClosed()) {
            throw new IllegalStateException("element data is closed");
        }
        return a;
    }

    private void runElements(AparapiElementData d, double lambda, int xo, boolean fromGlobal, AparapiScatter z, double shift, int yo) {
        if (d.elements == 0) {
            return;
        }
        long groups = setElements(d, lambda, xo, fromGlobal, z, shift, yo);
        useLocal(d.localDoubles());
        launch(d.kernel + (fromGlobal ? " (assembled)" : ""), groups * d.groupSize(), d.groupSize());
    }

    /** Sets the element kernel's fields; returns its work-groups. */
    private long setElements(AparapiElementData d, double lambda, int xo, boolean fromGlobal, AparapiScatter z, double shift, int yo) {
        DeviceProgram k = program;
        k.op = DeviceProgram.OP_ELEMENT;
        k.nq = d.degree + 1;
        k.pts = d.points;
        k.threadsPerElem = d.threadsPerElement;
        k.elemsPerGroup = d.elementsPerGroup;
        k.elems = d.elements;
        k.perElem = d.localPerElement;
        k.gauss = d.kernel.usesGaussQuadrature() ? 1 : 0;
        k.stiff = d.kernel == ElementKernel.MASS_BP10 ? 0 : 1;
        k.threeD = d.threeD ? 1 : 0;
        k.tLocal = d.scratch == null ? 1 : 0;
        k.scr = d.scratch == null ? 0 : d.scratch.offset;
        k.matI = d.interp.offset;
        k.matD = d.diff.offset;
        k.geo = d.geometry.offset;
        k.ldsMat = d.localDoubles() - d.matrixDoubles;
        k.pointInterp = d.pointInterp ? 1 : 0;
        k.lambda = d.kernel == ElementKernel.MASS_BP10 ? 0 : lambda;
        k.xo = xo;
        k.yo = yo;
        k.fromGlobal = fromGlobal ? 1 : 0;
        k.shift = shift;
        if (fromGlobal) {
            k.io0 = z.scatterIds.offset;
            k.wo = z.inverseDegree.offset;
        }
        return (d.elements + (long) d.elementsPerGroup - 1) / d.elementsPerGroup;
    }

    @Override
    public synchronized void applyElements(DeviceElementData data, double lambda, DeviceVector xL, DeviceVector yL) {
        AparapiElementData d = elem(data);
        AparapiVector x = vec(xL, "xL");
        AparapiVector y = vec(yL, "yL");
        checkLen("applyElements", "xL", x.length(), d.localSize());
        checkLen("applyElements", "yL", y.length(), d.localSize());
        if (x == y) {
            throw new IllegalArgumentException("applyElements: xL and yL must be distinct");
        }
        runElements(d, lambda, x.offset, false, null, 0, y.offset);
    }

    @Override
    public synchronized void applyAssembled(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                            DeviceVector xG, DeviceVector yL, DeviceVector yG) {
        runAssembled("applyAssembled", data, z, lambda, shift, xG, yL, yG, false);
    }

    /** {@link #applyAssembled} with x_G . y_G reduced in the gather pass: one execute, as applyAssembled. */
    @Override
    public synchronized double applyAssembledDot(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                                 DeviceVector xG, DeviceVector yL, DeviceVector yG) {
        return runAssembled("applyAssembledDot", data, z, lambda, shift, xG, yL, yG, true);
    }

    /**
     * y_L = (L + shift W) Z x_G, then y_G = Z^T y_L (and x_G . y_G when {@code withDot}) as one Aparapi
     * execute of two passes ({@code OP_ASSEMBLED}): the gather runs on the element kernel's range, on its
     * first min(1024, blocks, groups) work-groups, with the local array sized for both. An execute costs
     * Aparapi's per-launch host work once; the second pass adds only an enqueue and a wait (launch suite:
     * 50-56 us per execute, 29-33 us per pass on PoCL).
     */
    private double runAssembled(String what, DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                DeviceVector xG, DeviceVector yL, DeviceVector yG, boolean withDot) {
        AparapiScatter s = scat(z);
        AparapiVector yl = vec(yL, "yL");
        AparapiVector yg = vec(yG, "yG");
        AparapiElementData d = elem(data);
        AparapiVector x = vec(xG, "xG");
        checkLen(what, "z.localSize", s.localSize(), d.localSize());
        checkLen(what, "xG", x.length(), s.globalSize());
        checkLen(what, "yL", yl.length(), d.localSize());
        checkLen(what, "yG", yg.length(), s.globalSize());
        if (x == yg) {
            throw new IllegalArgumentException(what + ": xG and yG must be distinct");
        }
        if (d.elements == 0 || s.blocks == 0 || !assembledInOneExecute) {
            runElements(d, lambda, x.offset, true, s, shift, yl.offset);
            return runGather(s, yl, yg, withDot ? x : null);
        }
        long groups = setElements(d, lambda, x.offset, true, s, shift, yl.offset);
        int gatherGroups = setGather(s, yl, yg, withDot ? x : null, groups);
        program.op = DeviceProgram.OP_ASSEMBLED;
        useLocal(Math.max(d.localDoubles(), GATHER_CACHE));
        launch(d.kernel + " (assembled)+gather" + (withDot ? "+dot" : ""), groups * d.groupSize(), d.groupSize(), 2);
        return withDot ? sumOfPartials(gatherGroups) : 0;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            program.dispose();
            synchronized (LAUNCH_LOCK) {
                DEVICES_IN_USE.remove(device);
                if (!DEVICES_IN_USE.isEmpty()) {
                    resetPreferences();
                }
            }
        }
    }

    @Override
    public String toString() {
        return "AparapiBackend[" + info + "]";
    }
}
