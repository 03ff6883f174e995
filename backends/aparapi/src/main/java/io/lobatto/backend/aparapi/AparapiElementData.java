package io.lobatto.backend.aparapi;

import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.ElementKernel;

/**
 * What an element kernel reads (1D matrices, geometric factors) in the double pool, and its launch
 * plan: the thread structure (3D: one work-item per point, several elements per work-group; 2D: one
 * work-item per column looping over layers), work-items per element, elements per work-group and the
 * local memory per element.
 */
final class AparapiElementData implements DeviceElementData {

    final AparapiBackend backend;
    final ElementKernel kernel;
    final int degree;
    final int elements;
    final AparapiVector interp;
    final AparapiVector diff;
    final AparapiVector geometry;
    /** Points per direction of the grid the kernel works on: Nq (BP3.5) or Nq+1 (GL). */
    final int points;
    final boolean threeD;
    final int threadsPerElement;
    final int elementsPerGroup;
    final int localPerElement;
    /** Doubles of local memory for the staged 1D matrices (I and/or D), after the elements' regions. */
    final int matrixDoubles;
    /** Whether the GL stages run point-parallel between two P^3 grids (else in place by lines). */
    final boolean pointInterp;
    /** 2D stiffness whose t-fluxes do not fit the local memory: their global scratch (E P^3 doubles), else null. */
    final AparapiVector scratch;
    private boolean closed;

    AparapiElementData(AparapiBackend backend, ElementKernel kernel, int degree, int elements, AparapiVector interp,
                       AparapiVector diff, AparapiVector geometry, int points, boolean threeD, int threadsPerElement,
                       int elementsPerGroup, int localPerElement, int matrixDoubles, boolean pointInterp,
                       AparapiVector scratch) {
        this.backend = backend;
        this.kernel = kernel;
        this.degree = degree;
        this.elements = elements;
        this.interp = interp;
        this.diff = diff;
        this.geometry = geometry;
        this.points = points;
        this.threeD = threeD;
        this.threadsPerElement = threadsPerElement;
        this.elementsPerGroup = elementsPerGroup;
        this.localPerElement = localPerElement;
        this.matrixDoubles = matrixDoubles;
        this.pointInterp = pointInterp;
        this.scratch = scratch;
    }

    int localDoubles() {
        return elementsPerGroup * localPerElement + matrixDoubles;
    }

    int groupSize() {
        return elementsPerGroup * threadsPerElement;
    }

    @Override
    public ElementKernel kernel() {
        return kernel;
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
    public boolean isClosed() {
        return closed || backend.isClosed();
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            interp.close();
            diff.close();
            geometry.close();
            if (scratch != null) {
                scratch.close();
            }
        }
    }

    /** E.g. "BP3.0 N=7: 2D, 81 work-items x 3 elements per group, 2673 doubles local". */
    String plan() {
        return kernel + " N=" + degree + ": " + (threeD ? "3D" : "2D") + ", " + threadsPerElement + " work-items x "
                + elementsPerGroup + " elements per group, " + localDoubles() + " doubles local"
                + (scratch != null ? ", t-fluxes in global scratch" : "")
                + (kernel.usesGaussQuadrature() ? (pointInterp ? ", GL stages by points" : ", GL stages by lines") : "");
    }
}
