package io.lobatto.core.backend;

/**
 * Service-provider interface through which {@link Backends} finds backends with
 * {@link java.util.ServiceLoader}. A backend module registers its provider in
 * {@code META-INF/services/io.lobatto.core.backend.BackendProvider}.
 */
public interface BackendProvider {

    /** The name used by {@code LOBATTO_BACKEND} ("cpu", "aparapi", ...). */
    String name();

    /**
     * How much {@link Backends#best()} prefers this backend right now: higher wins, negative means
     * unavailable. E.g. Aparapi on a GPU 100, Aparapi on a CPU OpenCL device 50, Java CPU 10.
     */
    int priority();

    /** Why this backend is unavailable (null or empty when available). */
    String unavailableReason();

    /** Creates a backend; throws {@link BackendException} when it cannot. */
    Backend create();
}
