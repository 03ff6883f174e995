package io.lobatto.backend.cpu;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import java.util.Random;

import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;

/**
 * A fixed run of CG's operator call on the fused block path ({@link CpuBackend#applyAssembledDotUpdate}) for a
 * profiler (not a unit test; run by hand): a K x K x K brick with a Dirichlet mask, one kernel, one degree, a
 * warm-up of {@code warmup} calls, then {@code calls} calls, and the time per call of each tenth. With a fixed
 * number of calls the work is fixed, so a sampling profiler's shares (or an instruction count) do not depend on
 * the machine's load:
 * <pre>
 * java -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -cp CLASSPATH io.lobatto.backend.cpu.FusedBlockProfile \
 *     STIFFNESS_BP35 7 17 1 200 400      # kernel N K threads warmup calls
 * </pre>
 */
public final class FusedBlockProfile {

    private FusedBlockProfile() {
    }

    public static void main(String[] args) {
        ElementKernel kernel = ElementKernel.valueOf(args.length > 0 ? args[0] : "STIFFNESS_BP35");
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        int k = args.length > 2 ? Integer.parseInt(args[2]) : 17;
        int threads = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        int warmup = args.length > 4 ? Integer.parseInt(args[4]) : 200;
        int calls = args.length > 5 ? Integer.parseInt(args[5]) : 400;
        Basis1D basis = Basis1D.of(n);
        Random rnd = new Random(1);
        TestSupport.ScatterMap map = TestSupport.brick(n, k, k, k, true);
        int e = k * k * k;
        int ng = map.globalSize();
        double[] geo = TestSupport.geometry(rnd, kernel, basis, e, false);
        try (CpuBackend b = new CpuBackend(threads);
             DeviceElementData data = b.uploadElementData(kernel, basis, e, geo);
             DeviceScatter z = map.upload(b);
             DeviceVector zg = b.upload(TestSupport.random(rnd, ng));
             DeviceVector pg = b.upload(TestSupport.random(rnd, ng));
             DeviceVector yl = b.allocate(map.scatterIds().length);
             DeviceVector yg = b.allocate(ng)) {
            System.out.printf(Locale.ROOT, "%s N = %d, %d^3 elements, N_G = %d, %d threads, blocks: %b%n", kernel, n, k, ng, threads,
                    ((CpuElementData) data).blocks != null);
            long w0 = System.nanoTime();
            for (int i = 0; i < warmup; i++) {
                b.applyAssembledDotUpdate(data, z, 0.5, 0, zg, 0.5, pg, yl, yg);
            }
            System.out.printf(Locale.ROOT, "warm-up: %d calls in %.2f s%n", warmup, (System.nanoTime() - w0) * 1e-9);
            int tenth = Math.max(1, calls / 10);
            double sum = 0;
            double bestCpu = Double.MAX_VALUE;
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            for (int done = 0; done < calls; done += tenth) {
                long t0 = System.nanoTime();
                long c0 = mx.getCurrentThreadCpuTime();
                for (int i = 0; i < tenth; i++) {
                    sum += b.applyAssembledDotUpdate(data, z, 0.5, 0, zg, 0.5, pg, yl, yg);
                }
                double cpu = (mx.getCurrentThreadCpuTime() - c0) * 1e-9 / tenth;
                double t = (System.nanoTime() - t0) * 1e-9 / tenth;
                bestCpu = Math.min(bestCpu, cpu);
                System.out.printf(Locale.ROOT, "%8.3f ms/call wall, %8.3f ms/call CPU of this thread  %.4f GDOF/s%n", t * 1e3, cpu * 1e3,
                        ng / t * 1e-9);
            }
            // with one thread the calling thread runs every block: its CPU time leaves out the time others' processes held the core
            System.out.printf(Locale.ROOT, "best CPU time per call: %.3f ms%n", bestCpu * 1e3);
            System.out.println("checksum " + sum);
        }
    }
}
