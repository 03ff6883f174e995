package io.lobatto.backend.aparapi.kernels;

/**
 * BP3.0 (CEED BP3): y_L = I^T (D~^T G D~ + lambda wJ) I x element by element, GL quadrature on Nq + 1 points.
 * With the build constant {@code fromGlobal} = 1 it is the element part of hipBone's fused assembled
 * operator: x is read from x_G through the scatter ids and y_L += shift W x.
 */
public final class StiffnessBp30Kernel extends ElementKernelBase {

    @Override
    public void run() {
        element();
    }
}
