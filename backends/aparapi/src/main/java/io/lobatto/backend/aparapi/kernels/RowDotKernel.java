package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * The correction of a reduction less some rows (a rank's shared nodes that a neighbour owns): over k in [0, n), with
 * e = rows[k], the partial sums of x_e y_e ({@code pairs} = 1) or of x_e x_e and x_e y_e ({@code pairs} = 2, the
 * r . r and r . z of the PCG update), reduced as {@link ReductionKernel} reduces (a tree of {@code group} work-items, one
 * partial per group, {@code pairs} doubles each) into {@code partials} from index {@code offset}: the host subtracts
 * them, in group order, from the full reduction's partials read back with them.
 */
public final class RowDotKernel extends Kernel {

    /** 1: x . y over the rows; 2: x . x and x . y. */
    @BuildConstant int pairs;
    /** Work-items per group, a power of two. */
    @BuildConstant int group;

    int[] rows = new int[1];
    double[] x = new double[1];
    double[] y = new double[1];
    double[] partials = new double[1];
    int n;
    int offset;
    @Local double[] lds = new double[1];

    @Override
    public void run() {
        int stride = getGlobalSize();
        double s = 0;
        double t = 0;
        for (int k = getGlobalId(); k < n; k += stride) {
            int e = rows[k];
            double xe = x[e];
            if (pairs == 2) {
                s += xe * xe;
                t += xe * y[e];
            } else {
                s += xe * y[e];
            }
        }
        int lid = getLocalId();
        lds[lid] = s;
        if (pairs == 2) {
            lds[group + lid] = t;
        }
        localBarrier();
        for (int h = group / 2; h > 0; h = h / 2) {
            if (lid < h) {
                lds[lid] = lds[lid] + lds[lid + h];
                if (pairs == 2) {
                    lds[group + lid] = lds[group + lid] + lds[group + lid + h];
                }
            }
            localBarrier();
        }
        if (lid == 0) {
            if (pairs == 2) {
                partials[offset + 2 * getGroupId()] = lds[0];
                partials[offset + 2 * getGroupId() + 1] = lds[group];
            } else {
                partials[offset + getGroupId()] = lds[0];
            }
        }
    }
}
