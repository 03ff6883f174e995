package io.lobatto.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.BackendException;
import io.lobatto.core.backend.DeviceOperator;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.AssembledPointwiseOperator;
import io.lobatto.operators.PointwiseOperator;
import io.lobatto.operators.ElementOperator;
import io.lobatto.operators.FactorStorage;
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

    /** Every problem bp knows, in the order it runs them. */
    public static final List<String> ALL = List.of("BP1", "BP3", "BP5", "BP5-general", "BP2", "BP4", "BP6");
    /** The default selection: the specialised operators. */
    public static final List<String> DEFAULT = List.of("BP1", "BP3", "BP5");

    public static void bp(Backend be, int nMin, int nMax, int nStep, long dofs, int iterations, int reps, double reference,
                          Report report) {
        bp(be, nMin, nMax, nStep, dofs, iterations, reps, reference, report, DEFAULT);
    }

    /**
     * The problems named in {@code problems} (from {@link #ALL}): BP1/BP3/BP5 with the specialised operators, BP5-general
     * with the same operator through the pointwise path ({@link AssembledPointwiseOperator}, ScreenedDiffusion at the GLL
     * nodes, lambda = 1), and the 3-component BP2 (vector mass, Gauss), BP4 (vector diffusion, Gauss) and BP6 (vector
     * diffusion, GLL) on ncomp N_G DOFs (K chosen so that ncomp N_G is about {@code dofs}).
     */
    public static void bp(Backend be, int nMin, int nMax, int nStep, long dofs, int iterations, int reps, double reference,
                          Report report, List<String> problems) {
        bp(be, nMin, nMax, nStep, dofs, iterations, reps, reference, report, problems, List.of(GeometryChoice.STORED));
    }

    /**
     * As {@link #bp(Backend, int, int, int, long, int, int, double, Report, List)}, BP5 once per entry of
     * {@code storages} (stored factors, factors on the fly with the backend's choice of kernel or a forced one), one after
     * the other on the same mesh; the other problems with stored factors. Each row says which ({@code geometry};
     * {@code factors_on_the_fly}: what the backend's kernel really does; {@code element_plan}: the Aparapi backend's kernel
     * and launch) and whether the mesh is trilinear.
     */
    public static void bp(Backend be, int nMin, int nMax, int nStep, long dofs, int iterations, int reps, double reference,
                          Report report, List<String> problems, List<GeometryChoice> storages) {
        var out = report.out();
        report.meta("problems", String.join(",", problems));
        report.meta("geometry", storages.stream().map(GeometryChoice::label).toList());
        out.printf(Locale.ROOT, "%-13s %3s %6s %11s %6s %12s %12s%n", "BP", "N", "K", "DOFs", "iters", "ms/iter", "GDOF*it/s");
        SweepProgress sweep = SweepProgress.start("bp", (nMax - nMin) / Math.max(1, nStep) + 1);
        for (int n = nMin; n <= nMax; n += nStep) {
            sweep.next(String.join(", ", problems) + " at N = " + n);
            SpectralElementMesh[] meshes = new SpectralElementMesh[4];
            ScatterOperator[] zs = new ScatterOperator[4];
            for (String name : problems) {
                PointwiseKernel general = PointwiseKernel.byProblemName(name);
                int ncomp = general == null ? 1 : general.components();
                int k = Math.max(2, (int) Math.round(Math.cbrt((double) dofs / ncomp) / n));
                if (meshes[ncomp] == null) {
                    meshes[ncomp] = SpectralElementMesh.of(HexMesh.box(k, k, k, 0, 1, 0, 1, 0, 1), n);
                    zs[ncomp] = ScatterOperator.build(meshes[ncomp].localToGlobal(), meshes[ncomp].globalNodeCount(),
                            meshes[ncomp].boundaryMaskAllTagged());
                }
                SpectralElementMesh mesh = meshes[ncomp];
                ScatterOperator z = zs[ncomp];
                try {
                    if (general == null) {
                        ElementKernel kernel = switch (name) {
                            case "BP1" -> ElementKernel.MASS_BP10;
                            case "BP3" -> ElementKernel.STIFFNESS_BP30;
                            default -> ElementKernel.STIFFNESS_BP35;
                        };
                        for (GeometryChoice storage : kernel == ElementKernel.STIFFNESS_BP35 ? storages
                                : List.of(GeometryChoice.STORED)) {
                            ElementOperator op = ElementOperator.of(kernel, mesh, 1.0, storage.storage());
                            // the operator's data per node: 7 stored factors, or the 24 vertex coordinates of the element
                            boolean fly = storage.storage() == FactorStorage.ON_THE_FLY;
                            solve(be, OpSuite.label(name, storage), n, k, mesh.elementCount(),
                                    () -> storage.bind(() -> AssembledOperator.bind(op, z, be, 0)), 1, fly ? 24 : 7,
                                    fly ? 1.0 / mesh.nodesPerElement() : 1, z, iterations, reps, reference, report, false);
                        }
                    } else {
                        PointwiseOperator op = PointwiseOperator.of(mesh, general.function(), general.quadrature(), general.setup());
                        double pointsPerNode = (double) general.pointsPerElement(n) / mesh.nodesPerElement();
                        solve(be, name, n, k, mesh.elementCount(), () -> AssembledPointwiseOperator.bind(op, z, be), ncomp,
                                general.dataPerPoint(), pointsPerNode, z, iterations, reps, reference, report, false);
                    }
                } catch (BackendException | UnsupportedOperationException ex) {
                    skipped(report, name, n, k, ex);
                }
            }
        }
    }

    public static void nekbone(Backend be, int nMin, int nMax, int nStep, long dofs, int reps, double lambda, double reference,
                               Report report) {
        var out = report.out();
        out.printf(Locale.ROOT, "%-13s %3s %6s %11s %6s %12s %12s %10s%n", "", "N", "K", "N_G", "iters", "ms/iter", "GDOF*it/s", "FOM GFLOPS");
        SweepProgress sweep = SweepProgress.start("nekbone", (nMax - nMin) / Math.max(1, nStep) + 1);
        for (int n = nMin; n <= nMax; n += nStep) {
            sweep.next("N = " + n);
            int k = Math.max(2, (int) Math.round(Math.cbrt((double) dofs) / n));
            SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(k, k, k, 0, 1, 0, 1, 0, 1), n);
            ScatterOperator z = ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), null);
            ElementOperator op = ElementOperator.of(ElementKernel.STIFFNESS_BP35, mesh, 0);
            solve(be, "NekBone", n, k, mesh.elementCount(), () -> AssembledOperator.bind(op, z, be, lambda), 1, 7, 1, z,
                    100, reps, reference, report, true);
        }
    }

    /** Records a point the backend could not run (e.g. geometric data above a device array limit). */
    static void skipped(Report report, String name, int n, int k, RuntimeException ex) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("problem", name);
        row.put("N", n);
        row.put("K", k);
        row.put("skipped", ex.getMessage());
        report.row(row);
        report.out().printf(Locale.ROOT, "%-13s %3d %6d skipped: %s%n", name, n, k, ex.getMessage());
    }

    /**
     * CG with a fixed number of iterations on the operator {@code bind} makes (closed afterwards), ncomp N_G DOFs.
     * The model bytes per iteration generalise hipBone's 108 N_G + 80 N_L: 108 ncomp N_G for the vector updates and
     * (16 ncomp + 8 data P/Np + 8) N_L for the operator (x_L read and y_L written per component, the point data, the
     * scatter and gather ids), which is hipBone's count for BP5 (data 7 at the GLL nodes).
     */
    @SuppressWarnings("try") // closeA only closes the operator when it is closeable
    private static void solve(Backend be, String name, int n, int k, long elements, Supplier<DeviceOperator> bind, int ncomp,
                              int dataPerPoint, double pointsPerNode, ScatterOperator z, int iterations, int reps,
                              double reference, Report report, boolean fom) {
        double[] rhs = new double[ncomp * z.globalSize()];
        Random rnd = new Random(1);
        for (int i = 0; i < rhs.length; i++) {
            rhs[i] = rnd.nextDouble();
        }
        double[] seconds = new double[reps];
        SolveResult last = null;
        DeviceOperator a = bind.get();
        boolean onTheFly = a instanceof AssembledOperator ao && ao.boundElementOperator().data().factorsOnTheFly();
        String plan = a instanceof AssembledOperator ao && name.startsWith("BP5") ? OpSuite.elementPlan(be, ao) : null;
        if (a instanceof AssembledOperator && !onTheFly) {
            // a backend that stores the factors even when asked for them on the fly (the Java backend) moves 7 per node
            dataPerPoint = 7;
            pointsPerNode = 1;
        }
        double trueResidual;
        try (AutoCloseable closeA = a instanceof AutoCloseable c ? c : () -> { }; DeviceVector b = be.upload(rhs);
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
            // ||b - A x|| of the last solve: checks x itself (final_residual is CG's recursive r)
            try (DeviceVector t = be.allocate(a.size())) {
                a.apply(x, t);
                be.axpby(1, b, -1, t);
                trueResidual = Math.sqrt(be.norm2(t));
            }
        } catch (RuntimeException ex) {
            throw ex;
        } catch (Exception ex) {
            throw new IllegalStateException("closing the operator of " + name + ": " + ex.getMessage(), ex);
        }
        Timing.Samples s = new Timing.Samples(seconds);
        double t = s.median();
        long dofs = (long) ncomp * z.globalSize();
        double throughput = (double) dofs * iterations / t;
        Map<String, Object> row = new LinkedHashMap<>();
        String[] parts = name.split(" ");
        row.put("problem", parts[0]);
        if (a instanceof AssembledOperator ao) {
            row.put("geometry", parts.length > 1 ? parts[1] : FactorStorage.STORED.label());
            row.put("factors_on_the_fly", onTheFly);
            if (plan != null) {
                row.put("element_plan", plan);
            }
            row.put("mesh_trilinear", ao.elementOperator().deviceGeometry().map(g -> g.isTrilinear()).orElse(false));
        }
        row.put("N", n);
        row.put("K", k);
        row.put("E", elements);
        row.put("components", ncomp);
        row.put("N_G", (long) z.globalSize());
        row.put("DOFs", dofs);
        row.put("iterations", iterations);
        row.put("median_s", t);
        row.put("min_s", s.min());
        row.put("max_s", s.max());
        row.put("ms_per_iteration", t / iterations * 1e3);
        row.put("GDOF_iterations_per_s", throughput * 1e-9);
        // hipBone's data motion of one CG iteration, 108 N_G + 80 N_L bytes, per component and for the point data
        double bytes = 108.0 * dofs + (16.0 * ncomp + 8 * dataPerPoint * pointsPerNode + 8) * z.localSize();
        row.put("model_bytes_per_iteration", bytes);
        row.put("effective_GBs", bytes * iterations / t * 1e-9);
        row.put("ratio_to_reference", bytes * iterations / t / reference);
        row.put("final_residual", last == null ? Double.NaN : last.finalResidual());
        row.put("true_residual", trueResidual);
        if (fom) {
            row.put("FOM_GFLOPS", FlopCounts.nekboneFlopsPerIteration(elements, n) * iterations / t * 1e-9);
        }
        row.put("samples_s", seconds);
        report.row(row);
        report.out().printf(Locale.ROOT, "%-13s %3d %6d %11d %6d %12.3f %12.3f%s%n", name, n, k, dofs, iterations,
                t / iterations * 1e3, throughput * 1e-9,
                fom ? String.format(Locale.ROOT, " %10.1f", FlopCounts.nekboneFlopsPerIteration(elements, n) * iterations / t * 1e-9) : "");
    }
}
