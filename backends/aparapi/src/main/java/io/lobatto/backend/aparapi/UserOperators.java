package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.runtime.ClBuffer;
import io.lobatto.backend.aparapi.runtime.ClKernel;
import io.lobatto.backend.aparapi.runtime.KernelSource;
import io.lobatto.core.backend.BackendException;
import io.lobatto.core.backend.DevicePointwiseData;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.Quadrature;


import static io.lobatto.backend.aparapi.AparapiBackend.ELEMENT_GROUP;
import static io.lobatto.backend.aparapi.AparapiBackend.MAX_DEGREE;
import static io.lobatto.backend.aparapi.BackendCore.checkLen;

/**
 * The user (pointwise) operators of the {@link io.lobatto.core.backend.Backend} SPI on the Aparapi backend,
 * y^e = B^T f(B x^e): the function translated by {@link PointwiseTranslator} into its element kernel
 * ({@link io.lobatto.backend.aparapi.kernels.PointwiseKernel} and its values-only and column shapes, planned by
 * {@link KernelBuilds#pointwisePlan}), the operator's data ({@link ClPointwiseData}), element-local and assembled
 * applies, the latter followed by the gather over the ncomp component blocks ({@link GatherScatter#gatherComponents}).
 */
final class UserOperators {

    private final BackendCore core;
    private final Vectors vectors;
    private final GatherScatter gatherScatter;
    /** Tests: plan user operators with their element grids in global scratch even where they fit the local memory. */
    private boolean pointwiseGlobalGrids;
    /**
     * Tests and benchmarks: plan user operators with the general kernel even for functions of values only (the default
     * from {@code -Dlobatto.aparapi.pointwiseVariant=general}).
     */
    private boolean pointwiseGeneral = KernelBuilds.PointwiseShape.forcedGeneral();
    /** Tests: plan one-component functions of gradients on the column kernel wherever it fits. */
    private boolean pointwiseColumns;

    UserOperators(BackendCore core, Vectors vectors, GatherScatter gatherScatter) {
        this.core = core;
        this.vectors = vectors;
        this.gatherScatter = gatherScatter;
    }

    void pointwiseGlobalGrids(boolean on) {
        pointwiseGlobalGrids = on;
    }

    void pointwiseGeneral(boolean on) {
        pointwiseGeneral = on;
    }

    void pointwiseColumns(boolean on) {
        pointwiseColumns = on;
    }

