package io.lobatto.bench;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.List;
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
import io.lobatto.operators.FactorStorage;

/**
 * The assembled operator apply y_G = A x_G = Z^T L Z x_G timed as libCEED's benchmarks time an operator
 * apply: an undeformed K x K x K box of the unit cube, no Dirichlet mask, BP1 (mass, BP1.0), BP3
 * (stiffness, BP3.0, lambda = 0) and BP5 (stiffness, BP3.5, lambda = 0), N_G about {@code dofs} global DOFs
 * per degree. Two calls of the bound {@link AssembledOperator} are timed, each the call a solver makes:
 * <ul>
 * <li>{@code apply}: {@link AssembledOperator#apply} (y = A x), the operator apply libCEED reports; the
 *     headline {@code seconds_per_apply} and {@code GDOF_per_s}.</li>
 * <li>{@code cg}: {@link AssembledOperator#updateApplyDot} (p = z + beta p, y = A p, p . y), exactly the call
 *     {@code ConjugateGradient} makes in every iteration after the first; on the cpu backend both run the fused
 *     block operator ({@code BlockAssembly}), this one also reading z and writing p.</li>
 * </ul>
 * Timing as {@code bk} and {@code bp}: the two calls, alternated, run until the time per call settles
 * ({@link Timing#warmUp}: at least {@value Timing#WARMUP_SECONDS} s, then until two windows in a row no longer
 * improve by 10%; the JIT compiles the cpu backend's per-N kernels in the background, which takes seconds); then
 * {@code reps} samples of each, interleaved (apply, cg, apply, cg, ...) so that a change of machine load hits
 * both alike. A sample is back-to-back calls for about {@value #SAMPLE_TARGET_S} s and one
 * {@link Backend#synchronize()}, divided by the calls. Each row has the median, min and max per call, the
 * relative spread (max - min) / median, the GDOF/s of the fastest sample ({@code best_GDOF_per_s}: on a busy
 * machine the least disturbed) and of the slowest ({@code worst_GDOF_per_s}), every sample, the warm-up time, the JIT compilation that finished while the samples
 * ran (0 when the warm-up did its job) and the 1-minute load average at the end of the point. A point the backend cannot run is recorded with the reason, not left out.
 */
public final class OpSuite {

    /** Seconds one sample lasts at least (back-to-back calls, 1 to 1000 of them). */
    static final double SAMPLE_TARGET_S = 0.1;

    /** beta of the timed CG call: p converges to z / (1 - beta), so repeated calls keep p bounded. */
    static final double CG_BETA = 0.5;

    private OpSuite() {
    }

    public static void run(Backend be, int nMin, int nMax, long dofs, int reps, Report report) {
        run(be, nMin, nMax, dofs, reps, report, List.of("BP1", "BP3", "BP5"), List.of(GeometryChoice.STORED));
    }

    /**
     * The problems named in {@code problems} (BP1, BP3, BP5), BP5 once per entry of {@code storages} (stored factors,
     * factors on the fly with the backend's choice of kernel or a forced one), one after the other on the same mesh; BP1
     * and BP3 always with stored factors. Each row says which ({@code geometry}; {@code factors_on_the_fly}: what the
     * backend's kernel really does; {@code element_plan}: the Aparapi backend's kernel and launch) and that the mesh is
     * trilinear.
     */
    public static void run(Backend be, int nMin, int nMax, long dofs, int reps, Report report, List<String> problems,
                           List<GeometryChoice> storages) {
        run(be, nMin, nMax, dofs, reps, report, problems, storages, List.of());
    }

    /** System property of the aparapi backend's element-kernel variant ({@code table}, {@code registers}, ...). */
    static final String VARIANT_PROPERTY = "lobatto.aparapi.elementVariant";

    /**
     * As {@link #run(Backend, int, int, long, int, Report, List, List)}, each point once per entry of {@code variants} (the
     * aparapi backend's element-kernel variants, {@code -Dlobatto.aparapi.elementVariant} set for the point; empty: the
     * JVM's setting only), one after the other on the same mesh, so that an A/B of the variants shares the run; each such
     * row says its {@code element_variant}.
     */
    public static void run(Backend be, int nMin, int nMax, long dofs, int reps, Report report, List<String> problems,
                           List<GeometryChoice> storages, List<String> variants) {
        run(be, nMin, nMax, dofs, reps, report, problems, storages, variants, List.of());
    }

    /** System property of the aparapi backend's form of the assembled apply ({@code off}, {@code ptx}, {@code cas}). */
    static final String FORM_PROPERTY = "lobatto.aparapi.atomicOperator";

