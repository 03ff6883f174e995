package io.lobatto.bench;

import com.aparapi.Kernel;

/** {@link LaunchSuite}'s trivial kernel (y[i] = a + i) with 3 scalar fields: n, a and an op code. */
final class LaunchKernelFewFields extends Kernel {
    double[] y = new double[LaunchSuite.GLOBAL];
    int n = LaunchSuite.GLOBAL;
    double a;
    int op;

    @Override
    public void run() {
        int i = getGlobalId();
        if (op == 0 && i < n) {
            y[i] = a + i;
        }
    }
}
