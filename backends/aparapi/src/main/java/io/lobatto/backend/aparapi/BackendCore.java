package io.lobatto.backend.aparapi;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.kernels.GatherScatterKernel;
import io.lobatto.backend.aparapi.kernels.ReductionKernel;
import io.lobatto.backend.aparapi.runtime.ClBuffer;
import io.lobatto.backend.aparapi.runtime.ClContext;
import io.lobatto.backend.aparapi.runtime.ClDevice;
import io.lobatto.backend.aparapi.runtime.ClKernel;
import io.lobatto.backend.aparapi.runtime.KernelSource;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceInfo;
import io.lobatto.core.backend.DeviceVector;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the areas of {@link AparapiBackend} share: the context and its queue, the device's limits, the built kernels by
 * key ({@link #kernel(KernelBuilds.Spec)}), the reduction partials (device and pinned host), the buffer bound to the
 * arguments a kernel does not read, the open/closed state, and the argument checks every area makes.
 *
 * <p>One lock: every area is called with the owning backend's monitor held (each SPI method of {@link AparapiBackend}
 * is {@code synchronized} and delegates), so nothing here or in an area synchronizes on its own.
 */
final class BackendCore {

    /** The backend the vectors report ({@link DeviceVector#backend()}) and are checked against. */
    final Backend owner;
    final ClContext cl;
    final DeviceInfo info;
    /** The device's local memory per work-group, or the cap a test plans for. */
    final long localMemBytes;
    /** The element-kernel variant forced by a test, or null for {@link ElementVariant#of}. */
    final ElementVariant variant;
    final ClBuffer partials;
    /** The partials on the host, in pinned memory (the read-back of every reduction lands here). */
    final java.nio.ByteBuffer partialsHost;
    /** Bound to the buffer arguments a variant does not read (OpenCL wants every argument set). */
    final ClBuffer unused;
    final int reduceGroup;
    /**
     * The block gathers' group ({@link #gatherGroup()}), chosen by builds on a thread of its own that starts with the
     * backend, while this thread chooses the reductions' group: each choice builds a kernel, and on a cold start (no
     * kernel cache) these builds are most of the time the backend takes to open.
     */
    private final java.util.concurrent.CompletableFuture<Integer> gatherGroup;
    private final Map<String, ClKernel> kernels = new HashMap<>();
    private boolean closed;

    BackendCore(Backend owner, ClDevice device, long localMemoryCap, ElementVariant variant) {
        Objects.requireNonNull(device, "device");
        this.dedicatedReductions = dedicatedReductionsProperty();   // a bad value fails before the context exists
        this.owner = owner;
        this.variant = variant;
        this.cl = new ClContext(device);
        this.info = device.info();
        this.localMemBytes = Math.min(device.localMemBytes(), localMemoryCap);
        java.util.concurrent.CompletableFuture<Integer> gathers = null;
        try {
            this.partials = cl.allocate(32L * AparapiBackend.REDUCE_GROUPS, "reduction partials");
            this.partialsHost = cl.pinnedHostBuffer(32L * AparapiBackend.REDUCE_GROUPS, "reduction partials");
            this.unused = cl.allocate(8, "unused arguments");
            gathers = java.util.concurrent.CompletableFuture.supplyAsync(() -> powerOfTwoGroup(GatherScatterKernel.class), r -> {
                Thread t = new Thread(r, "lobatto-gather-group");
                t.setDaemon(true);
                t.start();
            });
            this.gatherGroup = gathers;
            this.reduceGroup = powerOfTwoGroup(ReductionKernel.class);
            this.smallReduceGroup = smallGroup(smallGroupProperty());
            kernel(KernelBuilds.reduction(ReductionKernel.PCG_UPDATE, reduceGroup));   // among the built kernels
        } catch (RuntimeException e) {
            if (gathers != null) {
                gathers.exceptionally(x -> 0).join();    // its builds end before the context goes
            }
            cl.close();
            throw e;
        }
    }

    /**
     * The group of the block gathers of {@link GatherScatterKernel} (chosen by building one, see {@link #gatherGroup});
     * called under the backend's lock, like every {@link #kernel}.
     */
    int gatherGroup() {
        int g;
        try {
            g = gatherGroup.join();
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
        kernel(KernelBuilds.gather(GatherScatterKernel.GATHER_DOT, g));   // the probed kernel among the built ones
        return g;
    }

    /** Waits for the block gathers' probe (its builds), without touching the built kernels (any thread). */
    void awaitStartBuilds() {
        gatherGroup.exceptionally(x -> 0).join();
    }

    /** The reduction or gather group the backend launches (the choice is {@link KernelBuilds#powerOfTwoGroup}). */
    private int powerOfTwoGroup(Class<? extends Kernel> family) {
        // the program cache's query, not kernel(): this runs on two threads at once, and the kernels map is not shared
        return KernelBuilds.powerOfTwoGroup(family, cl.device().maxWorkGroupSize(), KernelBuilds.probeStart(cl.device().vendor()),
                localMemBytes,
                s -> cl.programs().workGroupSize(s.source()));
    }

    // ------------------------------------------------------------------ state

    boolean isClosed() {
        return closed;
    }

    /** Marks the backend closed (the caller then releases the builds and the context). */
    void markClosed() {
        closed = true;
        try {
            gatherGroup.join();       // its builds end before the context goes
        } catch (RuntimeException e) {
            // the probe failed: nothing to wait for
        }
    }

    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the aparapi backend on " + info.name() + " is closed");
        }
    }

    // ------------------------------------------------------------------ kernels

    /**
     * The bundles {@link BuildsAhead} plans, by the key of each kernel in them: a kernel asked for before its bundle's
     * build started builds the whole bundle, so that the bundles, and their disk cache entries, are the same in every run.
     */
    final Map<String, List<KernelBuilds.Spec>> bundles = new java.util.concurrent.ConcurrentHashMap<>();

    /** Plans {@code bundle} (see {@link #bundles}) and returns it. */
    List<KernelBuilds.Spec> planBundle(List<KernelBuilds.Spec> bundle) {
        for (KernelBuilds.Spec s : bundle) {
            bundles.putIfAbsent(s.key(), bundle);
        }
        return bundle;
    }

    /** The kernel of {@code spec}, built once (the choices of what to build are {@link KernelBuilds}'). */
    ClKernel kernel(KernelBuilds.Spec spec) {
        String key = spec.key();
        ClKernel k = kernels.get(key);
        if (k == null) {
            List<KernelBuilds.Spec> bundle = bundles.get(key);
            if (bundle != null) {   // planned in a bundle by prepare: that bundle, here if its build has not started
                cl.programs().buildAll(bundle.stream().map(KernelBuilds.Spec::source).toList());
            }
            k = cl.programs().kernel(spec.source());
            kernels.put(key, k);
        }
        return k;
    }

    /**
     * A kernel of generated source (user operators, the setup kernels), built once per source text (which holds the
     * function's translated code, so two classes of one name from different class loaders never share a kernel).
     */
    ClKernel kernel(KernelSource source) {
        String key = "pointwise:" + source.options() + "\n" + source.source();
        ClKernel k = kernels.get(key);
        if (k == null) {
            k = cl.programs().kernel(source);
            kernels.put(key, k);
        }
        return k;
    }

    /** Every kernel built so far. */
    Collection<ClKernel> kernels() {
        return kernels.values();
    }

    /** Launches a one-work-item-per-entry kernel over n entries. */
    void launchPerEntry(ClKernel k, long n) {
        int g = KernelBuilds.perEntryGroup(k.workGroupSize());
        k.launch((n + g - 1) / g, g);
    }

    /**
     * Launches {@code groups} groups of {@code k} at most {@code perLaunch} at a time, each launch with its first element
     * {@code e0} (kernels whose element grids live in a bounded global scratch).
     */
    static void launchInChunks(ClKernel k, long groups, long perLaunch, int elemsPerGroup, int groupSize) {
        for (long g0 = 0; g0 < groups; g0 += perLaunch) {
            k.set("e0", (int) (g0 * elemsPerGroup));
            k.launch(Math.min(perLaunch, groups - g0), groupSize);
        }
    }

    // ------------------------------------------------------------------ reductions

    /**
     * System property: the work-group of the reductions over at most {@link #SMALL_REDUCE_GROUPS} times that many entries
     * (dot, norm, the CG and PCG updates), a power of two. Default 0, and any value not below the backend's reduction
     * group: the backend's group at every size (on NVIDIA that group is already 256, {@link KernelBuilds#probeStart};
     * on PoCL it is 1024). An A/B switch for the launch-bound sizes: 256 is raw JOCL's dot's group, one entry per
     * work-item and a tree of 8 levels instead of 10 under a group of 1024.
     */
    static final String SMALL_REDUCE_GROUP_PROPERTY = "lobatto.aparapi.smallReduceGroup";

    /**
     * Most groups of a reduction in the small group: the switch lies at 256 x 256 = 65536 entries, where the kernel
     * itself takes about a microsecond on a GPU whatever its group, and the two orders of summation agree to 1e-15
     * relative (ReductionCallsTest); above it, the backend's group and its bits.
     */
    static final int SMALL_REDUCE_GROUPS = 256;

    /** The group of the small reductions ({@link #SMALL_REDUCE_GROUP_PROPERTY}); 0: none. */
    private int smallReduceGroup;

    private int smallGroup(int g) {
        return smallGroup(g, reduceGroup);
    }

    /** The small group {@code g} of a backend whose reduction group is {@code reduceGroup}: 0 when not below it. */
    static int smallGroup(int g, int reduceGroup) {
        if (g < 0 || (g & (g - 1)) != 0) {
            throw new IllegalArgumentException(SMALL_REDUCE_GROUP_PROPERTY + " is " + g + ", not 0 or a power of two");
        }
        return g >= reduceGroup ? 0 : g;
    }

    /** The value of {@link #SMALL_REDUCE_GROUP_PROPERTY} (default 0: none). */
    static int smallGroupProperty() {
        return Integer.getInteger(SMALL_REDUCE_GROUP_PROPERTY, 0);
    }

    /** The group of the reductions over small vectors ({@link #reductionGroup}); 0: none, the backend's group always. */
    int smallReduceGroup() {
        return smallReduceGroup;
    }

    /** Sets the group of the small reductions (tests: the old path with 0), as {@link #SMALL_REDUCE_GROUP_PROPERTY}. */
    void smallReduceGroup(int g) {
        smallReduceGroup = smallGroup(g);
    }

    /**
     * The work-group of a reduction over n entries: the small group when n is at most that group times
     * {@link #SMALL_REDUCE_GROUPS}, else the backend's reduction group. Depends only on n (determinism).
     */
    int reductionGroup(int n) {
        int small = smallReduceGroup;
        return small > 0 && n <= (long) small * SMALL_REDUCE_GROUPS ? small : reduceGroup;
    }

    /** Groups of a reduction over n entries in groups of the backend's reduction group. */
    int reductionGroups(int n) {
        return reductionGroups(n, reduceGroup);
    }

    /** Groups of a reduction over n entries in groups of {@code group}: depends only on n and the group (determinism). */
    static int reductionGroups(int n, int group) {
        return (int) Math.min(AparapiBackend.REDUCE_GROUPS, (n + (long) group - 1) / group);
    }

    /**
     * System property: which kernels run x . y (BS3, BS4) and the CG update (BS5) when no rows are left out of the sum.
     * {@code dedicated} (the default): kernels of their own, {@link io.lobatto.backend.aparapi.kernels.DotKernel} (x, y,
     * partials, n and the local tree) and {@link io.lobatto.backend.aparapi.kernels.CgUpdateKernel} (p, ap, x, r,
     * partials, alpha, n and the local tree); {@code general}: {@link ReductionKernel} with all of its thirteen arguments,
     * as before. Both give the same bits (the same group, loop, tree and order of the partials); the general kernel
     * still runs every other reduction and the sums that leave a range of rows out (a rank's owned sums). An A/B switch
     * of the reductions' T0 (issue 26); any other value is an {@link IllegalArgumentException} when a backend opens.
     */
    static final String REDUCTION_KERNELS_PROPERTY = "lobatto.aparapi.reductionKernels";

    /** Whether the backend runs dot and the CG update in their own kernels ({@link #REDUCTION_KERNELS_PROPERTY}). */
    private boolean dedicatedReductions;

    /**
     * The value of {@link #REDUCTION_KERNELS_PROPERTY}: true for {@code dedicated} (also when unset), false for
     * {@code general} (either in any case), else an {@link IllegalArgumentException} naming the property, the value and
     * the two that it takes.
     */
    static boolean dedicatedReductionsProperty() {
        String v = System.getProperty(REDUCTION_KERNELS_PROPERTY, "dedicated");
        if ("dedicated".equalsIgnoreCase(v)) {
            return true;
        }
        if ("general".equalsIgnoreCase(v)) {
            return false;
        }
        throw new IllegalArgumentException(REDUCTION_KERNELS_PROPERTY + " is '" + v + "', not 'dedicated' (the default: dot "
                + "and the CG update in kernels of their own) or 'general' (every reduction in ReductionKernel)");
    }

    /** Whether dot and the CG update run in their own kernels ({@link #REDUCTION_KERNELS_PROPERTY}). */
    boolean dedicatedReductions() {
        return dedicatedReductions;
    }

    /** Sets {@link #dedicatedReductions()} (tests: false is the general kernel), as {@link #REDUCTION_KERNELS_PROPERTY}. */
    void dedicatedReductions(boolean dedicated) {
        dedicatedReductions = dedicated;
    }

    /**
     * System property {@code lobatto.aparapi.pinnedPartials} (default true): the reductions read their partials into
     * pinned host memory; false reads them into a Java array, as raw JOCL's dot does (an A/B switch of the read-back).
     */
    static final boolean PINNED_PARTIALS = !"false".equalsIgnoreCase(System.getProperty("lobatto.aparapi.pinnedPartials", "true"));
    private final double[] partialsArray = new double[4 * AparapiBackend.REDUCE_GROUPS];

    /** Reads the first {@code count} partials to the host (one blocking read), for {@link #partial}. */
    void readPartials(int count) {
        if (PINNED_PARTIALS) {
            cl.read(partials, 0, partialsHost, count);
        } else {
            cl.read(partials, 0, partialsArray, 0, count);
        }
    }

    /** Partial {@code i} as {@link #readPartials} read it. */
    double partial(int i) {
        return PINNED_PARTIALS ? partialsHost.getDouble(8 * i) : partialsArray[i];
    }

    /** Reads the first {@code count} partials and sums them in group order. */
    double sumPartials(int groups) {
        readPartials(groups);
        double s = 0;
        for (int g = 0; g < groups; g++) {
            s += partial(g);
        }
        return s;
    }

    // ------------------------------------------------------------------ buffers

    /** A buffer of at least one entry (OpenCL has no empty buffers) of {@code bytesPerEntry}. */
    ClBuffer buffer(long entries, int bytesPerEntry, String what) {
        return cl.allocate(Math.max(1, entries) * bytesPerEntry, what);
    }

    /** A new buffer holding {@code values} (closed again if the write fails). */
    ClBuffer upload(double[] values, String what) {
        return cl.upload(values, what);
    }

    /**
     * Writes column {@code column} of the row-major {@code src} ({@code count} rows of {@code stride}) into {@code dst}
     * from entry {@code dstOffset} on, staged through {@code chunk}: the transposing upload of point-major host data.
     */
    void writeColumn(double[] src, int stride, int column, long count, double[] chunk, ClBuffer dst, long dstOffset) {
        for (long start = 0; start < count; start += chunk.length) {
            int n = (int) Math.min(chunk.length, count - start);
            for (int i = 0; i < n; i++) {
                chunk[i] = src[(int) ((start + i) * stride + column)];
            }
            cl.write(chunk, 0, n, dst, dstOffset + start);
        }
    }

    /** Closes the buffers that are not null. */
    static void closeAll(ClBuffer... buffers) {
        for (ClBuffer b : buffers) {
            if (b != null) {
                b.close();
            }
        }
    }

    // ------------------------------------------------------------------ argument checks

    /** {@code v} as an open vector of this backend, else the error naming {@code name}. */
    ClVector vec(Object v, String name) {
        ensureOpen();
        Objects.requireNonNull(v, name);
        if (!(v instanceof ClVector a) || a.backend() != owner) {
            throw new IllegalArgumentException(name + " is not a vector of this aparapi backend: " + v);
        }
        if (a.isClosed()) {
            throw new IllegalStateException(name + " is closed");
        }
        return a;
    }

    /**
     * {@code handle}, the argument {@code name}, as a {@code type} that {@code area} made and that is still open.
     *
     * @throws NullPointerException     naming {@code name} where it is null
     * @throws IllegalArgumentException naming it where it is not {@code kind} of this backend (another backend's, or
     *                                  another kind of object)
     * @throws IllegalStateException    naming it where it was closed
     */
    static <T extends ClHandle> T own(Object handle, Class<T> type, Object area, String name, String kind) {
        Objects.requireNonNull(handle, name);
        if (!type.isInstance(handle) || type.cast(handle).owner() != area) {
            throw new IllegalArgumentException(name + " is not " + kind + " of this aparapi backend: " + handle);
        }
        T h = type.cast(handle);
        if (h.isClosed()) {
            throw new IllegalStateException(name + " is closed");
        }
        return h;
    }

    static void sameLength(String what, DeviceVector a, String an, DeviceVector b, String bn) {
        if (a.length() != b.length()) {
            throw new IllegalArgumentException(what + ": " + an + " has length " + a.length() + " but " + bn + " has length " + b.length());
        }
    }

    static void checkLen(String what, String name, int actual, int expected) {
        if (actual != expected) {
            throw new IllegalArgumentException(what + ": " + name + " has length " + actual + " but must have length " + expected);
        }
    }
}
