package io.lobatto.backend.aparapi.kernels;

/**
 * One factor out of point-major factors: {@code y[i] = x[stride i + offset]}, one work-item per point. The element
 * kernels read each geometric factor as its own buffer ([E][P^3], coalesced over the point), so device-computed
 * packed factors [E][P^3][7] are split into them on the device, element-major or blocked by {@link #block} elements
 * (layer-major inside a block, as {@code FactorLayout} lays them out for the pipelined BP3.5 kernel).
 */
public final class FactorSplitKernel extends BlockedFactorsKernel {

    double[] x = new double[1];
    double[] y = new double[1];
    int stride;
    int offset;
    int n;
    /** Points per layer P^2 and layers P of an element (read where {@link #block} is not 0). */
    int p2;
    int layers;
    /** Elements per block of y's layout (0: element-major, y[i] for point i). */
    int block;

    @Override
    public void run() {
        int i = getGlobalId();
        if (i < n) {
            int np = p2 * layers;
            int e = i / np;
            y[blockedIndex(e, i - e * np, layers, block)] = x[stride * i + offset];
        }
    }
}
