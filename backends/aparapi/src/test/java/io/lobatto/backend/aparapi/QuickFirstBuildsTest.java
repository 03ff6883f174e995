package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.lobatto.backend.aparapi.runtime.ClBuffer;
import io.lobatto.backend.aparapi.runtime.ClContext;
import io.lobatto.backend.aparapi.runtime.ClKernel;
import io.lobatto.backend.aparapi.runtime.KernelSource;
import io.lobatto.backend.aparapi.runtime.ProgramCache;
import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.StiffnessBp35;
import io.lobatto.solvers.ConjugateGradient;
import io.lobatto.solvers.JacobiPreconditioner;
import io.lobatto.solvers.SolveResult;

/**
 * Quick-first builds ({@link ProgramCache#QUICK_FIRST_PROPERTY}, issue 25): a kernel whose optimised program is not in the
 * disk cache is built with {@code -cl-opt-disable} first, its optimised program is built once it has launched
 * {@link ProgramCache#UPGRADE_AFTER_PROPERTY} work-items, and it swaps that in at the launch that reaches twice as many, with
 * its arguments bound again. Each test has a backend (a context and a disk cache) of its own.
 */
class QuickFirstBuildsTest {

    /** A backend with {@code properties} set while it is made (the cache reads them then), restored after. */
    private static AparapiBackend backend(String... properties) {
        Assumptions.assumeTrue(OpenClAvailability.available(), "no OpenCL device");
        String[] old = new String[properties.length / 2];
        for (int i = 0; i < properties.length; i += 2) {
            old[i / 2] = System.getProperty(properties[i]);
            System.setProperty(properties[i], properties[i + 1]);
        }
        try {
            AparapiBackend be = new AparapiBackend();
            be.runtime().programs().quickFirstFor(Long.MAX_VALUE);   // reads QUICK_FIRST_PROPERTY while it is set
            return be;
        } finally {
            for (int i = 0; i < properties.length; i += 2) {
                if (old[i / 2] == null) {
                    System.clearProperty(properties[i]);
                } else {
                    System.setProperty(properties[i], old[i / 2]);
                }
            }
        }
    }

    private static KernelSource twiceOnePlus(String label) {
        return new KernelSource(label, "__kernel void run(__global double *y, int n) {\n"
                + "  int i = get_global_id(0);\n  if (i < n) { y[i] = 2.0 * y[i] + 1.0; }\n}\n",
                List.of(new KernelSource.Arg("y", KernelSource.Kind.GLOBAL_BUFFER), new KernelSource.Arg("n", KernelSource.Kind.INT)));
    }

    /**
     * NVIDIA's PTX level ({@link ProgramCache#nvLevel}): on an NVIDIA device a quick build gets level 1 and, in a quick-first
     * job below {@link ProgramCache#QUICK_FIRST_NV_POINTS} points, an optimised-only build level 0; an optimised build of
     * the default options, a job above that size and a build that names a level keep their options. Elsewhere (PoCL, AMD)
     * every option string stays as it is.
     */
    @Test
    void theNvidiaLevelGoesOnlyWhereABuildRunsLittle() {
        try (AparapiBackend be = backend(ProgramCache.QUICK_FIRST_PROPERTY, "true")) {
            ProgramCache programs = be.runtime().programs();
            boolean nvidia = be.runtime().device().vendor().toLowerCase(java.util.Locale.ROOT).contains("nvidia");
            String quick = ProgramCache.QUICK_OPTIONS;
            String once = ProgramCache.OPTIMISED_ONLY;
            programs.quickFirstFor(110_592);
            assertEquals(nvidia ? quick + " -cl-nv-opt-level=1" : quick, programs.nvLevel(quick));
            assertEquals(nvidia ? once + " -cl-nv-opt-level=0" : once, programs.nvLevel(once));
            assertEquals("", programs.nvLevel(""));
            assertEquals(quick + " -cl-nv-opt-level=3", programs.nvLevel(quick + " -cl-nv-opt-level=3"));
            programs.quickFirstFor(ProgramCache.QUICK_FIRST_NV_POINTS);
            assertEquals(once, programs.nvLevel(once));
            assertEquals(nvidia ? quick + " -cl-nv-opt-level=1" : quick, programs.nvLevel(quick));
        }
    }

