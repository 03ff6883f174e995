package io.lobatto.backend.aparapi;

/** One Aparapi backend per test JVM whose element kernels all take the {@link ElementVariant#SHARED} structure. */
final class SharedVariantBackend {

    private SharedVariantBackend() {
    }

    static AparapiBackend get() {
        return VariantBackends.get(ElementVariant.SHARED);
    }
}
