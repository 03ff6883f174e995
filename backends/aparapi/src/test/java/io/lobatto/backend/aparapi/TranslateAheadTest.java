package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.runtime.KernelSource;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link AparapiBackend#translateAhead()}: one thread per JVM translates every listed kernel class (no device needed), and
 * a source made afterwards from a translated class is the source {@link KernelSource#of} makes (the translation is only
 * made earlier, not changed).
 */
class TranslateAheadTest {

    @Test
    void translatesEveryListedClassOnce() throws InterruptedException {
        Thread t = AparapiBackend.translateAhead();
        assertSame(t, AparapiBackend.translateAhead(), "a second call starts no second thread");
        t.join(120_000);
        assertTrue(!t.isAlive(), "the translation ahead ended within 2 minutes");
        assertEquals(19, AparapiBackend.TRANSLATED_AHEAD.size());
        for (Class<? extends com.aparapi.Kernel> c : AparapiBackend.TRANSLATED_AHEAD) {
            assertTrue(KernelSource.translated(c), c.getSimpleName() + " translated ahead");
        }
        KernelSource chebyshev = KernelBuilds.chebyshev().source();
        assertEquals(KernelSource.of(io.lobatto.backend.aparapi.kernels.ChebyshevKernel.class, Map.of(), "chebyshevStep"),
                chebyshev, "the Chebyshev step's source from the translation made ahead");
    }
}
