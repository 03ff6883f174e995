package io.lobatto.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

import io.lobatto.core.backend.Backend;

/**
 * The results of one suite run: metadata (device, driver, JVM, commit, parameters), the reference
 * bandwidth, and one row per measurement with every sample; written as JSON and as CSV (Apache Commons CSV).
 */
public final class Report {

    private final Map<String, Object> meta = new LinkedHashMap<>();
    private final List<Map<String, Object>> rows = new ArrayList<>();
    private final PrintStream out;

    public Report(String suite, Backend backend, String commit, PrintStream out) {
        this.out = out;
        meta.put("suite", suite);
        meta.put("backend", backend.name());
        meta.put("device", backend.device().name());
        meta.put("deviceInfo", backend.device().toString());
        meta.put("platform", backend.device().platform());
        meta.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        meta.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        meta.put("cores", Runtime.getRuntime().availableProcessors());
        meta.put("commit", commit);
        meta.put("date", java.time.Instant.now().toString());
    }

    public Report meta(String key, Object value) {
        meta.put(key, value);
        return this;
    }

    public Object meta(String key) {
        return meta.get(key);
    }

    public void row(Map<String, Object> row) {
        rows.add(row);
    }

    public List<Map<String, Object>> rows() {
        return rows;
    }

    public PrintStream out() {
        return out;
    }

    /**
     * Writes {@code rows} as RFC 4180 CSV through Apache Commons CSV: a header of {@code keys}, one record per row
     * (empty cell where a row lacks a key); cells holding commas, quotes or line breaks are quoted.
     */
    static void writeCsv(Path file, List<String> keys, List<Map<String, Object>> rows) throws IOException {
        CSVFormat format = CSVFormat.RFC4180.builder().setHeader(keys.toArray(String[]::new)).setRecordSeparator('\n').get();
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8); CSVPrinter p = new CSVPrinter(w, format)) {
            for (Map<String, Object> r : rows) {
                for (String k : keys) {
                    Object v = r.get(k);
                    p.print(v == null ? "" : String.valueOf(v));
                }
                p.println();
            }
        }
    }

    /** Writes {@code <prefix>.json} and {@code <prefix>.csv} (the CSV leaves out the sample arrays). */
    public void write(Path prefix) throws IOException {
        Path dir = prefix.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        Map<String, Object> all = new LinkedHashMap<>(meta);
        all.put("rows", rows);
        Files.writeString(Path.of(prefix + ".json"), Json.write(all), StandardCharsets.UTF_8);
        if (!rows.isEmpty()) {
            List<String> keys = new ArrayList<>();
            for (Map<String, Object> r : rows) {
                for (Map.Entry<String, Object> e : r.entrySet()) {
                    if (!(e.getValue() instanceof double[]) && !keys.contains(e.getKey())) {
                        keys.add(e.getKey());
                    }
                }
            }
            writeCsv(Path.of(prefix + ".csv"), keys, rows);
        }
    }
}
