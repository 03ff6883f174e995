package io.lobatto.conformance;

import java.util.concurrent.ConcurrentHashMap;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.Backends;

/**
 * One shared backend per name for a whole test JVM (creating an OpenCL backend compiles its kernels,
 * so suites share it), closed at JVM exit. The Java "cpu" backend is the reference.
 */
public final class BackendFixture {

    private static final ConcurrentHashMap<String, Backend> SHARED = new ConcurrentHashMap<>();

    private BackendFixture() {
    }

    /** The shared backend called {@code name}, created on first use through {@link Backends#create}. */
    public static Backend shared(String name) {
        return SHARED.computeIfAbsent(name, n -> {
            Backend b = Backends.create(n);
            Runtime.getRuntime().addShutdownHook(new Thread(b::close));
            return b;
        });
    }

    /** The reference backend (the Java backend). */
    public static Backend reference() {
        return shared("cpu");
    }
}
