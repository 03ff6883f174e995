package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.kernels.CgAlphaKernel;
import io.lobatto.backend.aparapi.kernels.CgBetaKernel;
import io.lobatto.backend.aparapi.kernels.CgStepKernel;
import io.lobatto.backend.aparapi.kernels.ElementOperands;
import io.lobatto.backend.aparapi.kernels.IndexedGatherKernel;
import io.lobatto.backend.aparapi.kernels.ReductionKernel;
import io.lobatto.backend.aparapi.kernels.RowDotKernel;
import io.lobatto.backend.aparapi.kernels.StreamKernel;
import io.lobatto.backend.aparapi.kernels.TermSumKernel;
import io.lobatto.backend.aparapi.runtime.ClBuffer;
import io.lobatto.backend.aparapi.runtime.ClContext;
import io.lobatto.backend.aparapi.runtime.ClKernel;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceIntVector;
import io.lobatto.core.backend.DeviceVector;

import static io.lobatto.backend.aparapi.BackendCore.sameLength;

/**
 * Memory and streaming of the {@link io.lobatto.core.backend.Backend} SPI on the Aparapi backend: allocate, upload,
 * read and write device vectors ({@link ClVector}); BS1-BS5 with {@link StreamKernel} (fill, copy, axpby, pointwise
 * multiply) and {@link ReductionKernel} (dot, norm², the fused CG and PCG updates, and the reciprocal of the setup).
 * Dot and norm² ({@link io.lobatto.backend.aparapi.kernels.DotKernel}) and the CG update
 * ({@link io.lobatto.backend.aparapi.kernels.CgUpdateKernel}) run in kernels of their own, with only the arguments they
 * read, whenever they leave no range of rows out of the sum; {@code -Dlobatto.aparapi.reductionKernels=general}
 * ({@link BackendCore#REDUCTION_KERNELS_PROPERTY}) runs them in {@link ReductionKernel} as before, with the same bits.
 * CG's whole vector step, BS5 with p = r + beta p folded in ({@link CgStepKernel}), runs in its own kernel always.
 *
 * <p>Reductions are deterministic: each work-group sums its share in a fixed tree and the host adds the partials in
 * group order; the grid depends only on the vector length and the device.
 */
final class Vectors {

    private final BackendCore core;
    /** The built streaming kernels by op code (no map lookup per launch). */
    private final ClKernel[] streamKernels = new ClKernel[4];

    Vectors(BackendCore core) {
        this.core = core;
    }

    private ClKernel stream(int op) {
        ClKernel k = streamKernels[op];
        if (k == null) {
            k = buildStream(op);
            streamKernels[op] = k;
        }
        return k;
    }

    private ClKernel buildStream(int op) {
        return core.kernel(KernelBuilds.stream(op));
    }

    /**
     * The reduction {@code op} built for work-groups of {@code group} (the backend's, or the small group's): in its own
     * kernel with {@code dedicated} ({@link KernelBuilds#reduction(int, int, boolean)}), else in {@link ReductionKernel}.
     */
    private ClKernel reduction(int op, int group, boolean dedicated) {
        int slot = dedicated && KernelBuilds.hasDedicatedKernel(op) ? ReductionKernel.OPS + op : op;
        if (group == core.reduceGroup) {
            ClKernel k = reductionKernels[slot];
            if (k == null) {
                k = core.kernel(KernelBuilds.reduction(op, group, dedicated));
                reductionKernels[slot] = k;
            }
            return k;
        }
        ClKernel k = smallReductionKernels[slot];
        if (k == null || smallGroupOf[slot] != group) {   // the group changes only in tests (core.smallReduceGroup)
            k = core.kernel(KernelBuilds.reduction(op, group, dedicated));
            smallReductionKernels[slot] = k;
            smallGroupOf[slot] = group;
        }
        return k;
    }

    /**
     * The built reductions by slot, in the backend's group and in the small group ({@link BackendCore#reductionGroup}),
     * and the small group of each: slot op for {@link ReductionKernel} op, {@link ReductionKernel#OPS} + op for the op's
     * dedicated kernel (no map lookup per launch).
     */
    private final ClKernel[] reductionKernels = new ClKernel[2 * ReductionKernel.OPS];
    private final ClKernel[] smallReductionKernels = new ClKernel[2 * ReductionKernel.OPS];
    private final int[] smallGroupOf = new int[2 * ReductionKernel.OPS];

    // ------------------------------------------------------------------ memory

    DeviceVector allocate(int length) {
        core.ensureOpen();
        if (length < 0) {
            throw new IllegalArgumentException("allocate: length " + length + " < 0");
        }
        return new ClVector(core.owner, core.cl, core.buffer(length, 8, "a vector of " + length + " doubles"), length);
    }

