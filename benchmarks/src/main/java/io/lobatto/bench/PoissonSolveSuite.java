package io.lobatto.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.examples.ManufacturedSolution;
import io.lobatto.examples.PoissonProblem;
import io.lobatto.solvers.PMultigrid;
import io.lobatto.solvers.Smoother;

/**
 * {@code lobatto-bench solve}: time to solution of the main job's problem (-Δu + λu = f, manufactured
 * u = sin πx sin πy sin πz, BP3.5 or BP3.0, relative residual 1e-10) with each preconditioner, over N, on the
 * smoothly deformed cube and on Kershaw's distorted cube: iterations, preconditioner setup, solve, their sum, the
 * setup's share, the errors, and for p-multigrid the time per level; then the time-to-solution ratio of each
 * preconditioner against Jacobi. p-multigrid runs once per smoother asked for ({@link Smoother}); its rows are
 * labelled {@code pmg} for the default Chebyshev-Jacobi and {@code pmg:<smoother>} otherwise. Kershaw's cube runs at
 * each epsilon asked for (the p-multigrid page's sweep: 0.3 and 1.0, N = 3..10, every smoother).
 */
public final class PoissonSolveSuite {

    /** The meshes of the suite. */
    public enum MeshKind { DEFORMED, KERSHAW }

    private PoissonSolveSuite() {
    }

    static SpectralElementMesh mesh(MeshKind kind, int k, int n, double kershawEpsilon) {
        NodeMap map = kind == MeshKind.KERSHAW ? NodeMap.kershaw(kershawEpsilon) : NodeMap.sinusoidal(0.05, 0, 1, 0, 1, 0, 1);
        return SpectralElementMesh.of(HexMesh.box(k, k, k, 0, 1, 0, 1, 0, 1), n, map);
    }

    /** One preconditioner of the suite: Jacobi, none, or p-multigrid with one smoother. */
    record Variant(PoissonProblem.Preconditioning pc, Smoother smoother) {
        String label() {
            return pc != PoissonProblem.Preconditioning.PMG || smoother.equals(Smoother.CHEBYSHEV_JACOBI)
                    ? pc.toString().toLowerCase(Locale.ROOT) : "pmg:" + smoother.cliName();
        }
    }

    /** The suite with the default smoother and one Kershaw epsilon. */
    public static void run(Backend be, int nMin, int nMax, int nStep, int[] ks, List<MeshKind> meshes,
                           List<PoissonProblem.Preconditioning> pcs, PoissonProblem.Operator operator, double lambda,
                           double tolerance, int maxIterations, int smootherOrder, double kershawEpsilon, int reps,
                           Report report) {
        run(be, nMin, nMax, nStep, ks, meshes, pcs, List.of(Smoother.CHEBYSHEV_JACOBI), operator, lambda, tolerance,
                maxIterations, smootherOrder, new double[] {kershawEpsilon}, reps, report);
    }

