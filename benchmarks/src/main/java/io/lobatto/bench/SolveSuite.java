package io.lobatto.bench;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.BackendException;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.ElementOperator;
import io.lobatto.solvers.ConjugateGradient;
import io.lobatto.solvers.SolveResult;

/**
 * Whole CG solves on assembled storage: {@code bp} runs BP1 (mass), BP3 (BP3.0 + lambda M) and BP5
 * (BP3.5 + lambda M) with a Dirichlet mask for a fixed number of iterations and reports
 * DOF x iterations / s; {@code nekbone} runs NekBone's 100 iterations on Z^T S Z + lambda I (no mask)
 * and reports the FOM with NekBone's FLOP count 12E(N+1)^4 + 34E(N+1)^3 per iteration.
 */
public final class SolveSuite {

    private SolveSuite() {
    }

    public static void bp(Backend be, int nMin, int nMax, int nStep, long dofs, int iterations, int reps, double reference,
                          Report report) {
        var out = report.out();
        out.printf(Locale.ROOT, "%-4s %3s %6s %11s %6s %12s %12s%n", "BP", "N", "K", "N_G", "iters", "ms/iter", "GDOF*it/s");
        SweepProgress sweep = SweepProgress.start("bp", (nMax - nMin) / Math.max(1, nStep) + 1);
        for (int n = nMin; n <= nMax; n += nStep) {
            sweep.next("BP1, BP3, BP5 at N = " + n);
            int k = Math.max(2, (int) Math.round(Math.cbrt((double) dofs) / n));
            SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(k, k, k, 0, 1, 0, 1, 0, 1), n);
            ScatterOperator z = ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), mesh.boundaryMaskAllTagged());
            for (ElementKernel kernel : new ElementKernel[] {ElementKernel.MASS_BP10, ElementKernel.STIFFNESS_BP30, ElementKernel.STIFFNESS_BP35}) {
                String name = switch (kernel) {
                    case MASS_BP10 -> "BP1";
                    case STIFFNESS_BP30 -> "BP3";
                    case STIFFNESS_BP35 -> "BP5";
                };
                try {
                    solve(be, name, n, k, mesh.elementCount(), ElementOperator.of(kernel, mesh, 1.0), z, 0, iterations, reps, reference,
                            report, false);
                } catch (BackendException ex) {
                    skipped(report, name, n, k, ex);
                }
            }
        }
    }

    public static void nekbone(Backend be, int nMin, int nMax, int nStep, long dofs, int reps, double lambda, double reference,
                               Report report) {
        var out = report.out();
        out.printf(Locale.ROOT, "%-7s %3s %6s %11s %6s %12s %12s %10s%n", "", "N", "K", "N_G", "iters", "ms/iter", "GDOF*it/s", "FOM GFLOPS");
        SweepProgress sweep = SweepProgress.start("nekbone", (nMax - nMin) / Math.max(1, nStep) + 1);
        for (int n = nMin; n <= nMax; n += nStep) {
            sweep.next("N = " + n);
            int k = Math.max(2, (int) Math.round(Math.cbrt((double) dofs) / n));
            SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(k, k, k, 0, 1, 0, 1, 0, 1), n);
            ScatterOperator z = ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), null);
            solve(be, "NekBone", n, k, mesh.elementCount(), ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0), z, lambda,
                    100, reps, reference, report, true);
        }
    }

    /** Records a point the backend could not run (e.g. geometric data above a device array limit). */
    static void skipped(Report report, String name, int n, int k, BackendException ex) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("problem", name);
        row.put("N", n);
        row.put("K", k);
        row.put("skipped", ex.getMessage());
        report.row(row);
        report.out().printf(Locale.ROOT, "%-7s %3d %6d skipped: %s%n", name, n, k, ex.getMessage());
    }

    private static void solve(Backend be, String name, int n, int k, long elements, ElementOperator op, ScatterOperator z,
                              double shift, int iterations, int reps, double reference, Report report, boolean fom) {
        double[] rhs = new double[z.globalSize()];
        Random rnd = new Random(1);
        for (int i = 0; i < rhs.length; i++) {
            rhs[i] = rnd.nextDouble();
        }
        double[] seconds = new double[reps];
        SolveResult last = null;
        try (AssembledOperator a = AssembledOperator.bind(op, z, be, shift); DeviceVector b = be.upload(rhs);
             DeviceVector x = be.allocate(a.size()); ConjugateGradient cg = new ConjugateGradient(a).fixedIterations(iterations)) {
            Timing.warmUp(1, () -> cg.solve(b, x));
            for (int r = 0; r < reps; r++) {
                be.fill(x, 0);
                be.synchronize();
                long t0 = System.nanoTime();
                last = cg.solve(b, x);
                be.synchronize();
                seconds[r] = (System.nanoTime() - t0) * 1e-9;
            }
        }
        Timing.Samples s = new Timing.Samples(seconds);
        double t = s.median();
        double throughput = (double) z.globalSize() * iterations / t;
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("problem", name);
        row.put("N", n);
        row.put("K", k);
        row.put("E", elements);
        row.put("N_G", (long) z.globalSize());
        row.put("iterations", iterations);
        row.put("median_s", t);
        row.put("min_s", s.min());
        row.put("max_s", s.max());
        row.put("ms_per_iteration", t / iterations * 1e3);
        row.put("GDOF_iterations_per_s", throughput * 1e-9);
        // hipBone's data motion of one CG iteration: 108 N_G + 80 N_L bytes
        double bytes = 108.0 * z.globalSize() + 80.0 * z.localSize();
        row.put("model_bytes_per_iteration", bytes);
        row.put("effective_GBs", bytes * iterations / t * 1e-9);
        row.put("ratio_to_reference", bytes * iterations / t / reference);
        row.put("final_residual", last == null ? Double.NaN : last.finalResidual());
        if (fom) {
            row.put("FOM_GFLOPS", FlopCounts.nekboneFlopsPerIteration(elements, n) * iterations / t * 1e-9);
        }
        row.put("samples_s", seconds);
        report.row(row);
        report.out().printf(Locale.ROOT, "%-7s %3d %6d %11d %6d %12.3f %12.3f%s%n", name, n, k, z.globalSize(), iterations,
                t / iterations * 1e3, throughput * 1e-9,
                fom ? String.format(Locale.ROOT, " %10.1f", FlopCounts.nekboneFlopsPerIteration(elements, n) * iterations / t * 1e-9) : "");
    }
}
