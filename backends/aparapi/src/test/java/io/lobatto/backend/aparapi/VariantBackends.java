package io.lobatto.backend.aparapi;

import java.util.HashMap;
import java.util.Map;

/**
 * One Aparapi backend per test JVM, {@link ElementVariant} and local-memory limit, whose element kernels take that
 * structure where it has a plan (else the next one down, as {@link ElementPlan#of} chooses); closed at exit.
 */
final class VariantBackends {

    /** The local memory of NVIDIA GPUs per group, which the variants are planned for on the H100. */
    static final long NVIDIA_LOCAL = 48 * 1024;

    private static final Map<String, AparapiBackend> BACKENDS = new HashMap<>();

    private VariantBackends() {
    }

    /** On the device's whole local memory. */
    static AparapiBackend get(ElementVariant variant) {
        return get(variant, Long.MAX_VALUE);
    }

    /** Planned for the 48 KiB of local memory of NVIDIA GPUs. */
    static AparapiBackend at48KiB(ElementVariant variant) {
        return get(variant, NVIDIA_LOCAL);
    }

    private static synchronized AparapiBackend get(ElementVariant variant, long localMemBytes) {
        io.lobatto.backend.aparapi.conformance.AparapiFixture.backend(); // skips or fails without OpenCL
        return BACKENDS.computeIfAbsent(variant + "/" + localMemBytes, k -> {
            AparapiBackend b = new AparapiBackend(OpenClDevices.select(OpenClDevices.configuredSelector()), localMemBytes,
                    variant);
            Runtime.getRuntime().addShutdownHook(new Thread(b::close));
            return b;
        });
    }
}
