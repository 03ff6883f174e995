package io.lobatto.backend.aparapi;

/**
 * One Aparapi backend per test JVM whose BP3.0 and BP3.5 kernels take the {@link ElementVariant#PIPELINED} structure
 * (BP1.0 the register one), on the device's whole local memory.
 */
final class PipelinedVariantBackend {

    private PipelinedVariantBackend() {
    }

    static AparapiBackend get() {
        return VariantBackends.get(ElementVariant.PIPELINED);
    }
}
