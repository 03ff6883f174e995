package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.runtime.ClBuffer;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.ElementKernel;

import java.util.List;

/**
 * What an element kernel reads on the device (the 1D matrices I and D, the geometric factors one buffer
 * per factor) and the plan it was built for ({@link ElementPlan}).
 */
final class ClElementData implements DeviceElementData, ClHandle {

    /** The area that made it (handles are checked against it). */
    final ElementOperators owner;

    final ElementKernel kernel;
    final int degree;
    final int elements;
    /**
     * The first plan ({@link KernelBuilds#firstPlan}; for factors on the fly the checked trilinear plan): what a mode
     * launches unless its build allows smaller groups ({@link #plans}).
     */
    final ElementPlan plan;
    /** The plan each input mode launches, checked against its build at its first use (null until then). */
    final ElementPlan[] plans = new ElementPlan[io.lobatto.backend.aparapi.kernels.ElementOperands.MODES];
    /** I, D (or null when the kernel has none). */
    final ClBuffer interp;
    final ClBuffer diff;
    /** G00, G01, G02, G11, G12, G22, wJ for the stiffness kernels; wJ alone for the mass. */
    final List<ClBuffer> factors;
    /** The elements per block of {@link #factors} ({@link FactorLayout}); 0: element-major. */
    final int factorBlock;
    /**
     * 2D stiffness whose t-fluxes do not fit the local memory: their global scratch, else null (allocated when a mode's
     * plan first needs it).
     */
    ClBuffer scratch;
    /**
     * p . A p in the element kernel ({@link io.lobatto.backend.aparapi.kernels.ElementOperands#ATOMIC_DOT}): one partial
     * per work-group (null until first used).
     */
    ClBuffer dotPartials;
    /**
     * BP3.5 with the geometric factors on the fly: the element vertices (its own upload of the geometry; {@link #factors}
     * is then empty) and the GLL nodes and weights; null for stored factors.
     */
    final ClGeometry trilinear;
    final ClBuffer gll;
    private volatile boolean closed;
    /**
     * The built element kernels of this plan by input mode (x_L, x_G through Z, dir + beta x_G through Z, the one-kernel
     * operator, the one-kernel operator with atomics in its two forms), once used.
     */
    final io.lobatto.backend.aparapi.runtime.ClKernel[] kernels =
            new io.lobatto.backend.aparapi.runtime.ClKernel[io.lobatto.backend.aparapi.kernels.ElementOperands.MODES];
    /** The elements per slot ({@link ElementPlan#sweep}) each of {@link #kernels} was built with, which its launches use. */
    final int[] sweeps = new int[io.lobatto.backend.aparapi.kernels.ElementOperands.MODES];

    ClElementData(ElementOperators owner, ElementKernel kernel, int degree, int elements, ElementPlan plan,
                  ClBuffer interp, ClBuffer diff, List<ClBuffer> factors, ClBuffer scratch, int factorBlock) {
        this(owner, kernel, degree, elements, plan, interp, diff, factors, scratch, null, null, factorBlock);
    }

    ClElementData(ElementOperators owner, ElementKernel kernel, int degree, int elements, ElementPlan plan,
                  ClBuffer interp, ClBuffer diff, List<ClBuffer> factors, ClBuffer scratch, ClGeometry trilinear, ClBuffer gll) {
        this(owner, kernel, degree, elements, plan, interp, diff, factors, scratch, trilinear, gll, 0);
    }

    ClElementData(ElementOperators owner, ElementKernel kernel, int degree, int elements, ElementPlan plan,
                  ClBuffer interp, ClBuffer diff, List<ClBuffer> factors, ClBuffer scratch, ClGeometry trilinear, ClBuffer gll,
                  int factorBlock) {
        this.owner = owner;
        this.factorBlock = factorBlock;
        this.kernel = kernel;
        this.degree = degree;
        this.elements = elements;
        this.plan = plan;
        this.interp = interp;
        this.diff = diff;
        this.factors = List.copyOf(factors);
        this.scratch = scratch;
        this.trilinear = trilinear;
        this.gll = gll;
    }

    @Override
    public boolean factorsOnTheFly() {
        return trilinear != null;
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
        return closed || (trilinear != null ? trilinear.isClosed() : factors.get(0).isClosed());
    }

    @Override
    public Object owner() {
        return owner;
    }

    @Override
    public void close() {
        closed = true;
        if (trilinear != null) {
            trilinear.close();
        }
        if (gll != null) {
            gll.close();
        }
        for (ClBuffer b : factors) {
            b.close();
        }
        if (interp != null) {
            interp.close();
        }
        if (diff != null) {
            diff.close();
        }
        if (scratch != null) {
            scratch.close();
        }
        if (dotPartials != null) {
            dotPartials.close();
        }
    }
}
