package io.lobatto.backend.aparapi.runtime;

import static org.jocl.CL.CL_PROGRAM_BINARIES;
import static org.jocl.CL.CL_PROGRAM_BINARY_SIZES;
import static org.jocl.CL.CL_KERNEL_WORK_GROUP_SIZE;
import static org.jocl.CL.CL_PROGRAM_BUILD_LOG;
import static org.jocl.CL.clBuildProgram;
import static org.jocl.CL.clCreateKernel;
import static org.jocl.CL.clCreateProgramWithBinary;
import static org.jocl.CL.clCreateProgramWithSource;
import static org.jocl.CL.clGetKernelWorkGroupInfo;
import static org.jocl.CL.clGetProgramBuildInfo;
import static org.jocl.CL.clGetProgramInfo;
import static org.jocl.CL.clReleaseKernel;
import static org.jocl.CL.clReleaseProgram;

import io.lobatto.core.backend.BackendException;
import org.jocl.CLException;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_device_id;
import org.jocl.cl_kernel;
import org.jocl.cl_program;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Built programs of one {@link ClContext}: in memory for the context's life, and on disk as the
 * device's program binaries, keyed by the SHA-256 of the source, the build options, the device name,
 * platform and driver version, so that a second run (or a CI rerun) does not compile again. The disk
 * cache lives in {@code LOBATTO_CACHE_DIR} (or {@code -Dlobatto.cache.dir}), else {@code ~/.cache/lobatto};
 * {@code none} switches it off. A build error throws with the kernel, the device and the build log. Programs build
 * with {@code -w} (no compiler warnings, which some drivers print on stderr themselves) unless the
 * {@code io.lobatto.backend.aparapi} logger is at {@link Level#FINE}; then a build that succeeds with warnings logs them
 * there, never on the terminal of a healthy run.
 *
 * <p>Thread-safe, and builds of different programs run concurrently (OpenCL 1.2 allows {@code clBuildProgram} on
 * different programs of one context from several threads): each key holds a future of its program, created by the
 * first thread that asks and completed by that thread's build, so a second thread asking for the same source waits
 * for that build instead of building it again. A failed build stays failed: every later request throws its error
 * (with the build log) again.
 */
public final class ProgramCache {

    /** Environment variable naming the disk cache directory ({@code none}: no disk cache). */
    public static final String ENV = "LOBATTO_CACHE_DIR";
    /** System property naming the disk cache directory (wins over {@link #ENV}). */
    public static final String PROPERTY = "lobatto.cache.dir";
    /**
     * System property naming a directory into which every program compiled from source is written as
     * {@code <n>-<label>.cl} (a diagnostic: the compile-cost benchmark rebuilds them); unset: nothing is written.
     */
    public static final String SOURCE_DIR_PROPERTY = "lobatto.opencl.sourceDir";
    private static final AtomicInteger DUMPED = new AtomicInteger();
    /**
     * System property: OpenCL build options added to every build (a diagnostic, for measuring what options cost, e.g.
     * {@code -cl-opt-disable}); part of every cache key.
     */
    public static final String EXTRA_OPTIONS_PROPERTY = "lobatto.opencl.extraOptions";
    private static final String EXTRA_OPTIONS = System.getProperty(EXTRA_OPTIONS_PROPERTY, "").strip();
    /** System property: {@code false} makes {@link #buildAll} build one program per kernel (the old way, for A/B). */
    public static final String BUNDLES_PROPERTY = "lobatto.opencl.bundles";
    private static final boolean BUNDLES = !"false".equals(System.getProperty(BUNDLES_PROPERTY, "").trim());

    /**
     * System property: {@code auto} (the default), {@code true} or {@code false}. With quick-first builds on, a kernel
     * built with the compiler's default options whose optimised program is not in the disk cache is built first with
     * {@link #QUICK_OPTIONS} (NVIDIA's compiler takes less time for it), and the optimised program is built in the
     * background once the kernel has done enough work ({@link #UPGRADE_AFTER_PROPERTY}); each {@link ClKernel} swaps it in
     * at a fixed point of its own launches. {@code auto}: on for a GPU whose problem has fewer than
     * {@link #QUICK_FIRST_POINTS} points ({@link #quickFirstFor}), where compiling costs more than the optimised kernels
     * save, and NVIDIA's compute cache is on ({@code CUDA_CACHE_DISABLE} is not 1); off elsewhere, so large problems and
     * the benchmarks build optimised kernels directly. A later run of the same
     * small job loads the quick programs from the disk cache, and the optimised ones once a run has upgraded them.
     */
    public static final String QUICK_FIRST_PROPERTY = "lobatto.opencl.quickFirst";
    /**
     * System property: the work-items a quick-first kernel ({@link #QUICK_FIRST_PROPERTY}) launches before its optimised
     * program is built in the background; at twice as many it swaps that program in (waiting for its build if needed),
     * so where the swap happens depends on the launches only, not on timing. Default 2^28.
     */
    public static final String UPGRADE_AFTER_PROPERTY = "lobatto.opencl.upgradeAfter";
    /** The build options of a quick build: the compiler's optimisations off. */
    public static final String QUICK_OPTIONS = "-cl-opt-disable";
    /**
     * Build options that mark a source as never built quickly first (a macro no source reads, so the program is the one of
     * the default options): for a kernel that runs once over much data, such as the error norms (50x slower built quickly).
     */
    public static final String OPTIMISED_ONLY = "-DLB_OPTIMISED_ONLY";
    /**
     * System property: on NVIDIA, the PTX optimisation level ({@code -cl-nv-opt-level}) added to the quick builds, those
     * with {@link #QUICK_OPTIONS} (quick-first programs and the quick setup kernels); -1 adds none, so that
     * {@code -cl-opt-disable} alone decides. Default 1: on the H100 the README job's quick BP3.5 kernel then ran 7x
     * faster (103 against 741 us per launch) and its cold run took no longer (site: gpu-poisson.md). See {@link #nvLevel}.
     */
    public static final String QUICK_NV_LEVEL_PROPERTY = "lobatto.opencl.quickNvOptLevel";
    /**
     * System property: on NVIDIA, the PTX optimisation level added to the builds marked {@link #OPTIMISED_ONLY} (the error
     * norms) while quick-first builds are on for fewer than {@link #QUICK_FIRST_NV_POINTS} points, so that a small job
     * does not wait for a full optimisation of a kernel that runs once over little data; -1 adds none. Default 0 (the
     * cold README job about 0.2-0.3 s sooner on the H100, its error kernel 30 ms instead of 4). See {@link #nvLevel}.
     */
    public static final String QUICK_FIRST_NV_LEVEL_PROPERTY = "lobatto.opencl.quickFirstNvOptLevel";
    private static final int QUICK_NV_LEVEL = Integer.getInteger(QUICK_NV_LEVEL_PROPERTY, 1);
    private static final int QUICK_FIRST_NV_LEVEL = Integer.getInteger(QUICK_FIRST_NV_LEVEL_PROPERTY, 0);
    /**
     * Points below which {@link #QUICK_FIRST_NV_LEVEL_PROPERTY} applies: the README's job has 110,592; at 2^18 its error
     * kernel built at level 0 runs about 70 ms instead of 10 (H100).
     */
    public static final long QUICK_FIRST_NV_POINTS = 1L << 18;
    /** Points (elements x (N+1)^3 of the fine level) below which {@code auto} builds quickly first on a GPU. */
    public static final long QUICK_FIRST_POINTS = 1L << 21;

    static final Logger LOG = Logger.getLogger("io.lobatto.backend.aparapi");

    private final ClContext context;
    private final ConcurrentHashMap<String, CompletableFuture<Built>> built = new ConcurrentHashMap<>();
    /** The bundles {@link #planBundle} planned, by the key of each source in them. */
    private final ConcurrentHashMap<String, java.util.List<KernelSource>> planned = new ConcurrentHashMap<>();
    private final AtomicInteger programsCompiled = new AtomicInteger();
    private final Path dir;
    private final AtomicInteger compiled = new AtomicInteger();
    private final AtomicInteger loaded = new AtomicInteger();
    private final java.util.Queue<Build> builds = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private volatile boolean released;
    /** Whether a build of the default options not on disk is built quickly first ({@link #quickFirstFor}). */
    private volatile boolean quickFirst;
    /** The points {@link #quickFirstFor} was given. */
    private volatile long quickFirstPoints = Long.MAX_VALUE;
    /** The quick-first programs' upgrades made so far (their optimised programs are released with the cache). */
    private final java.util.Queue<Upgrade> upgrades = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final AtomicInteger quickBuilt = new AtomicInteger();
    /** {@link #UPGRADE_AFTER_PROPERTY}, read when the context was made. */
    private final long upgradeAfter = Math.max(1L, Long.getLong(UPGRADE_AFTER_PROPERTY, 1L << 28));
    private final AtomicInteger upgraded = new AtomicInteger();
    /** The threads that build the optimised programs of quick-first kernels, started at the first upgrade. */
    private java.util.concurrent.ExecutorService upgrader;

    /**
     * A built kernel: its program (of its own or a {@link ProgramBundle}'s), its kernel's name there, and the upgrade to
     * the optimised program when the program was built quickly first (else null).
     */
    private record Built(cl_program program, String entry, Upgrade upgrade) {
    }

    /** A program as first built, with its upgrade when it was built quickly (else null). */
    private record Program(cl_program program, Upgrade upgrade) {
    }

    /**
     * The optimised build of a program that was built quickly first: requested by the first of its kernels that has done
     * enough work, built on the upgrade threads, and taken by each {@link ClKernel} of it at its own swap point.
     */
    final class Upgrade {
        private final String label;
        private final String text;
        private final String options;
        private final String key;
        private final int kernels;
        private final java.util.concurrent.atomic.AtomicBoolean requested = new java.util.concurrent.atomic.AtomicBoolean();
        private final CompletableFuture<cl_program> result = new CompletableFuture<>();

        private Upgrade(String label, String text, String options, String key, int kernels) {
            this.label = label;
            this.text = text;
            this.options = options;
            this.key = key;
            this.kernels = kernels;
        }

        /** Work-items a kernel of this program launches before it asks for the optimised build. */
        long after() {
            return upgradeAfter;
        }

        /** Starts the optimised build on the upgrade threads, once. */
        void request() {
            if (!requested.compareAndSet(false, true)) {
                return;
            }
            try {
                upgradeThreads().execute(() -> {
                    try {
                        cl_program p = build(label + " (optimised)", text, options, key, kernels);
                        upgraded.addAndGet(kernels);     // before the swap can see the program: upgraded() counts it then
                        result.complete(p);
                    } catch (RuntimeException | Error e) {
                        LOG.log(Level.FINE, "aparapi: the optimised build of '" + label + "' failed; its quick build stays", e);
                        result.completeExceptionally(e);
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException e) {
                result.cancel(false);        // the cache is being released
            }
        }

        /** The optimised program, after waiting for its build; null when it failed or the cache was released. */
        cl_program await() {
            request();
            try {
                return result.join();
            } catch (CompletionException | java.util.concurrent.CancellationException e) {
                return null;
            }
        }
    }

    private synchronized java.util.concurrent.ExecutorService upgradeThreads() {
        if (released) {
            throw new java.util.concurrent.RejectedExecutionException("released");
        }
        if (upgrader == null) {
            AtomicInteger n = new AtomicInteger();
            int threads = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors() / 2));
            upgrader = java.util.concurrent.Executors.newFixedThreadPool(threads, r -> {
                Thread t = new Thread(r, "lobatto-kernel-upgrade-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }
        return upgrader;
    }

    /**
     * One program build: the kernel's label, when it started and how long it took (nanoseconds, {@link System#nanoTime}),
     * whether it was loaded from the disk cache rather than compiled from source, and how many kernels the program holds
     * (more than one for a bundle, {@link #buildAll}).
     */
    public record Build(String label, long startNanos, long nanos, boolean fromDisk, int kernels) {
    }

    ProgramCache(ClContext context) {
        this.context = context;
        this.dir = cacheDirectory();
    }

    /** The disk cache directory, or null when disk caching is off. */
    public static Path cacheDirectory() {
        String d = System.getProperty(PROPERTY);
        if (d == null || d.isBlank()) {
            d = System.getenv(ENV);
        }
        if (d == null || d.isBlank()) {
            String home = System.getProperty("user.home");
            return home == null ? null : Path.of(home, ".cache", "lobatto");
        }
        return "none".equalsIgnoreCase(d.trim()) ? null : Path.of(d.trim());
    }

    /** Kernels compiled from source by this cache so far (not counting disk and memory hits), alone or in bundles. */
    public int compiled() {
        return compiled.get();
    }

    /** Programs compiled from source so far: {@link #compiled()} less the kernels that shared a bundle's program. */
    public int programsCompiled() {
        return programsCompiled.get();
    }

    /**
     * Chooses whether this context builds quickly first ({@link #QUICK_FIRST_PROPERTY}) for a problem of {@code points}
     * points (elements x (N+1)^3 of its finest level; {@link Long#MAX_VALUE} when unknown). Throws when the property has
     * a value other than auto, true and false.
     */
    public void quickFirstFor(long points) {
        String mode = System.getProperty(QUICK_FIRST_PROPERTY, "auto").strip();
        quickFirstPoints = points;
        quickFirst = switch (mode) {
            case "true" -> true;
            case "false" -> false;
            // not with NVIDIA's compute cache off: the driver then compiles a loaded program's PTX at every load, and
            // the quick programs' PTX takes far longer (H100, a8bf6e4: a README run loading them took 1.49 s of setup)
            case "auto" -> context.device().type() == ClDevice.Type.GPU && points < QUICK_FIRST_POINTS
                    && !"1".equals(System.getenv("CUDA_CACHE_DISABLE"));
            default -> throw new IllegalArgumentException(QUICK_FIRST_PROPERTY + " is '" + mode
                    + "'; it is one of auto, true, false");
        };
    }

    /** Whether builds of the default options not in the disk cache are built quickly first now. */
    public boolean quickFirst() {
        return quickFirst;
    }

    /** Kernels built quickly first so far ({@link #QUICK_FIRST_PROPERTY}). */
    public int quickBuilt() {
        return quickBuilt.get();
    }

    /** Kernels of quick-first programs whose optimised program has been built so far. */
    public int upgraded() {
        return upgraded.get();
    }

    /** Kernels loaded from the disk cache so far. */
    public int loadedFromDisk() {
        return loaded.get();
    }

    /** The builds so far (compiled or loaded from disk), in order of completion. */
    public java.util.List<Build> buildLog() {
        return java.util.List.copyOf(builds);
    }

    /** Kernels built so far, from source or from the disk cache ({@link #compiled()} + {@link #loadedFromDisk()}). */
    public int builds() {
        return compiled.get() + loaded.get();
    }

    /** A kernel object of {@code source}, from a program built once per context (and cached on disk). */
    public ClKernel kernel(KernelSource source) {
        return kernel(source, "");
    }

    /** {@link #kernel(KernelSource)} built with OpenCL compiler {@code options} (after the source's own). */
    public ClKernel kernel(KernelSource source, String options) {
        Built b = program(source, options);
        return new ClKernel(context, b.program(), b.entry(), source, b.upgrade());
    }

    /**
     * Builds {@code source} on the calling thread unless it is built or being built (then waits for that build);
     * for builds ahead of use on a pool. Throws as {@link #kernel(KernelSource)} does.
     */
    public void build(KernelSource source) {
        program(source, "");
    }

    /**
     * Plans {@code sources} as one bundle ({@link #buildAll}): a source of it asked for ({@link #kernel}, {@link #build},
     * {@link #workGroupSize}) before the bundle's build started builds the whole bundle, so that the bundle, and its disk
     * cache entry, is the same in every run. Returns {@code sources}.
     */
    public java.util.List<KernelSource> planBundle(java.util.List<KernelSource> sources) {
        java.util.List<KernelSource> bundle = java.util.List.copyOf(sources);
        for (KernelSource s : bundle) {
            planned.putIfAbsent(key(s.source(), quiet(s.options())), bundle);
        }
        return bundle;
    }

    /**
     * Builds {@code sources} as ONE program (a {@link ProgramBundle}) on the calling thread, for those of them not yet built
     * or being built; for builds ahead of use. The bundle holds all of them even so, so that its text, and its disk cache
     * entry, is the same in every run. A compiler spends less on a bundle than on its kernels one program each (NVIDIA's,
     * H100: 51 kernels in 5.9 s as one program, 7.3 s as 51), and where it serialises part of every build (NVIDIA's
     * does), bundles on several threads take less wall time than as many threads building one kernel each. A later
     * {@link #kernel} of one of them takes its kernel from the bundle's program. When the bundle does not build, each
     * kernel is built alone, so that an error names its kernel and the others still build. Throws nothing; a kernel that
     * failed throws at its {@link #kernel}. {@code -Dlobatto.opencl.bundles=false} builds one program per kernel.
     */
    public void buildAll(java.util.List<KernelSource> sources) {
        if (released) {
            throw new IllegalStateException("the program cache of " + context.device() + " is released");
        }
        String options = sources.isEmpty() ? "" : sources.get(0).options();
        if (sources.stream().anyMatch(s -> !s.options().equals(options))) {
            // a bundle is one build, with one set of options: sources of different options build alone
            sources.forEach(this::build);
            return;
        }
        buildAll(sources, options, quiet(options));
    }

    private void buildAll(java.util.List<KernelSource> sources, String base, String options) {
        java.util.List<KernelSource> all = new java.util.ArrayList<>();      // the sources, each once
        java.util.List<String> keys = new java.util.ArrayList<>();
        java.util.List<Integer> mine = new java.util.ArrayList<>();           // indices of those this call builds
        java.util.List<CompletableFuture<Built>> futures = new java.util.ArrayList<>();
        for (KernelSource s : sources) {
            String key = key(s.source(), options);
            if (!keys.contains(key)) {
                all.add(s);
                keys.add(key);
            }
        }
        // the claims of one call are atomic: two calls of one bundle interleaving their claims would each build the
        // whole bundle for half of its kernels (seen on PoCL and NVIDIA: the same bundle compiled twice)
        synchronized (built) {
            for (int i = 0; i < all.size(); i++) {
                CompletableFuture<Built> f = new CompletableFuture<>();
                if (built.putIfAbsent(keys.get(i), f) == null) {
                    mine.add(i);
                    futures.add(f);
                }
            }
        }
        if (mine.isEmpty()) {
            return;
        }
        if (all.size() > 1 && BUNDLES) {
            // the bundle of every source asked for, also those built or being built elsewhere (an operation that could
            // not wait): its text, and so its disk cache entry, is then the same in every run
            ProgramBundle bundle = ProgramBundle.of(all);
            String label = "bundle of " + all.size() + ": " + String.join(", ", all.stream().map(KernelSource::label).toList());
            try {
                Program p = buildFirst(label, bundle.source(), base, options, key(bundle.source(), options), mine.size());
                for (int i = 0; i < mine.size(); i++) {
                    futures.get(i).complete(new Built(p.program(), bundle.entries().get(mine.get(i)), p.upgrade()));
                }
                return;
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "aparapi: the " + label + " did not build; building its kernels one by one", e);
            }
        }
        for (int i = 0; i < mine.size(); i++) {
            KernelSource s = all.get(mine.get(i));
            try {
                Program p = buildFirst(s.label(), s.source(), base, options, keys.get(mine.get(i)), 1);
                futures.get(i).complete(new Built(p.program(), KernelSource.ENTRY, p.upgrade()));
            } catch (RuntimeException | Error e) {
                futures.get(i).completeExceptionally(e);
            }
        }
    }

    /**
     * {@code CL_KERNEL_WORK_GROUP_SIZE} of {@code source}'s kernel, built as {@link #build(KernelSource)} builds it
     * (through a kernel object released again: {@link ClKernel}s are made by the thread that launches them).
     */
    public int workGroupSize(KernelSource source) {
        Built b = program(source, "");
        cl_kernel k = clCreateKernel(b.program(), b.entry(), null);
        try {
            long[] size = new long[1];
            clGetKernelWorkGroupInfo(k, context.device().id, CL_KERNEL_WORK_GROUP_SIZE, Sizeof.size_t, Pointer.to(size), null);
            return (int) size[0];
        } finally {
            clReleaseKernel(k);
        }
    }

    /** The program of {@code source}: built here by the first thread that asks, waited for by the others. */
    private Built program(KernelSource source, String requested) {
        String base = (source.options() + " " + requested).strip();
        String options = quiet(base);
        if (released) {
            throw new IllegalStateException("the program cache of " + context.device() + " is released");
        }
        String key = key(source.source(), options);
        java.util.List<KernelSource> bundle = planned.get(key);
        if (bundle != null && !built.containsKey(key) && requested.isEmpty()) {
            buildAll(bundle);      // the planned bundle, here: its build has not started
        }
        CompletableFuture<Built> mine = new CompletableFuture<>();
        CompletableFuture<Built> f;
        synchronized (built) {     // not between the claims of a bundle (buildAll)
            f = built.putIfAbsent(key, mine);
        }
        if (f == null) {
            try {
                Program built1 = buildFirst(source.label(), source.source(), base, options, key, 1);
                Built p = new Built(built1.program(), KernelSource.ENTRY, built1.upgrade());
                mine.complete(p);
                return p;
            } catch (RuntimeException | Error e) {
                mine.completeExceptionally(e);
                throw e;
            }
        }
        try {
            return f.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            // thrown again for this caller, with the message (and build log) of the failed build
            throw new BackendException(cause.getMessage(), cause);
        }
    }

    /**
     * {@code options} plus {@code -w} (the OpenCL option that inhibits warnings) unless this logger is at {@link Level#FINE}:
     * NVIDIA's and PoCL's compilers print "N warnings generated." to the process's stderr themselves, which no build log
     * can catch, and a healthy run prints nothing. With FINE on, the warnings are compiled in and logged (see
     * {@link #logWarnings}).
     */
    static String quiet(String options) {
        if (!EXTRA_OPTIONS.isEmpty() && !options.contains(EXTRA_OPTIONS)) {
            options = options.isEmpty() ? EXTRA_OPTIONS : options + " " + EXTRA_OPTIONS;
        }
        if (LOG.isLoggable(Level.FINE) || options.matches("(^|.*\\s)-w(\\s.*|$)")) {
            return options;
        }
        return options.isEmpty() ? "-w" : options + " -w";
    }

    private String key(String source, String options) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(context.device().cacheIdentity().getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
            sha.update(options.getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
            sha.update(source.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this Java runtime", e);
        }
    }

    /**
     * Builds the program of {@code text} as {@link #build} does, or, with quick-first builds on, for the default options
     * ({@code base} empty) and with no optimised program in the disk cache, with {@link #QUICK_OPTIONS} and an upgrade to
     * the optimised one.
     */
    private Program buildFirst(String label, String text, String base, String options, String key, int kernels) {
        if (quickFirst && base.isEmpty() && !onDisk(key)) {
            String quick = quiet(nvLevel(QUICK_OPTIONS));
            // a quick program from the disk cache is not upgraded at once: on the H100 (b9b6191) a README run that did so
            // took 2.2 s instead of 1.2-1.4 s (the background builds slowed its solve 3x and close waited 0.57 s for them)
            cl_program p = build(label + " (quick)", text, quick, key(text, quick), kernels);
            quickBuilt.addAndGet(kernels);
            Upgrade u = new Upgrade(label, text, options, key, kernels);
            upgrades.add(u);
            return new Program(p, u);
        }
        String tuned = nvLevel(base);
        if (!tuned.equals(base) && !onDisk(key)) {
            String o = quiet(tuned);
            return new Program(build(label, text, o, key(text, o), kernels), null);
        }
        return new Program(build(label, text, options, key, kernels), null);
    }

    /** Whether the disk cache holds the program of {@code key}. */
    private boolean onDisk(String key) {
        return dir != null && Files.isRegularFile(dir.resolve(key + ".bin"));
    }

    /**
     * {@code base} with NVIDIA's PTX optimisation level for a build that runs little: {@link #QUICK_NV_LEVEL_PROPERTY}'s
     * for the quick builds ({@link #QUICK_OPTIONS}), {@link #QUICK_FIRST_NV_LEVEL_PROPERTY}'s for the {@link #OPTIMISED_ONLY}
     * builds while quick-first builds are on for fewer than {@link #QUICK_FIRST_NV_POINTS} points; {@code base} itself elsewhere, on other devices, where a level is set
     * already or where the property is -1. The level sets how hard NVIDIA's PTX-to-machine-code step optimises; the
     * setup kernels hold {@code FP_CONTRACT OFF}, so their results do not depend on it.
     */
    public String nvLevel(String base) {
        if (base.contains("-cl-nv-opt-level") || !nvidia()) {
            return base;
        }
        int level = -1;
        if (base.contains(QUICK_OPTIONS)) {
            level = QUICK_NV_LEVEL;
        } else if (quickFirst && quickFirstPoints < QUICK_FIRST_NV_POINTS && base.contains(OPTIMISED_ONLY)) {
            level = QUICK_FIRST_NV_LEVEL;
        }
        return level < 0 ? base : (base + " -cl-nv-opt-level=" + level).strip();
    }

    /** Builds the program of {@code text} ({@code kernels} kernels) from the disk cache or the source, and logs it. */
    private cl_program build(String label, String text, String options, String key, int kernels) {
        long t0 = System.nanoTime();
        boolean[] disk = new boolean[1];
        cl_program p = buildProgram(label, text, options, key, kernels, disk);
        long t = System.nanoTime() - t0;
        boolean fromDisk = disk[0];
        builds.add(new Build(label, t0, t, fromDisk, kernels));
        if (LOG.isLoggable(Level.FINE)) {
            LOG.fine(String.format("aparapi: %s kernel '%s' in %.1f ms", fromDisk ? "loaded" : "compiled", label, t * 1e-6));
        }
        return p;
    }

    /** Loads {@code text}'s program from the disk cache ({@code fromDisk[0]} set) or compiles it. */
    private cl_program buildProgram(String label, String text, String withCap, String key, int kernels, boolean[] fromDisk) {
        cl_device_id[] devices = {context.device().id};
        int cap = PtxRegisterCap.of(withCap);
        String options = PtxRegisterCap.strip(withCap);
        Path file = dir == null ? null : dir.resolve(key + ".bin");
        if (file != null && Files.isRegularFile(file)) {
            try {
                byte[] binary = Files.readAllBytes(file);
                int[] status = new int[1];
                cl_program p = clCreateProgramWithBinary(context.context, 1, devices, new long[] {binary.length},
                        new byte[][] {binary}, status, null);
                clBuildProgram(p, 1, devices, options, null, null);
                loaded.addAndGet(kernels);
                fromDisk[0] = true;
                return p;
            } catch (IOException | CLException stale) {
                // an unreadable or foreign binary: compile from source and overwrite it below
            }
        }
        cl_program p = clCreateProgramWithSource(context.context, 1, new String[] {text}, new long[] {text.length()}, null);
        try {
            clBuildProgram(p, 1, devices, options, null, null);
        } catch (CLException e) {
            String log = buildLog(p, devices[0]);
            clReleaseProgram(p);
            throw new BackendException("aparapi: building kernel '" + label + "' failed on "
                    + context.device() + " (" + e.getMessage() + "); build log:\n" + log);
        }
        if (cap > 0 && nvidia()) {
            p = capRegisters(label, p, cap, options, devices);
        }
        compiled.addAndGet(kernels);
        programsCompiled.incrementAndGet();
        logWarnings(label, p, devices[0]);
        dumpSource(label, text, options);
        if (file != null) {
            store(p, file);
        }
        return p;
    }

    /** Whether this cache's device is NVIDIA's (PTX binaries, the {@code -cl-nv-} options). */
    private boolean nvidia() {
        return context.device().vendor().toLowerCase(java.util.Locale.ROOT).contains("nvidia");
    }

    /** {@code p} (built from source) built again from its PTX with {@link PtxRegisterCap}'s cap of {@code cap} registers. */
    private cl_program capRegisters(String label, cl_program p, int cap, String options, cl_device_id[] devices) {
        String what = "aparapi: building kernel '" + label + "' with at most " + cap + " registers failed on " + context.device();
        byte[] ptx;
        try {
            ptx = PtxRegisterCap.apply(binary(p), cap);
        } catch (IllegalArgumentException e) {
            throw new BackendException(what + " (" + e.getMessage() + ")", e);
        } finally {
            clReleaseProgram(p);
        }
        int[] status = new int[1];
        cl_program q;
        try {
            q = clCreateProgramWithBinary(context.context, 1, devices, new long[] {ptx.length}, new byte[][] {ptx}, status, null);
        } catch (CLException e) {
            throw new BackendException(what + " (" + e.getMessage() + ")", e);
        }
        try {
            clBuildProgram(q, 1, devices, options, null, null);
        } catch (CLException e) {
            String log = buildLog(q, devices[0]);
            clReleaseProgram(q);
            throw new BackendException(what + " (" + e.getMessage() + "); build log:\n" + log, e);
        }
        return q;
    }

    /** The program's binary for its one device (PTX text on NVIDIA; empty where the driver keeps none). */
    public static byte[] binary(cl_program p) {
        long[] size = new long[1];
        clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, Sizeof.size_t, Pointer.to(size), null);
        if (size[0] <= 0) {
            return new byte[0];
        }
        byte[] binary = new byte[(int) size[0]];
        clGetProgramInfo(p, CL_PROGRAM_BINARIES, Sizeof.POINTER, Pointer.to(new Pointer[] {Pointer.to(binary)}), null);
        return binary;
    }

    /** Writes {@code source} to {@link #SOURCE_DIR_PROPERTY}'s directory, when it is set. */
    private static void dumpSource(String label, String source, String options) {
        String d = System.getProperty(SOURCE_DIR_PROPERTY);
        if (d == null || d.isBlank()) {
            return;
        }
        try {
            Path dir = Path.of(d.trim());
            Files.createDirectories(dir);
            String safe = label.replaceAll("[^A-Za-z0-9.=_-]+", "_");
            String name = String.format("%03d-%s.cl", DUMPED.incrementAndGet(), safe.substring(0, Math.min(80, safe.length())));
            String text = options.isEmpty() ? source : "// options: " + options + "\n" + source;
            Files.writeString(dir.resolve(name), text);
        } catch (IOException | RuntimeException e) {
            LOG.fine("aparapi: could not write the source of '" + label + "': " + e);
        }
    }

    /** Writes the program's binary atomically; a cache that cannot be written is simply not used. */
    private static void store(cl_program p, Path file) {
        try {
            byte[] binary = binary(p);
            if (binary.length == 0) {
                return;
            }
            Files.createDirectories(file.getParent());
            Path tmp = Files.createTempFile(file.getParent(), "build", ".tmp");
            Files.write(tmp, binary);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | CLException | SecurityException ignored) {
            // no disk cache here (read-only home, full disk): the next run compiles again
        }
    }

    /**
     * A successful build's log (compiler warnings such as "2 warnings generated.") goes to {@link Level#FINE}: the
     * program is fine, and a healthy run prints nothing. Errors never come here: they throw with their log.
     */
    private void logWarnings(String label, cl_program p, cl_device_id device) {
        if (LOG.isLoggable(Level.FINE)) {
            String log = buildLog(p, device).strip();
            if (!log.isEmpty()) {
                LOG.fine("aparapi: build log of kernel '" + label + "' on " + context.device() + ":\n" + log);
            }
        }
    }

    static String buildLog(cl_program p, cl_device_id device) {
        try {
            long[] size = new long[1];
            clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, 0, null, size);
            byte[] log = new byte[(int) size[0]];
            clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, log.length, Pointer.to(log), null);
            return ClDevice.cString(log);
        } catch (CLException e) {
            return "(no build log: " + e.getMessage() + ")";
        }
    }

    /** Releases every built program; builds still running must have finished (the backend waits for its pool). */
    void release() {
        java.util.concurrent.ExecutorService u;
        synchronized (this) {
            released = true;
            u = upgrader;
        }
        if (u != null) {
            // the upgrades not started are dropped; those running finish before their programs go
            u.shutdownNow();
            boolean interrupted = false;
            while (true) {
                try {
                    if (u.awaitTermination(10, java.util.concurrent.TimeUnit.MINUTES)) {
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
        java.util.Set<cl_program> programs = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Upgrade up : upgrades) {
            up.result.cancel(false);       // dropped before it started: a kernel waiting for it keeps its quick build
            if (up.result.isDone() && !up.result.isCompletedExceptionally()) {
                programs.add(up.result.join());
            }
        }
        for (CompletableFuture<Built> f : built.values()) {
            if (!f.isDone()) {
                f.cancel(false);
            } else if (!f.isCompletedExceptionally()) {
                programs.add(f.join().program());   // a bundle's program once
            }
        }
        for (cl_program p : programs) {
            clReleaseProgram(p);
        }
        built.clear();
        upgrades.clear();
    }
}
