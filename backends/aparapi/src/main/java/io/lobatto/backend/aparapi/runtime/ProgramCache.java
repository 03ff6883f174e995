package io.lobatto.backend.aparapi.runtime;

import static org.jocl.CL.CL_PROGRAM_BINARIES;
import static org.jocl.CL.CL_PROGRAM_BINARY_SIZES;
import static org.jocl.CL.CL_PROGRAM_BUILD_LOG;
import static org.jocl.CL.clBuildProgram;
import static org.jocl.CL.clCreateProgramWithBinary;
import static org.jocl.CL.clCreateProgramWithSource;
import static org.jocl.CL.clGetProgramBuildInfo;
import static org.jocl.CL.clGetProgramInfo;
import static org.jocl.CL.clReleaseProgram;

import io.lobatto.core.backend.BackendException;
import org.jocl.CLException;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_device_id;
import org.jocl.cl_program;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Built programs of one {@link ClContext}: in memory for the context's life, and on disk as the
 * device's program binaries, keyed by the SHA-256 of the source, the build options, the device name,
 * platform and driver version, so that a second run (or a CI rerun) does not compile again. The disk
 * cache lives in {@code LOBATTO_CACHE_DIR} (or {@code -Dlobatto.cache.dir}), else {@code ~/.cache/lobatto};
 * {@code none} switches it off. A build error throws with the kernel, the device and the build log.
 */
public final class ProgramCache {

    /** Environment variable naming the disk cache directory ({@code none}: no disk cache). */
    public static final String ENV = "LOBATTO_CACHE_DIR";
    /** System property naming the disk cache directory (wins over {@link #ENV}). */
    public static final String PROPERTY = "lobatto.cache.dir";

    private final ClContext context;
    private final Map<String, cl_program> built = new LinkedHashMap<>();
    private final Path dir;
    private int compiled;
    private int loaded;

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
    public synchronized int compiled() {
        return compiled;
    }

    /** Programs loaded from the disk cache so far. */
    public synchronized int loadedFromDisk() {
        return loaded;
    }

    /** A kernel object of {@code source}, from a program built once per context (and cached on disk). */
    public synchronized ClKernel kernel(KernelSource source) {
        return kernel(source, "");
    }

    /** {@link #kernel(KernelSource)} built with OpenCL compiler {@code options}. */
    public synchronized ClKernel kernel(KernelSource source, String options) {
        String key = key(source.source(), options);
        cl_program program = built.get(key);
        if (program == null) {
            program = build(source, options, key);
            built.put(key, program);
        }
        return new ClKernel(context, program, source);
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
        cl_device_id[] devices = {context.device().id};
        Path file = dir == null ? null : dir.resolve(key + ".bin");
        if (file != null && Files.isRegularFile(file)) {
            try {
                byte[] binary = Files.readAllBytes(file);
                int[] status = new int[1];
                cl_program p = clCreateProgramWithBinary(context.context, 1, devices, new long[] {binary.length},
                        new byte[][] {binary}, status, null);
                clBuildProgram(p, 1, devices, options, null, null);
                loaded++;
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
        compiled++;
        if (file != null) {
            store(p, file);
        }
        return p;
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

    synchronized void release() {
        for (cl_program p : built.values()) {
            clReleaseProgram(p);
        }
        built.clear();
    }
}
