package io.lobatto.backend.aparapi.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.lobatto.backend.aparapi.kernels.MassBp10LineKernel;
import io.lobatto.backend.aparapi.kernels.StreamKernel;

/** The disk cache of Aparapi's translations: keyed by the class files, read back as written, ignored when broken. */
class TranslationCacheTest {

    @Test
    void theKeyFollowsTheClassFilesOfTheKernelAndItsSuperclasses() {
        String a = KernelSource.translationKey(StreamKernel.class);
        assertNotNull(a);
        assertEquals(a, KernelSource.translationKey(StreamKernel.class));
        assertEquals(64, a.length());
        assertNotEquals(a, KernelSource.translationKey(MassBp10LineKernel.class));
    }

    @Test
    void aSecondTranslationIsReadFromDiskAndEqualsAparapisOwn(@TempDir Path dir) throws Exception {
        String before = System.getProperty(ProgramCache.PROPERTY);
        System.setProperty(ProgramCache.PROPERTY, dir.toString());
        try {
            String first = KernelSource.translateCached(StreamKernel.class);
            Path translated = dir.resolve("translated");
            List<Path> files;
            try (Stream<Path> s = Files.list(translated)) {
                files = s.toList();
            }
            assertEquals(1, files.size(), "one cached translation: " + files);
            assertEquals(first, Files.readString(files.get(0)));
            // a file changed on disk is what the next translation returns: it is really read back
            Files.writeString(files.get(0), first + "\n// read from the cache\n");
            assertTrue(KernelSource.translateCached(StreamKernel.class).endsWith("// read from the cache\n"));
            // a cache folder that cannot be written (a file in its place) still translates
            Files.delete(files.get(0));
            Files.delete(translated);
            Files.writeString(translated, "not a folder");
            assertEquals(first, KernelSource.translateCached(StreamKernel.class));
        } finally {
            if (before == null) {
                System.clearProperty(ProgramCache.PROPERTY);
            } else {
                System.setProperty(ProgramCache.PROPERTY, before);
            }
        }
    }
}
