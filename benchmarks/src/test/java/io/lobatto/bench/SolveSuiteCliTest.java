package io.lobatto.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code lobatto-bench solve} end to end at a tiny size on the CPU backend: rows, speedups, plots (not the speed). */
class SolveSuiteCliTest {

    @Test
    @SuppressWarnings("unchecked")
    void solveSuiteComparesPMultigridWithJacobiOnBothMeshes(@TempDir Path dir) throws Exception {
        int code = BenchCli.run("solve", "-b", "cpu", "-o", dir.toString(), "--commit", "abc123", "-e", "6", "--n-min", "2",
                "--n-max", "4", "--n-step", "2", "--solve-reps", "2");
        assertEquals(0, code);
        Path json = dir.resolve("solve-cpu.json");
        assertTrue(Files.exists(dir.resolve("solve-cpu.csv")));
        Map<String, Object> root = (Map<String, Object>) JsonReader.parse(Files.readString(json));
        assertEquals("solve", root.get("suite"));
        List<Map<String, Object>> rows = (List<Map<String, Object>>) root.get("rows");
        assertEquals(2 * 2 * 2, rows.size(), "2 meshes x 2 degrees x 2 preconditioners");
        for (Map<String, Object> r : rows) {
            assertEquals(Boolean.TRUE, r.get("converged"), String.valueOf(r));
            assertEquals(2, ((List<Object>) r.get("time_to_solution_samples_s")).size());
            double total = ((Number) r.get("time_to_solution_s")).doubleValue();
            double parts = ((Number) r.get("pc_setup_s")).doubleValue() + ((Number) r.get("solve_s")).doubleValue();
            assertEquals(parts, total, 1e-12 * total);
            if ("pmg".equals(r.get("pc"))) {
                assertTrue(r.containsKey("speedup_vs_jacobi") && r.containsKey("levels"), String.valueOf(r));
                List<Map<String, Object>> levels = (List<Map<String, Object>>) r.get("levels");
                assertEquals(((Number) r.get("N")).intValue(), ((Number) levels.get(0).get("N")).intValue());
                // the deformed cube is the main job's mesh (its target: <= 25); Kershaw's is harder (44 at N = 4)
                int limit = "deformed".equals(r.get("mesh")) ? 25 : 60;
                assertTrue(((Number) r.get("iterations")).intValue() <= limit, String.valueOf(r));
                // the same discrete problem: the max errors agree far below the discretisation error
                assertTrue(((Number) r.get("max_error_difference_vs_jacobi")).doubleValue() < 1e-8, String.valueOf(r));
            }
        }
        assertEquals(0, BenchCli.run("plot", json.toString()));
        assertEquals(1, BenchCli.run("solve", "-b", "cpu", "-o", dir.toString(), "-e", "8", "--meshes", "kershaw"),
                "Kershaw's cube needs K a multiple of 6");
        assertTrue(Files.size(dir.resolve("solve-cpu-iterations.png")) > 0 && Files.size(dir.resolve("solve-cpu-time.png")) > 0);
    }
}
