package io.lobatto.backend.aparapi;

import java.util.EnumMap;
import java.util.Map;

/**
 * One Aparapi backend per test JVM and {@link ElementVariant}, on the device's whole local memory, whose element kernels
 * take that structure where it has a plan (else the next one down, as {@link ElementPlan#of} chooses); closed at exit.
 */
final class VariantBackends {

    private static final Map<ElementVariant, AparapiBackend> BACKENDS = new EnumMap<>(ElementVariant.class);

    private VariantBackends() {
    }

    static synchronized AparapiBackend get(ElementVariant variant) {
        AparapiBackend b = BACKENDS.get(variant);
        if (b == null) {
            io.lobatto.backend.aparapi.conformance.AparapiFixture.backend(); // skips or fails without OpenCL
            b = new AparapiBackend(OpenClDevices.select(OpenClDevices.configuredSelector()), Long.MAX_VALUE, variant);
            Runtime.getRuntime().addShutdownHook(new Thread(b::close));
            BACKENDS.put(variant, b);
        }
        return b;
    }
}
