package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.kernels.GatherScatterKernel;
import io.lobatto.backend.aparapi.kernels.ReductionKernel;
import io.lobatto.backend.aparapi.kernels.StreamKernel;
import io.lobatto.backend.aparapi.kernels.TransferKernel;
import io.lobatto.backend.aparapi.runtime.KernelSource;
import io.lobatto.backend.aparapi.runtime.ProgramCache;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.mesh.ElementGeometry;
import io.lobatto.core.mesh.PointMap;
import io.lobatto.core.pointwise.PointFunction;
import io.lobatto.core.pointwise.Quadrature;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToIntFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

import static io.lobatto.backend.aparapi.AparapiBackend.BUILD_THREADS;
import static io.lobatto.backend.aparapi.AparapiBackend.MAX_DEGREE;

/**
 * {@link io.lobatto.core.backend.Backend#prepare} on the Aparapi backend: the kernels a solve will launch (streaming,
 * reductions, gather/scatter, the factor split, the element kernels and the fused operator, the geometry, diagonal,
 * transfer, Chebyshev, evaluate and error kernels), planned as their operations plan them and built ahead of use on a
 * pool of {@link AparapiBackend#BUILD_THREADS} threads through the {@link ProgramCache}. It launches nothing.
 */
final class BuildsAhead {

    private static final Logger LOG = Logger.getLogger("io.lobatto.backend.aparapi");

    private final BackendCore core;
    private final ElementOperators elements;
    private final SetupKernels setup;
    /** The pool of {@link #prepare}, started at its first call. */
    private ExecutorService builder;
    private final List<Future<?>> prepared = new ArrayList<>();

    BuildsAhead(BackendCore core, ElementOperators elements, SetupKernels setup) {
        this.core = core;
        this.elements = elements;
        this.setup = setup;
    }

    /** Submits the builds (see {@link AparapiBackend#prepare}) and returns. */
    void prepare(ElementKernel kernel, int[] degrees, ElementGeometry geometry, PointFunction... functions) {
        core.ensureOpen();
        Objects.requireNonNull(kernel, "kernel");
        Objects.requireNonNull(degrees, "degrees");
        // quick-first builds for a small problem (ProgramCache.QUICK_FIRST_PROPERTY), chosen before any build is submitted
        long points = Long.MAX_VALUE;
        if (geometry != null) {
            int top = 0;
            for (int d : degrees) {
                top = Math.max(top, Math.min(d, MAX_DEGREE));
            }
            points = geometry.elementCount() * (long) (top + 1) * (top + 1) * (top + 1);
        }
        core.cl.programs().quickFirstFor(points);
        if (GatherScatter.kind() != GatherScatter.TILES) {
            // Z's build first, before the plans below translate the setup kernels and wait for the block gathers' probe
            ProgramCache programs = core.cl.programs();
            if (io.lobatto.core.mesh.ElementNumbering.onDevice()) {
                submit(() -> programs.build(ScatterBuild.numberingSpec().source()));   // the map Z is built from
            }
            submit(() -> programs.build(ScatterBuild.spec().source()));
        }
        for (Runnable task : preparations(kernel, degrees, geometry, functions == null ? new PointFunction[0] : functions)) {
            submit(task);
        }
    }

    /**
     * Submits the builds of the Schwarz smoother's kernels on blocks of {@code points}^3 (the fused local solve and the
     * gather folded into the Chebyshev step) when a level uploads its fast diagonalisation, so that they build during the
     * rest of the setup (eigenvalue bounds, coarser levels) and not in the first V-cycle.
     */
    void prepareSchwarz(int points) {
        core.ensureOpen();
        ProgramCache programs = core.cl.programs();
        KernelBuilds.Spec local = KernelBuilds.schwarzLocal(points, core.localMemBytes, Schwarz.SCHWARZ_LINES);
        submit(() -> programs.build(local.source()));
        int kind = GatherScatter.kind();
        KernelBuilds.Spec chebyshev = kind == GatherScatter.BLOCKS
                ? KernelBuilds.gather(GatherScatterKernel.GATHER_CHEBYSHEV, core.gatherGroup())
                : KernelBuilds.gatherRowsFused(GatherScatterKernel.GATHER_CHEBYSHEV, 1, kind == GatherScatter.TILES);
        submit(() -> programs.build(chebyshev.source()));
    }

