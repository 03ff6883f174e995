package io.lobatto.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;

/**
 * The streaming tests of the streaming paper: BS1 copy (16 bytes per entry), BS2 AXPY (24), BS3 norm (8),
 * BS4 dot (16), BS5 fused CG update (48: reads p, Ap, x, r, writes x, r) over sizes from about 1 KB per
 * vector up to {@code maxBytes} moved, each fitted with T(B) = T0 + B/Wmax; and BS6 gather
 * (12 N_L + 12 N_G bytes) and BS7 scatter (12 N_L + 8 N_G bytes) on K x K x K box meshes for N = 1..7.
 */
public final class StreamingSuite {

    private StreamingSuite() {
    }

    /**
     * Runs the suite; every row carries its bandwidth over {@code reference} (bytes/s, the raw copy);
     * returns the Wmax of BS1 (the backend's own copy bandwidth, bytes/s).
     */
    public static double run(Backend be, long maxBytes, int reps, long gsLocalNodes, double reference, Report report) {
        var out = report.out();
        String[] names = {"BS1 copy", "BS2 axpby", "BS3 norm", "BS4 dot", "BS5 cg-update"};
        int[] bytesPerEntry = {16, 24, 8, 16, 48};
        double copyWmax = Double.NaN;
        out.printf(Locale.ROOT, "%-14s %12s %12s %12s %10s%n", "test", "entries", "bytes", "median[us]", "GB/s");
        for (int t = 0; t < names.length; t++) {
            List<Double> bytes = new ArrayList<>();
            List<Double> secs = new ArrayList<>();
            // four vectors of at most 2^25 entries stay well inside one device pool (Aparapi: < 2 GiB per array)
            for (long n = 128; n * bytesPerEntry[t] <= maxBytes && n <= (1 << 25); n *= 2) {
                int len = (int) n;
                Timing.Samples s;
                try (DeviceVector a = be.allocate(len); DeviceVector b = be.allocate(len); DeviceVector c = be.allocate(len);
                     DeviceVector d = be.allocate(len)) {
                    be.fill(a, 1);
                    be.fill(b, 2);
                    be.fill(c, 0.5);
                    be.fill(d, 0.25);
                    final int test = t;
                    Runnable op = switch (test) {
                        case 0 -> () -> be.copy(a, b);
                        case 1 -> () -> be.axpby(1e-3, a, 1.0, b);
                        case 2 -> () -> be.norm2(a);
                        case 3 -> () -> be.dot(a, b);
                        default -> () -> be.cgUpdate(1e-9, a, b, c, d);
                    };
                    s = Timing.measure(be, 3, reps, 1, op);
                }
                double b = (double) bytesPerEntry[t] * n;
                bytes.add(b);
                secs.add(s.median());
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("test", names[t]);
                row.put("entries", n);
                row.put("bytes", b);
                row.put("median_s", s.median());
                row.put("min_s", s.min());
                row.put("max_s", s.max());
                row.put("bandwidth_GBs", b / s.median() * 1e-9);
                row.put("ratio_to_reference", b / s.median() / reference);
                row.put("samples_s", s.seconds());
                report.row(row);
                out.printf(Locale.ROOT, "%-14s %12d %12.0f %12.2f %10.2f%n", names[t], n, b, s.median() * 1e6, b / s.median() * 1e-9);
            }
            ModelFit fit = ModelFit.fit(bytes.stream().mapToDouble(Double::doubleValue).toArray(),
                    secs.stream().mapToDouble(Double::doubleValue).toArray());
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("test", names[t]);
            row.put("fit", true);
            row.put("T0_us", fit.t0Seconds() * 1e6);
            row.put("Wmax_GBs", fit.wmax() * 1e-9);
            row.put("B08_bytes", fit.b08());
            row.put("r2", fit.r2());
            row.put("Wmax_over_reference", fit.wmax() / reference);
            report.row(row);
            out.printf(Locale.ROOT, "%-14s fit: T0 = %.2f us, Wmax = %.1f GB/s, B0.8 = %.3g bytes (R^2 %.4f)%n", names[t],
                    fit.t0Seconds() * 1e6, fit.wmax() * 1e-9, fit.b08(), fit.r2());
            if (t == 0) {
                copyWmax = fit.wmax();
            }
        }
        gatherScatter(be, reps, gsLocalNodes, reference, report);
        return copyWmax;
    }

    static void gatherScatter(Backend be, int reps, long localNodes, double reference, Report report) {
        var out = report.out();
        out.printf(Locale.ROOT, "%-10s %3s %4s %12s %12s %12s %10s%n", "test", "N", "K", "N_L", "N_G", "median[us]", "GB/s");
        for (int n = 1; n <= 7; n++) {
            int np = (n + 1) * (n + 1) * (n + 1);
            int k = Math.max(1, (int) Math.round(Math.cbrt((double) localNodes / np)));
            SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(k, k, k, 0, 1, 0, 1, 0, 1), n);
            ScatterOperator z = ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), null);
            try (DeviceScatter dz = be.uploadScatter(z.scatterIds(), z.gatherStarts(), z.gatherIds(), z.blockStarts(),
                    z.inverseDegree(), z.globalSize()); DeviceVector xl = be.allocate(z.localSize());
                 DeviceVector xg = be.allocate(z.globalSize())) {
                be.fill(xl, 1);
                be.fill(xg, 1);
                double nl = z.localSize(), ng = z.globalSize();
                Timing.Samples g = Timing.measure(be, 3, reps, 1, () -> be.gather(dz, xl, xg));
                Timing.Samples s = Timing.measure(be, 3, reps, 1, () -> be.scatter(dz, xg, xl));
                for (int t = 0; t < 2; t++) {
                    Timing.Samples ss = t == 0 ? g : s;
                    double bytes = t == 0 ? 12 * nl + 12 * ng : 12 * nl + 8 * ng;
                    String name = t == 0 ? "BS6 gather" : "BS7 scatter";
                    Map<String, Object> row = new LinkedHashMap<>();
                    row.put("test", name);
                    row.put("N", n);
                    row.put("K", k);
                    row.put("N_L", (long) nl);
                    row.put("N_G", (long) ng);
                    row.put("bytes", bytes);
                    row.put("median_s", ss.median());
                    row.put("min_s", ss.min());
                    row.put("max_s", ss.max());
                    row.put("bandwidth_GBs", bytes / ss.median() * 1e-9);
                    row.put("ratio_to_reference", bytes / ss.median() / reference);
                    row.put("samples_s", ss.seconds());
                    report.row(row);
                    out.printf(Locale.ROOT, "%-10s %3d %4d %12d %12d %12.2f %10.2f%n", name, n, k, (long) nl, (long) ng,
                            ss.median() * 1e6, bytes / ss.median() * 1e-9);
                }
            }
        }
    }
}
