package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;

/**
 * The Chebyshev step of the p-multigrid smoother in one pass, one work-item per entry:
 * d = a d + b (w o r), then x += d, with w = diag(A)^-1 ({@code Backend.chebyshevStep}).
 */
public final class ChebyshevKernel extends Kernel {

    double[] w = new double[1];
    double[] r = new double[1];
    double[] d = new double[1];
    double[] x = new double[1];
    double a;
    double b;
    int n;

    @Override
    public void run() {
        int i = getGlobalId();
        if (i < n) {
            double v = a * d[i] + b * w[i] * r[i];
            d[i] = v;
            x[i] = x[i] + v;
        }
    }
}
