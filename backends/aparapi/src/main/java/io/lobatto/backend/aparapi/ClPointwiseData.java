package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.runtime.ClBuffer;
import io.lobatto.backend.aparapi.runtime.ClKernel;
import io.lobatto.core.backend.DevicePointwiseData;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.Quadrature;

/**
 * A user operator y^e = B^T f(B x^e) on the Aparapi backend: the function f (translated into its element kernel,
 * {@link io.lobatto.backend.aparapi.kernels.PointwiseKernel}), the 1D matrices of B (I for Gauss quadrature, D on
 * the points when f reads gradients), the point data transposed to {@code [dataPerPoint][E P]} (coalesced over the
 * point), the element grids' global scratch when they do not fit the local memory, and the plan the kernels are
 * built for.
 */
final class ClPointwiseData implements DevicePointwiseData, ClHandle {

    /** The area that made it (handles are checked against it). */
    final UserOperators owner;

    final PointwiseFunction function;
    final Quadrature quadrature;
    final int degree;
    final int elements;
    final KernelBuilds.PointwisePlan plan;
    /** I, D and the point data (null where the operator has none). */
    final ClBuffer interp;
    final ClBuffer diff;
    final ClBuffer data;
    /** The element grids when the plan keeps them in global memory, else null. */
    final ClBuffer scratch;
    /** The built kernels by input mode (x_L, x_G through Z). */
    final ClKernel[] kernels = new ClKernel[2];
    private boolean closed;

    ClPointwiseData(UserOperators owner, PointwiseFunction function, Quadrature quadrature, int degree, int elements,
                    KernelBuilds.PointwisePlan plan, ClBuffer interp, ClBuffer diff, ClBuffer data,
                    ClBuffer scratch) {
        this.owner = owner;
        this.function = function;
        this.quadrature = quadrature;
        this.degree = degree;
        this.elements = elements;
        this.plan = plan;
        this.interp = interp;
        this.diff = diff;
        this.data = data;
        this.scratch = scratch;
    }

    @Override
    public PointwiseFunction function() {
        return function;
    }

    @Override
    public Quadrature quadrature() {
        return quadrature;
    }

    @Override
    public int degree() {
        return degree;
    }

    @Override
    public int elements() {
        return elements;
    }

    @Override
    public synchronized boolean isClosed() {
        return closed;
    }

    @Override
    public Object owner() {
        return owner;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            for (ClBuffer b : new ClBuffer[] {interp, diff, data, scratch}) {
                if (b != null) {
                    b.close();
                }
            }
        }
    }

    @Override
    public String toString() {
        return "ClPointwiseData[" + function + ", N=" + degree + ", " + quadrature + ", E=" + elements + ", "
                + plan.describe() + "]";
    }
}
