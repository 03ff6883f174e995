package io.lobatto.backend.aparapi;

/** One Aparapi backend per test JVM whose element kernels all take the {@link ElementVariant#REGISTERS} structure. */
final class RegisterVariantBackend {

    private static AparapiBackend backend;

    private RegisterVariantBackend() {
    }

    static synchronized AparapiBackend get() {
        if (backend == null) {
            io.lobatto.backend.aparapi.conformance.AparapiFixture.backend(); // skips or fails without OpenCL
            backend = new AparapiBackend(OpenClDevices.select(OpenClDevices.configuredSelector()), Long.MAX_VALUE,
                    ElementVariant.REGISTERS);
            Runtime.getRuntime().addShutdownHook(new Thread(backend::close));
        }
        return backend;
    }
}