    /**
     * Validates and translates {@code function} ({@link PointwiseTranslator}: {@link IllegalArgumentException}
     * naming the construct outside the subset), plans and builds its element kernel for this device, and uploads
     * I, D and the point data.
     */
    DevicePointwiseData uploadPointwise(PointwiseFunction function, Basis1D basis, Quadrature quadrature, int elements,
                                        double[] pointData) {
        core.ensureOpen();
        if (function == null || basis == null || quadrature == null || pointData == null) {
            throw new IllegalArgumentException("uploadPointwise: function, basis, quadrature and pointData must not be null");
        }
        int degree = basis.degree();
        if (degree > MAX_DEGREE) {
            throw new IllegalArgumentException("uploadPointwise: degree N = " + degree + " is above the backend's limit N <= "
                    + MAX_DEGREE);
        }
        if (elements < 0) {
            throw new IllegalArgumentException("uploadPointwise: elements = " + elements + " must be >= 0");
        }
        int p3 = quadrature.pointsPerElement(basis);
        int ndata = function.dataPerPoint();
        long points = (long) elements * p3;
        long expected = points * ndata;
        if (pointData.length != expected) {
            throw new IllegalArgumentException("uploadPointwise: pointData has length " + pointData.length + " but " + function
                    + " with N = " + degree + ", " + quadrature + " quadrature (P = " + p3 + " points per element) and E = "
                    + elements + " needs E P dataPerPoint = " + expected);
        }
        long local = (long) function.components() * elements * basis.nq() * basis.nq() * basis.nq();
        if (local > Integer.MAX_VALUE - 8 || points > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("uploadPointwise: E = " + elements + " gives ncomp E (N+1)^3 = " + local
                    + " and E P = " + points + "; the kernels index with int, limit " + (Integer.MAX_VALUE - 8));
        }
        // validation and translation first: a function outside the subset is the user's error, named here
        PointwiseTranslator.translate(function.getClass());
        KernelBuilds.PointwisePlan plan = pointwisePlan(function, quadrature, degree);
        ClBuffer interp = null;
        ClBuffer diff = null;
        ClBuffer data = null;
        ClBuffer scratch = null;
        try {
            if (plan.globalGrids()) {
                long slots = (elements + (long) plan.elemsPerGroup() - 1) / plan.elemsPerGroup() * plan.elemsPerGroup();
                long doubles = slots * plan.perElem();
                if (doubles > Integer.MAX_VALUE - 8) {
                    throw new IllegalArgumentException("uploadPointwise: E = " + elements + " needs " + doubles
                            + " doubles of element-grid scratch (" + plan.perElem() + " per element), above the int index"
                            + " limit " + (Integer.MAX_VALUE - 8) + "; use fewer elements per backend call");
                }
                scratch = core.buffer(doubles, 8, function + " element grids (" + doubles + " doubles)");
            }
            if (quadrature == Quadrature.GAUSS) {
                interp = core.upload(basis.interpolation(), "I");
            }
            if (function.evaluation().readsGradients()) {
                double[] m = quadrature == Quadrature.GAUSS ? basis.gaussDifferentiation() : basis.differentiation();
                diff = core.upload(m, "D");
            }
            data = core.buffer(expected, 8, function + " point data (" + expected + " doubles)");
            double[] chunk = new double[(int) Math.min(Math.max(points, 1), 1 << 20)];
            for (int k = 0; k < ndata; k++) {
                core.writeColumn(pointData, ndata, k, points, chunk, data, k * points);
            }
        } catch (RuntimeException e) {
            BackendCore.closeAll(interp, diff, data, scratch);
            throw e;
        }
        ClPointwiseData d = new ClPointwiseData(this, function, quadrature, degree, elements, plan, interp, diff, data,
                scratch);
        d.kernels[0] = core.kernel(KernelBuilds.pointwise(function, quadrature, degree, plan, 0));
        return d;
    }

    /** The plan for this device: for the backend's element group, then again for what the built kernel allows. */
    private KernelBuilds.PointwisePlan pointwisePlan(PointwiseFunction function, Quadrature quadrature, int degree) {
        int cap = Math.min(ELEMENT_GROUP, core.cl.device().maxWorkGroupSize());
        while (true) {
            KernelBuilds.PointwisePlan plan = KernelBuilds.pointwisePlan(function, quadrature, degree, cap, core.localMemBytes,
                    pointwiseGlobalGrids, pointwiseGeneral, pointwiseColumns);
            KernelSource src = KernelBuilds.pointwise(function, quadrature, degree, plan, 0);
            int fits = core.kernel(src).workGroupSize();
            if (plan.groupSize() <= fits) {
                return plan;
            }
            if (fits >= cap) {
                throw new BackendException("aparapi: user operator " + function + " N=" + degree + " plans groups of "
                        + plan.groupSize() + " but its build allows " + fits);
            }
            cap = fits;
        }
    }

    private ClPointwiseData pointwiseData(DevicePointwiseData d) {
        return BackendCore.own(d, ClPointwiseData.class, this, "data", "user-operator data");
    }

    /** The launch plan of a user operator, e.g. "3D, 256 work-items x 1 elements per group, ...". */
    String plan(DevicePointwiseData data) {
        ClPointwiseData d = pointwiseData(data);
        return d.function + " N=" + d.degree + " " + d.quadrature + ": " + d.plan.describe();
    }

    /** The OpenCL C of a user operator's element kernel as built here (mode 0: x_L, 1: x_G through Z). */
    KernelSource pointwiseSource(DevicePointwiseData data, int mode) {
        ClPointwiseData d = pointwiseData(data);
        return pointwiseKernel(d, mode).source();
    }

    private ClKernel pointwiseKernel(ClPointwiseData d, int mode) {
        ClKernel k = d.kernels[mode];
        if (k == null) {
            k = core.kernel(KernelBuilds.pointwise(d.function, d.quadrature, d.degree, d.plan, mode));
            d.kernels[mode] = k;
        }
        return k;
    }

