package io.lobatto.core.backend;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;

/**
 * Finds backends on the class path ({@link ServiceLoader} over {@link BackendProvider}) and picks one.
 * {@link #best()} takes the available provider of highest priority (Aparapi on a GPU, then Aparapi on a
 * CPU OpenCL device, then the Java backend) unless {@code LOBATTO_BACKEND} (environment) or
 * {@code lobatto.backend} (system property, which wins) names one.
 */
public final class Backends {

    /** Environment variable that forces a backend by name. */
    public static final String ENV = "LOBATTO_BACKEND";
    /** System property that forces a backend by name (wins over {@link #ENV}). */
    public static final String PROPERTY = "lobatto.backend";

    private Backends() {
    }

    /** All providers found on the class path, highest priority first. */
    public static List<BackendProvider> providers() {
        List<BackendProvider> list = new ArrayList<>();
        ServiceLoader.load(BackendProvider.class).forEach(list::add);
        list.sort(Comparator.comparingInt(BackendProvider::priority).reversed());
        return list;
    }

    /** The backend name forced by the system property or environment, or null. */
    public static String forcedName() {
        String name = System.getProperty(PROPERTY);
        if (name == null || name.isBlank()) {
            name = System.getenv(ENV);
        }
        return name == null || name.isBlank() ? null : name.trim().toLowerCase(Locale.ROOT);
    }

    /** Creates the backend named {@code name}; throws with the list of known names when there is none. */
    public static Backend create(String name) {
        List<BackendProvider> all = providers();
        for (BackendProvider p : all) {
            if (p.name().equalsIgnoreCase(name)) {
                if (p.priority() < 0) {
                    throw new BackendException("backend '" + name + "' is unavailable: " + p.unavailableReason());
                }
                return p.create();
            }
        }
        throw new BackendException("no backend named '" + name + "' on the class path; found "
                + all.stream().map(BackendProvider::name).toList());
    }

    /**
     * The forced backend if {@code LOBATTO_BACKEND}/{@code lobatto.backend} is set, else the available
     * backend of highest priority. {@link #describe(Backend)} says which one was picked.
     */
    public static Backend best() {
        String forced = forcedName();
        if (forced != null) {
            return create(forced);
        }
        List<String> skipped = new ArrayList<>();
        for (BackendProvider p : providers()) {
            if (p.priority() < 0) {
                skipped.add(p.name() + ": " + p.unavailableReason());
                continue;
            }
            return p.create();
        }
        throw new BackendException("no backend available on the class path" + (skipped.isEmpty() ? "" : "; " + skipped));
    }

    /** One line saying which backend and device run, e.g. for a program's first output. */
    public static String describe(Backend backend) {
        return "backend " + backend.name() + " on " + backend.device();
    }
}
