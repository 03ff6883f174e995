package io.lobatto.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * PNG plots of result JSON with XChart: bandwidth vs bytes with the fitted model (bs), GFLOPS vs N with
 * the empirical roofline (bk), throughput vs N (bp, nekbone), GDOF/s of the operator apply vs N (op). A bs fit
 * that is not a result (R^2 below {@link ModelFit#MIN_R2}) is drawn dotted, labelled REJECTED, and named in the
 * title. Only the {@code plot} command loads this class (XChart needs java.desktop, which the GPU machine's runtime lacks).
 */
final class Plots {

    private Plots() {
    }

    @SuppressWarnings("unchecked")
    static List<Path> render(Path file, Object json) throws Exception {
        Map<String, Object> root = (Map<String, Object>) json;
        List<Map<String, Object>> rows = (List<Map<String, Object>>) root.get("rows");
        String suite = String.valueOf(root.get("suite"));
        String title = suite + " on " + root.get("device") + " (" + root.get("backend") + ", " + root.get("commit") + ")";
        String base = file.toString().replaceAll("\\.json$", "");
        List<Path> written = new ArrayList<>();
        switch (suite) {
            case "bs" -> {
                List<String> rejected = new ArrayList<>();
                for (Map<String, Object> r : rows) {
                    if (r.containsKey("fit") && Boolean.FALSE.equals(r.get("fit_ok"))) {
                        rejected.add(r.get("test") + " (" + r.get("fit_problem") + ")");
                    }
                }
                String bsTitle = rejected.isEmpty() ? title : title + " - FIT REJECTED: " + String.join(", ", rejected);
                XYChart c = chart(bsTitle, "bytes moved", "GB/s", true);
                Map<String, double[][]> series = group(rows, "test", "bytes", "bandwidth_GBs", r -> !r.containsKey("fit") && !r.containsKey("N"));
                for (Map.Entry<String, double[][]> e : series.entrySet()) {
                    c.addSeries(e.getKey(), e.getValue()[0], e.getValue()[1]).setMarker(SeriesMarkers.CIRCLE);
                    Map<String, Object> fit = rows.stream().filter(r -> e.getKey().equals(r.get("test")) && r.containsKey("fit"))
                            .findFirst().orElse(null);
                    if (fit != null && fit.get("T0_us") != null && fit.get("Wmax_GBs") != null) {
                        boolean ok = !Boolean.FALSE.equals(fit.get("fit_ok"));
                        double t0 = num(fit.get("T0_us")) * 1e-6, w = num(fit.get("Wmax_GBs")) * 1e9;
                        double[] xs = e.getValue()[0], ys = new double[xs.length];
                        for (int i = 0; i < xs.length; i++) {
                            ys[i] = Math.max(0, xs[i] / (t0 + xs[i] / w) * 1e-9);
                        }
                        String label = ok
                                ? String.format(java.util.Locale.ROOT, "%s model (T0 %.1f us, Wmax %.0f GB/s, R^2 %.3f)", e.getKey(),
                                        t0 * 1e6, w * 1e-9, num(fit.get("r2")))
                                : e.getKey() + " model REJECTED: " + fit.get("fit_problem") + " (not a result)";
                        XYSeries m = c.addSeries(label, xs, ys);
                        m.setMarker(SeriesMarkers.NONE);
                        m.setLineStyle(ok ? SeriesLines.SOLID : SeriesLines.DOT_DOT);
                    }
                }
                written.add(save(c, base + "-bandwidth.png"));
                Map<String, double[][]> vsRaw = group(rows, "test", "bytes", "time_over_raw", r -> !r.containsKey("fit") && !r.containsKey("N"));
                if (!vsRaw.isEmpty()) {
                    XYChart v = chart(title + ": time over raw JOCL", "bytes moved", "backend time / raw JOCL time", true);
                    for (Map.Entry<String, double[][]> e : vsRaw.entrySet()) {
                        v.addSeries(e.getKey(), e.getValue()[0], e.getValue()[1]).setMarker(SeriesMarkers.CIRCLE);
                    }
                    written.add(save(v, base + "-vs-raw.png"));
                }
                XYChart g = chart(title + " gather/scatter", "N", "GB/s", false);
                for (Map.Entry<String, double[][]> e : group(rows, "test", "N", "bandwidth_GBs", r -> r.containsKey("N")).entrySet()) {
                    g.addSeries(e.getKey(), e.getValue()[0], e.getValue()[1]).setMarker(SeriesMarkers.CIRCLE);
                }
                written.add(save(g, base + "-gather-scatter.png"));
            }
            case "op" -> {
                XYChart c = chart(title + ": y_G = A x_G", "N", "GDOF/s (N_G / seconds per apply)", false);
                for (Map.Entry<String, double[][]> e : group(rows, "problem", "N", "GDOF_per_s", r -> !r.containsKey("skipped")).entrySet()) {
                    c.addSeries(e.getKey(), e.getValue()[0], e.getValue()[1]).setMarker(SeriesMarkers.CIRCLE);
                }
                written.add(save(c, base + "-gdofs.png"));
            }
            case "solve" -> {
                // one series per mesh, K and preconditioner: iterations and time to solution over N
                List<Map<String, Object>> named = new ArrayList<>();
                for (Map<String, Object> r : rows) {
                    Map<String, Object> m = new LinkedHashMap<>(r);
                    m.put("series", r.get("pc") + ", " + r.get("mesh") + " " + (int) num(r.get("K")) + "^3");
                    named.add(m);
                }
                XYChart it = chart(title + ": CG iterations to 1e-10", "N", "iterations", false);
                it.getStyler().setYAxisLogarithmic(true);
                for (Map.Entry<String, double[][]> e : group(named, "series", "N", "iterations", r -> true).entrySet()) {
                    it.addSeries(e.getKey(), e.getValue()[0], e.getValue()[1]).setMarker(SeriesMarkers.CIRCLE);
                }
                written.add(save(it, base + "-iterations.png"));
                XYChart t = chart(title + ": time to solution (setup + solve)", "N", "seconds", false);
                t.getStyler().setYAxisLogarithmic(true);
                for (Map.Entry<String, double[][]> e : group(named, "series", "N", "time_to_solution_s", r -> true).entrySet()) {
                    t.addSeries(e.getKey(), e.getValue()[0], e.getValue()[1]).setMarker(SeriesMarkers.CIRCLE);
                }
                written.add(save(t, base + "-time.png"));
            }
            case "bk" -> {
                XYChart c = chart(title, "N", "GFLOPS", false);
                for (Map.Entry<String, double[][]> e : group(rows, "benchmark", "N", "GFLOPS", r -> true).entrySet()) {
                    c.addSeries(e.getKey(), e.getValue()[0], e.getValue()[1]).setMarker(SeriesMarkers.CIRCLE);
                }
                for (Map.Entry<String, double[][]> e : group(rows, "benchmark", "N", "roofline_GFLOPS", r -> true).entrySet()) {
                    c.addSeries(e.getKey() + " roofline", e.getValue()[0], e.getValue()[1]).setMarker(SeriesMarkers.NONE);
                }
                written.add(save(c, base + "-gflops.png"));
            }
            default -> {
                String key = rows.stream().anyMatch(r -> r.containsKey("problem")) ? "problem" : "test";
                XYChart c = chart(title, "N", "GDOF x iterations / s", false);
                for (Map.Entry<String, double[][]> e : group(rows, key, "N", "GDOF_iterations_per_s", r -> true).entrySet()) {
                    c.addSeries(e.getKey(), e.getValue()[0], e.getValue()[1]).setMarker(SeriesMarkers.CIRCLE);
                }
                written.add(save(c, base + "-throughput.png"));
            }
        }
        return written;
    }

    private static XYChart chart(String title, String x, String y, boolean logX) {
        XYChart c = new XYChartBuilder().width(900).height(560).title(title).xAxisTitle(x).yAxisTitle(y).build();
        c.getStyler().setXAxisLogarithmic(logX);
        c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideNW);
        return c;
    }

    private static Path save(XYChart c, String file) throws Exception {
        BitmapEncoder.saveBitmap(c, file, BitmapEncoder.BitmapFormat.PNG);
        return Path.of(file);
    }

    private static Map<String, double[][]> group(List<Map<String, Object>> rows, String by, String x, String y,
                                                 java.util.function.Predicate<Map<String, Object>> keep) {
        Map<String, List<double[]>> pts = new LinkedHashMap<>();
        for (Map<String, Object> r : rows) {
            if (keep.test(r) && r.get(x) != null && r.get(y) != null) {
                pts.computeIfAbsent(String.valueOf(r.get(by)), k -> new ArrayList<>()).add(new double[] {num(r.get(x)), num(r.get(y))});
            }
        }
        Map<String, double[][]> out = new LinkedHashMap<>();
        pts.forEach((k, v) -> out.put(k, new double[][] {v.stream().mapToDouble(p -> p[0]).toArray(), v.stream().mapToDouble(p -> p[1]).toArray()}));
        return out;
    }

    private static double num(Object o) {
        return o instanceof Number n ? n.doubleValue() : Double.parseDouble(String.valueOf(o));
    }
}