    /**
     * Upgrade after 100 work-items, launches of 64: the second launch asks for the optimised build, the fourth (256 >= 200)
     * runs it. The arguments bound before the swap hold after it, and a second context finds the optimised program on disk
     * and builds nothing quickly.
     */
    @Test
    void aKernelSwapsInItsOptimisedBuildAtTwiceTheThreshold(@TempDir Path cache) throws Exception {
        KernelSource src = twiceOnePlus("quick-first probe " + System.nanoTime());
        double[] y = new double[64];
        try (AparapiBackend be = backend(ProgramCache.QUICK_FIRST_PROPERTY, "true", ProgramCache.UPGRADE_AFTER_PROPERTY, "100",
                ProgramCache.PROPERTY, cache.toString())) {
            ClContext cl = be.runtime();
            ProgramCache programs = cl.programs();
            assertTrue(programs.quickFirst());
            ClBuffer buf = cl.allocate(8L * y.length, "y");
            cl.write(y, 0, y.length, buf, 0);
            ClKernel k = programs.kernel(src).set("y", buf).set("n", y.length);
            assertTrue(k.quick(), "built quickly first");
            assertEquals(1, programs.quickBuilt());
            for (int launch = 1; launch <= 5; launch++) {
                k.launch(1, 64);
                assertEquals(launch < 4, k.quick(), "after launch " + launch + " (64 work-items each, threshold 100)");
            }
            cl.finish();
            cl.read(buf, 0, y, 0, y.length);
            for (double v : y) {
                assertEquals(31.0, v, "five launches of y = 2y + 1 from 0, across the swap");
            }
            assertEquals(1, programs.upgraded());
            List<String> labels = programs.buildLog().stream().map(ProgramCache.Build::label).toList();
            assertTrue(labels.contains(src.label() + " (quick)") && labels.contains(src.label() + " (optimised)"), labels.toString());
        }
        try (AparapiBackend be = backend(ProgramCache.QUICK_FIRST_PROPERTY, "true", ProgramCache.UPGRADE_AFTER_PROPERTY, "100",
                ProgramCache.PROPERTY, cache.toString())) {
            ClKernel k = be.runtime().programs().kernel(src);
            assertFalse(k.quick(), "the optimised program is on disk: no quick build");
            assertEquals(0, be.runtime().programs().quickBuilt());
            assertTrue(be.runtime().programs().buildLog().stream().anyMatch(b -> b.label().equals(src.label()) && b.fromDisk()),
                    "loaded from the disk cache: " + be.runtime().programs().buildLog());
        }
    }

    /**
     * A second run of the same small job loads the quick program from the disk cache and builds nothing: its optimised
     * program is built only once a kernel has done enough work.
     */
    @Test
    void aSecondRunLoadsTheQuickProgramAndBuildsNothing(@TempDir Path cache) {
        KernelSource src = twiceOnePlus("quick-first second run " + System.nanoTime());
        String[] props = {ProgramCache.QUICK_FIRST_PROPERTY, "true", ProgramCache.UPGRADE_AFTER_PROPERTY, "1000000",
            ProgramCache.PROPERTY, cache.toString()};
        try (AparapiBackend be = backend(props)) {
            assertTrue(be.runtime().programs().kernel(src).quick());
        }
        try (AparapiBackend be = backend(props)) {
            ProgramCache programs = be.runtime().programs();
            assertTrue(programs.kernel(src).quick(), "the second run loads the quick program");
            assertEquals(0, programs.upgraded());
            assertTrue(programs.buildLog().stream().anyMatch(b -> b.label().equals(src.label() + " (quick)") && b.fromDisk()),
                    "from the disk cache: " + programs.buildLog());
        }
    }

