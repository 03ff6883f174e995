package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.runtime.ClContext;
import io.lobatto.backend.aparapi.runtime.ClDevice;
import io.lobatto.backend.aparapi.runtime.ClKernel;
import io.lobatto.backend.aparapi.runtime.KernelSource;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceFdm;
import io.lobatto.core.backend.DeviceGeometry;
import io.lobatto.core.backend.DeviceHalo;
import io.lobatto.core.backend.DeviceInfo;
import io.lobatto.core.backend.DeviceIntVector;
import io.lobatto.core.backend.DevicePointwiseData;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceTransfer;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.backend.ErrorNorms;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.mesh.ElementGeometry;
import io.lobatto.core.pointwise.PointFunction;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.Quadrature;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
 *
 * <p>This class is the public face and the lifecycle; each area of the SPI lives in a package-private class of its
 * own, and every SPI method here synchronizes on this backend (the one lock) and delegates:
 * {@link Vectors} (memory, streaming, reductions), {@link GatherScatter} (Z, Z^T, halo sums), {@link ElementOperators}
 * (element data, BP1.0/BP3.5/BP3.0, the fused operator, diagonals), {@link UserOperators} (pointwise operators),
 * {@link Multigrid} (transfer, Chebyshev step), {@link Schwarz} (the fast diagonalisation's local solves),
 * {@link SetupKernels} (geometry, factors, evaluate, error norms) and {@link BuildsAhead} (prepare). They share
 * {@link BackendCore}.
 */
public final class AparapiBackend implements Backend {

    /** The name {@code LOBATTO_BACKEND} uses. */
    public static final String NAME = "aparapi";
    /** Largest supported polynomial degree (GL grid of 17^3 points in local memory, 2D structure). */
    public static final int MAX_DEGREE = 15;
    /** Most work-groups of a reduction (partials hold two doubles per group). */
    static final int REDUCE_GROUPS = 1024;
    /**
     * The system property that picks the gather/scatter kernels of each Z at its upload: {@code blocks} (the block
     * kernels), {@code rows} (the default: one work-item per row of Z^T; {@code GatherScatterRowsKernel},
     * {@code GatherRowsFusedKernel}) or {@code tiles} (rows with 16-bit indices where a tile of 32 entries allows them;
     * {@code CompactTiles}).
     */
    public static final String GATHER_SCATTER_PROPERTY = "lobatto.aparapi.gatherScatter";
    /**
     * The system property, read at each Z's upload, that makes the fused assembled operator of that Z one element kernel
     * plus a smaller gather ({@code true}; rows and tiles kinds only, default {@code false}): the element kernel writes
     * the rows of Z^T of degree 1 (element interiors) to y_G itself and only the shared nodes to y_L, which the gather
     * then sums ({@link io.lobatto.backend.aparapi.kernels.ElementOperands#DIRECT}). An A/B switch for the GPU runbook.
     */
    public static final String ONE_KERNEL_PROPERTY = "lobatto.aparapi.oneKernelOperator";

    /**
     * System property, read at every apply: the form of the assembled operator's apply (y_G = A x_G; CG's calls with
     * their dot and p update too, unless {@link #ATOMIC_CG_PROPERTY} is false). {@code cas} or {@code ptx}: one element
     * kernel that adds its outputs into y_G atomically
     * ({@link io.lobatto.backend.aparapi.kernels.ElementOperands#ATOMIC}; {@code ptx}: NVIDIA's {@code red.global.add.f64},
     * {@code cas}: a 64-bit compare-and-swap loop), so y_G is not bitwise reproducible; {@code off}: the element kernel
     * and the gather (bitwise reproducible). {@code auto} (the default): {@code ptx} on NVIDIA devices for operators of at
     * least {@link #ATOMIC_MIN_LOCAL} local nodes, else {@code off}. Measured on the H100 at 8M DOFs
     * ({@code benchmarks/gpu/atomic26.sh} at 3445196): the apply faster at every p of 2..8, 10, 15 (BP1 1.19-1.27x, BP3
     * 1.04-1.19x, BP5 1.01-1.21x) but BP5 at p = 4 in the register variant (0.98x; 0.94x on an H200), which the atomic
     * form replaces by the shared one ({@link ElementVariant#atomicTable}: 15.45 against 13.88 GDOF/s at ee52204), and
     * p = 8 (1.01x); at d99e0e6 CG's call 1.02-1.12x at p = 5..7, a BP5 CG iteration ({@code bp}) 1.04-1.06x at p = 5
     * but 0.97-0.98x at p = 8 in the register variant. With the points kernel at p = 6..9 (9f25633) {@code bp} BP5 is
     * 1.05-1.09x there in the PTX form, p = 8 included (10.77 and 10.79 against 10.10 and 9.85 GDOF/s), so no degree is
     * left out.
     */
    public static final String ATOMIC_OPERATOR_PROPERTY = "lobatto.aparapi.atomicOperator";

    /**
     * System property, read at every apply: {@code true} (the default) lets the atomic form of
     * {@link #ATOMIC_OPERATOR_PROPERTY} serve CG's calls too (y = A x with x . y: the atomic apply, then a dot; and where
     * the search direction is folded ({@link #foldSearchDirection}) p = z + beta p with y = A p and p . y: the element
     * kernel reads z + beta p and adds into y_G, then one pass updates p and sums the dot); {@code false} keeps them on
     * the element kernel and the gather with its fused update and dot. An A/B switch for the GPU runbook.
     */
    public static final String ATOMIC_CG_PROPERTY = "lobatto.aparapi.atomicCg";

    /** {@link #ATOMIC_CG_PROPERTY} now. */
    static boolean atomicCg() {
        return !"false".equalsIgnoreCase(System.getProperty(ATOMIC_CG_PROPERTY, "true").trim());
    }

    /**
     * System property: whether CG's atomic apply sums p . A p in the element kernel and runs the iteration on the device
     * ({@link io.lobatto.backend.aparapi.kernels.ElementOperands#ATOMIC_DOT}, {@code cgIteration}): {@code table} (the
     * default: {@link #elementDotTable}), {@code true} at every degree, or {@code false} (the path before: the p update,
     * the atomic apply, a dot of p and Ap, the CG update). An A/B switch for the runbooks.
     */
    static final String ELEMENT_DOT_PROPERTY = "lobatto.aparapi.elementDot";

    /**
     * {@link #ELEMENT_DOT_PROPERTY} now, for BP3.5 at {@code degree}.
     *
     * @throws IllegalArgumentException naming the property's value if it is none of table, true, false
     */
    static boolean elementDot(int degree) {
        String v = System.getProperty(ELEMENT_DOT_PROPERTY, "table").trim().toLowerCase(java.util.Locale.ROOT);
        return switch (v) {
            case "table" -> elementDotTable(degree);
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("-D" + ELEMENT_DOT_PROPERTY + "=" + v + ": expected table, true or false");
        };
    }

    /**
     * The measured choice of {@link #ELEMENT_DOT_PROPERTY}: BP5's CG iteration on the device, its iterations queued
     * ({@link #CG_QUEUE_PROPERTY}), at N = 2..13; the path before at N = 1 (faster there) and above 13 (not measured).
     * {@code benchmarks/gpu/queue26.sh} at 5b7c595 (H100, {@code bp} BP5 stored at 8M DOFs, 50 iterations, GDOF&middot;it/s,
     * the path before / one read-back per iteration / queued, two alternated rounds in one lease): N = 1 4.28, 4.21 /
     * 3.68, 3.79 / 3.93, 3.93; N = 2 7.16, 6.99 / 6.86, 6.98 / 7.21, 7.21; N = 3 9.97, 10.01 / 9.76, 9.58 / 10.25, 10.27;
     * N = 4 10.49, 9.98 / 10.82, 10.65 / 11.34, 11.23; N = 5 10.64, 10.44 / 10.63, 10.07 / 10.84, 10.81; N = 6 10.73,
     * 10.02 / 11.79, 11.26 / 11.47, 11.43; N = 7 11.95, 11.23 / 13.00, 12.43 / 13.38, 13.36; N = 8 11.19, 10.68 / 12.10,
     * 11.49 / 12.44, 12.46; N = 9 11.51, 10.32 / 13.07, 12.55 / 13.61, 13.61; N = 10 10.57, 10.58 / 11.87, 11.78 / 12.29;
     * once, the path before / queued: N = 11 10.19 / 11.22, 12 8.42 / 9.75, 13 8.60 / 9.25. Before the queue
     * ({@code edot26.sh} at f85ccfd) the one-read-back form alone was on at N = 4 and 6..10.
     */
    static boolean elementDotTable(int degree) {
        return degree >= 2 && degree <= 13;
    }

    /**
     * System property {@code lobatto.aparapi.cgQueue} (default true): where CG's iteration runs on the device
     * ({@link #ELEMENT_DOT_PROPERTY}), beta too is set on the device ({@link io.lobatto.backend.aparapi.kernels.CgBetaKernel})
     * and the iterations queue one after another, the host reading each one's p . A p and r . r while the next runs
     * ({@code queueAssembledCgIteration}); false waits for each iteration's read-back before queueing the next
     * ({@code assembledCgIteration}, the path before). An A/B switch for the runbooks.
     */
    static final String CG_QUEUE_PROPERTY = "lobatto.aparapi.cgQueue";

    /**
     * {@link #CG_QUEUE_PROPERTY} now.
     *
     * @throws IllegalArgumentException naming the property's value if it is neither true nor false
     */
    static boolean cgQueue() {
        String v = System.getProperty(CG_QUEUE_PROPERTY, "true").trim().toLowerCase(java.util.Locale.ROOT);
        return switch (v) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("-D" + CG_QUEUE_PROPERTY + "=" + v + ": expected true or false");
        };
    }

    /**
     * Local nodes from which {@code auto} takes the atomic form: below, the quick-first builds of small jobs (the README's
     * cold start) keep the kernels they build ahead, and the apply is launch-bound anyway.
     */
    public static final long ATOMIC_MIN_LOCAL = 1L << 21;

    /**
     * The element kernels' input mode of {@link #ATOMIC_OPERATOR_PROPERTY} now for an operator of {@code localNodes} on a
     * device of {@code vendor}: 0 (off), ATOMIC or ATOMIC_PTX.
     *
     * @throws IllegalArgumentException naming the property's value if it is none of off, cas, ptx, auto
     */
    static int atomicOperator(String vendor, long localNodes) {
        return atomicOperator(isNvidia(vendor), localNodes);
    }

    /** Whether {@code vendor} (CL_DEVICE_VENDOR) is NVIDIA's, where {@code auto} takes the PTX form. */
    static boolean isNvidia(String vendor) {
        return vendor != null && vendor.toLowerCase(java.util.Locale.ROOT).contains("nvidia");
    }

    /** As {@link #atomicOperator(String, long)} with the vendor test done (once per backend). */
    static int atomicOperator(boolean nvidia, long localNodes) {
        String v = System.getProperty(ATOMIC_OPERATOR_PROPERTY, "auto").trim();
        switch (v) {
            case "off":
                return 0;
            case "cas":
                return io.lobatto.backend.aparapi.kernels.ElementOperands.ATOMIC;
            case "ptx":
                return io.lobatto.backend.aparapi.kernels.ElementOperands.ATOMIC_PTX;
            case "auto":
                return nvidia && localNodes >= ATOMIC_MIN_LOCAL ? io.lobatto.backend.aparapi.kernels.ElementOperands.ATOMIC_PTX : 0;
            default:
                throw new IllegalArgumentException("-D" + ATOMIC_OPERATOR_PROPERTY + "=" + v + ": expected auto, off, cas or ptx");
        }
    }
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
    /**
     * Whether {@link #applyAssembledResidual} folds the smoothers' residual updates into the operator's gather (one
     * launch per update vector fewer): {@code -Dlobatto.aparapi.foldResidual}, else true. An A/B switch for the runbook.
     */
    static final boolean FOLD_RESIDUAL = Boolean.parseBoolean(System.getProperty("lobatto.aparapi.foldResidual", "true"));
    /** Largest work-group of the streaming, reduction and gather kernels (capped by the built kernel). */
    static final int STREAM_GROUP = Integer.getInteger("lobatto.aparapi.streamGroup", 1024);

    /**
     * Threads that build kernels ahead of use ({@link #prepare}): {@code -Dlobatto.aparapi.buildThreads}, default the
     * host's cores, at least 2 and at most 8. Each runs one {@code clBuildProgram} (or disk-cache load) at a time.
     */
    static final int BUILD_THREADS = Integer.getInteger("lobatto.aparapi.buildThreads",
            Math.min(8, Math.max(2, Runtime.getRuntime().availableProcessors())));

    /** Context, queue, built kernels, partials and the checks every area shares (see {@link BackendCore}). */
    private final BackendCore core;
    private final ClContext cl;
    private final DeviceInfo info;
    private final Vectors vectors;
    private final GatherScatter gatherScatter;
    private final ScatterBuild scatterBuild;
    private final Multigrid multigrid;
    private final SetupKernels setup;
    private final ElementOperators elements;
    private final UserOperators users;
    private final BuildsAhead builds;
    private final Schwarz schwarz;

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
        this.core = new BackendCore(this, device, localMemoryCap, variant);
        this.cl = core.cl;
        this.info = core.info;
        this.vectors = new Vectors(core);
        this.gatherScatter = new GatherScatter(core, vectors);
        this.scatterBuild = new ScatterBuild(core, gatherScatter, vectors);
        this.multigrid = new Multigrid(core, vectors, gatherScatter);
        this.setup = new SetupKernels(core, vectors);
        this.elements = new ElementOperators(core, vectors, gatherScatter, setup);
        this.users = new UserOperators(core, vectors, gatherScatter);
        this.builds = new BuildsAhead(core, elements, setup);
        this.schwarz = new Schwarz(core, vectors, gatherScatter, builds);
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
        return core.reduceGroup;
    }

    /** Work-items per group of a reduction over {@code n} entries (the small group up to its switch, see smallReduceGroup). */
    public synchronized int reductionGroupSize(int n) {
        return core.reductionGroup(n);
    }

    /** The work-group of the reductions over small vectors (0: none), as {@code -Dlobatto.aparapi.smallReduceGroup}. */
    synchronized int smallReduceGroup() {
        return core.smallReduceGroup();
    }

    /** Sets {@link #smallReduceGroup()} (tests: 0 is the path before, the backend's group at every size). */
    synchronized void smallReduceGroup(int group) {
        core.smallReduceGroup(group);
    }

    /**
     * Whether dot, norm² and the CG update run in kernels of their own when they leave no rows out, as
     * {@code -Dlobatto.aparapi.reductionKernels=dedicated} (the default) says; false: in the general reduction kernel.
     */
    synchronized boolean dedicatedReductions() {
        return core.dedicatedReductions();
    }

    /** Sets {@link #dedicatedReductions()} (tests: false is the general kernel, the path before). */
    synchronized void dedicatedReductions(boolean dedicated) {
        core.dedicatedReductions(dedicated);
    }

    /** The OpenCL C of every kernel this backend has built so far, in build order (for kernel-info reports). */
    public synchronized List<KernelSource> builtSources() {
        List<KernelSource> out = new ArrayList<>();
        for (ClKernel k : core.kernels()) {
            out.add(k.source());
        }
        return out;
    }

    /** The kernels built so far, by label (for kernel-info reports: work-group size, memory use). */
    public synchronized Map<String, ClKernel> builtKernels() {
        Map<String, ClKernel> out = new java.util.TreeMap<>();
        for (ClKernel k : core.kernels()) {
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
        elements.foldSearchDirection(fold);
    }

    /** See {@link #foldSearchDirection(boolean)}. */
    public synchronized boolean foldSearchDirection() {
        return elements.foldSearchDirection();
    }

    /** Number of kernel launches so far. */
    public synchronized long launches() {
        long n = 0;
        for (ClKernel k : core.kernels()) {
            n += k.launches();
        }
        return n;
    }

    /** clSetKernelArg calls so far, over every built kernel ({@link ClKernel#argumentSets()}). */
    public synchronized long argumentSets() {
        long n = 0;
        for (ClKernel k : core.kernels()) {
            n += k.argumentSets();
        }
        return n;
    }

    /** clFinish calls of {@link #synchronize()} and the other full waits so far ({@link ClContext#queueFinishes()}). */
    public synchronized long queueFinishes() {
        return cl.queueFinishes();
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

    /** Names the launches from now on in {@link #statistics()} ("scope | kernel"; "" for none). */
    @Override
    public void profileScope(String scope) {
        cl.profileScope(java.util.Objects.requireNonNull(scope, "scope"));
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
        return core.isClosed();
    }

    private void ensureOpen() {
        core.ensureOpen();
    }

    /** Rows blocked so that each block has at most {@link #GATHER_CACHE} CSR entries (or one long row). */
    static int[] makeBlocks(int[] starts, int rows) {
        return GatherScatter.makeBlocks(starts, rows);
    }

    // ------------------------------------------------------------------ memory and streaming: Vectors

    @Override
    public synchronized DeviceVector allocate(int length) {
        return vectors.allocate(length);
    }

    @Override
    public synchronized DeviceVector upload(double[] values) {
        return vectors.upload(values);
    }

    @Override
    public synchronized DeviceIntVector upload(int[] values) {
        return vectors.upload(values);
    }

    @Override
    public synchronized void write(double[] values, DeviceVector target) {
        vectors.write(values, target);
    }

    @Override
    public synchronized void read(DeviceVector source, double[] values) {
        vectors.read(source, values);
    }

    @Override
    public synchronized void synchronize() {
        vectors.synchronize();
    }

    @Override
    public synchronized void fill(DeviceVector y, double value) {
        vectors.fill(y, value);
    }

    @Override
    public synchronized void copy(DeviceVector x, DeviceVector y) {
        vectors.copy(x, y);
    }

    @Override
    public synchronized void axpby(double a, DeviceVector x, double b, DeviceVector y) {
        vectors.axpby(a, x, b, y);
    }

    @Override
    public synchronized void pointwiseMultiply(DeviceVector a, DeviceVector x, DeviceVector y) {
        vectors.pointwiseMultiply(a, x, y);
    }

    @Override
    public synchronized void indexedGather(DeviceVector x, DeviceIntVector idx, DeviceVector y) {
        vectors.indexedGather(x, idx, y);
    }

    @Override
    public synchronized double dot(DeviceVector x, DeviceVector y) {
        return vectors.dot(x, y);
    }

    @Override
    public synchronized double norm2(DeviceVector x) {
        return vectors.norm2(x);
    }

    @Override
    public synchronized double cgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r) {
        return vectors.cgUpdate(alpha, p, ap, x, r);
    }

    /**
     * CG's whole vector step, BS5 of hipBone's Algorithm 1 with p = r + beta p folded in, in one kernel
     * ({@link io.lobatto.backend.aparapi.kernels.CgStepKernel}): p = r + beta p; x += alpha p; r -= alpha Ap; returns
     * r . r of the updated r, summed per work-group in a fixed tree and on the host in group order (deterministic).
     */
    @Override
    public synchronized double cgStep(double alpha, double beta, DeviceVector p, DeviceVector ap, DeviceVector x,
                                      DeviceVector r) {
        return vectors.cgStep(alpha, beta, p, ap, x, r);
    }

    /** One pass of BS5 with Jacobi fused in (two reductions per work-group: r . r and r . z). */
    @Override
    public synchronized void pcgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r,
                                       DeviceVector inverseDiagonal, DeviceVector z, double[] dots) {
        vectors.pcgUpdate(alpha, p, ap, x, r, inverseDiagonal, z, dots);
    }

    /** y = 1 / x and the count of entries not positive and finite, in one reduction. */
    @Override
    public synchronized long reciprocal(DeviceVector x, DeviceVector y) {
        return vectors.reciprocal(x, y);
    }

    // ------------------------------------------------------------------ gather / scatter and halo: GatherScatter

    @Override
    public synchronized DeviceScatter uploadScatter(int[] scatterIds, int[] gatherStarts, int[] gatherIds, int[] blockStarts,
                                                    double[] inverseDegree, int globalSize) {
        return gatherScatter.uploadScatter(scatterIds, gatherStarts, gatherIds, blockStarts, inverseDegree, globalSize);
    }

    /** A non-blocking read through the vector's pinned staging on the copy queue ({@link Vectors#readAsync}). */
    @Override
    public synchronized PendingRead readAsync(DeviceVector source, double[] values) {
        return vectors.readAsync(source, values, this);
    }

    /** A non-blocking write through the vector's pinned staging on the copy queue ({@link Vectors#writeAsync}). */
    @Override
    public synchronized void writeAsync(double[] values, DeviceVector target) {
        vectors.writeAsync(values, target);
    }

    @Override
    public synchronized double dot(DeviceVector x, DeviceVector y, DeviceIntVector excluded) {
        return vectors.dot(x, y, excluded);
    }

    @Override
    public synchronized double cgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r,
                                        DeviceIntVector excluded) {
        return vectors.cgUpdate(alpha, p, ap, x, r, excluded);
    }

    /** {@link #pcgUpdate} less the rows {@code excluded}: one more launch over them, the same single read-back. */
    @Override
    public synchronized void pcgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r,
                                       DeviceVector inverseDiagonal, DeviceVector z, DeviceIntVector excluded, double[] dots) {
        vectors.pcgUpdate(alpha, p, ap, x, r, inverseDiagonal, z, excluded, dots);
    }

    /** The build of {@link io.lobatto.backend.aparapi.kernels.RandomFillKernel}. */
    static final KernelBuilds.Spec RANDOM_FILL = new KernelBuilds.Spec(io.lobatto.backend.aparapi.kernels.RandomFillKernel.class,
            java.util.Map.of(), "fillRandom", 0);

    /** y = the random vector of {@code seed}, one work-item per entry (the bits of {@link io.lobatto.core.backend.RandomFill}). */
    @Override
    public synchronized void fillRandom(DeviceVector y, long seed) {
        ClVector v = core.vec(y, "y");
        if (v.length() == 0) {
            return;
        }
        io.lobatto.backend.aparapi.runtime.ClKernel k = core.kernel(RANDOM_FILL);
        k.set("x", v.buffer).set("seedHi", (int) (seed >>> 32)).set("seedLo", (int) seed).set("n", v.length());
        core.launchPerEntry(k, v.length());
    }

    /**
     * Z built on the device ({@link ScatterBuild}) in the blocks or rows kind; empty in the tiles kind, whose compact
     * indices are made on the host.
     */
    @Override
    public synchronized java.util.Optional<DeviceScatter> buildScatter(java.nio.IntBuffer localToGlobal, int originalNodeCount,
                                                                       boolean[] masked) {
        java.util.Objects.requireNonNull(localToGlobal, "localToGlobal");
        int kind = GatherScatter.kind();
        if (kind == GatherScatter.TILES) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(scatterBuild.build(localToGlobal, originalNodeCount, masked, kind));
    }

    /**
     * Z built on the device from a mesh's numbering by entities: the local-to-global map made by
     * {@link io.lobatto.backend.aparapi.kernels.ElementNumberingKernel} into the buffer {@link ScatterBuild} builds Z
     * from; empty in the tiles kind (as {@link #buildScatter(java.nio.IntBuffer, int, boolean[])}).
     */
    @Override
    public synchronized java.util.Optional<DeviceScatter> buildScatter(io.lobatto.core.mesh.ElementNumbering numbering,
                                                                       boolean[] masked) {
        java.util.Objects.requireNonNull(numbering, "numbering");
        int kind = GatherScatter.kind();
        if (kind == GatherScatter.TILES) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(scatterBuild.build(numbering, masked, kind));
    }

    /** The local-to-global map {@link ScatterBuild#number} makes on the device, read back (for tests). */
    synchronized int[] numberOnDevice(io.lobatto.core.mesh.ElementNumbering numbering) {
        ensureOpen();
        java.util.List<ClVector> buffers = new java.util.ArrayList<>();
        try {
            ClVector map = new ClVector(this, core.cl, core.buffer(numbering.localSize(), 4, "the map"), numbering.localSize());
            buffers.add(map);
            scatterBuild.number(numbering, map, buffers);
            int[] out = new int[numbering.localSize()];
            core.cl.read(map.buffer, 0, out, 0, out.length);
            return out;
        } finally {
            buffers.forEach(ClVector::close);
        }
    }

    /** Z with W made on the device from the degrees ({@link GatherScatter#uploadScatterByDegree}). */
    @Override
    public synchronized DeviceScatter uploadScatterByDegree(int[] scatterIds, int[] gatherStarts, int[] gatherIds,
                                                            int[] blockStarts, int[] degree, int globalSize) {
        return gatherScatter.uploadScatterByDegree(scatterIds, gatherStarts, gatherIds, blockStarts, degree, globalSize);
    }

    @Override
    public synchronized void scatter(DeviceScatter z, DeviceVector xG, DeviceVector xL) {
        gatherScatter.scatter(z, xG, xL);
    }

    @Override
    public synchronized void gather(DeviceScatter z, DeviceVector xL, DeviceVector xG) {
        gatherScatter.gather(z, xL, xG);
    }

    /** The gather with x_G . y_G reduced in its pass (one launch, one read-back), as in {@link #applyAssembledDot}. */
    @Override
    public synchronized double gatherDot(DeviceScatter z, DeviceVector yL, DeviceVector xG, DeviceVector yG) {
        return gatherScatter.gatherDot(z, yL, xG, yG);
    }

    /**
     * The gather with x_G . y_G and the halo sums in one launch where the halo's rows are the last rows, ascending
     * (a rank's shared rows numbered last); else {@link #gatherDot} and {@link #sumHalo}. Bitwise the same values.
     */
    @Override
    public synchronized double gatherDotHalo(DeviceScatter z, DeviceVector yL, DeviceVector xG, DeviceVector yG,
                                             DeviceHalo halo, DeviceVector received) {
        return gatherScatter.gatherDotHalo(z, yL, xG, yG, halo, received);
    }

    /**
     * The gather and the halo sums in one launch where the halo's rows are the last rows, ascending (a rank's shared
     * rows numbered last); else {@link #gather} and {@link #sumHalo}. Bitwise the same values.
     */
    @Override
    public synchronized void gatherHalo(DeviceScatter z, DeviceVector yL, DeviceVector yG, DeviceHalo halo,
                                        DeviceVector received) {
        gatherScatter.gatherHalo(z, yL, yG, halo, received);
    }

    @Override
    public synchronized DeviceHalo uploadHalo(int[] rows, int[] starts, int[] sources, int receivedSize, int globalSize) {
        return gatherScatter.uploadHalo(rows, starts, sources, receivedSize, globalSize);
    }

    @Override
    public synchronized void sumHalo(DeviceHalo halo, DeviceVector received, DeviceVector yG) {
        gatherScatter.sumHalo(halo, received, yG);
    }

    // ------------------------------------------------------------------ p-multigrid transfer and Chebyshev: Multigrid

    @Override
    public synchronized DeviceTransfer uploadTransfer(Basis1D coarse, Basis1D fine, int elements) {
        DeviceTransfer t = multigrid.uploadTransfer(coarse, fine, elements);
        builds.prepareTransfer(coarse.degree(), fine.degree());   // its kernels build during the rest of the setup
        return t;
    }

    @Override
    public synchronized void prolongate(DeviceTransfer t, DeviceScatter zc, DeviceScatter zf, DeviceVector xc,
                                        DeviceVector workF, DeviceVector xf) {
        multigrid.prolongate(t, zc, zf, xc, workF, xf);
    }

    @Override
    public synchronized void restrict(DeviceTransfer t, DeviceScatter zf, DeviceScatter zc, DeviceVector rf,
                                      DeviceVector workC, DeviceVector rc) {
        multigrid.restrict(t, zf, zc, rf, workC, rc);
    }

    /** The fused Chebyshev step: d = a d + b (inverseDiagonal o r); x += d in one launch. */
    @Override
    public synchronized void chebyshevStep(double a, double b, DeviceVector inverseDiagonal, DeviceVector r, DeviceVector d,
                                           DeviceVector x, DeviceVector scratch) {
        multigrid.chebyshevStep(a, b, inverseDiagonal, r, d, x);
    }

    // ------------------------------------------------------------------ overlapping Schwarz (fast diagonalisation): Schwarz

    @Override
    public synchronized DeviceFdm uploadFdm(int points, int elements, double[] eigenvectors, double[] eigenvalues) {
        return schwarz.uploadFdm(points, elements, eigenvectors, eigenvalues);
    }

    @Override
    public synchronized DeviceFdm uploadFdm(int points, int elements, double[] lineVectors, double[] lineValues,
                                            int[] lineOf) {
        return schwarz.uploadFdm(points, elements, lineVectors, lineValues, lineOf);
    }

    @Override
    public synchronized void applyFdm(DeviceFdm fdm, DeviceVector x, DeviceVector y) {
        schwarz.applyFdm(fdm, x, y);
    }

    /**
     * The Schwarz local solves in one launch of {@link io.lobatto.backend.aparapi.kernels.FdmElementKernel} (scatter,
     * the six passes in local memory, the RAS weights), one work-group per extended element; {@code work} is not used.
     * Falls back to the unfused passes when the block does not fit the device's local memory (n &gt; 14 on 48 KiB) or
     * when {@code -Dlobatto.aparapi.fusedSchwarz=false}.
     */
    @Override
    public synchronized void applySchwarzLocal(DeviceScatter zExt, DeviceFdm fdm, DeviceVector weights, DeviceVector xG,
                                               DeviceVector work, DeviceVector yExt) {
        if (!schwarz.applySchwarzLocal(zExt, fdm, weights, xG, work, yExt)) {
            Backend.super.applySchwarzLocal(zExt, fdm, weights, xG, work, yExt);
        }
    }

    /**
     * {@link Schwarz#schwarzLocal}: one launch of the fused local solves (package-private for the tests that hold the
     * two kernels to the same bits).
     */
    synchronized void schwarzLocal(ClFdm f, int mode, ClVector xv, ClVector ids, ClVector wv, ClVector yv, boolean lines) {
        schwarz.schwarzLocal(f, mode, xv, ids, wv, yv, lines);
    }

    /**
     * The restricted Schwarz local solves on the elements' own nodes in one launch of
     * {@link io.lobatto.backend.aparapi.kernels.FdmElementKernel} (mode 2: the block read through {@code extIds}, the
     * inner (n-2)^3 points written times z's inverse degree). Needs the fused kernel: with
     * {@code -Dlobatto.aparapi.fusedSchwarz=false} or a block beyond the local memory it throws
     * {@link UnsupportedOperationException} (the caller then keeps the extended scatter operator).
     */
    @Override
    public synchronized void applyRestrictedSchwarzLocal(DeviceIntVector extIds, DeviceFdm fdm, DeviceScatter z,
                                                         DeviceVector xG, DeviceVector yL) {
        schwarz.applyRestrictedSchwarzLocal(extIds, fdm, z, xG, yL);
    }

    /**
     * The extended elements' assembled ids on the device ({@link io.lobatto.backend.aparapi.kernels.ExtendedIdsKernel},
     * one work-item per point): only the 6 E face neighbours and codes cross from the host.
     */
    @Override
    public synchronized DeviceIntVector extendedIds(DeviceScatter z, int degree, int[] faceNeighbour, int[] faceCode) {
        return schwarz.extendedIds(z, degree, faceNeighbour, faceCode);
    }

    /** The fused kernel, where its block fits the local memory and {@code lobatto.aparapi.fusedSchwarz} is not false. */
    @Override
    public boolean hasRestrictedSchwarzLocal(int points) {
        return schwarz.hasRestrictedSchwarzLocal(points);
    }

    /**
     * The gather of the Schwarz local solves folded into the Chebyshev step (one launch of
     * {@link io.lobatto.backend.aparapi.kernels.GatherScatterKernel#GATHER_CHEBYSHEV}); {@code scratch} is not used.
     * With {@code -Dlobatto.aparapi.fusedSchwarz=false}, the gather and two axpby launches.
     */
    @Override
    public synchronized void gatherChebyshevStep(DeviceScatter z, DeviceVector uL, double a, double b, double beta,
                                                 DeviceVector d, DeviceVector x, DeviceVector scratch) {
        if (!Schwarz.FUSED_SCHWARZ) {
            Backend.super.gatherChebyshevStep(z, uL, a, b, beta, d, x, scratch);
            return;
        }
        gatherScatter.gatherChebyshevStep(z, uL, a, b, beta, d, x);
    }

    // ------------------------------------------------------------------ builds ahead of use: BuildsAhead

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
        builds.prepare(kernel, degrees, geometry, functions);
    }

    /**
     * Waits until every build submitted by {@link #prepare} so far, and the backend's own start-up builds (the block
     * gathers' work-group probe), have finished (tests; timings of builds apart).
     */
    public void awaitPrepared() {
        core.awaitStartBuilds();
        List<java.util.concurrent.Future<?>> pending;
        synchronized (this) {
            pending = builds.pending();
        }
        BuildsAhead.await(pending);
    }

    // ------------------------------------------------------------------ element operators: ElementOperators

    @Override
    public synchronized DeviceElementData uploadElementData(ElementKernel kernel, Basis1D basis, int elements, double[] geometricData) {
        return this.elements.uploadElementData(kernel, basis, elements, geometricData);
    }

    /** The geometric data already on the device: split on the device into one buffer per factor, nothing to the host. */
    @Override
    public synchronized DeviceElementData uploadElementData(ElementKernel kernel, Basis1D basis, int elements,
                                                            DeviceVector geometricData) {
        return this.elements.uploadElementData(kernel, basis, elements, geometricData);
    }

    /** BP3.5 reading the element vertices instead of stored factors (|J| {@literal >} 0 checked once here). */
    @Override
    public synchronized DeviceElementData elementDataOnTheFly(ElementKernel kernel, Basis1D basis, DeviceGeometry geometry) {
        return elements.elementDataOnTheFly(kernel, basis, geometry);
    }

    /** The launch plan of element data, e.g. for reports: "2D, 81 work-items x 3 elements per group, ...". */
    public synchronized String plan(DeviceElementData data) {
        return elements.plan(data);
    }

    @Override
    public synchronized void applyElements(DeviceElementData data, double lambda, DeviceVector xL, DeviceVector yL) {
        elements.applyElements(data, lambda, xL, yL);
    }

    @Override
    public synchronized void applyAssembled(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                            DeviceVector xG, DeviceVector yL, DeviceVector yG) {
        elements.applyAssembled(data, z, lambda, shift, xG, yL, yG);
    }

    /**
     * {@link #applyAssembled} with the residual update folded into the gather (two launches, no y_G written):
     * {@code -Dlobatto.aparapi.foldResidual=false} composes the apply and the axpby launches instead.
     */
    @Override
    public synchronized void applyAssembledResidual(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                                    DeviceVector xG, DeviceVector yL, DeviceVector yG, double c1,
                                                    DeviceVector rG, double c2, DeviceVector sG) {
        if (!FOLD_RESIDUAL) {
            Backend.super.applyAssembledResidual(data, z, lambda, shift, xG, yL, yG, c1, rG, c2, sG);
            return;
        }
        elements.applyAssembledResidual(data, z, lambda, shift, xG, yL, c1, rG, c2, sG);
    }

    /**
     * The element kernel, then one launch of {@link io.lobatto.backend.aparapi.kernels.GatherScatterKernel#GATHER_MASKED_RESIDUAL}
     * (the owner mask folded into the residual's gather); {@code -Dlobatto.aparapi.foldResidual=false} makes the calls in
     * turn.
     */
    @Override
    public synchronized void applyAssembledMaskedResidual(DeviceElementData data, DeviceScatter z, double lambda,
                                                          double shift, DeviceVector xG, DeviceVector yL, DeviceVector yG,
                                                          double c1, DeviceVector mask, DeviceVector rG, DeviceVector tG) {
        if (!FOLD_RESIDUAL) {
            Backend.super.applyAssembledMaskedResidual(data, z, lambda, shift, xG, yL, yG, c1, mask, rG, tG);
            return;
        }
        if (xG == mask || xG == rG || xG == tG || mask == rG || mask == tG || rG == tG) {
            throw new IllegalArgumentException("applyAssembledMaskedResidual: xG, mask, rG and tG must be distinct");
        }
        elements.applyAssembledMaskedResidual(data, z, lambda, shift, xG, yL, c1, mask, rG, tG);
    }

    /**
     * A Chebyshev-Jacobi smoothing step after the operator apply with both folded into the gather (two launches instead
     * of three); {@code -Dlobatto.aparapi.foldResidual=false} composes the launches as the default does.
     */
    @Override
    public synchronized void applyAssembledResidualChebyshev(DeviceElementData data, DeviceScatter z, double lambda,
                                                             double shift, DeviceVector dG, DeviceVector yL,
                                                             DeviceVector yG, DeviceVector rG, double a, double b,
                                                             DeviceVector inverseDiagonal, DeviceVector xG) {
        if (!FOLD_RESIDUAL) {
            Backend.super.applyAssembledResidualChebyshev(data, z, lambda, shift, dG, yL, yG, rG, a, b, inverseDiagonal, xG);
            return;
        }
        elements.applyAssembledResidualChebyshev(data, z, lambda, shift, dG, yL, rG, a, b, inverseDiagonal, xG);
    }

    /** {@link #applyAssembled} with x_G . y_G reduced in the gather: two launches, one read-back. */
    @Override
    public synchronized double applyAssembledDot(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                                 DeviceVector xG, DeviceVector yL, DeviceVector yG) {
        return elements.applyAssembledDot(data, z, lambda, shift, xG, yL, yG);
    }

    /** p_G = z_G + beta p_G, y_G = A p_G and p_G . y_G (folded or not: {@link #foldSearchDirection(boolean)}). */
    @Override
    public synchronized double applyAssembledDotUpdate(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                                       DeviceVector zG, double beta, DeviceVector pG, DeviceVector yL,
                                                       DeviceVector yG) {
        return elements.applyAssembledDotUpdate(data, z, lambda, shift, zG, beta, pG, yL, yG);
    }

    /** Whether CG's atomic apply sums p . A p in the element kernel for {@code data} ({@link #ELEMENT_DOT_PROPERTY}). */
    @Override
    public synchronized boolean foldsAssembledDirectionDot(DeviceElementData data, double shift) {
        core.ensureOpen();
        return elements.foldsDirectionDot(data, shift);
    }

    /** y_G = A (z_G + beta p_G) and its dot with z_G + beta p_G from the element kernel, p_G unchanged. */
    @Override
    public synchronized double applyAssembledDirectionDot(DeviceElementData data, DeviceScatter z, double lambda,
                                                          double shift, DeviceVector zG, double beta, DeviceVector pG,
                                                          DeviceVector yL, DeviceVector yG) {
        return elements.applyAssembledDirectionDot(data, z, lambda, shift, zG, beta, pG, yL, yG);
    }

    /**
     * {@link Vectors#cgStepOnDevice} over {@code count} partials of p . A p in {@code terms} (package-private: the kernel
     * listing's test launches it without an element kernel).
     */
    synchronized void cgStepOnDevice(DeviceVector terms, int count, double rz, double beta, double pending, boolean deferX,
                                     DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r, double[] out) {
        vectors.cgStepOnDevice(core.vec(terms, "terms").buffer, count, rz, beta, pending, deferX, core.vec(p, "p"),
                core.vec(ap, "ap"), core.vec(x, "x"), core.vec(r, "r"), out);
    }

    /**
     * {@link Vectors#queueCgEnd} of queued CG iteration {@code k} over {@code count} partials of p . A p in {@code terms},
     * started with beta, rz and pending where {@code first} (package-private: the kernel listing's test launches it
     * without an element kernel); {@link #awaitCgIteration} reads it back.
     */
    synchronized void queueCgEnd(DeviceVector terms, int count, int k, boolean first, double beta, double rz, double pending,
                                 boolean deferX, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r) {
        vectors.checkQueueCg(k, first, deferX, pending);
        if (first) {
            vectors.startQueuedCg(beta, rz, pending);
        }
        vectors.queueCgEnd(core.vec(terms, "terms").buffer, count, k, deferX, core.vec(p, "p"), core.vec(ap, "ap"),
                core.vec(x, "x"), core.vec(r, "r"));
    }

    /** CG's iteration after the first with alpha on the device and one read-back (p . A p from the element kernel). */
    @Override
    public synchronized void assembledCgIteration(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                                  double beta, double rz, double pending, boolean deferX, DeviceVector pG,
                                                  DeviceVector yL, DeviceVector yG, DeviceVector xG, DeviceVector rG,
                                                  double[] out) {
        elements.assembledCgIteration(data, z, lambda, shift, beta, rz, pending, deferX, pG, yL, yG, xG, rG, out);
    }

    /** Whether CG's iterations queue on the device for {@code data}: {@link #foldsAssembledDirectionDot} and {@link #CG_QUEUE_PROPERTY}. */
    @Override
    public synchronized boolean queuesAssembledCg(DeviceElementData data, double shift) {
        core.ensureOpen();
        return cgQueue() && elements.foldsDirectionDot(data, shift);
    }

    /** CG iteration k queued with alpha and beta on the device; its read-back queued, not awaited. */
    @Override
    public synchronized void queueAssembledCgIteration(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                                       int k, boolean first, double beta, double rz, double pending,
                                                       boolean deferX, DeviceVector pG, DeviceVector yL, DeviceVector yG,
                                                       DeviceVector xG, DeviceVector rG) {
        if (!cgQueue()) {
            throw new UnsupportedOperationException("queueAssembledCgIteration: -D" + CG_QUEUE_PROPERTY
                    + "=false (see queuesAssembledCg)");
        }
        elements.queueAssembledCgIteration(data, z, lambda, shift, k, first, beta, rz, pending, deferX, pG, yL, yG, xG, rG);
    }

    /** Waits for queued CG iteration k's p . A p, r . r and alpha; the iterations queued after it keep running. */
    @Override
    public synchronized void awaitCgIteration(int k, double[] out) {
        core.ensureOpen();
        vectors.awaitQueuedCg(k, out);
    }

    /** The element launch of the fused operator on elements [first, end) only; the gather is {@link #gatherDot}. */
    @Override
    public synchronized void applyAssembledElements(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                                    DeviceVector xG, DeviceVector yL, int first, int end) {
        elements.applyAssembledElements(data, z, lambda, shift, xG, yL, first, end);
    }

    /**
     * Elements [first, mid) on the kernel queue and [mid, end) on the second kernel queue
     * ({@link io.lobatto.backend.aparapi.runtime.ClContext#alongside}), which waits only for the work queued before
     * this call: the two launches fill the device together, and the work queued after this call (a distributed
     * operator's boundary gather and copy, then the rest of its interior) runs beside the second one until
     * {@link #joinConcurrent()}.
     */
    @Override
    public synchronized void applyAssembledElementsConcurrent(DeviceElementData data, DeviceScatter z, double lambda,
                                                              double shift, DeviceVector xG, DeviceVector yL, int first,
                                                              int mid, int end) {
        elements.applyAssembledElementsConcurrent(data, z, lambda, shift, xG, yL, first, mid, end);
    }

    /** The kernel queue waits (a barrier, no host wait) for the launches queued alongside it. */
    @Override
    public synchronized void joinConcurrent() {
        cl.join();
    }

    /** The diagonal of the element matrices, by the diagonal kernels. */
    @Override
    public synchronized void elementDiagonal(DeviceElementData data, double lambda, DeviceVector diagonalL) {
        elements.elementDiagonal(data, lambda, diagonalL);
    }

    synchronized void diagonalGlobalGrids(boolean on) {
        elements.diagonalGlobalGrids(on);
    }

    // ------------------------------------------------------------------ setup where the operator runs: SetupKernels

    /** Uploads the geometry nodes and the map's coefficients (the map validated and translated here). */
    @Override
    public synchronized DeviceGeometry uploadGeometry(ElementGeometry geometry) {
        return setup.uploadGeometry(geometry);
    }

    /** Caps the element slots per launch of the error kernel (tests). */
    synchronized void errorSlotCap(int slots) {
        setup.errorSlotCap(slots);
    }

    synchronized void geometryGlobalGrids(boolean on) {
        setup.geometryGlobalGrids(on);
    }

    /** The launch plan of the geometry kernel for {@code geometry} at the basis's degree, e.g. for reports. */
    public synchronized String geometryPlan(DeviceGeometry geometry, Basis1D basis, Quadrature quadrature, int factorsPerPoint) {
        return setup.geometryPlan(geometry, basis, quadrature, factorsPerPoint);
    }

    /** The factors by the geometry kernel, [E][P][factorsPerPoint]; a non-positive |J| named as on the host. */
    @Override
    public synchronized DeviceVector geometricFactors(DeviceGeometry geometry, Basis1D basis, Quadrature quadrature,
                                                      int factorsPerPoint) {
        return setup.geometricFactors(geometry, basis, quadrature, factorsPerPoint);
    }

    /** {@code f} at the GLL nodes, one work-item per node, map and function inlined. */
    @Override
    public synchronized void evaluate(DeviceGeometry geometry, Basis1D basis, PointFunction f, DeviceVector out) {
        setup.evaluate(geometry, basis, f, out);
    }

    /** The errors by the error kernel; only two numbers per element are read back. */
    @Override
    public synchronized ErrorNorms errorNorms(DeviceGeometry geometry, Basis1D basis, DeviceVector uL, PointFunction exact) {
        return setup.errorNorms(geometry, basis, uL, exact);
    }

    // ------------------------------------------------------------------ user operators: UserOperators

    /** Validates and translates {@code function}, plans and builds its element kernel, and uploads I, D and the data. */
    @Override
    public synchronized DevicePointwiseData uploadPointwise(PointwiseFunction function, Basis1D basis, Quadrature quadrature,
                                                            int elements, double[] pointData) {
        return users.uploadPointwise(function, basis, quadrature, elements, pointData);
    }

    synchronized void pointwiseGlobalGrids(boolean on) {
        users.pointwiseGlobalGrids(on);
    }

    synchronized void pointwiseGeneral(boolean on) {
        users.pointwiseGeneral(on);
    }

    synchronized void pointwiseColumns(boolean on) {
        users.pointwiseColumns(on);
    }

    /** The launch plan of a user operator, e.g. "3D, 256 work-items x 1 elements per group, ...". */
    public synchronized String plan(DevicePointwiseData data) {
        return users.plan(data);
    }

    /** The OpenCL C of a user operator's element kernel as built here (mode 0: x_L, 1: x_G through Z). */
    public synchronized KernelSource pointwiseSource(DevicePointwiseData data, int mode) {
        return users.pointwiseSource(data, mode);
    }

    @Override
    public synchronized void applyPointwise(DevicePointwiseData data, DeviceVector xL, DeviceVector yL) {
        users.applyPointwise(data, xL, yL);
    }

    @Override
    public synchronized void applyPointwiseAssembled(DevicePointwiseData data, DeviceScatter z, DeviceVector xG,
                                                     DeviceVector yL, DeviceVector yG) {
        users.applyPointwiseAssembled(data, z, xG, yL, yG);
    }

    /** {@link #applyPointwiseAssembled} with x_G . y_G reduced in the gather over all components: two launches. */
    @Override
    public synchronized double applyPointwiseAssembledDot(DevicePointwiseData data, DeviceScatter z, DeviceVector xG,
                                                          DeviceVector yL, DeviceVector yG) {
        return users.applyPointwiseAssembledDot(data, z, xG, yL, yG);
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    public synchronized void close() {
        if (!core.isClosed()) {
            core.markClosed();
            builds.shutdown();
            cl.close();
        }
    }

    @Override
    public String toString() {
        return "AparapiBackend[" + info + "]";
    }
}
