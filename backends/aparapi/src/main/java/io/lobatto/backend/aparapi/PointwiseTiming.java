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
 * The general user-operator path against the specialised kernels on one device (the target: within 1.2x
 * of BP3.5 at N = 7): BP3.5 (S^e + lambda M^e at GLL points) and BP3.0 (at Gauss points) as built-in kernels and as
 * the user function {@link ScreenedDiffusion} (dv = G du, v = wJ u), and BP1.0 (y = I^T (wJ o I x), BK1) as the
 * built-in kernel and as the user function {@link Mass} (v = wJ u) on the values-only line kernel and, for comparison,
 * on the general kernel; each applied to element-local vectors {@code reps} times with OpenCL profiling; prints the
 * device microseconds per apply, their ratio and the relative difference of the results, then the values-only map at
 * GLL points (Mass there, no built-in counterpart), then each built kernel's local and private memory (private bytes
 * betray a function whose arrays went to the stack). Each line names the plan: on a 48 KiB device ScreenedDiffusion
 * runs in register columns where the general kernel's grids would go to global scratch (BK5 N >= 10, BK3 N >= 8);
 * {@code -Dlobatto.aparapi.pointwiseVariant=general} times the general kernel everywhere, for an A/B run.
 * Usage: {@code PointwiseTiming [N=7] [E=4096] [reps=50]}.
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

    /** BP1 as a user function: data (wJ); v = wJ u. */
    public static final class Mass extends PointwiseFunction {
        /** The BP1.0 operator. */
        public Mass() {
            super(1, 1, FieldEvaluation.VALUES);
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            v[0] = data[0] * u[0];
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
            for (ElementKernel kernel : new ElementKernel[] {ElementKernel.STIFFNESS_BP35, ElementKernel.STIFFNESS_BP30,
                ElementKernel.MASS_BP10}) {
                Quadrature quad = kernel == ElementKernel.STIFFNESS_BP35 ? Quadrature.GLL : Quadrature.GAUSS;
                boolean mass = kernel == ElementKernel.MASS_BP10;
                int ndata = mass ? 1 : 7;
                PointwiseFunction f = mass ? new Mass() : new ScreenedDiffusion();
                compare(be, kernel, f, basis, quad, e, ndata, reps, false);
                if (mass) {
                    compare(be, kernel, f, basis, quad, e, ndata, reps, true);
                }
            }
            mapTiming(be, basis, e, reps);
            // private memory per work-item shows whether the function's arrays stayed in registers (0: no stack)
            be.builtKernels().forEach((label, k) -> {
                long[] use = k.memoryUse();
                System.out.printf("kernel %s: group %d, local %d B, private %d B%n", label, k.workGroupSize(), use[0], use[1]);
            });
        }
    }

    /**
     * Times built-in {@code kernel} against {@code f} (with {@code general}, planned on the general kernel) on the same
     * random data and input; prints the line of the class comment.
     */
    private static void compare(AparapiBackend be, ElementKernel kernel, PointwiseFunction f, Basis1D basis, Quadrature quad,
                                int e, int ndata, int reps, boolean general) {
        int p3 = quad.pointsPerElement(basis);
        double[] data = new double[e * p3 * ndata];
        Random rnd = new Random(1);
        for (int i = 0; i < data.length; i++) {
            data[i] = 0.5 + 0.25 * rnd.nextDouble();
        }
        double[] x = new double[e * basis.np()];
        for (int i = 0; i < x.length; i++) {
            x[i] = rnd.nextDouble() - 0.5;
        }
        be.pointwiseGeneral(general);
        try (DeviceElementData ed = be.uploadElementData(kernel, basis, e, data);
             DevicePointwiseData pd = be.uploadPointwise(f, basis, quad, e, data);
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
            double pointwise = microsPerLaunch(cl);
            cl.profiling(false);
            System.out.printf("%s N=%d E=%d: built-in %.1f us (%s), pointwise%s %.1f us (%s), ratio %.3f, rel. diff %.2e%n",
                    kernel, basis.degree(), e, builtIn, be.plan(ed), general ? " (general kernel)" : "", pointwise, be.plan(pd),
                    pointwise / builtIn, Math.sqrt(num / den));
        } finally {
            be.pointwiseGeneral(false);
        }
    }

    /** Mass at GLL points: the values-only map against the general kernel (no built-in counterpart). */
    private static void mapTiming(AparapiBackend be, Basis1D basis, int e, int reps) {
        int p3 = Quadrature.GLL.pointsPerElement(basis);
        double[] data = new double[e * p3];
        double[] x = new double[e * basis.np()];
        Random rnd = new Random(2);
        for (int i = 0; i < x.length; i++) {
            data[i] = 0.5 + 0.25 * rnd.nextDouble();
            x[i] = rnd.nextDouble() - 0.5;
        }
        double[] us = new double[2];
        String[] plans = new String[2];
        ClContext cl = be.runtime();
        for (int g = 0; g < 2; g++) {
            be.pointwiseGeneral(g == 1);
            try (DevicePointwiseData pd = be.uploadPointwise(new Mass(), basis, Quadrature.GLL, e, data);
                 DeviceVector dx = be.upload(x); DeviceVector y = be.allocate(x.length)) {
                be.applyPointwise(pd, dx, y);
                cl.profiling(true);
                cl.clearKernelTimes();
                for (int r = 0; r < reps; r++) {
                    be.applyPointwise(pd, dx, y);
                }
                us[g] = microsPerLaunch(cl);
                cl.profiling(false);
                plans[g] = be.plan(pd);
            } finally {
                be.pointwiseGeneral(false);
            }
        }
        // a copy moves 16 bytes per node, the map 24 (x, wJ, y)
        System.out.printf("Mass GLL N=%d E=%d: map %.1f us (%s, %.0f GB/s), general kernel %.1f us (%s), ratio %.3f%n",
                basis.degree(), e, us[0], plans[0], 24.0 * x.length / us[0] / 1e3, us[1], plans[1], us[0] / us[1]);
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