    /**
     * As {@link #run(Backend, int, int, long, int, Report, List, List, List)}, each point (and variant) once per entry of
     * {@code forms} ({@code -Dlobatto.aparapi.atomicOperator} set for the point; empty: the JVM's setting only); each row
     * says its {@code operator_form}, and an atomic form's row the largest |y_G - y_G(off)| over max |y_G(off)| of one apply.
     */
    public static void run(Backend be, int nMin, int nMax, long dofs, int reps, Report report, List<String> problems,
                           List<GeometryChoice> storages, List<String> variants, List<String> forms) {
        var out = report.out();
        if (!forms.isEmpty()) {
            report.meta("operator_forms", forms);
        }
        if (!variants.isEmpty()) {
            report.meta("element_variants", variants);
        }
        report.meta("mesh", "undeformed box of the unit cube, K x K x K elements, no Dirichlet mask");
        report.meta("mesh_trilinear", true);
        report.meta("geometry", storages.stream().map(GeometryChoice::label).toList());
        report.meta("timing", "apply (AssembledOperator.apply) and cg (updateApplyDot, CG's call) alternated until the time "
                + "per call settles (Timing.warmUp), then reps samples of each, interleaved; a sample is back-to-back calls "
                + "for >= " + SAMPLE_TARGET_S + " s and one synchronize, divided; median, min, max, (max - min) / median");
        out.printf(Locale.ROOT, "%-13s %3s %5s %9s %11s %10s %8s %8s %8s %7s %10s %8s %8s %8s %7s %6s %5s %5s%n", "op", "N", "K", "E",
                "N_G", "us/apply", "GDOF/s", "best", "worst", "spread", "us/cg", "GDOF/s", "best", "worst", "spread", "warm", "jit", "load");
        out.printf(Locale.ROOT, "%61s%s%n", "", "(apply: median, from the fastest and the slowest sample, (max - min) / median; cg: CG's call, the same; "
                + "warm-up s; JIT ms during the samples; load average)");
        SweepProgress sweep = SweepProgress.start("op", nMax - nMin + 1);
        for (int n = nMin; n <= nMax; n++) {
            sweep.next(String.join(", ", problems) + " at N = " + n);
            int k = elementsPerSide(dofs, n);
            SpectralElementMesh mesh;
            ScatterOperator z;
            try {
                long t0 = System.nanoTime();
                mesh = mesh(k, n);
                z = scatter(mesh);
                out.printf(Locale.ROOT, "N = %d: mesh and Z of %d elements in %.1f s%n", n, mesh.elementCount(), (System.nanoTime() - t0) * 1e-9);
            } catch (RuntimeException | OutOfMemoryError ex) {
                for (String name : problems) {
                    skipped(report, name, n, k, "mesh: " + ex);
                }
                continue;
            }
            for (String name : problems) {
                ElementKernel kernel = kernel(name);
                for (GeometryChoice storage : kernel == ElementKernel.STIFFNESS_BP35 ? storages : List.of(GeometryChoice.STORED)) {
                    for (String variant : variants.isEmpty() ? java.util.Collections.singletonList((String) null) : variants) {
                        String before = System.getProperty(VARIANT_PROPERTY);
                        if (variant != null) {
                            System.setProperty(VARIANT_PROPERTY, variant);
                        }
                        try {
                            for (String form : forms.isEmpty() ? java.util.Collections.singletonList((String) null) : forms) {
                                String formBefore = System.getProperty(FORM_PROPERTY);
                                if (form != null) {
                                    System.setProperty(FORM_PROPERTY, form);
                                }
                                try {
                                    point(be, name, kernel, storage, mesh, z, k, reps, report, variant, form);
                                } catch (RuntimeException | OutOfMemoryError ex) {
                                    skipped(report, name, n, k, storage, ex.toString());
                                } finally {
                                    if (formBefore == null) {
                                        System.clearProperty(FORM_PROPERTY);
                                    } else {
                                        System.setProperty(FORM_PROPERTY, formBefore);
                                    }
                                }
                            }
                        } finally {
                            if (before == null) {
                                System.clearProperty(VARIANT_PROPERTY);
                            } else {
                                System.setProperty(VARIANT_PROPERTY, before);
                            }
                        }
                    }
                }
            }
        }
    }

    /** Elements per side K of the box for about {@code dofs} global DOFs at degree n: N_G = (K N + 1)^3 without a mask. */
    static int elementsPerSide(long dofs, int n) {
        return Math.max(1, (int) Math.round((Math.cbrt((double) dofs) - 1) / n));
    }

