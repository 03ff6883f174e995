package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;

/**
 * One factor out of point-major factors: {@code y[i] = x[stride i + offset]}, one work-item per point. The element
 * kernels read each geometric factor as its own buffer ([E][P^3], coalesced over the point), so device-computed
 * packed factors [E][P^3][7] are split into them on the device.
 */
public final class FactorSplitKernel extends Kernel {

    double[] x = new double[1];
    double[] y = new double[1];
    int stride;
    int offset;
    int n;

    @Override
    public void run() {
        int i = getGlobalId();
        if (i < n) {
            y[i] = x[stride * i + offset];
        }
    }
}