    DeviceVector upload(double[] values) {
        core.ensureOpen();
        return new ClVector(core.owner, core.cl, core.cl.upload(values, "a vector of " + values.length + " doubles"), values.length);
    }

    DeviceIntVector upload(int[] values) {
        core.ensureOpen();
        ClVector v = new ClVector(core.owner, core.cl, core.cl.upload(values, "an index vector of " + values.length + " ints"), values.length);
        int min = Integer.MAX_VALUE, max = Integer.MIN_VALUE;
        for (int i : values) {
            min = Math.min(min, i);
            max = Math.max(max, i);
        }
        v.minIndex = values.length == 0 ? 0 : min;
        v.maxIndex = values.length == 0 ? -1 : max;
        boolean consecutive = true;
        for (int i = 1; i < values.length && consecutive; i++) {
            consecutive = values[i] == values[i - 1] + 1;
        }
        v.contiguous = values.length > 0 && consecutive;
        return v;
    }

    /**
     * A non-blocking read into the vector's pinned staging buffer on the context's copy queue, behind a marker of the
     * kernel queue ({@link ClContext#readAsync}); {@code await} waits for that copy only (the kernels queued after this
     * call run during it) and copies the staging into {@code values}. {@code lock} is the backend's lock.
     */
    Backend.PendingRead readAsync(DeviceVector source, double[] values, Object lock) {
        ClVector s = core.vec(source, "source");
        if (values.length != s.length()) {
            throw new IllegalArgumentException("readAsync: values has length " + values.length + " but source has length "
                    + s.length());
        }
        if (s.pendingRead != null) {
            s.pendingRead.await();
        }
        if (s.readStage == null) {
            s.readStage = core.cl.pinnedHostBuffer(Math.max(8, 8L * s.length()), "the host staging of a vector's reads");
        }
        ClContext.Transfer t = core.cl.readAsync(s.buffer, s.readStage, s.length());
        s.pendingRead = t;
        java.nio.ByteBuffer stage = s.readStage;
        return new Backend.PendingRead() {
            private boolean done;

            @Override
            public void await() {
                synchronized (lock) {
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
    void writeAsync(double[] values, DeviceVector target) {
        ClVector t = core.vec(target, "target");
        if (values.length != t.length()) {
            throw new IllegalArgumentException("writeAsync: values has length " + values.length + " but target has length "
                    + t.length());
        }
        if (t.pendingWrite != null) {
            t.pendingWrite.await();
            t.pendingWrite = null;
        }
        if (t.writeStage == null) {
            t.writeStage = core.cl.pinnedHostBuffer(Math.max(8, 8L * t.length()), "the host staging of a vector's writes");
        }
        t.writeStage.asDoubleBuffer().put(0, values, 0, values.length);
        t.pendingWrite = core.cl.writeAsync(t.writeStage, t.length(), t.buffer);
    }

    void write(double[] values, DeviceVector target) {
        ClVector t = core.vec(target, "target");
        if (values.length != t.length()) {
            throw new IllegalArgumentException("write: values has length " + values.length + " but target has length " + t.length());
        }
        core.cl.write(values, 0, values.length, t.buffer, 0);
    }

    void read(DeviceVector source, double[] values) {
        ClVector s = core.vec(source, "source");
        if (values.length != s.length()) {
            throw new IllegalArgumentException("read: values has length " + values.length + " but source has length " + s.length());
        }
        core.cl.read(s.buffer, 0, values, 0, values.length);
    }

    /** A new host array holding {@code source} (as {@link io.lobatto.core.backend.Backend#download} does). */
    double[] download(DeviceVector source) {
        double[] values = new double[source.length()];
        read(source, values);
        return values;
    }

    void synchronize() {
        core.ensureOpen();
        core.cl.finish();
    }

    // ------------------------------------------------------------------ streaming

    void fill(DeviceVector y, double value) {
        ClVector yv = core.vec(y, "y");
        runStream(StreamKernel.FILL, core.unused, core.unused, yv, value, 0);
    }

    void copy(DeviceVector x, DeviceVector y) {
        ClVector xv = core.vec(x, "x");
        ClVector yv = core.vec(y, "y");
        sameLength("copy", x, "x", y, "y");
        runStream(StreamKernel.COPY, xv.buffer, core.unused, yv, 0, 0);
    }

    void axpby(double a, DeviceVector x, double b, DeviceVector y) {
        ClVector xv = core.vec(x, "x");
        ClVector yv = core.vec(y, "y");
        sameLength("axpby", x, "x", y, "y");
        runStream(StreamKernel.AXPBY, xv.buffer, core.unused, yv, a, b);
    }

    void pointwiseMultiply(DeviceVector a, DeviceVector x, DeviceVector y) {
        ClVector av = core.vec(a, "a");
        ClVector xv = core.vec(x, "x");
        ClVector yv = core.vec(y, "y");
        sameLength("pointwiseMultiply", a, "a", x, "x");
        sameLength("pointwiseMultiply", x, "x", y, "y");
        runStream(StreamKernel.PMUL, xv.buffer, av.buffer, yv, 0, 0);
    }

    private ClKernel indexedGatherKernel;

    /** y_i = x[idx_i] ({@link IndexedGatherKernel}), one work-item per entry of y; the range of idx known from its upload. */
    void indexedGather(DeviceVector x, DeviceIntVector idx, DeviceVector y) {
        ClVector xv = core.vec(x, "x");
        ClVector yv = core.vec(y, "y");
        ClVector iv = core.vec(idx, "idx");
        Backend.checkIndexedGather(x, idx, y, iv.minIndex, iv.maxIndex);
        if (yv.length() == 0) {
            return;
        }
        ClKernel k = indexedGatherKernel;
        if (k == null) {
            k = core.kernel(KernelBuilds.indexedGather());
            indexedGatherKernel = k;
        }
        k.set("idx", iv.buffer).set("x", xv.buffer).set("y", yv.buffer).set("n", yv.length());
        core.launchPerEntry(k, yv.length());
    }

    /** One launch of {@link StreamKernel} {@code op} over {@code y} (nothing for an empty y). */
    void runStream(int op, ClBuffer x, ClBuffer w, ClVector y, double a, double b) {
        if (y.length() == 0) {
            return;
        }
        ClKernel k = stream(op);
        k.set("x", x).set("w", w).set("y", y.buffer).set("a", a).set("b", b).set("n", y.length());
        core.launchPerEntry(k, y.length());
    }

    /** CG's p = z + beta p and p . y over the first n entries ({@link ReductionKernel#UPDATE_DOT}). */
    double updateDot(ClBuffer p, ClBuffer z, double beta, ClBuffer y, int n) {
        ClBuffer u = core.unused;
        return reduce(ReductionKernel.UPDATE_DOT, p, y, u, u, u, z, beta, n, null);
    }

    /** x . y over the first n entries of two buffers. */
    double dot(ClBuffer x, ClBuffer y, int n) {
        ClBuffer u = core.unused;
        return reduce(ReductionKernel.DOT, y, u, x, u, u, u, 0, n, null);
    }

    double dot(DeviceVector x, DeviceVector y) {
        ClVector xv = core.vec(x, "x");
        ClVector yv = core.vec(y, "y");
        sameLength("dot", x, "x", y, "y");
        ClBuffer u = core.unused;
        return reduce(ReductionKernel.DOT, yv.buffer, u, xv.buffer, u, u, u, 0, xv.length(), null);
    }

    double norm2(DeviceVector x) {
        ClVector xv = core.vec(x, "x");
        ClBuffer u = core.unused;
        return reduce(ReductionKernel.DOT, xv.buffer, u, xv.buffer, u, u, u, 0, xv.length(), null);
    }

    double cgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r) {
        ClVector pv = core.vec(p, "p");
        ClVector apv = core.vec(ap, "ap");
        ClVector xv = core.vec(x, "x");
        ClVector rv = core.vec(r, "r");
        sameLength("cgUpdate", p, "p", ap, "ap");
        sameLength("cgUpdate", p, "p", x, "x");
        sameLength("cgUpdate", p, "p", r, "r");
        return reduce(ReductionKernel.CG_UPDATE, pv.buffer, apv.buffer, xv.buffer, rv.buffer, core.unused, core.unused, alpha,
                pv.length(), null);
    }

    /**
     * CG's whole vector step, BS5 with p = r + beta p folded in ({@link CgStepKernel}): p = r + beta p; x += alpha p;
     * r -= alpha Ap; returns r . r, each work-group's tree summed on the host in group order. p, ap, x and r must be
     * distinct and of one length; n = 0 launches nothing and returns 0.
     */
    double cgStep(double alpha, double beta, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r) {
        ClVector pv = core.vec(p, "p");
        ClVector apv = core.vec(ap, "ap");
        ClVector xv = core.vec(x, "x");
        ClVector rv = core.vec(r, "r");
        io.lobatto.core.backend.Backend.checkCgStep(p, ap, x, r);
        int n = pv.length();
        if (n == 0) {
            return 0;
        }
        int group = core.reductionGroup(n);
        int groups = BackendCore.reductionGroups(n, group);
        ClKernel k = cgStepKernel(group);
        k.set("p", pv.buffer).set("ap", apv.buffer).set("x", xv.buffer).set("r", rv.buffer).set("partials", core.partials)
                .set("alpha", alpha).set("beta", beta).set("n", n).set("scalars", core.unused).set("pending", 0.0);
        k.local("lds", KernelBuilds.cgStepLocalBytes(group));
        k.launch(groups, group);
        core.readPartials(groups);
        double s = 0;
        for (int g = 0; g < groups; g++) {
            s += core.partial(g);
        }
        return s;
    }

    /** The built {@link CgStepKernel} for groups of {@code group}: the backend's, or the small group's (cached). */
    private ClKernel cgStepKernel(int group) {
        if (group == core.reduceGroup) {
            if (builtCgStep == null) {
                builtCgStep = core.kernel(KernelBuilds.cgStep(group));
            }
            return builtCgStep;
        }
        if (builtSmallCgStep == null || smallCgStepGroup != group) {   // the group changes only in tests (core.smallReduceGroup)
            builtSmallCgStep = core.kernel(KernelBuilds.cgStep(group));
            smallCgStepGroup = group;
        }
        return builtSmallCgStep;
    }

    /**
     * The end of CG's iteration on the device, after an element kernel that left {@code count} partials of p . A p in
     * {@code terms} ({@link io.lobatto.backend.aparapi.kernels.ElementOperands#ATOMIC_DOT}): {@link CgAlphaKernel} (one
     * group) sums them and sets alpha = rz / p . A p on the device, then {@link CgStepKernel} with {@code onDevice}
     * writes p = r + beta p, x += pending p_old + alpha p (the first term where {@code pending} is not 0; the second
     * unless {@code deferX}), r -= alpha Ap and Ap = 0, and one read-back gives out[0] = p . A p and out[1] = r . r. The
     * caller checked the vectors (distinct, of one length n &gt; 0).
     */
    void cgStepOnDevice(ClBuffer terms, int count, double rz, double beta, double pending, boolean deferX, ClVector p,
                        ClVector ap, ClVector x, ClVector r, double[] out) {
        int n = p.length();
        io.lobatto.core.backend.Backend.checkCgIteration("cgStepOnDevice", pending, deferX, out);
        alphaOnDevice(terms, count, rz);
        int group = core.reductionGroup(n);
        int groups = BackendCore.reductionGroups(n, group);
        int xMode = deferX ? 1 : pending != 0 ? 2 : 0;
        ClKernel k = onDevice(KernelBuilds.cgStepOnDevice(group, xMode));
        k.set("p", p.buffer).set("ap", ap.buffer).set("x", x.buffer).set("r", r.buffer).set("partials", core.partials)
                .set("alpha", 0.0).set("beta", beta).set("n", n).set("scalars", cgScalars).set("pending", pending);
        k.local("lds", KernelBuilds.cgStepLocalBytes(group));
        k.launch(groups, group);
        core.readPartials(groups + 1);
        double s = 0;
        for (int g = 0; g < groups; g++) {
            s += core.partial(g);
        }
        out[0] = core.partial(groups);
        out[1] = s;
    }

    /**
     * {@link CgAlphaKernel} (one group): the sum of {@code count} partials in {@code terms} into {@link #cgScalars}[0],
     * and alpha = rz / that sum (0 where it is not positive and below 1e308) into [1].
     */
    private void alphaOnDevice(ClBuffer terms, int count, double rz) {
        alphaOnDevice(KernelBuilds.cgAlpha(core.reduceGroup), terms, count, rz);
    }

    /**
     * {@code spec}'s {@link CgAlphaKernel} over {@code count} partials in {@code terms}; where they are more than
     * {@link #ONE_STAGE_TERMS} groups' worth and {@link #ALPHA_STAGES_PROPERTY} allows, {@link TermSumKernel} first sums
     * them into at most {@link AparapiBackend#REDUCE_GROUPS} partials (of the backend's reductions), which the one group
     * then sums. Both orders are fixed, so the sum is deterministic either way.
     */
    private void alphaOnDevice(KernelBuilds.Spec spec, ClBuffer terms, int count, double rz) {
        int group = core.reduceGroup;
        long lds = KernelBuilds.cgStepLocalBytes(group);
        ClBuffer in = terms;
        int n = count;
        if (twoStages(count)) {
            int groups = BackendCore.reductionGroups(count, group);
            ClKernel t = onDevice(KernelBuilds.termSum(group));
            t.set("terms", terms).set("partials", core.partials).set("n", count).local("lds", lds);
            t.launch(groups, group);
            in = core.partials;
            n = groups;
        }
        ClKernel a = onDevice(spec);
        a.set("terms", in).set("scalars", cgScalars()).set("partials", core.partials).set("rz", rz).set("n", n)
                .local("lds", lds);
        a.launch(1, group);
    }

    /**
     * System property {@code lobatto.aparapi.alphaStages}: {@code auto} (the default), CG's step length on the device
     * sums more than {@link #ONE_STAGE_TERMS} groups' worth of partials in two stages; {@code 1}, always in one group (the
     * path before). An A/B switch for the runbooks.
     */
    static final String ALPHA_STAGES_PROPERTY = "lobatto.aparapi.alphaStages";
    /** Partials per work-item of the one group up to which {@link CgAlphaKernel} sums alone. */
    static final int ONE_STAGE_TERMS = 16;

    /** Whether {@code count} partials get {@link TermSumKernel} first. */
    private boolean twoStages(int count) {
        String v = System.getProperty(ALPHA_STAGES_PROPERTY, "auto").trim();
        return switch (v) {
            case "auto" -> count > ONE_STAGE_TERMS * core.reduceGroup;
            case "1" -> false;
            default -> throw new IllegalArgumentException("-D" + ALPHA_STAGES_PROPERTY + "=" + v + ": expected auto or 1");
        };
    }

    /** The sum of {@code count} partials in {@code terms} on the device ({@link #alphaOnDevice}), read back. */
    double sumOnDevice(ClBuffer terms, int count) {
        alphaOnDevice(terms, count, 0);
        double[] sum = new double[1];
        core.cl.read(cgScalars, 0, sum, 0, 1);
        return sum[0];
    }

    // ------------------------------------------------------------ CG's iterations queued on the device

    /** The read-back slots of queued CG iterations: iteration k uses slot k mod QUEUE_SLOTS. */
    static final int QUEUE_SLOTS = 4;

    /** CG's scalars on the device ({@link ElementOperands#CG_SCALARS} doubles), allocated at first use. */
    ClBuffer cgScalars() {
        if (cgScalars == null) {
            cgScalars = core.buffer(ElementOperands.CG_SCALARS, 8, "CG's scalars");
        }
        return cgScalars;
    }

    /**
     * Starts a sequence of queued CG iterations: drops the read-backs of any earlier sequence (waiting for them) and
     * writes beta, the pending alpha and rz = r . r to the device (one blocking write). {@code pending} not 0 makes the
     * first step add pending p_old to x.
     */
    void startQueuedCg(double beta, double rz, double pending) {
        for (int s = 0; s < QUEUE_SLOTS; s++) {
            if (cgTransfers[s] != null) {
                cgTransfers[s].await();
                cgTransfers[s] = null;
            }
        }
        double[] v = new double[ElementOperands.CG_SCALARS];
        v[ElementOperands.CG_BETA] = beta;
        v[ElementOperands.CG_PENDING] = pending;
        v[ElementOperands.CG_RR] = rz;
        core.cl.write(v, 0, v.length, cgScalars(), 0);
        cgXPending = pending != 0;
        cgSequenceOpen = true;
    }

    /**
     * The end of queued CG iteration {@code k}, after the element kernel ({@link ElementOperands#ATOMIC_DOT_DEVICE}) left
     * {@code count} partials of p . A p in {@code terms}: {@link CgAlphaKernel} (alpha from r . r on the device),
     * {@link CgStepKernel} with {@code onDevice} 2 (p = r + beta p, x as {@code deferX} and the step before say, r -= alpha
     * Ap, Ap = 0, partials of r . r), {@link CgBetaKernel} (r . r, beta, pending, and the slot of this iteration), then a
     * read of the slot queued without waiting ({@link #awaitQueuedCg}).
     *
     * @throws IllegalStateException    where no sequence was started, or the slot of {@code k} still holds an iteration
     *                                  not awaited ({@link #QUEUE_SLOTS} at most in flight)
     * @throws IllegalArgumentException where {@code deferX} follows a step that deferred x
     */
    void queueCgEnd(ClBuffer terms, int count, int k, boolean deferX, ClVector p, ClVector ap, ClVector x, ClVector r) {
        checkQueueCg(k, false, deferX, 0);
        int slot = Math.floorMod(k, QUEUE_SLOTS);
        if (cgHistory == null) {
            cgHistory = new ClBuffer[QUEUE_SLOTS];
            for (int s = 0; s < QUEUE_SLOTS; s++) {
                cgHistory[s] = core.buffer(3, 8, "CG's read-back slot " + s);
            }
            cgHistoryHost = core.cl.pinnedHostBuffer(32L * QUEUE_SLOTS, "CG's read-back slots");
        }
        int n = p.length();
        int reduce = core.reduceGroup;
        long lds = KernelBuilds.cgStepLocalBytes(reduce);
        alphaOnDevice(KernelBuilds.cgAlphaQueued(reduce), terms, count, 0);
        int group = core.reductionGroup(n);
        int groups = BackendCore.reductionGroups(n, group);
        ClKernel k2 = onDevice(KernelBuilds.cgStepQueued(group, deferX ? 1 : cgXPending ? 2 : 0));
        k2.set("p", p.buffer).set("ap", ap.buffer).set("x", x.buffer).set("r", r.buffer).set("partials", core.partials)
                .set("alpha", 0.0).set("beta", 0.0).set("n", n).set("scalars", cgScalars).set("pending", 0.0);
        k2.local("lds", KernelBuilds.cgStepLocalBytes(group));
        k2.launch(groups, group);
        ClKernel b = onDevice(KernelBuilds.cgBeta(reduce));
        b.set("terms", core.partials).set("scalars", cgScalars).set("history", cgHistory[slot]).set("partials", core.partials)
                .set("n", groups).local("lds", lds);
        b.launch(1, reduce);
        java.nio.ByteBuffer dst = cgHistoryHost.duplicate().position(32 * slot).limit(32 * slot + 24).slice();
        cgTransfers[slot] = core.cl.readAsync(cgHistory[slot], dst, 3);
        cgSlotIteration[slot] = k;
        cgXPending = deferX;
    }

    /**
     * The checks of queued CG iteration {@code k}, made before anything is launched: a sequence started (or
     * {@code first}), k's read-back slot free, no deferral right after a deferral (nor with {@code pending}).
     */
    void checkQueueCg(int k, boolean first, boolean deferX, double pending) {
        if (first) {
            if (deferX && pending != 0) {
                throw new IllegalArgumentException("queueCgIteration: a step with x pending (alpha " + pending
                        + ") cannot defer its own");
            }
            return;                          // startQueuedCg frees the slots
        }
        if (!cgSequenceOpen) {
            throw new IllegalStateException("queueCgIteration: iteration " + k + " queued before a first one (first = true)");
        }
        int slot = Math.floorMod(k, QUEUE_SLOTS);
        if (cgTransfers[slot] != null && cgSlotIteration[slot] != k) {
            throw new IllegalStateException("queueCgIteration: iteration " + k + " needs the read-back slot of iteration "
                    + cgSlotIteration[slot] + ", not awaited yet (at most " + QUEUE_SLOTS + " iterations in flight)");
        }
        if (cgTransfers[slot] != null) {
            throw new IllegalStateException("queueCgIteration: iteration " + k + " is in flight already");
        }
        if (deferX && cgXPending) {
            throw new IllegalArgumentException("queueCgIteration: iteration " + k + " cannot defer x: the step before "
                    + "deferred its own");
        }
    }

    /**
     * Waits for queued iteration {@code k}'s read-back (the work queued after it keeps running): out[0] = p . A p,
     * out[1] = r . r after the step, out[2] = its alpha.
     *
     * @throws IllegalStateException where {@code k} is not in flight (never queued, or awaited already)
     */
    void awaitQueuedCg(int k, double[] out) {
        int slot = Math.floorMod(k, QUEUE_SLOTS);
        if (cgTransfers[slot] == null || cgSlotIteration[slot] != k) {
            throw new IllegalStateException("awaitCgIteration: iteration " + k + " is not in flight"
                    + (cgTransfers[slot] != null ? " (its slot holds iteration " + cgSlotIteration[slot] + ")" : ""));
        }
        if (out == null || out.length < 3) {
            throw new IllegalArgumentException("awaitCgIteration: out must have length >= 3, got "
                    + (out == null ? "null" : out.length));
        }
        try {
            cgTransfers[slot].await();
        } finally {
            cgTransfers[slot] = null;   // a failed wait frees the slot too: no later call reads it
        }
        out[0] = cgHistoryHost.getDouble(32 * slot);
        out[1] = cgHistoryHost.getDouble(32 * slot + 8);
        out[2] = cgHistoryHost.getDouble(32 * slot + 16);
    }

    private ClBuffer[] cgHistory;
    private java.nio.ByteBuffer cgHistoryHost;
    private final ClContext.Transfer[] cgTransfers = new ClContext.Transfer[QUEUE_SLOTS];
    private final int[] cgSlotIteration = new int[QUEUE_SLOTS];
    /** Whether the last queued step deferred x (the next one adds the pending alpha's term). */
    private boolean cgXPending;
    /** Whether {@link #startQueuedCg} set the scalars. */
    private boolean cgSequenceOpen;

    /** The kernels of {@link #cgStepOnDevice} by spec (two groups at most: the backend's and the small one). */
    private ClKernel onDevice(KernelBuilds.Spec spec) {
        return onDeviceKernels.computeIfAbsent(spec, core::kernel);
    }

    private final java.util.Map<KernelBuilds.Spec, ClKernel> onDeviceKernels = new java.util.HashMap<>();
    /** p . A p and alpha of {@link #cgStepOnDevice} (allocated at first use). */
    private ClBuffer cgScalars;

    /** {@link #cgStepKernel}'s kernels: in the backend's group, in the small group, and the small group it was built for. */
    private ClKernel builtCgStep;
    private ClKernel builtSmallCgStep;
    private int smallCgStepGroup;

    /**
     * One pass of BS5 with Jacobi fused in: x += alpha p; r -= alpha Ap; z = inverseDiagonal o r; two
     * tree reductions per work-group (r . r and r . z), summed on the host in group order.
     */
    void pcgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r,
                   DeviceVector inverseDiagonal, DeviceVector z, double[] dots) {
        pcgUpdate(alpha, p, ap, x, r, inverseDiagonal, z, (ClVector) null, dots);
    }

    /** {@link #pcgUpdate} less the rows {@code excluded}: one more launch over them, the same single read-back. */
    void pcgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r,
                   DeviceVector inverseDiagonal, DeviceVector z, DeviceIntVector excluded, double[] dots) {
        pcgUpdate(alpha, p, ap, x, r, inverseDiagonal, z, rows(excluded, r.length()), dots);
    }

    private void pcgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r,
                           DeviceVector inverseDiagonal, DeviceVector z, ClVector excluded, double[] dots) {
        ClVector pv = core.vec(p, "p");
        ClVector apv = core.vec(ap, "ap");
        ClVector xv = core.vec(x, "x");
        ClVector rv = core.vec(r, "r");
        ClVector dv = core.vec(inverseDiagonal, "inverseDiagonal");
        ClVector zv = core.vec(z, "z");
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

    /** y = 1 / x and the count of entries not positive and finite, in one reduction ({@link ReductionKernel#RECIPROCAL}). */
    long reciprocal(DeviceVector x, DeviceVector y) {
        ClVector xv = core.vec(x, "x");
        ClVector yv = core.vec(y, "y");
        sameLength("reciprocal", x, "x", y, "y");
        ClBuffer u = core.unused;
        double bad = reduce(ReductionKernel.RECIPROCAL, u, u, xv.buffer, u, u, yv.buffer, 0, xv.length(), null);
        return Math.round(bad);
    }

    /** Launches a reduction and sums its partials (two per group into {@code dots} for the PCG update). */
    private double reduce(int op, ClBuffer p, ClBuffer ap, ClBuffer x, ClBuffer r, ClBuffer d, ClBuffer z, double alpha,
                          int n, double[] dots) {
        return reduce(op, p, ap, x, r, d, z, alpha, n, dots, null, null, null);
    }

    /**
     * {@link #reduce} less the rows {@code excluded} (null: none). Rows that are one ascending range [lo, hi) are left
     * out of the reduction's own sums (one launch, as without rows). Otherwise, after the reduction, {@link RowDotKernel} sums
     * cx_e cy_e (one sum; for the PCG update cx_e cx_e and cx_e cy_e) over the excluded rows into the partials after the
     * reduction's, both are read back at once and the correction is subtracted, each summed in group order.
     */
    private double reduce(int op, ClBuffer p, ClBuffer ap, ClBuffer x, ClBuffer r, ClBuffer d, ClBuffer z, double alpha,
                          int n, double[] dots, ClVector excluded, ClBuffer cx, ClBuffer cy) {
        int width = dots == null ? 1 : 2;
        int reduceGroup = core.reduceGroup;
        int group = core.reductionGroup(n);
        int groups = n == 0 ? 0 : BackendCore.reductionGroups(n, group);
        // excluded rows that form one range are left out in the reduction's own pass (no second launch)
        boolean range = excluded != null && excluded.contiguous;
        int skipLo = range ? excluded.minIndex : 0;
        int skipHi = range ? excluded.maxIndex + 1 : 0;
        // dot and the CG update in kernels of their own, unless a range of rows is left out (the general kernel skips it)
        boolean dedicated = core.dedicatedReductions() && skipLo == skipHi && KernelBuilds.hasDedicatedKernel(op);
        if (n > 0) {
            ClKernel k = reduction(op, group, dedicated);
            if (!dedicated) {
                k.set("p", p).set("ap", ap).set("x", x).set("r", r).set("d", d).set("z", z).set("partials", core.partials)
                        .set("alpha", alpha).set("n", n).bindIfUsed("skipLo", skipLo).bindIfUsed("skipHi", skipHi);
            } else if (op == ReductionKernel.DOT) {       // x . p of the general kernel: y is its p
                k.set("x", x).set("y", p).set("partials", core.partials).set("n", n);
            } else {
                k.set("p", p).set("ap", ap).set("x", x).set("r", r).set("partials", core.partials).set("alpha", alpha)
                        .set("n", n);
            }
            k.local("lds", KernelBuilds.reductionLocalBytes(op, group, dedicated));
            k.launch(groups, group);
        }
        int m = excluded == null || range ? 0 : excluded.length();
        int rowGroups = m == 0 ? 0 : core.reductionGroups(m);
        if (rowGroups > 0) {
            ClKernel k = rowDotKernels[width];
            if (k == null) {
                k = core.kernel(KernelBuilds.rowDot(width, reduceGroup));
                rowDotKernels[width] = k;
            }
            k.set("rows", excluded.buffer).set("x", cx).set("y", cy).set("partials", core.partials).set("n", m)
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
        core.readPartials(width * (groups + rowGroups));
        double[] sums = this.sums;
        double[] less = this.less;
        sums[0] = 0;
        sums[1] = 0;
        less[0] = 0;
        less[1] = 0;
        for (int g = 0; g < groups; g++) {
            for (int c = 0; c < width; c++) {
                sums[c] += core.partial(width * g + c);
            }
        }
        for (int g = groups; g < groups + rowGroups; g++) {
            for (int c = 0; c < width; c++) {
                less[c] += core.partial(width * g + c);
            }
        }
        if (dots != null) {
            dots[0] = sums[0] - less[0];
            dots[1] = sums[1] - less[1];
        }
        return sums[0] - less[0];
    }

    private final ClKernel[] rowDotKernels = new ClKernel[3];
    /** The sums of {@link #reduce}, kept (no allocation per call; every call runs under the backend's lock). */
    private final double[] sums = new double[2];
    private final double[] less = new double[2];

    /** The index vector of excluded rows, checked to belong to this backend and to index rows [0, n). */
    private ClVector rows(DeviceIntVector excluded, int n) {
        core.ensureOpen();
        java.util.Objects.requireNonNull(excluded, "excluded");
        if (!(excluded instanceof ClVector a) || a.backend() != core.owner) {
            throw new IllegalArgumentException("excluded is not an index vector of this aparapi backend: " + excluded);
        }
        if (a.isClosed()) {
            throw new IllegalStateException("excluded is closed");
        }
        if (a.length() > 0 && (a.minIndex < 0 || a.maxIndex >= n)) {
            throw new IllegalArgumentException("excluded rows lie in [" + a.minIndex + ", " + a.maxIndex + "], not in [0, " + n + ")");
        }
        return a;
    }

    /** x . y less the rows {@code excluded}. */
    double dot(DeviceVector x, DeviceVector y, DeviceIntVector excluded) {
        ClVector xv = core.vec(x, "x");
        ClVector yv = core.vec(y, "y");
        sameLength("dot", x, "x", y, "y");
        ClVector ex = rows(excluded, xv.length());
        ClBuffer u = core.unused;
        return reduce(ReductionKernel.DOT, yv.buffer, u, xv.buffer, u, u, u, 0, xv.length(), null, ex, xv.buffer, yv.buffer);
    }

    /** BS5 less the rows {@code excluded} in r . r. */
    double cgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r, DeviceIntVector excluded) {
        ClVector pv = core.vec(p, "p");
        ClVector apv = core.vec(ap, "ap");
        ClVector xv = core.vec(x, "x");
        ClVector rv = core.vec(r, "r");
        ClVector ex = rows(excluded, rv.length());
        sameLength("cgUpdate", p, "p", ap, "ap");
        sameLength("cgUpdate", p, "p", x, "x");
        sameLength("cgUpdate", p, "p", r, "r");
        ClBuffer u = core.unused;
        return reduce(ReductionKernel.CG_UPDATE, pv.buffer, apv.buffer, xv.buffer, rv.buffer, u, u, alpha, pv.length(), null,
                ex, rv.buffer, rv.buffer);
    }
}
