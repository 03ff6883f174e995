package io.lobatto.backend.aparapi;

/** One Aparapi backend per test JVM whose element kernels all take the {@link ElementVariant#REGISTERS} structure. */
final class RegisterVariantBackend {

    private RegisterVariantBackend() {
    }

    static AparapiBackend get() {
        return VariantBackends.get(ElementVariant.REGISTERS);
    }
}
