package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.runtime.ClContext;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DevicePointwiseData;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.pointwise.FieldEvaluation;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.Quadrature;

import java.util.Random;

/**
 * The general user-operator path against the specialised kernels on one device (issue 18's target: within 1.2x
 * of BP3.5 at N = 7): BP3.5 (S^e + lambda M^e at GLL points) and BP3.0 (at Gauss points) as built-in kernels and as
 * the user function {@link ScreenedDiffusion} (dv = G du, v = wJ u), each applied to element-local vectors
 * {@code reps} times with OpenCL profiling; prints the device microseconds per apply, their ratio and the relative
 * difference of the results, then each built kernel's local and private memory (private bytes betray a function whose
 * arrays went to the stack). Usage: {@code PointwiseTiming [N=7] [E=4096] [reps=50]}.
 */
public final class PointwiseTiming {

    /** BP5 as a user function: data (G00, G01, G02, G11, G12, G22, wJ); dv = G du, v = wJ u. */
    public static final class ScreenedDiffusion extends PointwiseFunction {
        /** The BP3.5/BP3.0 operator with lambda = 1. */
        public ScreenedDiffusion() {
            super(1, 7, FieldEvaluation.VALUES_AND_GRADIENTS);
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            double r = du[0];
            double s = du[1];
            double t = du[2];
            dv[0] = data[0] * r + data[1] * s + data[2] * t;
            dv[1] = data[1] * r + data[3] * s + data[4] * t;
            dv[2] = data[2] * r + data[4] * s + data[5] * t;
            v[0] = data[6] * u[0];
        }
    }

    private PointwiseTiming() {
    }

    /** Runs the comparison; see the class comment for the arguments. */
    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        int e = args.length > 1 ? Integer.parseInt(args[1]) : 4096;
        int reps = args.length > 2 ? Integer.parseInt(args[2]) : 50;
        try (AparapiBackend be = new AparapiBackend()) {
            System.out.println("device: " + be.device());
            Basis1D basis = Basis1D.of(n);
            for (ElementKernel kernel : new ElementKernel[] {ElementKernel.STIFFNESS_BP35, ElementKernel.STIFFNESS_BP30}) {
                Quadrature quad = kernel == ElementKernel.STIFFNESS_BP35 ? Quadrature.GLL : Quadrature.GAUSS;
                int p3 = quad.pointsPerElement(basis);
                double[] data = new double[e * p3 * 7];
                Random rnd = new Random(1);
                for (int i = 0; i < data.length; i++) {
                    data[i] = 0.5 + 0.25 * rnd.nextDouble();
                }
                double[] x = new double[e * basis.np()];
                for (int i = 0; i < x.length; i++) {
                    x[i] = rnd.nextDouble() - 0.5;
                }
                try (DeviceElementData ed = be.uploadElementData(kernel, basis, e, data);
                     DevicePointwiseData pd = be.uploadPointwise(new ScreenedDiffusion(), basis, quad, e, data);
                     DeviceVector dx = be.upload(x); DeviceVector y1 = be.allocate(x.length);
                     DeviceVector y2 = be.allocate(x.length)) {
                    be.applyElements(ed, 1.0, dx, y1);
                    be.applyPointwise(pd, dx, y2);
                    double[] a = be.download(y1);
                    double[] b = be.download(y2);
                    double num = 0;
                    double den = 0;
                    for (int i = 0; i < a.length; i++) {
                        num += (a[i] - b[i]) * (a[i] - b[i]);
                        den += a[i] * a[i];
                    }
                    ClContext cl = be.runtime();
                    cl.profiling(true);
                    cl.clearKernelTimes();
                    for (int r = 0; r < reps; r++) {
                        be.applyElements(ed, 1.0, dx, y1);
                    }
                    double builtIn = microsPerLaunch(cl);
                    cl.clearKernelTimes();
                    for (int r = 0; r < reps; r++) {
                        be.applyPointwise(pd, dx, y2);
                    }
                    double general = microsPerLaunch(cl);
                    cl.profiling(false);
                    System.out.printf("%s N=%d E=%d: built-in %.1f us (%s), pointwise %.1f us (%s), ratio %.3f, rel. diff %.2e%n",
                            kernel, n, e, builtIn, be.plan(ed), general, be.plan(pd), general / builtIn, Math.sqrt(num / den));
                }
            }
            // private memory per work-item shows whether the function's arrays stayed in registers (0: no stack)
            be.builtKernels().forEach((label, k) -> {
                long[] use = k.memoryUse();
                System.out.printf("kernel %s: group %d, local %d B, private %d B%n", label, k.workGroupSize(), use[0], use[1]);
            });
        }
    }

    private static double microsPerLaunch(ClContext cl) {
        double total = 0;
        long launches = 0;
        for (ClContext.KernelTime t : cl.kernelTimes()) {
            total += t.nanos();
            launches += t.launches();
        }
        return launches == 0 ? 0 : total / 1e3 / launches;
    }
}
