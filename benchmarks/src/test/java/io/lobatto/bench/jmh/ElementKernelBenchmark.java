package io.lobatto.bench.jmh;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import io.lobatto.backend.cpu.CpuBackend;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;

/**
 * JMH microbenchmark of the Java backend's element kernels per degree N: one apply of BP1.0, BP3.0 or
 * BP3.5 (the sum-factorised contractions, the pointwise factors and the block layout copies) on
 * {@value #ELEMENTS} elements, small enough to stay in the caches, on one thread. The score is the time
 * per element; FLOPs per element are in {@code io.lobatto.bench.FlopCounts}. Regressions of the generated
 * per-N contractions show up here without a GPU or a whole benchmark run.
 *
 * <p>Compiled with the {@code jmh} profile only. Run from the repository root, after
 * {@code ./mvnw install -DskipTests}:
 * <pre>
 * ./mvnw -Pjmh -pl benchmarks test-compile
 * ./mvnw -Pjmh -q -pl benchmarks dependency:build-classpath -Dmdep.outputFile=target/test-cp.txt -Dmdep.includeScope=test
 * java -cp benchmarks/target/test-classes:benchmarks/target/classes:$(cat benchmarks/target/test-cp.txt) \
 *     org.openjdk.jmh.Main ElementKernelBenchmark
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ElementKernelBenchmark {

    /** Elements per apply: two blocks of the largest block size (16), one block per N above 3. */
    static final int ELEMENTS = 32;

    @Param({"1", "2", "3", "4", "5", "6", "7", "8"})
    int degree;

    @Param({"MASS_BP10", "STIFFNESS_BP35", "STIFFNESS_BP30"})
    ElementKernel kernel;

    private CpuBackend backend;
    private DeviceElementData data;
    private DeviceVector x;
    private DeviceVector y;

    @Setup(Level.Trial)
    public void setUp() {
        backend = new CpuBackend(1);
        Basis1D basis = Basis1D.of(degree);
        int points = kernel.usesGaussQuadrature() ? basis.npGauss() : basis.np();
        int f = kernel.factorsPerPoint();
        double[] geo = new double[ELEMENTS * points * f];
        for (int p = 0; p < ELEMENTS * points; p++) {
            if (f == 1) {
                geo[p] = 1e-3;
            } else {
                // an affine element: G = a I + b (e0 e1^T + e1 e0^T + e1 e2^T + e2 e1^T), wJ = 1e-3 a
                double a = 1 + 0.1 * (p % 7) / 7.0, b = 0.05;
                geo[p * 7] = a;
                geo[p * 7 + 1] = b;
                geo[p * 7 + 3] = a;
                geo[p * 7 + 4] = b;
                geo[p * 7 + 5] = a;
                geo[p * 7 + 6] = 1e-3 * a;
            }
        }
        data = backend.uploadElementData(kernel, basis, ELEMENTS, geo);
        x = backend.allocate(ELEMENTS * basis.np());
        y = backend.allocate(ELEMENTS * basis.np());
        backend.fill(x, 1.0 / 3);
    }

    @Benchmark
    @OperationsPerInvocation(ELEMENTS)
    public void apply() {
        backend.applyElements(data, 1.0, x, y);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        x.close();
        y.close();
        data.close();
        backend.close();
    }
}