    /**
     * Submits the build of the six passes of p-multigrid's transfer between {@code coarseDegree} and {@code fineDegree}
     * (one bundle, as {@link #prepare} plans a level pair) when a transfer is uploaded: a pair that {@link #prepare} did
     * not see (the 1 -> 2 transfer of h-coarsening below N = 1) then builds during the rest of the setup, not in the first
     * V-cycle; a pair already built or being built is not built again.
     */
    void prepareTransfer(int coarseDegree, int fineDegree) {
        core.ensureOpen();
        ProgramCache programs = core.cl.programs();
        if (KernelBuilds.transferAny(programs)) {
            submit(() -> programs.build(KernelBuilds.transferAny().source()));
            return;
        }
        List<KernelBuilds.Spec> passes = new ArrayList<>();
        for (int op : new int[] {TransferKernel.PROLONG_I, TransferKernel.PROLONG_J, TransferKernel.PROLONG_K,
            TransferKernel.RESTRICT_K, TransferKernel.RESTRICT_J, TransferKernel.RESTRICT_I}) {
            passes.add(KernelBuilds.transfer(op, coarseDegree, fineDegree));
        }
        core.planBundle(passes);
        submit(() -> programs.buildAll(passes.stream().map(KernelBuilds.Spec::source).toList()));
    }

