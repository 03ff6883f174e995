package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;

/**
 * The indexed gather y_i = x_{idx_i} ({@link io.lobatto.core.backend.Backend#indexedGather}), one work-item per entry of
 * y: a partial injection y = P x, e.g. a rank's entries of the whole coarse solution of a redundant coarse solve, taken on
 * the device instead of through the host.
 */
public final class IndexedGatherKernel extends Kernel {

    int[] idx = new int[1];
    double[] x = new double[1];
    double[] y = new double[1];
    int n;

    @Override
    public void run() {
        int i = getGlobalId();
        if (i < n) {
            y[i] = x[idx[i]];
        }
    }
}
