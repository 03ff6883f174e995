package io.lobatto.bench;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;

/**
 * BK1 (BP1.0), BK3 (BP3.0) and BK5 (BP3.5) element-operator applies for a range of N at a fixed number
 * of DOFs (E (N+1)^3 element-local nodes): GFLOPS ({@link FlopCounts}), GDOF/s and effective bandwidth
 * (Table 2 bytes / time), against the empirical roofline R = B F / bytes with B the reference copy
 * bandwidth measured in the same run.
 */
public final class KernelSuite {

    private KernelSuite() {
    }

    public static void run(Backend be, int nMin, int nMax, long dofs, int reps, double referenceBandwidth, Report report) {
        var out = report.out();
        out.printf(Locale.ROOT, "%-4s %3s %9s %11s %11s %9s %9s %10s %10s %7s%n", "BK", "N", "E", "DOFs", "median[us]",
                "GFLOPS", "GDOF/s", "GB/s(eff)", "roofline", "ratio");
        SweepProgress sweep = SweepProgress.start("bk", 3 * (nMax - nMin + 1));
        for (ElementKernel kernel : new ElementKernel[] {ElementKernel.MASS_BP10, ElementKernel.STIFFNESS_BP30, ElementKernel.STIFFNESS_BP35}) {
            for (int n = nMin; n <= nMax; n++) {
                sweep.next(FlopCounts.benchmarkName(kernel) + " N = " + n);
                Basis1D basis = Basis1D.of(n);
                int np = basis.np();
                int points = kernel.usesGaussQuadrature() ? basis.npGauss() : np;
                // the synthetic geometric data is one host array (at most 2^31 - 8 doubles): fewer elements then
                long maxElements = (Integer.MAX_VALUE - 8L) / ((long) points * kernel.factorsPerPoint());
                int e = (int) Math.max(1, Math.min(dofs / np, maxElements));
                double[] geo = syntheticFactors(kernel, e, points, 7L * n);
                Timing.Samples s;
                try (DeviceElementData d = be.uploadElementData(kernel, basis, e, geo); DeviceVector x = be.allocate(e * np);
                     DeviceVector y = be.allocate(e * np)) {
                    be.fill(x, 1.0 / 3);
                    Timing.warmUp(3, () -> be.applyElements(d, 1.0, x, y));
                    s = Timing.measure(be, 0, reps, 1, () -> be.applyElements(d, 1.0, x, y));
                }
                geo = null;
                double flops = FlopCounts.flopsPerElement(kernel, n) * e;
                double bytes = FlopCounts.bytesPerElement(kernel, n) * e;
                double t = s.median();
                double roof = FlopCounts.roofline(referenceBandwidth, flops, bytes);
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("benchmark", FlopCounts.benchmarkName(kernel));
                row.put("kernel", kernel.name());
                row.put("N", n);
                row.put("E", e);
                row.put("dofs", (long) e * np);
                row.put("flops", flops);
                row.put("bytes", bytes);
                row.put("median_s", t);
                row.put("min_s", s.min());
                row.put("max_s", s.max());
                row.put("GFLOPS", flops / t * 1e-9);
                row.put("GDOFs", (double) e * np / t * 1e-9);
                row.put("effective_GBs", bytes / t * 1e-9);
                row.put("roofline_GFLOPS", roof * 1e-9);
                row.put("ratio_to_roofline", flops / t / roof);
                row.put("samples_s", s.seconds());
                report.row(row);
                out.printf(Locale.ROOT, "%-4s %3d %9d %11d %11.1f %9.1f %9.3f %10.1f %10.1f %7.3f%n", FlopCounts.benchmarkName(kernel),
                        n, e, (long) e * np, t * 1e6, flops / t * 1e-9, e * (double) np / t * 1e-9, bytes / t * 1e-9, roof * 1e-9,
                        flops / t / roof);
            }
        }
    }

    /** Per-point factors of a mildly distorted affine element (valid SPD G, positive wJ), varied per element. */
    static double[] syntheticFactors(ElementKernel kernel, int elements, int points, long seed) {
        int stride = kernel.factorsPerPoint();
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
                    g[o + 6] = a * 1e-3;
                }
            }
        }
        return g;
    }
}
