package io.lobatto.examples;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.Backends;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.StiffnessBp35;
import io.lobatto.solvers.ConjugateGradient;
import io.lobatto.solvers.SolveResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code lobatto nekbone}: the NekBone / hipBone proxy. A = Z^T S_L Z + λI (BP3.5 stiffness, identity
 * shift through W, no Dirichlet mask) on an nx*ny*nz box, a random right-hand side and exactly 100 CG
 * iterations (configurable). Prints the FOM in GFLOPS with NekBone's count 12E(N+1)^4 + 34E(N+1)^3
 * FLOPs per iteration and the throughput N_G * iterations / time (hipBone, "Computational Tests").
 */
@Command(name = "nekbone", mixinStandardHelpOptions = true, versionProvider = LobattoCli.Version.class,
        description = "NekBone proxy: 100 CG iterations on Z^T S Z + λI; prints the FOM (GFLOPS) and DOF throughput.")
final class NekboneCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    final BackendOptions backendOptions = new BackendOptions();

    @Option(names = {"-N", "--degree"}, defaultValue = "7",
            description = "polynomial degree N: " + CliChecks.DEGREE_RANGE + ". Default: ${DEFAULT-VALUE}")
    int degree;

    @Option(names = {"-e", "--elements"}, split = ",", defaultValue = "16,16,16",
            description = "elements per direction, nx,ny,nz. Default: ${DEFAULT-VALUE}")
    int[] elements;

    @Option(names = "--lambda", defaultValue = "0.1", description = "identity shift λ > 0 (there is no Dirichlet boundary). Default: ${DEFAULT-VALUE}")
    double lambda;

    @Option(names = "--iterations", defaultValue = "100", description = "CG iterations. Default: ${DEFAULT-VALUE}")
    int iterations;

    @Option(names = "--repeat", defaultValue = "3", description = "timed repetitions after a warm-up; the best is reported. Default: ${DEFAULT-VALUE}")
    int repeat;

    /** NekBone's FLOP count per CG iteration: 12E(N+1)^4 + 34E(N+1)^3. */
    static double nekboneFlopsPerIteration(long elements, int degree) {
        double nq = degree + 1;
        return elements * (12 * nq * nq * nq * nq + 34 * nq * nq * nq);
    }

    @Option(names = "--profile", description = "print the per-kernel time split of the solve (aparapi backend; OpenCL event profiling)")
    boolean profile;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        CliChecks.requireElements(elements, "--elements");
        CliChecks.requireDegree(degree, null);
        if (!(lambda > 0)) {
            throw new IllegalArgumentException("--lambda must be > 0: nekbone has no Dirichlet boundary, so with λ = 0 "
                    + "the operator is singular; got " + lambda);
        }
        if (iterations < 1 || repeat < 1) {
            throw new IllegalArgumentException("--iterations and --repeat must be >= 1, got " + iterations + " and " + repeat);
        }
        HexMesh box = HexMesh.box(elements[0], elements[1], elements[2], 0, 1, 0, 1, 0, 1);
        SpectralElementMesh mesh = SpectralElementMesh.of(box, degree);
        ScatterOperator z = ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), null);
        long e = mesh.elementCount();
        try (Backend backend = backendOptions.create();
             AssembledOperator a = AssembledOperator.bind(StiffnessBp35.on(mesh, 0), z, backend, lambda);
             DeviceVector b = backend.upload(randomVector(z.globalSize()));
             DeviceVector x = backend.allocate(z.globalSize());
             ConjugateGradient cg = new ConjugateGradient(a).fixedIterations(iterations)) {
            out.println("lobatto nekbone: " + Backends.describe(backend));
            CliChecks.requireDegree(degree, backend);
            out.printf("N = %d, E = %d, N_G = %d, N_L = %d, %d iterations%n", degree, e, z.globalSize(), z.localSize(), iterations);
            out.flush();
            cg.solve(b, x); // warm-up (JIT, kernel compilation)
            double best = Double.MAX_VALUE;
            SolveResult last = null;
            for (int r = 0; r < Math.max(1, repeat); r++) {
                if (profile && r == repeat - 1) {
                    KernelTimes.start(backend);
                }
                backend.fill(x, 0);
                backend.synchronize();
                last = cg.solve(b, x);
                best = Math.min(best, last.seconds());
                out.printf("  run %d: %.4f s%n", r + 1, last.seconds());
                out.flush();
            }
            if (profile) {
                KernelTimes.print(backend, out, iterations, last.seconds() / iterations);
            }
            double flops = nekboneFlopsPerIteration(e, degree) * iterations;
            out.printf("time %.4f s (%.3f ms per iteration), residual %.3e -> %.3e%n", best, 1e3 * best / iterations,
                    last.initialResidual(), last.finalResidual());
            out.printf("FOM %.2f GFLOPS (NekBone count), throughput %.3f GDOF/s (N_G x iterations / time)%n",
                    flops / best * 1e-9, (double) z.globalSize() * iterations / best * 1e-9);
            return 0;
        }
    }

    private static double[] randomVector(int n) {
        java.util.Random rnd = new java.util.Random(42);
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = rnd.nextDouble();
        }
        return v;
    }
}
