package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import io.lobatto.backend.aparapi.kernels.TransferKernel;
import io.lobatto.backend.aparapi.runtime.KernelSource;
import io.lobatto.backend.aparapi.runtime.ProgramCache;
import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.BackendException;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.BoundElementOperator;
import io.lobatto.operators.MassOperator;
import io.lobatto.operators.StiffnessBp35;
import io.lobatto.solvers.ConjugateGradient;
import io.lobatto.solvers.PMultigrid;

/**
 * Builds ahead of use ({@link AparapiBackend#prepare}, issue 25): what prepare builds is what a solve uses, a build
 * asked for by several threads at once happens once, a failed build throws its build log to every user, and a build
 * that only warns says so at FINE, not on the terminal. Each test has a backend of its own (a context of its own), so
 * its build counts start at zero; the disk cache may serve the builds, which count the same.
 */
class PrepareBuildsTest {

    private static AparapiBackend fresh() {
        Assumptions.assumeTrue(OpenClAvailability.available(), "no OpenCL device");
        return new AparapiBackend();
    }

    /** p-MG-preconditioned CG at N = 4 (levels 4, 2, 1) after prepare: no build during the setup or the solve. */
    @Test
    void aSolveAfterPrepareBuildsNothing() {
        SpectralElementMesh mesh = TestProblems.deformedBox(2, 2, 2, 4);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        try (AparapiBackend be = fresh()) {
            assertTrue(mesh.elementGeometry().isPresent(), "the test mesh's geometry is device-computable");
            be.prepare(ElementKernel.STIFFNESS_BP35, PMultigrid.halving(4), mesh.elementGeometry().orElseThrow());
            be.awaitPrepared();
            ProgramCache programs = be.runtime().programs();
            int prepared = programs.builds();
            try (AssembledOperator a = AssembledOperator.bind(StiffnessBp35.on(mesh, 0), z, be);
                 BoundElementOperator m = MassOperator.on(mesh).bind(be);
                 PMultigrid b = PMultigrid.builder(g -> StiffnessBp35.on(g, 0), mesh, be).fineOperator(a).build();
                 DeviceVector rhs = be.upload(TestProblems.random(a.size(), 5)); DeviceVector x = be.allocate(a.size());
                 DeviceVector fL = be.upload(TestProblems.random(z.localSize(), 6));
                 DeviceVector mf = be.allocate(z.localSize());
                 ConjugateGradient cg = new ConjugateGradient(a, b).fixedIterations(3)) {
                m.apply(fL, mf);
                cg.solve(rhs, x);
                be.synchronize();
                List<String> built = new ArrayList<>(be.builtKernels().keySet());
                assertEquals(prepared, programs.builds(), "builds after prepare: the solve built more; kernels now " + built);
                // each element kernel only in the input modes used: the levels x_G through Z, the mass x_L
                assertTrue(built.containsAll(List.of("BP3.5 N=4 (assembled)", "BP3.5 N=2 (assembled)", "BP3.5 N=1 (assembled)",
                        "BP1.0 N=4")), "kernels " + built);
                for (String unused : List.of("BP3.5 N=2", "BP3.5 N=1", "BP1.0 N=4 (assembled)")) {
                    assertTrue(!built.contains(unused), unused + " was built but never launched: " + built);
                }
            }
        }
    }

