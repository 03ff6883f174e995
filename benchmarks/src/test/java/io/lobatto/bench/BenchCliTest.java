package io.lobatto.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A tiny end-to-end run of every suite on the CPU backend: the output format, not the speed. */
class BenchCliTest {

    @Test
    @SuppressWarnings("unchecked")
    void allSuitesWriteWellFormedJsonAndCsv(@TempDir Path dir) throws Exception {
        int code = BenchCli.run("all", "-b", "cpu", "-o", dir.toString(), "--commit", "abc123", "--max-bytes", "65536",
                "--gs-nodes", "3000", "--dofs", "3000", "--n-min", "1", "--n-max", "2", "--reps", "2", "--iterations", "3");
        assertEquals(0, code);
        for (String suite : new String[] {"bs", "bk", "bp", "nekbone", "op"}) {
            Path json = dir.resolve(suite + "-cpu.json");
            assertTrue(Files.exists(json) && Files.exists(dir.resolve(suite + "-cpu.csv")), suite);
            Map<String, Object> root = (Map<String, Object>) JsonReader.parse(Files.readString(json));
            assertEquals(suite, root.get("suite"));
            assertEquals("abc123", root.get("commit"));
            assertEquals("cpu", root.get("backend"));
            assertTrue(((Number) root.get("referenceBandwidth_GBs")).doubleValue() > 0, suite);
            List<Map<String, Object>> rows = (List<Map<String, Object>>) root.get("rows");
            assertTrue(!rows.isEmpty(), suite);
            switch (suite) {
                case "bs" -> {
                    assertEquals(5, rows.stream().filter(r -> r.containsKey("fit")).count(), "one fit per BS1-BS5");
                    for (Map<String, Object> r : rows) {
                        if (r.containsKey("fit")) {
                            boolean ok = (Boolean) r.get("fit_ok");
                            // a rejected fit says why; an accepted one has R^2 >= 0.95 (NaN R^2 is written as null)
                            assertEquals(ok, r.get("fit_problem") == null, String.valueOf(r));
                            assertTrue(!ok || ((Number) r.get("r2")).doubleValue() >= ModelFit.MIN_R2, String.valueOf(r));
                        } else if (!r.containsKey("N")) {
                            // the Java backend has no raw OpenCL equivalent: said so on every row
                            assertTrue(String.valueOf(r.get("raw")).startsWith("none"), String.valueOf(r));
                            String test = (String) r.get("test");
                            int launches = ((Number) r.get("launches_per_sample")).intValue();
                            assertTrue(test.startsWith("BS1") || test.startsWith("BS2") ? launches >= 10 : launches == 1, String.valueOf(r));
                        }
                    }
                    assertEquals(14, rows.stream().filter(r -> r.containsKey("N")).count(), "BS6 and BS7 for N = 1..7");
                }
                case "bk" -> {
                    assertEquals(6, rows.size(), "3 kernels x 2 degrees");
                    for (Map<String, Object> r : rows) {
                        double ratio = ((Number) r.get("ratio_to_roofline")).doubleValue();
                        double gflops = ((Number) r.get("GFLOPS")).doubleValue();
                        double roof = ((Number) r.get("roofline_GFLOPS")).doubleValue();
                        assertEquals(gflops / roof, ratio, 1e-9 * ratio);
                        assertEquals(2, ((List<Object>) r.get("samples_s")).size());
                    }
                }
                case "bp" -> assertEquals(6, rows.size(), "BP1, BP3, BP5 x 2 degrees");
                case "op" -> assertOpRows(rows, 2);
                default -> assertTrue(rows.stream().allMatch(r -> ((Number) r.get("FOM_GFLOPS")).doubleValue() > 0));
            }
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void opSuiteTimesTheAssembledApplyOnTheCpuBackend(@TempDir Path dir) throws Exception {
        assertEquals(0, BenchCli.run("op", "-b", "cpu", "-o", dir.toString(), "--commit", "abc123", "--dofs", "2000",
                "--n-min", "1", "--n-max", "3", "--reps", "2", "--max-bytes", "65536"));
        Map<String, Object> root = (Map<String, Object>) JsonReader.parse(Files.readString(dir.resolve("op-cpu.json")));
        assertEquals("op", root.get("suite"));
        assertEquals("abc123", root.get("commit"));
        assertTrue(String.valueOf(root.get("device")).startsWith("Java"), String.valueOf(root.get("device")));
        assertOpRows((List<Map<String, Object>>) root.get("rows"), 3);
    }

    @SuppressWarnings("unchecked")
    private static void assertOpRows(List<Map<String, Object>> rows, int degrees) {
        assertEquals(3 * degrees, rows.size(), "BP1, BP3, BP5 per degree");
        for (Map<String, Object> r : rows) {
            assertTrue(List.of("BP1", "BP3", "BP5").contains(r.get("problem")), String.valueOf(r));
            assertTrue(!r.containsKey("skipped"), String.valueOf(r));
            int n = ((Number) r.get("N")).intValue();
            long k = ((Number) r.get("K")).longValue();
            assertEquals(k * k * k, ((Number) r.get("elements")).longValue());
            // no mask: every node of the (K N + 1)^3 grid is a DOF
            assertEquals((k * n + 1) * (k * n + 1) * (k * n + 1), ((Number) r.get("N_G")).longValue());
            double t = ((Number) r.get("seconds_per_apply")).doubleValue();
            assertTrue(t > 0, String.valueOf(r));
            assertEquals(((Number) r.get("N_G")).doubleValue() / t * 1e-9, ((Number) r.get("GDOF_per_s")).doubleValue(), 1e-12);
            assertEquals(2, ((List<Object>) r.get("samples_s")).size());
            // the spread of the samples, and CG's call (updateApplyDot) timed beside the apply
            double min = ((Number) r.get("min_s")).doubleValue(), max = ((Number) r.get("max_s")).doubleValue();
            assertTrue(min <= t && t <= max, String.valueOf(r));
            assertEquals((max - min) / t, ((Number) r.get("relative_spread")).doubleValue(), 1e-12);
            double ng = ((Number) r.get("N_G")).doubleValue();
            assertEquals(ng / min * 1e-9, ((Number) r.get("best_GDOF_per_s")).doubleValue(), 1e-12);
            assertEquals(ng / max * 1e-9, ((Number) r.get("worst_GDOF_per_s")).doubleValue(), 1e-12);
            List<Object> samples = (List<Object>) r.get("samples_s");
            assertEquals(min, samples.stream().mapToDouble(v -> ((Number) v).doubleValue()).min().orElseThrow(), 0.0);
            assertEquals(max, samples.stream().mapToDouble(v -> ((Number) v).doubleValue()).max().orElseThrow(), 0.0);
            double tc = ((Number) r.get("cg_seconds_per_call")).doubleValue();
            assertTrue(tc > 0, String.valueOf(r));
            assertEquals(((Number) r.get("N_G")).doubleValue() / tc * 1e-9, ((Number) r.get("cg_GDOF_per_s")).doubleValue(), 1e-12);
            assertEquals(2, ((List<Object>) r.get("cg_samples_s")).size());
            assertTrue(((Number) r.get("cg_relative_spread")).doubleValue() >= 0, String.valueOf(r));
            assertEquals(ng / ((Number) r.get("cg_max_s")).doubleValue() * 1e-9, ((Number) r.get("cg_worst_GDOF_per_s")).doubleValue(),
                    1e-12);
            assertTrue(((Number) r.get("warmup_s")).doubleValue() >= Timing.WARMUP_SECONDS, String.valueOf(r));
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void onOpenClTheReferenceIsTheRawOpenClCopy(@TempDir Path dir) throws Exception {
        assumeOpenCl();
        assertEquals(0, BenchCli.run("bs", "-b", "aparapi", "-o", dir.toString(), "--max-bytes", "65536", "--gs-nodes", "2000",
                "--reps", "2"));
        Map<String, Object> root = (Map<String, Object>) JsonReader.parse(Files.readString(dir.resolve("bs-aparapi.json")));
        assertEquals("raw-opencl-copy", root.get("reference"), "JOCL copy kernel on the backend's device");
        assertTrue(String.valueOf(root.get("driver")).contains("OpenCL"), String.valueOf(root.get("driver")));
        assertTrue(((Number) root.get("referenceBandwidth_GBs")).doubleValue() > 0);
        // the raw-JOCL equivalents sit next to the backend rows of BS1-BS4, with the ratio
        for (Map<String, Object> r : (List<Map<String, Object>>) root.get("rows")) {
            String test = String.valueOf(r.get("test"));
            if (r.containsKey("N") || r.containsKey("fit") || test.startsWith("BS5")) {
                continue;
            }
            double raw = ((Number) r.get("raw_median_s")).doubleValue();
            assertTrue(raw > 0, String.valueOf(r));
            assertEquals(((Number) r.get("median_s")).doubleValue() / raw, ((Number) r.get("time_over_raw")).doubleValue(), 1e-12);
        }
        for (Map<String, Object> r : (List<Map<String, Object>>) root.get("rows")) {
            if (r.containsKey("fit") && !String.valueOf(r.get("test")).startsWith("BS5")) {
                assertTrue(r.containsKey("raw_fit_ok") && r.containsKey("raw_T0_us") && r.containsKey("T0_over_raw"), String.valueOf(r));
            }
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void launchSuiteAttributesT0FromItsOwnRows(@TempDir Path dir) throws Exception {
        assumeOpenCl();
        assertEquals(0, BenchCli.run("launch", "-b", "aparapi", "-o", dir.toString(), "--reps", "6"));
        Map<String, Object> root = (Map<String, Object>) JsonReader.parse(Files.readString(dir.resolve("launch-aparapi.json")));
        Map<String, Double> us = new java.util.HashMap<>();
        for (Map<String, Object> r : (List<Map<String, Object>>) root.get("rows")) {
            double v = ((Number) r.get("us")).doubleValue();
            assertTrue(v > 0 && v <= ((Number) r.get("us_max")).doubleValue(), String.valueOf(r));
            assertEquals(6, ((List<Object>) r.get("samples_us")).size());
            us.put((String) r.get("test"), v);
        }
        assertEquals(java.util.Set.of("raw-finish", "raw-event-wait", "raw-event-wait-49args", "raw-pipelined",
                "backend-fill-pipelined", "backend-fill-finish", "backend-dot"), us.keySet());
        assertEquals(us.get("backend-fill-pipelined") - us.get("raw-pipelined"),
                ((Number) root.get("backendPipelinedMinusRaw_us")).doubleValue(), 1e-9);
        assertEquals(us.get("backend-fill-finish") - us.get("raw-finish"),
                ((Number) root.get("backendFinishMinusRaw_us")).doubleValue(), 1e-9);
    }

    @Test
    @SuppressWarnings("unchecked")
    void launchSuiteOnTheJavaBackendRecordsASkip(@TempDir Path dir) throws Exception {
        assertEquals(0, BenchCli.run("launch", "-b", "cpu", "-o", dir.toString(), "--reps", "2"));
        Map<String, Object> root = (Map<String, Object>) JsonReader.parse(Files.readString(dir.resolve("launch-cpu.json")));
        assertTrue(String.valueOf(root.get("skipped")).contains("aparapi"), String.valueOf(root.get("skipped")));
        assertTrue(((List<Object>) root.get("rows")).isEmpty());
    }

    /** Skips without OpenCL, unless CI requires it ({@code LOBATTO_REQUIRE_OPENCL=1}): then the test runs and fails. */
    private static void assumeOpenCl() {
        boolean required = "1".equals(System.getenv("LOBATTO_REQUIRE_OPENCL"));
        boolean available = !io.lobatto.backend.aparapi.OpenClDevices.list().isEmpty();
        org.junit.jupiter.api.Assumptions.assumeTrue(required || available, "no OpenCL device");
    }

    @Test
    void jsonRoundTrip() {
        Object back = JsonReader.parse(Json.write(Map.of("a", List.of(1.5, "x\"y"), "b", true)));
        assertEquals(Map.of("a", List.of(1.5, "x\"y"), "b", true), back);
    }
}
