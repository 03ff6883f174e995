package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;

/**
 * The cross-rank half of a distributed gather ({@link io.lobatto.core.backend.DeviceHalo}), one work-item per shared
 * row u: y[rows[u]] = the sum, from 0 and in the order of {@code sources[starts[u] .. starts[u+1])}, of this rank's
 * partial y[rows[u]] (source -1) and the received partials received[j] (source j). The order is the same on every
 * rank that holds the node, so every copy of it ends bitwise equal.
 */
public final class HaloKernel extends Kernel {

    int[] rows = new int[1];
    int[] starts = new int[1];
    int[] sources = new int[1];
    double[] received = new double[1];
    double[] y = new double[1];
    int n;

    @Override
    public void run() {
        int u = getGlobalId();
        if (u < n) {
            int row = rows[u];
            double own = y[row];
            double s = 0;
            for (int k = starts[u]; k < starts[u + 1]; k++) {
                int j = sources[k];
                if (j < 0) {
                    s += own;
                } else {
                    s += received[j];
                }
            }
            y[row] = s;
        }
    }
}