    /** Runs {@code task} on the build pool (started at the first call); a failure is logged, its operation throws. */
    private void submit(Runnable task) {
        if (builder == null) {
            AtomicInteger n = new AtomicInteger();
            builder = Executors.newFixedThreadPool(BUILD_THREADS, r -> {
                Thread t = new Thread(r, "lobatto-kernel-build-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }
        prepared.add(builder.submit(() -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "aparapi: a build ahead of use failed (its operation will throw)", e);
            }
        }));
    }

    /** The builds submitted so far (the caller holds the backend's lock while it copies them). */
    List<Future<?>> pending() {
        return new ArrayList<>(prepared);
    }

    /** Waits until every one of {@code pending} has finished (without the backend's lock). */
    static void await(List<Future<?>> pending) {
        for (Future<?> f : pending) {
            try {
                f.get();
            } catch (ExecutionException | CancellationException e) {
                // logged by the task; its operation throws
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Drops the builds not started and waits for those running (before the context goes). */
    void shutdown() {
        if (builder != null) {
            // the builds not started are dropped; those running finish before the context goes
            builder.shutdownNow();
            boolean interrupted = false;
            while (true) {
                try {
                    if (builder.awaitTermination(10, TimeUnit.MINUTES)) {
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
    }

    /**
     * Kernels per bundle of the streaming, reduction and gather kernels; {@code -Dlobatto.aparapi.vectorBundle=N} sets it.
     * 8: on the H100 (commit 8d5fafe, the README job on a cold start, three runs each, alternated) the process ended 2.94-3.20
     * s after the JVM started with bundles of 8 (14 programs) and 2.88-3.33 s with bundles of 4 (16 programs).
     */
    static final int VECTOR_BUNDLE = Math.max(1, Integer.getInteger("lobatto.aparapi.vectorBundle", 8));

    /** {@code list} in consecutive parts of at most {@code size}. */
    static <T> List<List<T>> chunks(List<T> list, int size) {
        List<List<T>> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i += size) {
            out.add(List.copyOf(list.subList(i, Math.min(list.size(), i + size))));
        }
        return out;
    }

    /** The build tasks of {@link #prepare}: each builds one source (after planning it, for the planned kernels). */
    private List<Runnable> preparations(ElementKernel kernel, int[] degrees, ElementGeometry geometry, PointFunction[] functions) {
        ProgramCache programs = core.cl.programs();
        ToIntFunction<KernelSource> allowed = programs::workGroupSize;
        ToIntFunction<KernelBuilds.Spec> allowedSpec = s -> programs.workGroupSize(s.source());
        int maxGroup = core.cl.device().maxWorkGroupSize();
        long local = core.localMemBytes;
        String device = core.info.name();
        ElementVariant forced = core.variant;
        boolean fold = elements.foldSearchDirection();
        boolean direct = GatherScatter.kind() != GatherScatter.BLOCKS && Boolean.getBoolean(AparapiBackend.ONE_KERNEL_PROPERTY);
        boolean geometryGlobal = setup.geometryGlobalGrids();
        boolean diagonalGlobal = elements.diagonalGlobalGrids();
        int reduceGroup = core.reduceGroup;
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
        if (GatherScatter.kind() != GatherScatter.TILES) {
            if (io.lobatto.core.mesh.ElementNumbering.onDevice()) {
                vectors.add(ScatterBuild.numberingSpec());   // the map Z is built from
            }
            vectors.add(ScatterBuild.spec());                // Z, built first
        }
        vectors.add(AparapiBackend.RANDOM_FILL);             // the eigenvalue bounds' start vectors
        if (kernel.factorsPerPoint() > 1) {
            vectors.add(KernelBuilds.factorSplit());
        }
        // not PCG_UPDATE: the backend built it when it opened (the reduction group's probe), so a second build in a bundle
        // (quickly, with other options: another program) would compile it again for nothing
        // dot and the CG update in their own kernels (no rows left out); a distributed rank whose shared rows are one range
        // builds the general ones for its owned sums at their first use
        boolean dedicated = core.dedicatedReductions();
        for (int op : new int[] {ReductionKernel.DOT, ReductionKernel.RECIPROCAL, ReductionKernel.CG_UPDATE}) {
            vectors.add(KernelBuilds.reduction(op, reduceGroup, dedicated));
        }
        // not cgStep, cgAlpha or the element kernels' ATOMIC_DOT mode: plain CG's iteration on the device builds them at its
        // first use; the main job (p-multigrid PCG) never launches them, and its setup would wait for their builds
        int top = degrees.length > 0 ? degrees[0] : 0;
        if (geometry != null && top >= 1 && top <= MAX_DEGREE && fold && AparapiBackend.atomicCg()
                && AparapiBackend.atomicOperator(core.cl.device().vendor(),
                        geometry.elementCount() * (top + 1L) * (top + 1) * (top + 1)) != 0) {
            vectors.add(KernelBuilds.reduction(ReductionKernel.UPDATE_DOT, reduceGroup));   // CG's p update after the atomic apply
        }
        if (core.smallReduceGroup() > 0) {           // the reductions over small vectors (coarse levels, small problems)
            for (int op : new int[] {ReductionKernel.DOT, ReductionKernel.RECIPROCAL, ReductionKernel.CG_UPDATE,
                ReductionKernel.PCG_UPDATE}) {
                vectors.add(KernelBuilds.reduction(op, core.smallReduceGroup(), dedicated));
            }
        }
        for (int op : new int[] {StreamKernel.FILL, StreamKernel.COPY, StreamKernel.AXPBY, StreamKernel.PMUL}) {
            vectors.add(KernelBuilds.stream(op));
        }
        int kind = GatherScatter.kind();
        if (kind == GatherScatter.BLOCKS) {
            int gatherGroup = core.gatherGroup();
            vectors.add(KernelBuilds.gather(GatherScatterKernel.SCATTER, gatherGroup));
            vectors.add(KernelBuilds.gather(GatherScatterKernel.GATHER, gatherGroup));
            vectors.add(KernelBuilds.gather(GatherScatterKernel.GATHER_DOT, gatherGroup));
            if (fold) {
                vectors.add(KernelBuilds.gather(GatherScatterKernel.GATHER_DOT_UPDATE, gatherGroup));
            }
        } else {                                       // the scatter, gather and CG's fused gathers of the rows or tiles kind
            boolean tiles = kind == GatherScatter.TILES;
            vectors.add(KernelBuilds.gatherRows(io.lobatto.backend.aparapi.kernels.GatherScatterRowsKernel.SCATTER, tiles));
            vectors.add(KernelBuilds.gatherRows(io.lobatto.backend.aparapi.kernels.GatherScatterRowsKernel.GATHER, tiles));
            vectors.add(KernelBuilds.gatherRowsFused(GatherScatterKernel.GATHER_DOT, 1, tiles));
            if (fold) {
                vectors.add(KernelBuilds.gatherRowsFused(GatherScatterKernel.GATHER_DOT_UPDATE, 1, tiles));
            }
            if (direct) {                              // the one-kernel operator's gathers
                vectors.add(KernelBuilds.gatherRowsFused(GatherScatterKernel.GATHER, 1, false, true));
                vectors.add(KernelBuilds.gatherRowsFused(GatherScatterKernel.GATHER_DOT, 1, false, true));
            }
        }
        if (AparapiBackend.FOLD_RESIDUAL) {                 // the smoothers' residual updates (applyAssembledResidual)
            vectors.add(KernelBuilds.gather(GatherScatterKernel.GATHER_RESIDUAL, core.gatherGroup()));
            vectors.add(KernelBuilds.gather(GatherScatterKernel.GATHER_RESIDUAL2, core.gatherGroup()));
            vectors.add(KernelBuilds.gather(GatherScatterKernel.GATHER_RESIDUAL_CHEBYSHEV, core.gatherGroup()));
        }
        vectors.add(KernelBuilds.chebyshev());
        int order = geometry == null ? 0 : geometry.order();
        PointMap map = geometry == null ? null : geometry.map();
        // the elements the setup kernels' options depend on; without a geometry unknown, and the default options taken
        long elements = geometry == null ? Long.MAX_VALUE / 4096 : geometry.elementCount();
        Quadrature q = kernel.usesGaussQuadrature() ? Quadrature.GAUSS : Quadrature.GLL;
        // the setup kernels' first builds in bundles: the fine level's (the geometry, its diagonal), the coarser levels'
        // (their diagonals, the geometry if its options differ), the functions' (f, the errors); each is planned, so a setup
        // kernel asked for before its bundle started builds the bundle. Each part depends only on what it holds, so a
        // job with the same fine level and functions but no p-MG (Jacobi) finds the same bundles in the disk cache
        List<KernelSource> setupFine = new ArrayList<>();
        List<KernelSource> setupRest = new ArrayList<>();
        List<KernelSource> setupFunctions = new ArrayList<>();
        int fineElements = 0;      // the tasks of the fine level's element kernels end here
        for (int i = 0; i < valid.size(); i++) {
            int degree = valid.get(i);
            boolean fine = i == 0;
            // the setup kernels' options as their launches choose them, by the elements of the geometry at this degree
            String setupOptions = KernelBuilds.setupOptions(elements, degree);
            List<KernelSource> setupBundle = fine ? setupFine : setupRest;
            List<KernelSource> other = fine ? setupRest : setupFine;
            int cap = Math.min(AparapiBackend.ELEMENT_GROUP, maxGroup);
            if (geometry != null) {
                // one source for every degree and quadrature: in the first bundle that asks for it only
                addOnce(setupBundle, other, KernelBuilds.geometry(order, map,
                        KernelBuilds.geometryPlan(degree, q, order, cap, local, geometryGlobal)).withOptions(setupOptions));
                if (fine && kernel != ElementKernel.MASS_BP10) {
                    Quadrature g = Quadrature.GAUSS;
                    addOnce(setupBundle, other, KernelBuilds.geometry(order, map,
                            KernelBuilds.geometryPlan(degree, g, order, cap, local, geometryGlobal)).withOptions(setupOptions));
                }
            }
            if (kernel == ElementKernel.STIFFNESS_BP35) {
                addOnce(setupBundle, other, KernelBuilds.diagonalBp35(degree).withOptions(setupOptions));
            } else {
                addOnce(setupBundle, other, KernelBuilds.diagonal(degree,
                        KernelBuilds.diagonalPlan(degree, cap, local, diagonalGlobal)).withOptions(setupOptions));
            }
            if (geometry != null) {
                tasks.add(() -> SetupKernels.geometryPlan(degree, q, order, kernel.factorsPerPoint(), map, setupOptions,
                        maxGroup, local, geometryGlobal, allowed));
                if (fine && kernel != ElementKernel.MASS_BP10) {
                    tasks.add(() -> SetupKernels.geometryPlan(degree, Quadrature.GAUSS, order,
                            ElementKernel.MASS_BP10.factorsPerPoint(), map, setupOptions, maxGroup, local, geometryGlobal,
                            allowed));
                }
            }
            List<ElementKernel> kinds = fine && kernel != ElementKernel.MASS_BP10
                    ? List.of(kernel, ElementKernel.MASS_BP10) : List.of(kernel);
            // the plain apply's form at this level's size (a geometry unknown: not built ahead)
            int atomic = geometry == null ? 0 : AparapiBackend.atomicOperator(core.cl.device().vendor(),
                    elements * (degree + 1L) * (degree + 1) * (degree + 1));
            for (ElementKernel k : kinds) {
                ElementVariant v = forced != null ? forced : ElementVariant.of(k, degree, device);
                // the input modes the setup and the solve use (each mode is built at its first use only): the fine
                // operator x_L (the lift) and x_G through Z; a p-MG level x_G through Z; the mass of the right-hand
                // side x_L; with the folded search direction also mode 2
                List<Integer> modes = new ArrayList<>();
                if (fine) {
                    modes.add(0);
                }
                if (k == kernel) {
                    modes.add(1);
                    if (fold) {
                        modes.add(2);
                    }
                }
                // the first plan's builds in one program (the plans below find them built unless the registers allow less)
                Basis1D basis = Basis1D.of(degree);
                ElementPlan first = KernelBuilds.firstPlan(k, basis, maxGroup, local, device, v);
                List<KernelBuilds.Spec> together = new ArrayList<>();
                for (int mode : modes) {
                    together.add(KernelBuilds.element(k, degree, first, mode));
                }
                core.planBundle(together);
                tasks.add(() -> {
                    programs.buildAll(together.stream().map(KernelBuilds.Spec::source).toList());
                    for (int mode : modes) {
                        KernelBuilds.plan(k, basis, maxGroup, local, device, v, allowedSpec, mode);
                    }
                    if (direct) {
                        int d = io.lobatto.backend.aparapi.kernels.ElementOperands.DIRECT;
                        programs.build(KernelBuilds.element(k, degree,
                                KernelBuilds.plan(k, basis, maxGroup, local, device, v, allowedSpec, d), d).source());
                    }
                    if (atomic != 0 && k == kernel) {   // the plain apply's form (the eigenvalue bounds apply it)
                        ElementVariant va = forced != null ? forced : ElementVariant.of(k, degree, device, atomic);
                        programs.build(KernelBuilds.element(k, degree,
                                KernelBuilds.plan(k, basis, maxGroup, local, device, va, allowedSpec, atomic), atomic).source());
                        if (fine && fold && AparapiBackend.atomicCg()) {   // and CG's call, reading z + beta p
                            int dirMode = atomic + (io.lobatto.backend.aparapi.kernels.ElementOperands.ATOMIC_DIR
                                    - io.lobatto.backend.aparapi.kernels.ElementOperands.ATOMIC);
                            programs.build(KernelBuilds.element(k, degree,
                                    KernelBuilds.plan(k, basis, maxGroup, local, device, va, allowedSpec, dirMode), dirMode).source());
                        }
                    }
                });
            }
            if (fine) {
                // Z's build (and the map's, where the device numbers) alone and first (prepare submits them: the setup
                // waits for them before anything else); the others in bundles of a few kernels, in the order of their first
                // use, each bundle one program on a thread of its own
                int alone = GatherScatter.kind() == GatherScatter.TILES ? 0
                        : io.lobatto.core.mesh.ElementNumbering.onDevice() ? 2 : 1;
                fineElements = tasks.size();
                for (List<KernelBuilds.Spec> part : chunks(vectors.subList(alone, vectors.size()), VECTOR_BUNDLE)) {
                    core.planBundle(part);
                    tasks.add(() -> programs.buildAll(part.stream().map(KernelBuilds.Spec::source).toList()));
                }
            }
            if (kernel == ElementKernel.STIFFNESS_BP35) {
                tasks.add(() -> programs.build(KernelBuilds.diagonalBp35(degree).withOptions(setupOptions)));
            } else {
                tasks.add(() -> ElementOperators.diagonalPlan(degree, setupOptions, maxGroup, local, diagonalGlobal, allowed));
            }
        }
        boolean anyTransfer = KernelBuilds.transferAny(programs);
        if (anyTransfer && valid.size() > 1) {
            tasks.add(() -> programs.build(KernelBuilds.transferAny().source()));   // every level pair's transfers
        }
        for (int i = 0; i + 1 < valid.size() && !anyTransfer; i++) {
            int fineDegree = valid.get(i);
            int coarse = valid.get(i + 1);
            if (coarse < fineDegree) {
                List<KernelBuilds.Spec> passes = new ArrayList<>();   // the six passes of a level pair in one program
                for (int op : new int[] {TransferKernel.PROLONG_I, TransferKernel.PROLONG_J, TransferKernel.PROLONG_K,
                    TransferKernel.RESTRICT_K, TransferKernel.RESTRICT_J, TransferKernel.RESTRICT_I}) {
                    passes.add(KernelBuilds.transfer(op, coarse, fineDegree));
                }
                core.planBundle(passes);
                tasks.add(() -> programs.buildAll(passes.stream().map(KernelBuilds.Spec::source).toList()));
            }
        }
        if (geometry != null && !valid.isEmpty()) {
            String setupOptions = KernelBuilds.setupOptions(elements, valid.get(0));
            for (PointFunction f : functions) {
                setupFunctions.add(KernelBuilds.evaluate(valid.get(0), order, map, f).withOptions(setupOptions));
                setupFunctions.add(KernelBuilds.errors(valid.get(0), order, map, f));      // always optimised
            }
        }
        // each bundle by options (a program has one set): the fine level's after its element kernels, the rest last
        tasks.addAll(fineElements, setupBundles(programs, setupFine));
        tasks.addAll(setupBundles(programs, setupRest));
        tasks.addAll(setupBundles(programs, setupFunctions));
        return tasks;
    }

    /** Adds {@code source} to {@code bundle} unless {@code bundle} or {@code other} holds it (a source in one bundle only). */
    private static void addOnce(List<KernelSource> bundle, List<KernelSource> other, KernelSource source) {
        if (!bundle.contains(source) && !other.contains(source)) {
            bundle.add(source);
        }
    }

    /** {@code sources} planned as bundles of one set of build options each, and their builds. */
    private static List<Runnable> setupBundles(ProgramCache programs, List<KernelSource> sources) {
        java.util.Map<String, List<KernelSource>> byOptions = new java.util.LinkedHashMap<>();
        for (KernelSource src : sources) {
            byOptions.computeIfAbsent(src.options(), o -> new ArrayList<>()).add(src);
        }
        List<Runnable> builds = new ArrayList<>();
        for (List<KernelSource> bundle : byOptions.values()) {
            List<KernelSource> planned = programs.planBundle(bundle);
            builds.add(() -> programs.buildAll(planned));
        }
        return builds;
    }
}
