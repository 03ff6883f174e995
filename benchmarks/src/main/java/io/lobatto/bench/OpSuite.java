package io.lobatto.bench;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.ElementOperator;

/**
 * The assembled operator apply y_G = A x_G = Z^T L Z x_G timed as libCEED's benchmarks time an operator
 * apply, through the public API ({@link AssembledOperator#apply}): an undeformed K x K x K box of the
 * unit cube, no Dirichlet mask, BP1 (mass, BP1.0), BP3 (stiffness, BP3.0, lambda = 0) and BP5
 * (stiffness, BP3.5, lambda = 0), N_G about {@code dofs} global DOFs per degree. A sample is
 * {@code applies} back-to-back applies followed by one {@link Backend#synchronize()}, divided; the
 * median of the samples is reported as seconds per apply and GDOF/s = N_G / time / 1e9. A point the
 * backend cannot run is recorded with the reason, not left out.
 */
public final class OpSuite {

    /** Applies per sample: enough for about 20 ms, 5 to 200. */
    static final double SAMPLE_TARGET_S = 20e-3;

    private OpSuite() {
    }

    public static void run(Backend be, int nMin, int nMax, long dofs, int reps, Report report) {
        var out = report.out();
        report.meta("mesh", "undeformed box of the unit cube, K x K x K elements, no Dirichlet mask");
        report.meta("timing", "warm-up, then samples of back-to-back applies and one synchronize, divided; median");
        out.printf(Locale.ROOT, "%-4s %3s %5s %9s %11s %8s %13s %10s%n", "op", "N", "K", "E", "N_G", "applies",
                "us/apply", "GDOF/s");
        SweepProgress sweep = SweepProgress.start("op", nMax - nMin + 1);
        for (int n = nMin; n <= nMax; n++) {
            sweep.next("BP1, BP3, BP5 at N = " + n);
            // N_G = (K N + 1)^3 without a mask
            int k = Math.max(1, (int) Math.round((Math.cbrt((double) dofs) - 1) / n));
            SpectralElementMesh mesh;
            ScatterOperator z;
            try {
                long t0 = System.nanoTime();
                mesh = SpectralElementMesh.of(HexMesh.box(k, k, k, 0, 1, 0, 1, 0, 1), n);
                z = ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), null);
                out.printf(Locale.ROOT, "N = %d: mesh and Z of %d elements in %.1f s%n", n, mesh.elementCount(), (System.nanoTime() - t0) * 1e-9);
            } catch (RuntimeException | OutOfMemoryError ex) {
                for (String name : new String[] {"BP1", "BP3", "BP5"}) {
                    skipped(report, name, n, k, "mesh: " + ex);
                }
                continue;
            }
            for (ElementKernel kernel : new ElementKernel[] {ElementKernel.MASS_BP10, ElementKernel.STIFFNESS_BP30,
                ElementKernel.STIFFNESS_BP35}) {
                String name = switch (kernel) {
                    case MASS_BP10 -> "BP1";
                    case STIFFNESS_BP30 -> "BP3";
                    case STIFFNESS_BP35 -> "BP5";
                };
                try {
                    point(be, name, kernel, mesh, z, k, reps, report);
                } catch (RuntimeException | OutOfMemoryError ex) {
                    skipped(report, name, n, k, ex.toString());
                }
            }
        }
    }

    /** Records a point that could not run, with the reason. */
    private static void skipped(Report report, String name, int n, int k, String why) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("problem", name);
        row.put("N", n);
        row.put("K", k);
        row.put("skipped", why);
        report.row(row);
        report.out().printf(Locale.ROOT, "%-4s %3d %5d skipped: %s%n", name, n, k, why);
    }

    private static void point(Backend be, String name, ElementKernel kernel, SpectralElementMesh mesh, ScatterOperator z, int k,
                              int reps, Report report) {
        int n = mesh.degree();
        double[] x0 = new double[z.globalSize()];
        Random rnd = new Random(n);
        for (int i = 0; i < x0.length; i++) {
            x0[i] = rnd.nextDouble();
        }
        Timing.Samples s;
        int applies;
        try (AssembledOperator a = AssembledOperator.bind(ElementOperator.of(kernel, mesh, 0.0), z, be);
             DeviceVector x = be.upload(x0); DeviceVector y = be.allocate(a.size())) {
            Runnable apply = () -> a.apply(x, y);
            Timing.Samples pilot = Timing.measure(be, 2, 1, 3, apply);
            applies = (int) Math.max(5, Math.min(200, SAMPLE_TARGET_S / Math.max(pilot.median(), 1e-7)));
            s = Timing.measure(be, 3, reps, applies, apply);
        }
        double t = s.median();
        long ng = z.globalSize();
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("problem", name);
        row.put("kernel", kernel.name());
        row.put("N", n);
        row.put("K", k);
        row.put("elements", (long) mesh.elementCount());
        row.put("N_G", ng);
        row.put("N_L", (long) z.localSize());
        row.put("applies_per_sample", applies);
        row.put("seconds_per_apply", t);
        row.put("min_s", s.min());
        row.put("max_s", s.max());
        row.put("GDOF_per_s", ng / t * 1e-9);
        row.put("samples_s", s.seconds());
        report.row(row);
        report.out().printf(Locale.ROOT, "%-4s %3d %5d %9d %11d %8d %13.2f %10.4f%n", name, n, k, mesh.elementCount(), ng,
                applies, t * 1e6, ng / t * 1e-9);
    }
}