    /** The suite: every mesh kind (Kershaw at each epsilon), K, N and preconditioner (p-multigrid once per smoother). */
    public static void run(Backend be, int nMin, int nMax, int nStep, int[] ks, List<MeshKind> meshes,
                           List<PoissonProblem.Preconditioning> pcs, List<Smoother> smoothers, PoissonProblem.Operator operator,
                           double lambda, double tolerance, int maxIterations, int smootherOrder, double[] kershawEpsilons,
                           int reps, Report report) {
        List<Variant> variants = new ArrayList<>();
        for (PoissonProblem.Preconditioning pc : pcs) {
            if (pc == PoissonProblem.Preconditioning.PMG) {
                smoothers.forEach(sm -> variants.add(new Variant(pc, sm)));
            } else {
                variants.add(new Variant(pc, Smoother.CHEBYSHEV_JACOBI));
            }
        }
        double kershawEpsilon = kershawEpsilons[0];
        var out = report.out();
        report.meta("operator", operator.toString());
        report.meta("lambda", lambda);
        report.meta("tolerance", tolerance);
        report.meta("smootherOrder", smootherOrder);
        report.meta("kershawEpsilons", java.util.Arrays.toString(kershawEpsilons));
        report.meta("smoothers", smoothers.stream().map(Smoother::cliName).toList().toString());
        report.meta("solveReps", reps);
        ManufacturedSolution exact = ManufacturedSolution.unitCube(lambda);
        // warm-up (JIT, kernel builds) on a small problem with every preconditioner
        for (Variant v : variants) {
            new PoissonProblem(mesh(MeshKind.DEFORMED, 2, Math.min(nMax, 4), kershawEpsilon), exact, operator)
                    .solve(be, v.pc(), b -> b.smootherOrder(smootherOrder).smoother(v.smoother()), tolerance, maxIterations, null, null);
        }
        out.printf(Locale.ROOT, "%-9s %4s %3s %4s %10s %-17s %6s %9s %9s %9s %7s %10s %10s  %s%n", "mesh", "eps", "N", "K", "DOFs", "pc",
                "iters", "setup[s]", "solve[s]", "total[s]", "setup%", "max error", "vs jacobi", "p-MG levels: N DOFs s/level");
        int points = 0;
        for (int n = nMin; n <= nMax; n += nStep) {
            for (MeshKind kind : meshes) {
                points += ks.length * (kind == MeshKind.KERSHAW ? kershawEpsilons.length : 1);
            }
        }
        SweepProgress sweep = SweepProgress.start("solve", points);
        for (MeshKind kind : meshes) {
          for (double eps : kind == MeshKind.KERSHAW ? kershawEpsilons : new double[] {Double.NaN}) {
            for (int k : ks) {
                for (int n = nMin; n <= nMax; n += nStep) {
                    sweep.next(kind + (kind == MeshKind.KERSHAW ? " eps = " + eps : "") + " K = " + k + " N = " + n);
                    long tMesh = System.nanoTime();
                    PoissonProblem problem = new PoissonProblem(mesh(kind, k, n, eps), exact, operator);
                    long meshNanos = System.nanoTime() - tMesh;
                    Map<Variant, io.lobatto.solvers.SetupPhases> phases = new LinkedHashMap<>();
                    Map<Variant, Double> totals = new LinkedHashMap<>();
                    Map<Variant, Double> errors = new LinkedHashMap<>();
                    // reps rounds, the preconditioners interleaved within each round (a shared machine's load hits
                    // both alike); each keeps its fastest time to solution
                    Map<Variant, PoissonProblem.Solution> best = new LinkedHashMap<>();
                    Map<Variant, double[]> samples = new LinkedHashMap<>();
                    for (int rep = 0; rep < reps; rep++) {
                        for (Variant pc : variants) {
                            io.lobatto.solvers.SetupPhases ph = new io.lobatto.solvers.SetupPhases();
                            ph.add("mesh and numbering", meshNanos);
                            PoissonProblem.Solution s = problem.solve(be, pc.pc(), b -> b.smootherOrder(smootherOrder)
                                            .smoother(pc.smoother()).timeLevels(false), tolerance, maxIterations, null, null, ph);
                            double total = s.preconditionerSetupSeconds() + s.solve().seconds();
                            samples.computeIfAbsent(pc, p -> new double[reps])[rep] = total;
                            PoissonProblem.Solution prev = best.get(pc);
                            if (prev == null || total < prev.preconditionerSetupSeconds() + prev.solve().seconds()) {
                                best.put(pc, s);
                                phases.put(pc, ph);
                            }
                        }
                    }
                    Variant jacobi = new Variant(PoissonProblem.Preconditioning.JACOBI, Smoother.CHEBYSHEV_JACOBI);
                    for (Variant pc : variants) {
                        PoissonProblem.Solution s = best.get(pc);
                        double setup = s.preconditionerSetupSeconds();
                        double total = setup + s.solve().seconds();
                        totals.put(pc, total);
                        errors.put(pc, s.maxError());
                        Double jac = totals.get(jacobi);
                        boolean isJacobi = pc.equals(jacobi);
                        Map<String, Object> row = new LinkedHashMap<>();
                        row.put("mesh", kind.toString().toLowerCase(Locale.ROOT));
                        if (kind == MeshKind.KERSHAW) {
                            row.put("kershaw_epsilon", eps);
                        }
                        row.put("N", n);
                        row.put("K", k);
                        row.put("E", s.elements());
                        row.put("DOFs", s.assembledDofs());
                        row.put("pc", pc.label());
                        if (pc.pc() == PoissonProblem.Preconditioning.PMG) {
                            row.put("smoother", pc.smoother().cliName());
                        }
                        row.put("iterations", s.solve().iterations());
                        row.put("converged", s.solve().converged());
                        row.put("setup_s", s.setupSeconds());
                        row.put("setup_phases_s", phases.get(pc).seconds());
                        row.put("pc_setup_s", setup);
                        row.put("solve_s", s.solve().seconds());
                        row.put("time_to_solution_s", total);
                        row.put("time_to_solution_samples_s", samples.get(pc));
                        row.put("setup_share_of_solve", s.solve().seconds() > 0 ? setup / s.solve().seconds() : Double.NaN);
                        row.put("ms_per_iteration", 1e3 * s.solve().secondsPerIteration());
                        row.put("max_error", s.maxError());
                        row.put("l2_error", s.l2Error());
                        row.put("final_relative_residual", s.solve().finalResidual() / s.solve().rhsNorm());
                        if (jac != null && !isJacobi) {
                            row.put("speedup_vs_jacobi", jac / total);
                            // |u| <= 1: the difference of the max errors relative to the solution's scale
                            row.put("max_error_difference_vs_jacobi",
                                    Math.abs(s.maxError() - errors.get(jacobi)));
                        }
                        StringBuilder lv = new StringBuilder();
                        List<Map<String, Object>> levels = new ArrayList<>();
                        for (PMultigrid.LevelInfo i : s.levels()) {
                            Map<String, Object> l = new LinkedHashMap<>();
                            l.put("N", i.degree());
                            l.put("DOFs", i.dofs());
                            l.put("smoother_order_or_coarse_iterations", i.smootherOrder());
                            l.put("lambda_min", i.lambdaMin());
                            l.put("lambda_max", i.lambdaMax());
                            l.put("applies_per_cycle", i.appliesPerCycle());
                            levels.add(l);
                            lv.append(String.format(Locale.ROOT, " %d:%d", i.degree(), i.dofs()));
                        }
                        if (!levels.isEmpty()) {
                            row.put("levels", levels);
                        }
                        report.row(row);
                        out.printf(Locale.ROOT, "%-9s %4s %3d %4d %10d %-17s %6d %9.3f %9.3f %9.3f %6.1f%% %10.3e %10s %s%n",
                                kind.toString().toLowerCase(Locale.ROOT), kind == MeshKind.KERSHAW ? String.valueOf(eps) : "",
                                n, k, s.assembledDofs(), pc.label(), s.solve().iterations(), setup, s.solve().seconds(), total,
                                100 * setup / Math.max(1e-12, s.solve().seconds()), s.maxError(),
                                jac != null && !isJacobi
                                        ? String.format(Locale.ROOT, "x%.2f", jac / total) : "", lv);
                        out.printf(Locale.ROOT, "          setup %.3f s: %s%n", s.setupSeconds(), phases.get(pc));
                    }
                }
            }
          }
        }
    }
}