    private void runPointwise(ClPointwiseData d, ClBuffer x, ClScatter z, ClBuffer y) {
        if (d.elements == 0) {
            return;
        }
        int mode = z == null ? 0 : 1;
        ClKernel k = pointwiseKernel(d, mode);
        int np = (d.degree + 1) * (d.degree + 1) * (d.degree + 1);
        ClBuffer unused = core.unused;
        k.set("x", x).set("y", y)
                .bindIfUsed("ids", z == null ? unused : z.scatterIds.buffer)
                .bindIfUsed("qdata", d.data);
        if (d.plan.shape() == KernelBuilds.PointwiseShape.COLUMNS) {
            // the operands of the built-in kernels it shares (RegisterKernelBase) that a user operator has not
            for (String b : new String[] {"w", "dirG", "cgScalars", "G00", "G01", "G02", "G11", "G12", "G22", "wJ"}) {
                k.bindIfUsed(b, unused);
            }
            k.bindIfUsed("beta", 0.0).bindIfUsed("lambda", 0.0).bindIfUsed("shift", 0.0);
        } else {
            k.set("ng", z == null ? 0 : z.globalSize());
        }
        if (d.plan.shape() == KernelBuilds.PointwiseShape.MAP) {
            int nodes = d.elements * np;
            k.set("nodes", nodes);
            k.launch((nodes + (long) d.plan.groupSize() - 1) / d.plan.groupSize(), d.plan.groupSize());
            return;
        }
        k.bindIfUsed("matI", d.interp == null ? unused : d.interp)
                .bindIfUsed("matD", d.diff == null ? unused : d.diff)
                .bindIfUsed("scr", d.scratch == null ? unused : d.scratch)
                .set("elems", d.elements)
                .local("lds", 8L * d.plan.localDoubles());
        long groups = (d.elements + (long) d.plan.elemsPerGroup() - 1) / d.plan.elemsPerGroup();
        k.launch(groups, d.plan.groupSize());
    }

    void applyPointwise(DevicePointwiseData data, DeviceVector xL, DeviceVector yL) {
        ClPointwiseData d = pointwiseData(data);
        ClVector x = core.vec(xL, "xL");
        ClVector y = core.vec(yL, "yL");
        checkLen("applyPointwise", "xL", x.length(), d.localSize());
        checkLen("applyPointwise", "yL", y.length(), d.localSize());
        if (x == y) {
            throw new IllegalArgumentException("applyPointwise: xL and yL must be distinct");
        }
        runPointwise(d, x.buffer, null, y.buffer);
    }

    void applyPointwiseAssembled(DevicePointwiseData data, DeviceScatter z, DeviceVector xG, DeviceVector yL, DeviceVector yG) {
        runPointwiseAssembled("applyPointwiseAssembled", data, z, xG, yL, yG, false);
    }

    /** {@code applyPointwiseAssembled} with x_G . y_G reduced in the gather over all components: two launches. */
    double applyPointwiseAssembledDot(DevicePointwiseData data, DeviceScatter z, DeviceVector xG, DeviceVector yL,
                                      DeviceVector yG) {
        return runPointwiseAssembled("applyPointwiseAssembledDot", data, z, xG, yL, yG, true);
    }

    /**
     * The element kernel reads each component block of x_G through the scatter ids and writes y_L; then one gather
     * over the ncomp blocks (and the dot over all of them).
     */
    private double runPointwiseAssembled(String what, DevicePointwiseData data, DeviceScatter z, DeviceVector xG,
                                         DeviceVector yL, DeviceVector yG, boolean withDot) {
        ClPointwiseData d = pointwiseData(data);
        ClScatter s = gatherScatter.scat(z);
        ClVector x = core.vec(xG, "xG");
        ClVector yl = core.vec(yL, "yL");
        ClVector yg = core.vec(yG, "yG");
        int nc = d.components();
        checkLen(what, "ncomp z.localSize", nc * s.localSize(), d.localSize());
        checkLen(what, "xG", x.length(), nc * s.globalSize());
        checkLen(what, "yL", yl.length(), d.localSize());
        checkLen(what, "yG", yg.length(), nc * s.globalSize());
        if (x == yg || x == yl || yl == yg) {
            throw new IllegalArgumentException(what + ": xG, yL and yG must be distinct");
        }
        runPointwise(d, x.buffer, s, yl.buffer);
        return gatherScatter.gatherComponents(s, nc, yl, yg, withDot ? x : null);
    }
}
