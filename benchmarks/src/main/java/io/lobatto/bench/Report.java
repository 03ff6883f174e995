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

    /** The metadata itself (live: {@link Reference#finish} rescales its ratios in place). */
    Map<String, Object> metaMap() {
        return meta;
    }

    public void row(Map<String, Object> row) {
        rows.add(row);
        if (checkpoint != null) {
            writeCheckpoint();
        }
    }

    /** Where {@link #row} rewrites the JSON after every row, or null. */
    private Path checkpoint;
    /** Why the suite stopped early, or null. */
    private String cut;

    /**
     * From now on every {@link #row} rewrites {@code <prefix>.json} with {@code "cut": true}, the rows so far and the
     * last completed row, so that a run killed before its end (by {@code timeout}, say) leaves a file that says it was
     * cut and how far it got; {@link #write} then replaces it with the complete file.
     */
    public void checkpoint(Path prefix) {
        this.checkpoint = prefix;
        writeCheckpoint();
    }

    /** Marks the results as cut short ({@code "cut": true} and the reason in the JSON). */
    public void cut(String reason) {
        this.cut = reason;
    }

    private void writeCheckpoint() {
        try {
            Path dir = checkpoint.toAbsolutePath().getParent();
            if (dir != null) {
                Files.createDirectories(dir);
            }
            Map<String, Object> all = new LinkedHashMap<>(meta);
            putCut(all, "the run ended before the suite finished (killed, e.g. by timeout)");
            all.put("rows", rows);
            Path tmp = Path.of(checkpoint + ".json.tmp");
            Files.writeString(tmp, Json.write(all), StandardCharsets.UTF_8);
            Files.move(tmp, Path.of(checkpoint + ".json"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            out.println("warning: could not write the checkpoint " + checkpoint + ".json: " + e);
        }
    }

    private void putCut(Map<String, Object> all, String reason) {
        all.put("cut", reason != null);
        if (reason != null) {
            all.put("cut_reason", reason);
            all.put("rows_completed", rows.size());
            all.put("last_completed_row", rows.isEmpty() ? null : rows.get(rows.size() - 1));
        }
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
        putCut(all, cut);
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