    /** The suite's mesh: the undeformed K x K x K box of the unit cube at degree n. */
    static SpectralElementMesh mesh(int k, int n) {
        return SpectralElementMesh.of(HexMesh.box(k, k, k, 0, 1, 0, 1, 0, 1), n);
    }

    /** The suite's Z: every node of the mesh a DOF (no Dirichlet mask). */
    static ScatterOperator scatter(SpectralElementMesh mesh) {
        return ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), null);
    }

    /** The element kernel of a problem: BP1 mass (BP1.0), BP3 stiffness (BP3.0), BP5 stiffness (BP3.5). */
    static ElementKernel kernel(String problem) {
        return switch (problem) {
            case "BP1" -> ElementKernel.MASS_BP10;
            case "BP3" -> ElementKernel.STIFFNESS_BP30;
            case "BP5" -> ElementKernel.STIFFNESS_BP35;
            default -> throw new IllegalArgumentException("problem must be BP1, BP3 or BP5, got " + problem);
        };
    }

    /**
     * The operator a point times, A = Z^T L Z with lambda = 0 and no shift, bound as a solver binds it: its {@code apply}
     * and {@code updateApplyDot} are the calls the suite times, the latter the one {@code ConjugateGradient} makes.
     */
    static AssembledOperator bind(ElementKernel kernel, FactorStorage storage, SpectralElementMesh mesh, ScatterOperator z,
                                  Backend be) {
        return AssembledOperator.bind(ElementOperator.of(kernel, mesh, 0.0, storage), z, be);
    }

    /** The Aparapi backend's kernel and launch of the operator's element part, e.g. "STIFFNESS_BP35 N=7: shared, ...", else null. */
    static String elementPlan(Backend be, AssembledOperator a) {
        return be instanceof io.lobatto.backend.aparapi.AparapiBackend ab ? ab.plan(a.boundElementOperator().data()) : null;
    }

    /** Records a point that could not run, with the reason. */
    private static void skipped(Report report, String name, int n, int k, String why) {
        skipped(report, name, n, k, GeometryChoice.STORED, why);
    }

    private static void skipped(Report report, String name, int n, int k, GeometryChoice storage, String why) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("problem", name);
        row.put("geometry", storage.label());
        row.put("N", n);
        row.put("K", k);
        row.put("skipped", why);
        report.row(row);
        report.out().printf(Locale.ROOT, "%-13s %3d %5d skipped: %s%n", label(name, storage), n, k, why);
    }

    /** "BP5", "BP5 onthefly" or "BP5 onthefly:shared". */
    static String label(String name, GeometryChoice storage) {
        return storage.storage() == FactorStorage.STORED ? name : name + " " + storage.label();
    }

    private static void point(Backend be, String name, ElementKernel kernel, GeometryChoice storage, SpectralElementMesh mesh,
                              ScatterOperator z, int k, int reps, Report report, String variant, String form) {
        int n = mesh.degree();
        double[] x0 = random(z.globalSize(), n);
        double[] z0 = random(z.globalSize(), 100 + n);
        double[] applySeconds = new double[reps];
        double[] cgSeconds = new double[reps];
        int applyCalls;
        int cgCalls;
        double warmupSeconds;
        long jitDuringSamples;
        boolean onTheFly;
        String plan;
        double formCheck = Double.NaN;
        try (AssembledOperator a = storage.bind(() -> bind(kernel, storage.storage(), mesh, z, be));
             DeviceVector x = be.upload(x0); DeviceVector y = be.allocate(a.size());
             DeviceVector dir = be.upload(z0); DeviceVector p = be.upload(x0); DeviceVector ap = be.allocate(a.size())) {
            onTheFly = a.boundElementOperator().data().factorsOnTheFly();
            plan = elementPlan(be, a);
            Runnable apply = () -> a.apply(x, y);
            Runnable cg = () -> a.updateApplyDot(dir, CG_BETA, p, ap);
            long w0 = System.nanoTime();
            Timing.warmUp(3, () -> {
                apply.run();
                cg.run();
            });
            be.synchronize();
            warmupSeconds = (System.nanoTime() - w0) * 1e-9;
            applyCalls = Timing.innerFor(Timing.measure(be, 0, 1, 1, apply).median(), SAMPLE_TARGET_S);
            cgCalls = Timing.innerFor(Timing.measure(be, 0, 1, 1, cg).median(), SAMPLE_TARGET_S);
            long jit0 = Timing.jitMillis();
            for (int r = 0; r < reps; r++) {
                applySeconds[r] = Timing.measure(be, 0, 1, applyCalls, apply).seconds()[0];
                cgSeconds[r] = Timing.measure(be, 0, 1, cgCalls, cg).seconds()[0];
            }
            jitDuringSamples = Timing.jitMillis() - jit0;
            if (form != null && !form.equals("off")) {
                apply.run();
                double[] got = be.download(y);
                System.setProperty(FORM_PROPERTY, "off");
                try {
                    apply.run();
                } finally {
                    System.setProperty(FORM_PROPERTY, form);
                }
                double[] want = be.download(y);
                double scale = 0;
                double diff = 0;
                for (int i = 0; i < want.length; i++) {
                    scale = Math.max(scale, Math.abs(want[i]));
                    diff = Math.max(diff, Math.abs(got[i] - want[i]));
                }
                formCheck = diff / scale;
            }
        }
        Timing.Samples s = new Timing.Samples(applySeconds);
        Timing.Samples c = new Timing.Samples(cgSeconds);
        double t = s.median();
        double tc = c.median();
        long ng = z.globalSize();
        double load = loadAverage();
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("problem", name);
        row.put("kernel", kernel.name());
        row.put("geometry", storage.label());
        if (variant != null) {
            row.put("element_variant", variant);
        }
        if (form != null) {
            row.put("operator_form", form);
        }
        if (!Double.isNaN(formCheck)) {
            row.put("max_relative_difference_to_off", formCheck);
        }
        row.put("factors_on_the_fly", onTheFly);
        if (plan != null) {
            row.put("element_plan", plan);
        }
        row.put("mesh_trilinear", mesh.elementGeometry().map(g -> g.isTrilinear()).orElse(false));
        row.put("N", n);
        row.put("K", k);
        row.put("elements", (long) mesh.elementCount());
        row.put("N_G", ng);
        row.put("N_L", (long) z.localSize());
        row.put("applies_per_sample", applyCalls);
        row.put("seconds_per_apply", t);
        row.put("min_s", s.min());
        row.put("max_s", s.max());
        row.put("relative_spread", spread(s));
        row.put("GDOF_per_s", ng / t * 1e-9);
        row.put("best_GDOF_per_s", ng / s.min() * 1e-9);
        row.put("worst_GDOF_per_s", ng / s.max() * 1e-9);
        row.put("samples_s", s.seconds());
        row.put("cg_calls_per_sample", cgCalls);
        row.put("cg_seconds_per_call", tc);
        row.put("cg_min_s", c.min());
        row.put("cg_max_s", c.max());
        row.put("cg_relative_spread", spread(c));
        row.put("cg_GDOF_per_s", ng / tc * 1e-9);
        row.put("cg_best_GDOF_per_s", ng / c.min() * 1e-9);
        row.put("cg_worst_GDOF_per_s", ng / c.max() * 1e-9);
        row.put("cg_samples_s", c.seconds());
        row.put("warmup_s", warmupSeconds);
        // JIT compilation that finished while the samples ran (0 when the warm-up did its job)
        row.put("jit_ms_during_samples", jitDuringSamples);
        if (!Double.isNaN(load)) {
            row.put("load_average_1min", load);
        }
        report.row(row);
        report.out().printf(Locale.ROOT, "%-13s %3d %5d %9d %11d %10.1f %8.4f %8.4f %8.4f %6.1f%% %10.1f %8.4f %8.4f %8.4f %6.1f%% %6.1f %5d %5.2f%n",
                label(name, storage) + (variant != null ? " " + variant : "") + (form != null ? " " + form : ""), n, k, mesh.elementCount(), ng, t * 1e6, ng / t * 1e-9, ng / s.min() * 1e-9, ng / s.max() * 1e-9,
                100 * spread(s), tc * 1e6, ng / tc * 1e-9, ng / c.min() * 1e-9, ng / c.max() * 1e-9, 100 * spread(c), warmupSeconds,
                jitDuringSamples, load);
        if (plan != null) {
            report.out().printf(Locale.ROOT, "%-13s kernel: %s%n", "", plan);
        }
        if (!Double.isNaN(formCheck)) {
            report.out().printf(Locale.ROOT, "%-13s %s: max |y_G - y_G(off)| / max |y_G(off)| = %.2e%n", "", form, formCheck);
        }
    }

    /** (max - min) / median of the samples. */
    static double spread(Timing.Samples s) {
        return (s.max() - s.min()) / s.median();
    }

    private static double[] random(int length, long seed) {
        double[] v = new double[length];
        Random rnd = new Random(seed);
        for (int i = 0; i < length; i++) {
            v[i] = rnd.nextDouble();
        }
        return v;
    }

    /** The system's 1-minute load average, NaN where the platform has none. */
    static double loadAverage() {
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return load < 0 ? Double.NaN : load;
    }
}
