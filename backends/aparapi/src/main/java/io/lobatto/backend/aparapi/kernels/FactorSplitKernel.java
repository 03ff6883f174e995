package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;

/**
 * One factor out of point-major factors: {@code y[i] = x[stride i + offset]}, one work-item per point. The element
 * kernels read each geometric factor as its own buffer ([E][P^3], coalesced over the point), so device-computed
 * packed factors [E][P^3][7] are split into them on the device, element-major or blocked by {@link #block} elements
 * (layer-major inside a block, as {@code FactorLayout} lays them out for the pipelined BP3.5 kernel).
 */
public final class FactorSplitKernel extends Kernel {

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
            int j = i;
            if (block > 0) {
                // point q = a + P b + P^2 c of element e at ((e / B) P + c) B P^2 + (e mod B) P^2 + a + P b
                int np = p2 * layers;
                int e = i / np;
                int q = i - e * np;
                int c = q / p2;
                int blk = e / block;
                j = ((blk * layers + c) * block + e - blk * block) * p2 + q - c * p2;
            }
            y[j] = x[stride * i + offset];
        }
    }
}
