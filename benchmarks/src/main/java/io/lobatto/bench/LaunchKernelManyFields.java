package io.lobatto.bench;

import com.aparapi.Kernel;

/** {@link LaunchSuite}'s trivial kernel with 47 scalar fields, each a kernel argument that Aparapi sets on every execute. */
final class LaunchKernelManyFields extends Kernel {
    double[] y = new double[LaunchSuite.GLOBAL];
    int n = LaunchSuite.GLOBAL;
    double a;
    int op;
    int a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, b0, b1, b2, b3, b4, b5, b6, b7, b8, b9;
    int c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, d0, d1, d2, d3, d4, d5, d6, d7, d8, d9;
    double x0, x1, x2, x3;

    @Override
    public void run() {
        int i = getGlobalId();
        if (op == 0 && i < n) {
            y[i] = a + i;
        }
        if (op == 1 && i < n) {
            y[i] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + b0 + b1 + b2 + b3 + b4 + b5 + b6 + b7 + b8 + b9
                    + c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7 + c8 + c9 + d0 + d1 + d2 + d3 + d4 + d5 + d6 + d7 + d8 + d9
                    + x0 + x1 + x2 + x3;
        }
    }
}