    /**
     * Z's build and the map's are compiled once each, alone, and in no bundle: prepare submits them first and bundles the
     * rest (a bundle that also held Z's build compiled it a second time, in a larger program the setup then waited for).
     */
    @Test
    void zAndTheMapBuildOnceAndAlone() {
        SpectralElementMesh mesh = TestProblems.deformedBox(2, 2, 2, 4);
        try (AparapiBackend be = fresh()) {
            Assumptions.assumeTrue(GatherScatter.kind() != GatherScatter.TILES, "the tiles kind builds no Z on the device");
            ProgramCache programs = be.runtime().programs();
            int before = programs.buildLog().size();
            be.prepare(ElementKernel.STIFFNESS_BP35, PMultigrid.halving(4), mesh.elementGeometry().orElseThrow());
            be.awaitPrepared();
            List<String> labels = programs.buildLog().subList(before, programs.buildLog().size()).stream()
                    .map(ProgramCache.Build::label).filter(l -> !l.endsWith(" (optimised)")).toList();
            List<String> expected = new ArrayList<>(List.of(ScatterBuild.spec().source().label()));
            if (io.lobatto.core.mesh.ElementNumbering.onDevice()) {
                expected.add(ScatterBuild.numberingSpec().source().label());
            }
            for (String kernel : expected) {
                List<String> with = labels.stream().filter(l -> names(l).contains(kernel)).toList();
                assertEquals(List.of(kernel), with, "the programs that hold '" + kernel + "' among " + labels);
            }
        }
    }

    /** The kernels a build's label names: one, or a bundle's after "bundle of n: ". */
    private static List<String> names(String label) {
        return label.startsWith("bundle of ") ? List.of(label.substring(label.indexOf(": ") + 2).split(", ")) : List.of(label);
    }

