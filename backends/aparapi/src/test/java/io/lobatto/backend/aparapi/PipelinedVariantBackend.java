package io.lobatto.backend.aparapi;

/**
 * One Aparapi backend per test JVM whose BP3.0 and BP3.5 kernels take the {@link ElementVariant#PIPELINED} structure
 * (BP1.0 the register one), on the device's whole local memory.
 */
final class PipelinedVariantBackend {

    private static AparapiBackend backend;

    private PipelinedVariantBackend() {
    }

    static synchronized AparapiBackend get() {
        if (backend == null) {
            io.lobatto.backend.aparapi.conformance.AparapiFixture.backend(); // skips or fails without OpenCL
            backend = new AparapiBackend(OpenClDevices.select(OpenClDevices.configuredSelector()), Long.MAX_VALUE,
                    ElementVariant.PIPELINED);
            Runtime.getRuntime().addShutdownHook(new Thread(backend::close));
        }
        return backend;
    }
}
