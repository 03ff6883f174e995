package io.lobatto.backend.aparapi.kernels;

/**
 * BP3.5 (CEED BP5): y_L = D^T G D x + lambda wJ o x element by element, GLL collocation.
 * With the build constant {@code fromGlobal} = 1 it is the element part of hipBone's fused assembled
 * operator: x is read from x_G through the scatter ids and y_L += shift W x.
 */
public final class StiffnessBp35Kernel extends ElementKernelBase {

    @Override
    public void run() {
        element();
    }
}
