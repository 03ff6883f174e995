package io.lobatto.bench;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.BackendException;
import io.lobatto.core.backend.DevicePointwiseData;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;

/**
 * BK1 (BP1.0), BK3 (BP3.0) and BK5 (BP3.5) element-operator applies for a range of N at a fixed number
 * of DOFs (E (N+1)^3 element-local nodes): GFLOPS ({@link FlopCounts}), GDOF/s and effective bandwidth
 * (Table 2 bytes / time), against the empirical roofline R = B F / bytes with B the reference copy
 * bandwidth measured in the same run. On request ({@code --kernels}) also the general user-operator path
 * ({@link PointwiseKernel}): BK1/BK3/BK5-general, the same math through a pointwise function, with their time over
 * the specialised kernel's, and CEED's 3-component BK2, BK4 and BK6 (ncomp E (N+1)^3 DOFs).
 */
public final class KernelSuite {

    private KernelSuite() {
    }

    /** Every kernel name bk knows, in the order it runs them. */
    public static final List<String> ALL = List.of("BK1", "BK3", "BK5", "BK1-general", "BK3-general", "BK5-general", "BK2", "BK4",
            "BK6");
    /** The default selection: the specialised kernels. */
    public static final List<String> DEFAULT = List.of("BK1", "BK3", "BK5");

    public static void run(Backend be, int nMin, int nMax, long dofs, int reps, double referenceBandwidth, Report report) {
        run(be, nMin, nMax, dofs, reps, referenceBandwidth, report, DEFAULT);
    }

    /**
     * The kernels named in {@code kernels} (from {@link #ALL}) for N = nMin..nMax. A general row (BK1/BK3/BK5-general)
     * also gets {@code general_over_specialised}, its time over the specialised kernel's at the same N when that ran
     * in this call.
     */
    public static void run(Backend be, int nMin, int nMax, long dofs, int reps, double referenceBandwidth, Report report,
                           List<String> kernels) {
        var out = report.out();
        report.meta("kernels", String.join(",", kernels));
        out.printf(Locale.ROOT, "%-11s %3s %9s %11s %11s %9s %9s %10s %10s %7s %9s%n", "BK", "N", "E", "DOFs", "median[us]",
                "GFLOPS", "GDOF/s", "GB/s(eff)", "roofline", "ratio", "gen/spec");
        SweepProgress sweep = SweepProgress.start("bk", kernels.size() * (nMax - nMin + 1));
        Map<String, Double> specialisedTimes = new HashMap<>();
        for (String name : kernels) {
            PointwiseKernel general = PointwiseKernel.byKernelName(name);
            for (int n = nMin; n <= nMax; n++) {
                sweep.next(name + " N = " + n);
                if (general == null) {
                    ElementKernel kernel = specialised(name);
                    double t = specialisedRow(be, kernel, n, dofs, reps, referenceBandwidth, report);
                    specialisedTimes.put(name + "/" + n, t);
                } else {
                    generalRow(be, general, n, dofs, reps, referenceBandwidth, report, specialisedTimes);
                }
            }
        }
    }

    private static ElementKernel specialised(String name) {
        for (ElementKernel k : ElementKernel.values()) {
            if (FlopCounts.benchmarkName(k).equalsIgnoreCase(name)) {
                return k;
            }
        }
        throw new IllegalArgumentException("no kernel " + name);
    }

    private static double specialisedRow(Backend be, ElementKernel kernel, int n, long dofs, int reps, double referenceBandwidth,
                                         Report report) {
        Basis1D basis = Basis1D.of(n);
        int np = basis.np();
        int points = kernel.usesGaussQuadrature() ? basis.npGauss() : np;
        // the synthetic geometric data is one host array (at most 2^31 - 8 doubles): fewer elements then
        long maxElements = (Integer.MAX_VALUE - 8L) / ((long) points * kernel.factorsPerPoint());
        int e = (int) Math.max(1, Math.min(dofs / np, maxElements));
        double[] geo = syntheticFactors(kernel.factorsPerPoint(), e, points, 7L * n);
        Timing.Samples s;
        try (DeviceElementData d = be.uploadElementData(kernel, basis, e, geo); DeviceVector x = be.allocate(e * np);
             DeviceVector y = be.allocate(e * np)) {
            be.fill(x, 1.0 / 3);
            Timing.warmUp(3, () -> be.applyElements(d, 1.0, x, y));
            s = Timing.measure(be, 0, reps, 1, () -> be.applyElements(d, 1.0, x, y));
        }
        double flops = FlopCounts.flopsPerElement(kernel, n) * e;
        double bytes = FlopCounts.bytesPerElement(kernel, n) * e;
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("benchmark", FlopCounts.benchmarkName(kernel));
        row.put("kernel", kernel.name());
        return record(report, row, n, e, 1, (long) e * np, flops, bytes, s, referenceBandwidth, Double.NaN);
    }

