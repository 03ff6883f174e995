package io.lobatto.backend.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/** The committed {@code TensorBlockN*.java} are what {@link TensorBlockGenerator} writes. */
class TensorBlockGeneratorTest {

    @Test
    void generatedSourcesAreUpToDate() throws IOException {
        Path dir = Path.of("src/main/java/io/lobatto/backend/cpu");
        for (int degree = 1; degree <= TensorBlockGenerator.MAX_DEGREE; degree++) {
            Path file = dir.resolve(TensorBlockGenerator.className(degree) + ".java");
            assertEquals(TensorBlockGenerator.source(degree), Files.readString(file, StandardCharsets.UTF_8),
                    file + " is stale: run TensorBlockGenerator with the source folder to regenerate it");
        }
    }
}
