package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * The streaming kernels without a reduction (streaming paper, BS1 and BS2, plus fill and the Jacobi
 * product), one work-item per entry: {@link #FILL} y = a; {@link #COPY} y = x (BS1); {@link #AXPBY}
 * y = a x + b y (BS2); {@link #PMUL} y = w o x. The variant is a build constant.
 */
public final class StreamKernel extends Kernel {

    /** y_i = a. */
    public static final int FILL = 0;
    /** BS1: y_i = x_i. */
    public static final int COPY = 1;
    /** BS2: y_i = a x_i + b y_i. */
    public static final int AXPBY = 2;
    /** y_i = w_i x_i. */
    public static final int PMUL = 3;

    @BuildConstant int op;

    double[] x = new double[1];
    double[] w = new double[1];
    double[] y = new double[1];
    double a;
    double b;
    int n;

    @Override
    public void run() {
        int i = getGlobalId();
        if (i < n) {
            if (op == FILL) {
                y[i] = a;
            } else if (op == COPY) {
                y[i] = x[i];
            } else if (op == AXPBY) {
                y[i] = a * x[i] + b * y[i];
            } else {
                y[i] = w[i] * x[i];
            }
        }
    }
}