    /** Several threads asking for one source while it builds, and the lazy path of prepare's kernels: one build each. */
    /**
     * Threads asking for one bundle at once (its kernels in different orders, as prepare's task and an operation that
     * could not wait do): one program is compiled, not one per thread that claimed some of its kernels.
     */
    @Test
    void concurrentRequestsForOneBundleBuildItOnce() throws Exception {
        try (AparapiBackend be = fresh()) {
            ProgramCache programs = be.runtime().programs();
            be.awaitPrepared();
            List<KernelSource> bundle = new ArrayList<>();
            for (int op : new int[] {TransferKernel.PROLONG_I, TransferKernel.PROLONG_J, TransferKernel.PROLONG_K,
                TransferKernel.RESTRICT_K, TransferKernel.RESTRICT_J, TransferKernel.RESTRICT_I}) {
                bundle.add(KernelBuilds.transfer(op, 2, 6).source());
            }
            int logBefore = programs.buildLog().size();
            int kernelsBefore = programs.builds();
            ExecutorService pool = Executors.newFixedThreadPool(6);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 6; t++) {
                    List<KernelSource> order = new ArrayList<>(bundle);
                    java.util.Collections.rotate(order, t);
                    done.add(pool.submit(() -> {
                        start.await();
                        programs.buildAll(order);
                        return null;
                    }));
                }
                start.countDown();
                for (Future<?> f : done) {
                    f.get();
                }
            } finally {
                pool.shutdown();
            }
            assertEquals(kernelsBefore + 6, programs.builds(), "each kernel once");
            assertEquals(1, programs.buildLog().size() - logBefore,
                    "one program (compiled or from the disk cache) for six concurrent requests of one bundle: "
                    + programs.buildLog().subList(logBefore, programs.buildLog().size()));
        }
    }

    @Test
    void concurrentRequestsForOneKernelBuildItOnce() throws Exception {
        try (AparapiBackend be = fresh()) {
            ProgramCache programs = be.runtime().programs();
            KernelSource s = KernelBuilds.transfer(TransferKernel.PROLONG_J, 2, 5).source();
            be.awaitPrepared();    // the backend's start-up probe builds on a thread of its own
            int before = programs.builds();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Integer>> sizes = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    sizes.add(pool.submit(() -> {
                        start.await();
                        return programs.workGroupSize(s);
                    }));
                }
                start.countDown();
                int fromMain = programs.kernel(s).workGroupSize();
                for (Future<Integer> f : sizes) {
                    assertEquals(fromMain, f.get());
                }
            } finally {
                pool.shutdown();
            }
            assertEquals(before + 1, programs.builds(), "five concurrent requests of one source");

            // prepare, then the operations at once (they wait for the builds in flight): as many builds as prepare alone
            SpectralElementMesh mesh = TestProblems.deformedBox(2, 1, 1, 2);
            ScatterOperator z = TestProblems.dirichlet(mesh);
            int start = programs.builds();
            be.prepare(ElementKernel.STIFFNESS_BP35, new int[] {2}, mesh.elementGeometry().orElseThrow());
            try (AssembledOperator a = AssembledOperator.bind(StiffnessBp35.on(mesh, 0), z, be);
                 DeviceVector x = be.upload(TestProblems.random(a.size(), 1)); DeviceVector y = be.allocate(a.size())) {
                a.apply(x, y);
            }
            be.awaitPrepared();
            int withLazyUse = programs.builds() - start;
            try (AparapiBackend alone = fresh()) {
                alone.awaitPrepared();   // its start-up probe first
                int s0 = alone.runtime().programs().builds();
                alone.prepare(ElementKernel.STIFFNESS_BP35, new int[] {2}, mesh.elementGeometry().orElseThrow());
                alone.awaitPrepared();
                assertEquals(alone.runtime().programs().builds() - s0, withLazyUse,
                        "builds of prepare alone and of prepare with the operations running at once");
            }
        }
    }

    /** A kernel that does not compile: its build log reaches the first user and every later one. */
    @Test
    void aBadKernelFailsWithItsBuildLogForEveryUser() throws Exception {
        try (AparapiBackend be = fresh()) {
            ProgramCache programs = be.runtime().programs();
            KernelSource bad = new KernelSource("bad kernel", "__kernel void run(__global double *y) { y[0] = no_such_symbol_q; }\n",
                    List.of(new KernelSource.Arg("y", KernelSource.Kind.GLOBAL_BUFFER)));
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                Future<?> ahead = pool.submit(() -> programs.build(bad));
                java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class, ahead::get);
                assertTrue(e.getCause() instanceof BackendException, e.getCause().toString());
                assertTrue(e.getCause().getMessage().contains("build log") && e.getCause().getMessage().contains("no_such_symbol_q"),
                        e.getCause().getMessage());
            } finally {
                pool.shutdown();
            }
            BackendException again = assertThrows(BackendException.class, () -> programs.kernel(bad));
            assertTrue(again.getMessage().contains("bad kernel") && again.getMessage().contains("no_such_symbol_q"),
                    again.getMessage());
        }
    }

    /** A build that succeeds with warnings logs them at FINE only: nothing at INFO or above. */
    @Test
    void aWarningOnlyBuildLogIsNotPrintedAtInfo() {
        Logger log = Logger.getLogger("io.lobatto.backend.aparapi");
        List<LogRecord> records = new java.util.concurrent.CopyOnWriteArrayList<>();
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                records.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        h.setLevel(Level.ALL);
        Level old = log.getLevel();
        log.setLevel(Level.FINE);
        log.addHandler(h);
        try (AparapiBackend be = fresh()) {
            KernelSource warns = new KernelSource("warning kernel " + System.nanoTime(),
                    "__kernel void run(__global double *y) { int q = 0; q == 1; y[0] = 1.0; }\n",
                    List.of(new KernelSource.Arg("y", KernelSource.Kind.GLOBAL_BUFFER)));
            be.runtime().programs().build(warns);
            for (LogRecord r : records) {
                assertTrue(r.getLevel().intValue() < Level.INFO.intValue(), "logged at " + r.getLevel() + ": " + r.getMessage());
            }
            // PoCL's clang reports "equality comparison result unused"; a driver that prints nothing logs nothing; beside
            // the build log, each build logs its time ("compiled kernel '...' in ... ms")
            assertTrue(records.stream().allMatch(r -> r.getMessage().contains("build log")
                    || r.getMessage().matches("(?s)aparapi: (compiled|loaded) kernel '.*' in [0-9.]+ ms")), records.toString());
            assertTrue(records.stream().anyMatch(r -> r.getMessage().matches("(?s)aparapi: (compiled|loaded) kernel '"
                    + java.util.regex.Pattern.quote(warns.label()) + "' in .*")), records.toString());
        } finally {
            log.removeHandler(h);
            log.setLevel(old);
        }
    }
}
