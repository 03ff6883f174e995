package io.lobatto.backend.cpu;

import java.util.Random;

import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;

/**
 * A JMH-free timing loop for the element kernels (not a unit test; run by hand):
 * {@code java -cp core/target/classes:backends/cpu/target/classes:backends/cpu/target/test-classes:HIPPARCHUS
 * io.lobatto.backend.cpu.CpuKernelTiming [threads] [localSize] [degrees...]}.
 * Prints, per kernel and degree, the best time of an apply, local DOFs per second and the bandwidth
 * of a raw copy of the same number of bytes.
 */
public final class CpuKernelTiming {

    private CpuKernelTiming() {
    }

    public static void main(String[] args) {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : Runtime.getRuntime().availableProcessors();
        int target = args.length > 1 ? Integer.parseInt(args[1]) : 1 << 20;
        int[] degrees = {1, 2, 3, 4, 5, 6, 7, 8, 10};
        if (args.length > 2) {
            degrees = new int[args.length - 2];
            for (int i = 2; i < args.length; i++) {
                degrees[i - 2] = Integer.parseInt(args[i]);
            }
        }
        Random rnd = new Random(1);
        try (CpuBackend b = new CpuBackend(threads)) {
            System.out.println("backend " + b.device());
            try (DeviceVector src = b.upload(TestSupport.random(rnd, 8 * target));
                 DeviceVector dst = b.allocate(8 * target)) {
                double best = Double.MAX_VALUE;
                for (int rep = 0; rep < 20; rep++) {
                    long t0 = System.nanoTime();
                    b.copy(src, dst);
                    best = Math.min(best, (System.nanoTime() - t0) * 1e-9);
                }
                System.out.printf("copy %d doubles: %.2f GB/s (read+write)%n", 8 * target, 2 * 8.0 * 8 * target / best / 1e9);
            }
            System.out.println("kernel          N   E       N_L       best ms   GDOF/s  GFLOP/s(assembled BP3.5 hipBone count)");
            for (int n : degrees) {
                Basis1D basis = Basis1D.of(n);
                int e = Math.max(1, target / basis.np());
                int nl = e * basis.np();
                TestSupport.ScatterMap map = brickMap(n, e);
                for (ElementKernel k : ElementKernel.values()) {
                    double[] geo = TestSupport.geometry(rnd, k, basis, e, false);
                    try (DeviceElementData data = b.uploadElementData(k, basis, e, geo);
                         DeviceVector x = b.upload(TestSupport.random(rnd, nl));
                         DeviceVector y = b.allocate(nl)) {
                        double best = time(() -> b.applyElements(data, 0.5, x, y));
                        System.out.printf("%-15s %2d %6d %9d %9.3f %8.3f%n", k, n, e, nl, best * 1e3, nl / best / 1e9);
                    }
                    if (k == ElementKernel.STIFFNESS_BP35 && map != null) {
                        try (DeviceElementData data = b.uploadElementData(k, basis, map.scatterIds().length / basis.np(), geo);
                             DeviceScatter z = map.upload(b);
                             DeviceVector xg = b.upload(TestSupport.random(rnd, map.globalSize()));
                             DeviceVector yl = b.allocate(map.scatterIds().length);
                             DeviceVector yg = b.allocate(map.globalSize())) {
                            double best = time(() -> b.applyAssembled(data, z, 0, 0.5, xg, yl, yg));
                            double nq = n + 1;
                            double flops = e * (12 * Math.pow(nq, 4) + 18 * Math.pow(nq, 3));
                            System.out.printf("%-15s %2d %6d %9d %9.3f %8.3f %8.2f%n", "assembled BP3.5", n, e, nl,
                                    best * 1e3, nl / best / 1e9, flops / best / 1e9);
                        }
                    }
                }
            }
        }
    }

    /** A brick mesh with exactly e elements when e factors nicely; e x 1 x 1 otherwise. */
    private static TestSupport.ScatterMap brickMap(int n, int e) {
        int ex = (int) Math.round(Math.cbrt(e));
        while (ex > 1 && e % ex != 0) {
            ex--;
        }
        int rest = e / ex;
        int ey = (int) Math.round(Math.sqrt(rest));
        while (ey > 1 && rest % ey != 0) {
            ey--;
        }
        return TestSupport.brick(n, ex, ey, rest / ey, true);
    }

    private static double time(Runnable r) {
        for (int i = 0; i < 5; i++) {
            r.run();
        }
        double best = Double.MAX_VALUE;
        long start = System.nanoTime();
        for (int i = 0; i < 200 && (i < 5 || System.nanoTime() - start < 1_500_000_000L); i++) {
            long t0 = System.nanoTime();
            r.run();
            best = Math.min(best, (System.nanoTime() - t0) * 1e-9);
        }
        return best;
    }
}
