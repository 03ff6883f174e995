package io.lobatto.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.lobatto.core.backend.Backend;

/**
 * The bandwidth B of the empirical roofline R = F B / bytes (DESIGN.md, "Roofline used for every kernel"): the best of
 * several large copies, measured before a suite, between its parts and after it, so that one slow copy (a GPU still at
 * idle clocks, say) cannot make every ratio of a run look too good. A copy is a raw OpenCL C copy through JOCL on the
 * backend's device ({@link RawOpenClCopy#measure}), or a Java array copy for the Java backend; its bandwidth is the
 * median of its launches, 16 bytes per copied double.
 *
 * <p>A suite computes its ratios against {@link #first()} while it runs; {@link #finish} then rescales every ratio of
 * the report to {@link #best()} (a ratio r against the first copy is r B_first / B_best against the best), records
 * every copy with its samples in the JSON, and flags each ratio above {@link #FLAG_ABOVE} (a sign of a weak reference,
 * not of beating the roofline) in its row and in a printed table.
 */
public final class Reference {

    /** Ratios above this are flagged: beyond the noise of one copy, the reference is too weak for them. */
    public static final double FLAG_ABOVE = 1.02;
    /** The flag a row with a ratio above {@link #FLAG_ABOVE} carries in {@code "flag"}. */
    public static final String FLAG = "above reference";
    /** Row keys holding a ratio to the reference bandwidth (or to the roofline made from it). */
    static final List<String> RATIO_KEYS = List.of("ratio_to_reference", "ratio_to_roofline", "Wmax_over_reference",
            "raw_Wmax_over_reference", "raw_ratio_to_reference");
    /** Row keys holding a bandwidth-proportional roofline (rescaled the other way). */
    static final List<String> ROOFLINE_KEYS = List.of("roofline_GFLOPS");

    /** One copy: when in the run, doubles per vector, the launch times and their median's bandwidth (bytes/s). */
    public record Copy(String when, long doubles, double[] samples, double medianSeconds, double bandwidth) {
    }

    private final Backend backend;
    private final long doubles;
    private final int reps;
    private final PrintStream out;
    private final List<Copy> copies = new ArrayList<>();
    private String kind;
    private String device;
    private String driver;

    /**
     * A reference on {@code backend}'s device copying {@code doubles} doubles per vector, {@code reps} timed launches
     * (at least 5) per copy; nothing is measured yet.
     */
    public Reference(Backend backend, long doubles, int reps, PrintStream out) {
        if (doubles < 1) {
            throw new IllegalArgumentException("reference copy of " + doubles + " doubles: need at least 1");
        }
        this.backend = backend;
        this.doubles = doubles;
        this.reps = Math.max(5, reps);
        this.out = out;
    }

    /** Measures one copy now, labelled {@code when} ("before", "after BS1 copy", ...); returns its bandwidth, bytes/s. */
    public double measure(String when) {
        RawOpenClCopy.Result r = null;
        if (!"java-copy".equals(kind) && !backend.device().platform().startsWith("Java")) {
            r = RawOpenClCopy.measure(backend.device().name(), doubles, reps);
        }
        if (r == null) {
            r = RawOpenClCopy.javaCopy(doubles, reps);
            kind = "java-copy";
        } else {
            kind = "raw-opencl-copy";
        }
        device = r.device();
        driver = r.driver();
        copies.add(new Copy(when, r.doubles(), r.samples(), r.medianSeconds(), r.bandwidth()));
        out.printf(Locale.ROOT, "reference copy %d (%s): %s, %d doubles: %.1f GB/s (best so far %.1f)%n", copies.size(), when,
                r.device(), r.doubles(), r.bandwidth() * 1e-9, best() * 1e-9);
        return r.bandwidth();
    }

    /** The first copy's bandwidth (bytes/s): what a suite's ratios are computed against while it runs. */
    public double first() {
        requireCopy();
        return copies.get(0).bandwidth();
    }

    /** The best copy's bandwidth (bytes/s): the reference of every ratio once {@link #finish} has run. */
    public double best() {
        requireCopy();
        return copies.stream().mapToDouble(Copy::bandwidth).max().getAsDouble();
    }

    /** The copies so far, in order. */
    public List<Copy> copies() {
        return List.copyOf(copies);
    }

    private void requireCopy() {
        if (copies.isEmpty()) {
            throw new IllegalStateException("no reference copy measured yet");
        }
    }

