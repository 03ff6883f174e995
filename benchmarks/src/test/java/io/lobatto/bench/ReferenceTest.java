package io.lobatto.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reference of the rooflines ({@link Reference}): the best of several copies interleaved with the suite, every copy
 * and its samples in the JSON, every ratio against the best, ratios above 1.02 flagged in the row and in the table.
 */
class ReferenceTest {

    @SuppressWarnings("unchecked")
    private static Map<String, Object> run(Path dir, String backend, String... extra) throws Exception {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.PrintStream old = System.out;
        System.setOut(new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8));
        int code;
        try {
            List<String> args = new java.util.ArrayList<>(List.of("bs", "-b", backend, "-o", dir.toString(), "--max-bytes", "65536",
                    "--gs-nodes", "3000", "--reps", "2"));
            args.addAll(List.of(extra));
            code = BenchCli.run(args.toArray(String[]::new));
        } finally {
            System.setOut(old);
        }
        String printed = bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, code, printed);
        Map<String, Object> root = (Map<String, Object>) JsonReader.parse(Files.readString(dir.resolve("bs-" + backend + ".json")));
        root.put("printed", printed);
        return root;
    }

    private static double num(Object o) {
        return ((Number) o).doubleValue();
    }

    /** The JSON's reference is the best copy, every ratio is against it and flagged exactly when above 1.02. */
    @SuppressWarnings("unchecked")
    private static void assertHonest(Map<String, Object> root, int copies) {
        List<Map<String, Object>> list = (List<Map<String, Object>>) root.get("reference_copies");
        assertTrue(list.size() >= copies, "at least " + copies + " copies: " + list.size());
        double best = 0;
        for (Map<String, Object> c : list) {
            List<Object> samples = (List<Object>) c.get("samples_s");
            assertTrue(samples.size() >= 5, String.valueOf(c));
            double[] s = samples.stream().mapToDouble(ReferenceTest::num).sorted().toArray();
            double median = s.length % 2 == 1 ? s[s.length / 2] : 0.5 * (s[s.length / 2 - 1] + s[s.length / 2]);
            assertEquals(median, num(c.get("median_s")), 1e-15);
            assertEquals(16.0 * num(c.get("doubles")) / median * 1e-9, num(c.get("bandwidth_GBs")), 1e-9);
            best = Math.max(best, num(c.get("bandwidth_GBs")));
        }
        assertEquals(best, num(root.get("referenceBandwidth_GBs")), 0.0, "the reference is the best copy");
        assertEquals(num(list.get(0).get("bandwidth_GBs")), num(root.get("reference_first_GBs")), 0.0);
        int flagged = 0;
        for (Map<String, Object> r : (List<Map<String, Object>>) root.get("rows")) {
            if (r.containsKey("bandwidth_GBs")) {
                assertEquals(num(r.get("bandwidth_GBs")) / best, num(r.get("ratio_to_reference")), 1e-9 * num(r.get("ratio_to_reference")),
                        "ratio against the best copy: " + r);
            }
            if (r.containsKey("fit") && Boolean.TRUE.equals(r.get("fit_ok"))) {
                assertEquals(num(r.get("Wmax_GBs")) / best, num(r.get("Wmax_over_reference")), 1e-9 * num(r.get("Wmax_over_reference")));
            }
            double max = 0;
            for (String k : List.of("ratio_to_reference", "Wmax_over_reference", "raw_Wmax_over_reference")) {
                if (r.get(k) instanceof Number n) {
                    max = Math.max(max, n.doubleValue());
                }
            }
            assertEquals(max > Reference.FLAG_ABOVE, Reference.FLAG.equals(r.get("flag")), String.valueOf(r));
            if (r.containsKey("flag")) {
                flagged++;
                assertTrue(String.valueOf(root.get("printed")).contains("<- " + Reference.FLAG), "the table shows the flag");
            }
        }
        assertEquals(flagged, ((Number) root.get("ratios_above_reference")).intValue());
        assertEquals(flagged, ((List<Object>) root.get("flagged")).size());
    }

    @Test
    @SuppressWarnings("unchecked")
    void onTheJavaBackendTheBestOfFiveJavaCopies(@TempDir Path dir) throws Exception {
        Map<String, Object> root = run(dir, "cpu", "--tests", "BS1", "--gs-degrees", "2");
        assertEquals("java-copy", root.get("reference"));
        assertHonest(root, 5);
        List<Map<String, Object>> copies = (List<Map<String, Object>>) root.get("reference_copies");
        assertEquals("before", copies.get(0).get("when"));
        assertEquals("after BS1 copy", copies.get(1).get("when"));
        // BS1 only: no BS2..BS7 rows
        for (Map<String, Object> r : (List<Map<String, Object>>) root.get("rows")) {
            assertTrue(String.valueOf(r.get("test")).startsWith("BS1"), String.valueOf(r));
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void onPoclCopiesInterleaveWithBothGatherScatterKinds(@TempDir Path dir) throws Exception {
        boolean required = "1".equals(System.getenv("LOBATTO_REQUIRE_OPENCL"));
        org.junit.jupiter.api.Assumptions.assumeTrue(required || !io.lobatto.backend.aparapi.OpenClDevices.list().isEmpty(),
                "no OpenCL device");
        Map<String, Object> root = run(dir, "aparapi", "--tests", "BS1,BS6", "--gs-degrees", "2,7", "--gs-kinds", "blocks,rows,tiles",
                "--reference-bytes", "4194304", "--reference-copies", "7");
        assertEquals("raw-opencl-copy", root.get("reference"));
        assertEquals(524288, ((Number) root.get("referenceDoubles")).intValue());
        assertHonest(root, 7);
        List<Map<String, Object>> copies = (List<Map<String, Object>>) root.get("reference_copies");
        assertEquals(List.of("before", "after BS1 copy", "after BS6/BS7 blocks", "after BS6/BS7 rows", "after BS6/BS7 tiles"),
                copies.subList(0, 5).stream().map(c -> c.get("when")).toList());
        assertEquals("after", copies.get(5).get("when"), "topped up after the suite");
        List<Map<String, Object>> gs = ((List<Map<String, Object>>) root.get("rows")).stream().filter(r -> r.containsKey("kind")).toList();
        assertEquals(12, gs.size(), "BS6 and BS7 x N = 2, 7 x blocks, rows, tiles");
        for (Map<String, Object> r : gs) {
            assertTrue(((Number) r.get("launches_per_sample")).intValue() >= 10, String.valueOf(r));
            assertEquals(num(r.get("bytes")) / num(r.get("median_s")) * 1e-9, num(r.get("bandwidth_GBs")), 1e-9 * num(r.get("bandwidth_GBs")));
            assertEquals(0, ((Number) r.get("host_mismatches")).intValue(), "bit for bit the host's: " + r);
        }
        assertEquals(List.of("BS1", "BS6"), root.get("tests"));
    }

    @Test
    void badOptionsAreNamed(@TempDir Path dir) {
        for (String[] args : new String[][] {{"--tests", "BS8"}, {"--gs-kinds", "fast"}, {"--reference-copies", "0"},
            {"--gs-degrees", "0"}, {"--reference-bytes", "4"}}) {
            java.io.StringWriter err = new java.io.StringWriter();
            picocli.CommandLine cl = BenchCli.commandLine();
            cl.setErr(new java.io.PrintWriter(err));
            List<String> all = new java.util.ArrayList<>(List.of("bs", "-b", "cpu", "-o", dir.toString()));
            all.addAll(List.of(args));
            assertEquals(1, cl.execute(all.toArray(String[]::new)), String.join(" ", args));
            String msg = err.toString().strip();
            assertTrue(msg.startsWith("lobatto-bench: error: ") && msg.contains(args[0]) && !msg.contains("\n"), msg);
        }
    }

    /**
     * A row flagged by a ratio other than the one the table prints (a raw fit's Wmax where its own ratio is not a number)
     * still shows its flag in the printed table (the PoCL run above once flagged such a row and printed nothing).
     */
    @Test
    @SuppressWarnings("unchecked")
    void aRowFlaggedByAnotherRatioIsPrintedWithItsFlag() {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.PrintStream out = new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8);
        try (io.lobatto.backend.cpu.CpuBackend be = new io.lobatto.backend.cpu.CpuBackend(1)) {
            Report report = new Report("bs", be, "test", out);
            Map<String, Object> raw = new java.util.LinkedHashMap<>();
            raw.put("test", "BS3 norm");
            raw.put("fit", "T0 + bytes/W");
            raw.put("Wmax_over_reference", Double.NaN);
            raw.put("raw_Wmax_over_reference", 50.0);
            report.row(raw);
            Map<String, Object> plain = new java.util.LinkedHashMap<>();
            plain.put("test", "BS1 copy");
            plain.put("ratio_to_reference", 0.5);
            report.row(plain);
            Reference reference = new Reference(be, 1 << 16, 5, out);
            reference.measure("before");
            assertEquals(1, reference.finish(report, 1));
        }
        String printed = bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(printed.lines().anyMatch(l -> l.contains("BS3 norm") && l.contains("<- " + Reference.FLAG)), printed);
        assertTrue(printed.lines().anyMatch(l -> l.contains("BS1 copy") && !l.contains(Reference.FLAG)), printed);
    }
}
