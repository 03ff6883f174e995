package io.lobatto.backend.aparapi.kernels;

/**
 * BP1.0 (CEED BP1): y_L = I^T (wJ o (I x)) element by element, GL quadrature on Nq + 1 points.
 * With the build constant {@code fromGlobal} = 1 it is the element part of hipBone's fused assembled
 * operator: x is read from x_G through the scatter ids and y_L += shift W x.
 */
public final class MassBp10Kernel extends ElementKernelBase {

    @Override
    public void run() {
        element();
    }
}