    /**
     * Measures copies "after" the suite until there are at least {@code minCopies}, then writes the reference into
     * {@code report} (the best bandwidth, every copy with its samples), rescales every ratio of its rows from
     * {@link #first()} to {@link #best()}, flags the rows with a ratio above {@link #FLAG_ABOVE} and prints them.
     * Returns the number of flagged ratios.
     */
    public int finish(Report report, int minCopies) {
        while (copies.size() < Math.max(1, minCopies)) {
            measure("after");
        }
        double first = first();
        double best = best();
        report.meta("reference", kind);
        report.meta("referenceDevice", device);
        report.meta("driver", driver);
        report.meta("referenceDoubles", doubles);
        report.meta("referenceBandwidth_GBs", best * 1e-9);
        report.meta("reference_rule", "best of " + copies.size() + " copies (median of each copy's launches); every ratio is "
                + "against it; ratios above " + FLAG_ABOVE + " are flagged \"" + FLAG + "\"");
        report.meta("reference_first_GBs", first * 1e-9);
        report.meta("reference_worst_over_best", copies.stream().mapToDouble(Copy::bandwidth).min().getAsDouble() / best);
        List<Map<String, Object>> list = new ArrayList<>();
        for (Copy c : copies) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("when", c.when());
            m.put("doubles", c.doubles());
            m.put("median_s", c.medianSeconds());
            m.put("bandwidth_GBs", c.bandwidth() * 1e-9);
            m.put("samples_s", c.samples());
            list.add(m);
        }
        report.meta("reference_copies", list);
        double scale = first / best;
        List<String> flagged = new ArrayList<>();
        rescale(report.metaMap(), scale, null);
        for (Map<String, Object> row : report.rows()) {
            String f = rescale(row, scale, row);
            if (f != null) {
                flagged.add(label(row) + ": " + f);
            }
        }
        report.meta("ratios_above_reference", flagged.size());
        report.meta("flagged", flagged);
        printRatios(report, best, flagged);
        return flagged.size();
    }

    /** Rescales the ratio keys of {@code m} by {@code scale}; flags {@code row} (when not null) above the bound. */
    private static String rescale(Map<String, Object> m, double scale, Map<String, Object> row) {
        List<String> above = new ArrayList<>();
        for (Map.Entry<String, Object> e : m.entrySet()) {
            String k = e.getKey();
            if (!(e.getValue() instanceof Number n)) {
                continue;
            }
            if (RATIO_KEYS.contains(k) || k.endsWith("_over_reference")) {
                double v = n.doubleValue() * scale;
                e.setValue(v);
                if (v > FLAG_ABOVE) {
                    above.add(String.format(Locale.ROOT, "%s %.3f", k, v));
                }
            } else if (ROOFLINE_KEYS.contains(k)) {
                e.setValue(n.doubleValue() / scale);
            }
        }
        if (above.isEmpty()) {
            return null;
        }
        String detail = String.join(", ", above) + " > " + FLAG_ABOVE;
        if (row != null) {
            row.put("flag", FLAG);
            row.put("flag_detail", detail);
        }
        return detail;
    }

    /** A row's name in the printed table: its test, kernel or problem and its size keys. */
    static String label(Map<String, Object> row) {
        StringBuilder b = new StringBuilder();
        for (String k : new String[] {"test", "benchmark", "problem", "kind", "N", "entries", "dofs", "fit"}) {
            Object v = row.get(k);
            if (v != null) {
                b.append(b.length() == 0 ? "" : " ").append("N".equals(k) || "entries".equals(k) || "dofs".equals(k) ? k + "=" : "")
                        .append("fit".equals(k) ? "fit" : v);
            }
        }
        return b.length() == 0 ? "row" : b.toString();
    }

    private void printRatios(Report report, double best, List<String> flagged) {
        out.printf(Locale.ROOT, "reference: best of %d copies %.1f GB/s (first %.1f, worst %.1f); ratios against it:%n",
                copies.size(), best * 1e-9, first() * 1e-9, copies.stream().mapToDouble(Copy::bandwidth).min().getAsDouble() * 1e-9);
        for (Map<String, Object> row : report.rows()) {
            Object r = row.containsKey("ratio_to_reference") ? row.get("ratio_to_reference")
                    : row.containsKey("ratio_to_roofline") ? row.get("ratio_to_roofline") : row.get("Wmax_over_reference");
            String flag = row.containsKey("flag") ? "  <- " + FLAG + " (" + row.get("flag_detail") + ")" : "";
            if (r instanceof Number n && !Double.isNaN(n.doubleValue())) {
                out.printf(Locale.ROOT, "  %-44s %7.3f%s%n", label(row), n.doubleValue(), flag);
            } else if (!flag.isEmpty()) {
                // flagged by another ratio (a raw fit's Wmax, say) where the row's own ratio is missing or not a number
                out.printf(Locale.ROOT, "  %-44s %7s%s%n", label(row), "-", flag);
            }
        }
        if (!flagged.isEmpty()) {
            out.printf(Locale.ROOT, "%d ratio(s) above %.2f of the reference: the reference is too weak for them%n", flagged.size(),
                    FLAG_ABOVE);
        }
    }
}
