package io.lobatto.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code source-probe}: its text edits (a kernel-scope local array, {@code const restrict} read-only buffers, a part it
 * does not know named), and a run on the first OpenCL device (PoCL in CI) where every variant of BP3.5 at N = 3 and the
 * on-the-fly kernel at N = 2, read through the ids, gives the reference's y exactly and writes its source.
 */
class SourceProbeTest {

    private static final String SOURCE = "typedef struct This_s{\n   __global double *G00;\n   __global int *ids;\n}This;\n"
            + "__kernel void run(\n   __global double *G00, \n   __local double *lds, \n   __global int *ids, \n   int passid\n){\n"
            + "   this->lds = lds;\n}\n";

    @Test
    void theTextEdits() {
        String both = SourceProbe.transform(SOURCE, "static+nc+u2", 800);
        assertTrue(both.contains("__local double lds_s[100];\n   this->lds = lds_s;"), both);
        assertTrue(both.contains("__global const double * restrict G00;"), both);
        assertTrue(both.contains("__global const double * restrict G00,"), both);
        assertTrue(both.contains("__global const int * restrict ids;"), both);
        assertEquals(SOURCE, SourceProbe.transform(SOURCE, "base", 800));
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> SourceProbe.transform(SOURCE, "base+fast", 8));
        assertEquals("source-probe: variant part 'fast' is not one of base, uN, ucompiler, static, nc, nofactors, nou, nobar",
                ex.getMessage());
    }

    /** The bounds' edits: reads of the factors, u and the ids replaced (nested indices included), writes and the rest kept. */
    @Test
    void theBoundsEdits() {
        String k = "   double g = this->G00[(e + this->ids[li])];\n   this->G01[i] = 2.0;\n   double u = this->x[this->ids[i]];\n"
                + "   if (this->G11[i]==0) {}\n   barrier(CLK_LOCAL_MEM_FENCE);\n   double v = this->xs[i];\n";
        assertEquals("   double g = (0.5 + (double)(((e + this->ids[li])) & 7));\n   this->G01[i] = 2.0;\n"
                + "   double u = this->x[this->ids[i]];\n   if ((0.5 + (double)((i) & 7))==0) {}\n   barrier(CLK_LOCAL_MEM_FENCE);\n"
                + "   double v = this->xs[i];\n", SourceProbe.transform(k, "nofactors", 8));
        assertEquals("   double g = this->G00[(e + (li))];\n   this->G01[i] = 2.0;\n   double u = (0.25 + (double)(((i)) & 7));\n"
                + "   if (this->G11[i]==0) {}\n   barrier(CLK_LOCAL_MEM_FENCE);\n   double v = this->xs[i];\n",
                SourceProbe.transform(k, "nou", 8));
        assertTrue(!SourceProbe.transform(k, "nobar", 8).contains("barrier("));
    }

    @Test
    void everyVariantGivesTheReferencesY(@TempDir Path dir) throws Exception {
        boolean required = "1".equals(System.getenv("LOBATTO_REQUIRE_OPENCL"));
        Assumptions.assumeTrue(required || !io.lobatto.backend.aparapi.OpenClDevices.list().isEmpty(), "no OpenCL device");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<String> variants = List.of("base", "u1", "static+nc");
        int rc = SourceProbe.run("", List.of(3), List.of(2), variants, 1, 3000, 1, 1, dir,
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, out);
        for (String kernel : new String[] {"stored-N3", "onthefly-N2"}) {
            for (String v : variants) {
                List<String> lines = out.lines().filter(l -> l.startsWith(kernel + " ") && l.contains(" " + v + " ")).toList();
                assertEquals(1, lines.size(), kernel + " " + v + ":\n" + out);
                String line = lines.get(0);
                assertTrue(v.equals("base") ? line.endsWith("reference")
                        : line.contains("y within 0.0e+00 of ") && !line.endsWith("of 0.0e+00"), line);
                assertTrue(Files.readString(dir.resolve(kernel + "-" + v + ".cl")).contains("__kernel"), kernel + " " + v);
            }
        }
        assertTrue(Files.readString(dir.resolve("stored-N3-u1.cl")).contains("#pragma unroll 1"));
    }
}