    private static void generalRow(Backend be, PointwiseKernel k, int n, long dofs, int reps, double referenceBandwidth, Report report,
                                   Map<String, Double> specialisedTimes) {
        Basis1D basis = Basis1D.of(n);
        int np = basis.np();
        int ncomp = k.components();
        int points = k.pointsPerElement(n);
        long maxElements = Math.min((Integer.MAX_VALUE - 8L) / ((long) points * k.dataPerPoint()),
                (Integer.MAX_VALUE - 8L) / ((long) ncomp * np));
        int e = (int) Math.max(1, Math.min(dofs / ((long) ncomp * np), maxElements));
        double[] data = syntheticFactors(k.dataPerPoint(), e, points, 7L * n);
        Timing.Samples s;
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("benchmark", k.kernelName());
        row.put("kernel", k.function().getClass().getSimpleName() + "/" + k.quadrature());
        try (DevicePointwiseData d = be.uploadPointwise(k.function(), basis, k.quadrature(), e, data);
             DeviceVector x = be.allocate(ncomp * e * np); DeviceVector y = be.allocate(ncomp * e * np)) {
            data = null;
            be.fill(x, 1.0 / 3);
            Timing.warmUp(3, () -> be.applyPointwise(d, x, y));
            s = Timing.measure(be, 0, reps, 1, () -> be.applyPointwise(d, x, y));
        } catch (BackendException | UnsupportedOperationException ex) {
            row.put("N", n);
            row.put("E", e);
            row.put("skipped", ex.getMessage());
            report.row(row);
            report.out().printf(Locale.ROOT, "%-11s %3d %9d skipped: %s%n", k.kernelName(), n, e, ex.getMessage());
            return;
        }
        double flops = FlopCounts.flopsPerElement(k, n) * e;
        double bytes = FlopCounts.bytesPerElement(k, n) * e;
        Double spec = k.specialised() == null ? null : specialisedTimes.get(FlopCounts.benchmarkName(k.specialised()) + "/" + n);
        record(report, row, n, e, ncomp, (long) ncomp * e * np, flops, bytes, s, referenceBandwidth,
                spec == null ? Double.NaN : s.median() / spec);
    }

    /** Fills and prints one row; returns the median time. */
    private static double record(Report report, Map<String, Object> row, int n, int e, int ncomp, long dofs, double flops,
                                 double bytes, Timing.Samples s, double referenceBandwidth, double overSpecialised) {
        double t = s.median();
        double roof = FlopCounts.roofline(referenceBandwidth, flops, bytes);
        row.put("N", n);
        row.put("E", e);
        row.put("components", ncomp);
        row.put("dofs", dofs);
        row.put("flops", flops);
        row.put("bytes", bytes);
        row.put("median_s", t);
        row.put("min_s", s.min());
        row.put("max_s", s.max());
        row.put("GFLOPS", flops / t * 1e-9);
        row.put("GDOFs", dofs / t * 1e-9);
        row.put("effective_GBs", bytes / t * 1e-9);
        row.put("roofline_GFLOPS", roof * 1e-9);
        row.put("ratio_to_roofline", flops / t / roof);
        if (!Double.isNaN(overSpecialised)) {
            row.put("general_over_specialised", overSpecialised);
        }
        row.put("samples_s", s.seconds());
        report.row(row);
        report.out().printf(Locale.ROOT, "%-11s %3d %9d %11d %11.1f %9.1f %9.3f %10.1f %10.1f %7.3f %9s%n", row.get("benchmark"),
                n, e, dofs, t * 1e6, flops / t * 1e-9, dofs / t * 1e-9, bytes / t * 1e-9, roof * 1e-9, flops / t / roof,
                Double.isNaN(overSpecialised) ? "" : String.format(Locale.ROOT, "%.2f", overSpecialised));
        return t;
    }

    /**
     * Per-point factors of a mildly distorted affine element, varied per element: {@code stride} 1 a positive wJ,
     * 6 a valid SPD G, 7 G and wJ (hipBone's packing).
     */
    static double[] syntheticFactors(int stride, int elements, int points, long seed) {
        double[] g = new double[elements * points * stride];
        Random rnd = new Random(seed);
        for (int e = 0; e < elements; e++) {
            double a = 1 + 0.1 * rnd.nextDouble(), b = 0.05 * rnd.nextDouble();
            for (int p = 0; p < points; p++) {
                int o = (e * points + p) * stride;
                if (stride == 1) {
                    g[o] = a * 1e-3;
                } else {
                    g[o] = a;
                    g[o + 1] = b;
                    g[o + 2] = 0;
                    g[o + 3] = a;
                    g[o + 4] = b;
                    g[o + 5] = a;
                    if (stride > 6) {
                        g[o + 6] = a * 1e-3;
                    }
                }
            }
        }
        return g;
    }
}
