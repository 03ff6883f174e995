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

    static final Logger LOG = Logger.getLogger("io.lobatto.backend.aparapi");

    private final ClContext context;
    private final ConcurrentHashMap<String, CompletableFuture<cl_program>> built = new ConcurrentHashMap<>();
    private final Path dir;
    private final AtomicInteger compiled = new AtomicInteger();
    private final AtomicInteger loaded = new AtomicInteger();
    private final java.util.Queue<Build> builds = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private volatile boolean released;

    /**
     * One program build: the kernel's label, when it started and how long it took (nanoseconds, {@link System#nanoTime}),
     * and whether it was loaded from the disk cache rather than compiled from source.
     */
    public record Build(String label, long startNanos, long nanos, boolean fromDisk) {
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

    /** Programs compiled from source by this cache so far (not counting disk and memory hits). */
    public int compiled() {
        return compiled.get();
    }

    /** Programs loaded from the disk cache so far. */
    public int loadedFromDisk() {
        return loaded.get();
    }

    /** The builds so far (compiled or loaded from disk), in order of completion. */
    public java.util.List<Build> buildLog() {
        return java.util.List.copyOf(builds);
    }

    /** Programs built so far, from source or from the disk cache ({@link #compiled()} + {@link #loadedFromDisk()}). */
    public int builds() {
        return compiled.get() + loaded.get();
    }

    /** A kernel object of {@code source}, from a program built once per context (and cached on disk). */
    public ClKernel kernel(KernelSource source) {
        return kernel(source, "");
    }

    /** {@link #kernel(KernelSource)} built with OpenCL compiler {@code options}. */
    public ClKernel kernel(KernelSource source, String options) {
        return new ClKernel(context, program(source, options), source);
    }

    /**
     * Builds {@code source} on the calling thread unless it is built or being built (then waits for that build);
     * for builds ahead of use on a pool. Throws as {@link #kernel(KernelSource)} does.
     */
    public void build(KernelSource source) {
        program(source, "");
    }

    /**
     * {@code CL_KERNEL_WORK_GROUP_SIZE} of {@code source}'s kernel, built as {@link #build(KernelSource)} builds it
     * (through a kernel object released again: {@link ClKernel}s are made by the thread that launches them).
     */
    public int workGroupSize(KernelSource source) {
        cl_kernel k = clCreateKernel(program(source, ""), KernelSource.ENTRY, null);
        try {
            long[] size = new long[1];
            clGetKernelWorkGroupInfo(k, context.device().id, CL_KERNEL_WORK_GROUP_SIZE, Sizeof.size_t, Pointer.to(size), null);
            return (int) size[0];
        } finally {
            clReleaseKernel(k);
        }
    }

    /** The program of {@code source}: built here by the first thread that asks, waited for by the others. */
    private cl_program program(KernelSource source, String requested) {
        String options = quiet(requested);
        if (released) {
            throw new IllegalStateException("the program cache of " + context.device() + " is released");
        }
        String key = key(source.source(), options);
        CompletableFuture<cl_program> mine = new CompletableFuture<>();
        CompletableFuture<cl_program> f = built.putIfAbsent(key, mine);
        if (f == null) {
            try {
                cl_program p = build(source, options, key);
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

    private cl_program build(KernelSource source, String options, String key) {
        long t0 = System.nanoTime();
        boolean[] disk = new boolean[1];
        cl_program p = buildProgram(source, options, key, disk);
        long t = System.nanoTime() - t0;
        boolean fromDisk = disk[0];
        builds.add(new Build(source.label(), t0, t, fromDisk));
        if (LOG.isLoggable(Level.FINE)) {
            LOG.fine(String.format("aparapi: %s kernel '%s' in %.1f ms", fromDisk ? "loaded" : "compiled", source.label(), t * 1e-6));
        }
        return p;
    }

    /** Loads {@code source}'s program from the disk cache ({@code fromDisk[0]} set) or compiles it. */
    private cl_program buildProgram(KernelSource source, String options, String key, boolean[] fromDisk) {
        cl_device_id[] devices = {context.device().id};
        Path file = dir == null ? null : dir.resolve(key + ".bin");
        if (file != null && Files.isRegularFile(file)) {
            try {
                byte[] binary = Files.readAllBytes(file);
                int[] status = new int[1];
                cl_program p = clCreateProgramWithBinary(context.context, 1, devices, new long[] {binary.length},
                        new byte[][] {binary}, status, null);
                clBuildProgram(p, 1, devices, options, null, null);
                loaded.incrementAndGet();
                fromDisk[0] = true;
                return p;
            } catch (IOException | CLException stale) {
                // an unreadable or foreign binary: compile from source and overwrite it below
            }
        }
        cl_program p = clCreateProgramWithSource(context.context, 1, new String[] {source.source()},
                new long[] {source.source().length()}, null);
        try {
            clBuildProgram(p, 1, devices, options, null, null);
        } catch (CLException e) {
            String log = buildLog(p, devices[0]);
            clReleaseProgram(p);
            throw new BackendException("aparapi: building kernel '" + source.label() + "' failed on "
                    + context.device() + " (" + e.getMessage() + "); build log:\n" + log);
        }
        compiled.incrementAndGet();
        logWarnings(source, p, devices[0]);
        dumpSource(source, options);
        if (file != null) {
            store(p, file);
        }
        return p;
    }

    /** Writes {@code source} to {@link #SOURCE_DIR_PROPERTY}'s directory, when it is set. */
    private static void dumpSource(KernelSource source, String options) {
        String d = System.getProperty(SOURCE_DIR_PROPERTY);
        if (d == null || d.isBlank()) {
            return;
        }
        try {
            Path dir = Path.of(d.trim());
            Files.createDirectories(dir);
            String name = String.format("%03d-%s.cl", DUMPED.incrementAndGet(), source.label().replaceAll("[^A-Za-z0-9.=_-]+", "_"));
            String text = options.isEmpty() ? source.source() : "// options: " + options + "\n" + source.source();
            Files.writeString(dir.resolve(name), text);
        } catch (IOException | RuntimeException e) {
            LOG.fine("aparapi: could not write the source of '" + source.label() + "': " + e);
        }
    }

    /** Writes the program's binary atomically; a cache that cannot be written is simply not used. */
    private static void store(cl_program p, Path file) {
        try {
            long[] size = new long[1];
            clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, Sizeof.size_t, Pointer.to(size), null);
            if (size[0] <= 0) {
                return;
            }
            byte[] binary = new byte[(int) size[0]];
            clGetProgramInfo(p, CL_PROGRAM_BINARIES, Sizeof.POINTER, Pointer.to(new Pointer[] {Pointer.to(binary)}), null);
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
    private void logWarnings(KernelSource source, cl_program p, cl_device_id device) {
        if (LOG.isLoggable(Level.FINE)) {
            String log = buildLog(p, device).strip();
            if (!log.isEmpty()) {
                LOG.fine("aparapi: build log of kernel '" + source.label() + "' on " + context.device() + ":\n" + log);
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
        released = true;
        for (CompletableFuture<cl_program> f : built.values()) {
            if (!f.isDone()) {
                f.cancel(false);
            } else if (!f.isCompletedExceptionally()) {
                clReleaseProgram(f.join());
            }
        }
        built.clear();
    }
}
