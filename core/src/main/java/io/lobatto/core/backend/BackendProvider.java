package io.lobatto.core.backend;

/**
 * Service-provider interface through which {@link Backends} finds backends with
 * {@link java.util.ServiceLoader}. A backend module registers its provider in
 * {@code META-INF/services/io.lobatto.core.backend.BackendProvider}.
 *
 * <p>What each method may cost: the constructor, {@link #name()} and {@link #loadsNativeCode()} are cheap
 * and touch no native code, because {@link Backends} constructs and names every provider on the class
 * path. {@link #priority()}, {@link #unavailableReason()} and {@link #create()} may probe the machine
 * (load an OpenCL driver, for one). {@link Backends} calls them only on the provider that was asked for
 * by name, or, when no backend is named, in {@link Backends#best()}, where the providers that load native
 * code are probed after all the others. A native library loaded into a JVM can break it for good (an
 * OpenCL driver such as PoCL replaces the JVM's signal handlers), so a backend that was not asked for must
 * never load one.
 */
public interface BackendProvider {

    /** The name used by {@code LOBATTO_BACKEND} ("cpu", "aparapi", ...); cheap, touches no native code. */
    String name();

    /**
     * Whether {@link #priority()}, {@link #unavailableReason()} or {@link #create()} load native code (an
     * OpenCL library, a driver). Cheap, touches no native code. {@link Backends#best()} probes such
     * providers last. The default is {@code true}, so a provider that does not say is treated as native.
     */
    default boolean loadsNativeCode() {
        return true;
    }

    /**
     * How much {@link Backends#best()} prefers this backend right now: higher wins, negative means
     * unavailable. E.g. Aparapi on a GPU 100, Aparapi on a CPU OpenCL device 50, Java CPU 10. May probe the
     * machine (see {@link #loadsNativeCode()}).
     */
    int priority();

    /** Why this backend is unavailable (null or empty when available); may probe like {@link #priority()}. */
    String unavailableReason();

    /** Creates a backend; throws {@link BackendException} when it cannot. */
    Backend create();

    /**
     * How many devices of the kind {@link #create()} picks this backend can run on, for one device per MPI rank
     * ({@link Backends#forLocalRank}): the GPUs of the node for an OpenCL backend on GPUs, 1 for the Java backend. May
     * probe like {@link #priority()}. The default is 1.
     */
    default int deviceCount() {
        return 1;
    }

    /**
     * Creates a backend on device {@code device}, 0 &le; device &lt; {@link #deviceCount()} (in the order the backend
     * lists its devices). The default accepts only 0 and calls {@link #create()}.
     *
     * @throws IllegalArgumentException if {@code device} is out of range
     */
    default Backend create(int device) {
        if (device != 0) {
            throw new IllegalArgumentException("backend " + name() + " has one device; device " + device + " is out of range");
        }
        return create();
    }
}