    /**
     * Jacobi PCG on a deformed box at N = 3, built quickly first with upgrades in the middle of the solve: the iterations of
     * the optimised build and its solution to round-off (the two builds may contract a*b+c differently), and the same bits in
     * a second run of the same kind (the swaps happen at fixed launches, not when a build ends).
     */
    @Test
    void aSolveThatSwapsKernelsMidwayConvergesAsTheOptimisedOne(@TempDir Path first, @TempDir Path second) {
        SpectralElementMesh mesh = TestProblems.deformedBox(2, 2, 2, 3);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        double[] rhs = TestProblems.random(z.globalSize(), 11);
        Solved reference;
        try (AparapiBackend be = backend(ProgramCache.QUICK_FIRST_PROPERTY, "false")) {
            reference = solve(be, mesh, z, rhs);
        }
        Solved[] quick = new Solved[2];
        Path[] caches = {first, second};
        for (int run = 0; run < 2; run++) {
            // 3 000 work-items: every kernel of the solve swaps within its first iterations
            try (AparapiBackend be = backend(ProgramCache.QUICK_FIRST_PROPERTY, "true", ProgramCache.UPGRADE_AFTER_PROPERTY,
                    "3000", ProgramCache.PROPERTY, caches[run].toString())) {
                quick[run] = solve(be, mesh, z, rhs);
                ProgramCache programs = be.runtime().programs();
                assertTrue(programs.quickBuilt() > 0 && programs.upgraded() > 0,
                        "quick " + programs.quickBuilt() + ", optimised since " + programs.upgraded());
            }
        }
        assertEquals(reference.result.iterations(), quick[0].result.iterations());
        assertTrue(TestProblems.relativeError(quick[0].x, reference.x) < 1e-12,
                "relative difference " + TestProblems.relativeError(quick[0].x, reference.x));
        assertEquals(quick[0].result.iterations(), quick[1].result.iterations());
        for (int i = 0; i < quick[0].x.length; i++) {
            assertEquals(Double.doubleToRawLongBits(quick[0].x[i]), Double.doubleToRawLongBits(quick[1].x[i]), "x[" + i + "]");
        }
    }

    private record Solved(SolveResult result, double[] x) {
    }

    private static Solved solve(AparapiBackend be, SpectralElementMesh mesh, ScatterOperator z, double[] rhs) {
        // no prepare: it would choose the mode again from the property, restored by now; each operation builds at first use
        try (AssembledOperator a = AssembledOperator.bind(StiffnessBp35.on(mesh, 0), z, be);
             JacobiPreconditioner p = JacobiPreconditioner.of(a);
             DeviceVector b = be.upload(rhs); DeviceVector x = be.allocate(a.size())) {
            SolveResult r = new ConjugateGradient(a, p).relativeTolerance(1e-10).solve(b, x);
            return new Solved(r, be.download(x));
        }
    }

    /** The property takes auto, true or false, and says so otherwise. */
    @Test
    void anUnknownModeIsRefusedWithTheValues() {
        try (AparapiBackend be = backend()) {
            String old = System.getProperty(ProgramCache.QUICK_FIRST_PROPERTY);
            System.setProperty(ProgramCache.QUICK_FIRST_PROPERTY, "sometimes");
            try {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> be.runtime().programs().quickFirstFor(10));
                assertTrue(e.getMessage().contains("sometimes") && e.getMessage().contains("auto, true, false"), e.getMessage());
            } finally {
                if (old == null) {
                    System.clearProperty(ProgramCache.QUICK_FIRST_PROPERTY);
                } else {
                    System.setProperty(ProgramCache.QUICK_FIRST_PROPERTY, old);
                }
            }
            // auto: off on a CPU device whatever the size, on a GPU below the threshold
            be.runtime().programs().quickFirstFor(10);
            assertEquals(be.runtime().device().type() == io.lobatto.backend.aparapi.runtime.ClDevice.Type.GPU,
                    be.runtime().programs().quickFirst());
            be.runtime().programs().quickFirstFor(ProgramCache.QUICK_FIRST_POINTS);
            assertFalse(be.runtime().programs().quickFirst());
        }
    }
}
