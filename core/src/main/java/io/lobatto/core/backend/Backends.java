package io.lobatto.core.backend;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Finds backends on the class path ({@link ServiceLoader} over {@link BackendProvider}) and picks one.
 * {@link #best()} takes the available provider of highest priority (Aparapi on a GPU, else the Java
 * backend; a CPU OpenCL device such as PoCL only when the backend is named, since it is for CI and for
 * testing kernels, not for speed) unless {@code LOBATTO_BACKEND} (environment) or {@code lobatto.backend}
 * (system property, which wins) names one. A provider that reports itself available but fails to start
 * is skipped with one log line saying why, and the next one is tried.
 *
 * <p>Only the backend that is asked for is probed: {@link #create(String)} (and {@link #best()} with a
 * backend named) calls nothing but {@link BackendProvider#name()} on the other providers, so naming
 * {@code cpu} loads no OpenCL library. {@link #best()} with no backend named probes every provider, those
 * that load native code ({@link BackendProvider#loadsNativeCode()}) last.
 */
public final class Backends {

    /** Environment variable that forces a backend by name. */
    public static final String ENV = "LOBATTO_BACKEND";
    /** System property that forces a backend by name (wins over {@link #ENV}). */
    public static final String PROPERTY = "lobatto.backend";

    private static final System.Logger LOG = System.getLogger(Backends.class.getName());

    private Backends() {
    }

    /**
     * All providers found on the class path, in class-path order. Constructs them and probes none of them:
     * calling {@link BackendProvider#priority()} on each is the caller's choice (and may load native code).
     */
    public static List<BackendProvider> providers() {
        List<BackendProvider> list = new ArrayList<>();
        ServiceLoader.load(BackendProvider.class).forEach(list::add);
        return list;
    }

    /** The provider named {@code name} (case-insensitive), probing none: only {@code name()} is called. */
    public static Optional<BackendProvider> provider(String name) {
        return providers().stream().filter(p -> p.name().equalsIgnoreCase(name)).findFirst();
    }

    /** The backend name forced by the system property or environment, or null. */
    public static String forcedName() {
        String name = System.getProperty(PROPERTY);
        if (name == null || name.isBlank()) {
            name = System.getenv(ENV);
        }
        return name == null || name.isBlank() ? null : name.trim().toLowerCase(Locale.ROOT);
    }

    /**
     * Creates the backend named {@code name}, probing no other provider; throws with the list of known
     * names when there is none, or with the provider's own error when it cannot start. A named backend is
     * created even when {@link #best()} would pass it over (an OpenCL backend on a CPU device).
     */
    public static Backend create(String name) {
        List<BackendProvider> all = providers();
        for (BackendProvider p : all) {
            if (p.name().equalsIgnoreCase(name)) {
                return p.create();
            }
        }
        throw new BackendException("no backend named '" + name + "' on the class path; found "
                + all.stream().map(BackendProvider::name).toList());
    }

    /**
     * The forced backend if {@code LOBATTO_BACKEND}/{@code lobatto.backend} is set (only that provider is
     * probed), else the available backend of highest priority: the providers that load no native code are
     * probed first, the others (OpenCL) after them; on equal priority the one probed first wins.
     * {@link #describe(Backend)} says which one was picked.
     */
    public static Backend best() {
        String forced = forcedName();
        if (forced != null) {
            return create(forced);
        }
        return createFirst(p -> p.create());
    }

    /** Creates a backend with the first available provider, in the order {@link #best()} tries them. */
    private static Backend createFirst(java.util.function.Function<BackendProvider, Backend> factory) {
        List<BackendProvider> order = new ArrayList<>();
        List<BackendProvider> all = providers();
        all.stream().filter(p -> !p.loadsNativeCode()).forEach(order::add);
        all.stream().filter(BackendProvider::loadsNativeCode).forEach(order::add);
        List<String> skipped = new ArrayList<>();
        List<BackendProvider> available = new ArrayList<>();
        List<Integer> priorities = new ArrayList<>();
        for (BackendProvider p : order) {
            int priority = p.priority();
            if (priority < 0) {
                skipped.add(p.name() + ": " + p.unavailableReason());
            } else {
                int at = 0;
                while (at < priorities.size() && priorities.get(at) >= priority) {
                    at++;
                }
                available.add(at, p);
                priorities.add(at, priority);
            }
        }
        for (BackendProvider p : available) {
            try {
                return factory.apply(p);
            } catch (RuntimeException | LinkageError e) {
                String why = p.name() + " could not start: " + e.getMessage();
                skipped.add(why);
                LOG.log(System.Logger.Level.INFO, "lobatto: backend " + why + "; trying the next one");
            }
        }
        throw new BackendException("no backend available on the class path (add io.lobatto:lobatto-backend-cpu, the Java "
                + "backend, as a dependency)" + (skipped.isEmpty() ? "" : "; " + skipped));
    }

    /**
     * The backend for one rank of a distributed solve whose ranks on this node are numbered {@code localRank} = 0, 1,
     * ... (Open MPI's {@code OMPI_COMM_WORLD_LOCAL_RANK}): the backend {@link #best()} would pick (or the one forced by
     * name), on device {@code localRank mod deviceCount()}, so each rank of a node takes its own GPU and ranks beyond
     * the GPU count share them round-robin (two ranks on one GPU, or on PoCL, for testing). A device selected by name
     * for the backend itself (e.g. {@code LOBATTO_OPENCL_DEVICE}) makes deviceCount 1, so every rank takes it.
     *
     * @throws IllegalArgumentException if {@code localRank < 0}
     */
    public static Backend forLocalRank(int localRank) {
        return forLocalRank(null, localRank);
    }

    /**
     * {@link #forLocalRank(int)} with the backend named {@code name} (case-insensitive; null: the forced one, else the
     * best).
     */
    public static Backend forLocalRank(String name, int localRank) {
        if (localRank < 0) {
            throw new IllegalArgumentException("local rank " + localRank + " must be >= 0");
        }
        String forced = name != null && !name.isBlank() ? name.trim().toLowerCase(Locale.ROOT) : forcedName();
        if (forced != null) {
            BackendProvider p = provider(forced).orElseThrow(() -> new BackendException("no backend named '" + forced
                    + "' on the class path; found " + providers().stream().map(BackendProvider::name).toList()));
            return p.create(localRank % Math.max(1, p.deviceCount()));
        }
        return createFirst(p -> p.create(localRank % Math.max(1, p.deviceCount())));
    }

    /** One line saying which backend and device run, e.g. for a program's first output. */
    public static String describe(Backend backend) {
        return "backend " + backend.name() + " on " + backend.device();
    }
}
