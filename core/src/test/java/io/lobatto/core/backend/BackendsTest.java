package io.lobatto.core.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Only the backend asked for is probed (probing loads native drivers such as PoCL), and {@link Backends#best()} probes
 * native providers last.
 */
class BackendsTest {

    /** Names of the providers whose priority/unavailableReason/create ran, in order. */
    static final List<String> PROBED = new ArrayList<>();

    /** A pure-Java provider (registered in this module's test resources). */
    public static final class JavaProvider implements BackendProvider {
        @Override public String name() { return "test-java"; }
        @Override public boolean loadsNativeCode() { return false; }
        @Override public int priority() { PROBED.add(name()); return 10; }
        @Override public String unavailableReason() { PROBED.add(name()); return null; }
        @Override public Backend create() { PROBED.add(name() + " created"); return null; }
    }

    /** A provider that would load native code (the default of {@link BackendProvider#loadsNativeCode()}). */
    public static final class NativeProvider implements BackendProvider {
        @Override public String name() { return "test-native"; }
        @Override public int priority() { PROBED.add(name()); return 50; }
        @Override public String unavailableReason() { PROBED.add(name()); return null; }
        @Override public Backend create() { PROBED.add(name() + " created"); return null; }
    }

    /** A provider that reports itself available, with the highest priority, but cannot start. */
    public static final class BrokenProvider implements BackendProvider {
        @Override public String name() { return "test-broken"; }
        @Override public int priority() { PROBED.add(name()); return 90; }
        @Override public String unavailableReason() { PROBED.add(name()); return null; }
        @Override public Backend create() {
            PROBED.add(name() + " failed");
            throw new BackendException("test-broken: no device today");
        }
    }

    @BeforeEach
    void clear() {
        PROBED.clear();
    }

    @Test
    void namingAndListingProbeNothingElse() {
        assertEquals(List.of("test-broken", "test-java", "test-native"),
                Backends.providers().stream().map(BackendProvider::name).sorted().toList());
        assertTrue(Backends.provider("TEST-NATIVE").isPresent());
        assertTrue(Backends.provider("none").isEmpty());
        assertEquals(List.of(), PROBED);
        assertNull(Backends.create("test-java"));
        assertEquals(List.of("test-java created"), PROBED);
        PROBED.clear();
        BackendException e = assertThrows(BackendException.class, () -> Backends.create("none"));
        assertTrue(e.getMessage().contains("test-java") && e.getMessage().contains("test-native"), e.getMessage());
        assertEquals(List.of(), PROBED);
        PROBED.clear();
        BackendException broken = assertThrows(BackendException.class, () -> Backends.create("test-broken"));
        assertEquals("test-broken: no device today", broken.getMessage());
    }

    @Test
    void bestProbesNativeProvidersLastAndMovesOnWhenTheBestCannotStart() {
        Assumptions.assumeTrue(Backends.forcedName() == null, "a backend is forced in this environment");
        assertNull(Backends.best());
        assertEquals("test-java", PROBED.get(0), "pure-Java providers are probed first: " + PROBED);
        assertTrue(PROBED.subList(1, 3).containsAll(List.of("test-native", "test-broken")), PROBED.toString());
        assertEquals(List.of("test-broken failed", "test-native created"), PROBED.subList(3, PROBED.size()),
                "the highest priority is tried first, and a failure moves on to the next");
    }

    @Test
    void poclWithoutLibjsigIsUnsafe(@TempDir Path dir) throws IOException {
        Path maps = Files.writeString(dir.resolve("maps"), "7f00 r-xp /usr/lib/jvm/x/lib/server/libjvm.so\n");
        Path pocl = Files.writeString(dir.resolve("pocl.icd"), "libpocl.so.2\n");
        Path nvidia = Files.writeString(dir.resolve("nvidia.icd"), "libnvidia-opencl.so.1\n");
        String reason = JvmSignals.unsafeReason(maps, List.of(nvidia, pocl));
        assertTrue(reason != null && reason.contains("LD_PRELOAD=") && reason.contains("libjsig.so")
                && !reason.contains("\n"), reason);
        assertNull(JvmSignals.unsafeReason(maps, List.of(nvidia)));
        Path jsig = Files.writeString(dir.resolve("maps2"), "7f00 r-xp /usr/lib/jvm/x/lib/libjsig.so\n");
        assertNull(JvmSignals.unsafeReason(jsig, List.of(nvidia, pocl)));
        assertNull(JvmSignals.unsafeReason(dir.resolve("no-such-maps"), List.of(pocl)));
    }
}
