package io.lobatto.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.lobatto.core.backend.ElementKernel;

/** bk --kernels and bp --problems with the general user-operator path, on the cpu backend: rows, counts, selection. */
class PointwiseBenchTest {

    @Test
    void scalarGeneralRowsCountAsTheirSpecialisedKernels() {
        for (int n = 1; n <= 9; n++) {
            assertEquals(FlopCounts.bytesPerElement(ElementKernel.MASS_BP10, n), FlopCounts.bytesPerElement(PointwiseKernel.BK1_GENERAL, n), 1e-9);
            assertEquals(FlopCounts.bytesPerElement(ElementKernel.STIFFNESS_BP30, n), FlopCounts.bytesPerElement(PointwiseKernel.BK3_GENERAL, n), 1e-9);
            assertEquals(FlopCounts.bytesPerElement(ElementKernel.STIFFNESS_BP35, n), FlopCounts.bytesPerElement(PointwiseKernel.BK5_GENERAL, n), 1e-9);
            double np = Math.pow(n + 1, 3), ng = Math.pow(n + 2, 3);
            assertEquals(8 * (6 * np + ng), FlopCounts.bytesPerElement(PointwiseKernel.BK2, n), 1e-9);
            assertEquals(8 * (6 * np + 6 * ng), FlopCounts.bytesPerElement(PointwiseKernel.BK4, n), 1e-9);
            assertEquals(8 * 12 * np, FlopCounts.bytesPerElement(PointwiseKernel.BK6, n), 1e-9);
            assertEquals(3 * FlopCounts.flopsPerElement(ElementKernel.MASS_BP10, n), FlopCounts.flopsPerElement(PointwiseKernel.BK2, n), 1e-9);
        }
    }

    @Test
    void selection() {
        assertEquals(List.of("BK5", "BK5-general"), PointwiseKernel.select(List.of("bk5-general", "BK5"), KernelSuite.ALL, "--kernels"));
        assertEquals(KernelSuite.ALL, PointwiseKernel.select(List.of("all"), KernelSuite.ALL, "--kernels"));
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> PointwiseKernel.select(List.of("BK7"), KernelSuite.ALL, "--kernels"));
        assertTrue(ex.getMessage().contains("unknown name 'BK7'") && ex.getMessage().contains("BK6"), ex.getMessage());
    }

    @Test
    void unknownNameIsOneLineError() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        var cl = BenchCli.commandLine();
        cl.setErr(new java.io.PrintWriter(new PrintStream(err, true, StandardCharsets.UTF_8), true));
        assertEquals(1, cl.execute("bp", "-b", "cpu", "--problems", "BP9"));
        String[] lines = err.toString(StandardCharsets.UTF_8).strip().split("\\R");
        assertEquals(1, lines.length, err.toString(StandardCharsets.UTF_8));
        assertTrue(lines[0].startsWith("lobatto-bench: error: --problems: unknown name 'BP9'"), lines[0]);
    }

    @Test
    @SuppressWarnings("unchecked")
    void bkRunsTheGeneralPathBesideTheSpecialisedOne(@TempDir Path dir) throws Exception {
        assertEquals(0, BenchCli.run("bk", "-b", "cpu", "-o", dir.toString(), "--kernels", "BK5,BK5-general,BK2", "--dofs", "3000",
                "--n-min", "1", "--n-max", "2", "--reps", "2", "--max-bytes", "65536"));
        Map<String, Object> root = (Map<String, Object>) JsonReader.parse(Files.readString(dir.resolve("bk-cpu.json")));
        List<Map<String, Object>> rows = (List<Map<String, Object>>) root.get("rows");
        assertEquals(6, rows.size());
        for (Map<String, Object> r : rows) {
            String name = (String) r.get("benchmark");
            assertTrue(!r.containsKey("skipped"), String.valueOf(r));
            assertEquals(name.equals("BK5-general"), r.containsKey("general_over_specialised"), String.valueOf(r));
            int n = ((Number) r.get("N")).intValue(), e = ((Number) r.get("E")).intValue();
            int ncomp = name.equals("BK2") ? 3 : 1;
            assertEquals(ncomp, ((Number) r.get("components")).intValue());
            assertEquals((long) ncomp * e * (n + 1) * (n + 1) * (n + 1), ((Number) r.get("dofs")).longValue());
        }
        assertTrue(Files.readString(dir.resolve("bk-cpu.csv")).lines().findFirst().orElse("").contains("general_over_specialised"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void bpGeneralBp5IsTheSameSolveAsBp5(@TempDir Path dir) throws Exception {
        assertEquals(0, BenchCli.run("bp", "-b", "cpu", "-o", dir.toString(), "--problems", "BP5,BP5-general,BP6", "--dofs", "3000",
                "--n-min", "2", "--n-max", "2", "--reps", "3", "--iterations", "5", "--max-bytes", "65536"));
        Map<String, Object> root = (Map<String, Object>) JsonReader.parse(Files.readString(dir.resolve("bp-cpu.json")));
        List<Map<String, Object>> rows = (List<Map<String, Object>>) root.get("rows");
        assertEquals(List.of("BP5", "BP5-general", "BP6"), rows.stream().map(r -> r.get("problem")).toList());
        double r5 = ((Number) rows.get(0).get("final_residual")).doubleValue();
        double r5g = ((Number) rows.get(1).get("final_residual")).doubleValue();
        assertEquals(r5, r5g, 1e-8 * r5, "the same operator and right-hand side: the same CG residuals");
        Map<String, Object> bp6 = rows.get(2);
        assertEquals(3, ((Number) bp6.get("components")).intValue());
        assertEquals(3 * ((Number) bp6.get("N_G")).longValue(), ((Number) bp6.get("DOFs")).longValue());
        // hipBone's 108 N_G + 80 N_L for the scalar BP5
        Map<String, Object> bp5 = rows.get(0);
        assertEquals(108.0 * ((Number) bp5.get("N_G")).doubleValue() + 80.0 * ((Number) bp5.get("E")).doubleValue() * 27,
                ((Number) bp5.get("model_bytes_per_iteration")).doubleValue(), 1e-6);
    }
}
