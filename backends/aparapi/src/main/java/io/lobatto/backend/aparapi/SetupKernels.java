package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.runtime.ClBuffer;
import io.lobatto.backend.aparapi.runtime.ClKernel;
import io.lobatto.backend.aparapi.runtime.KernelSource;
import io.lobatto.core.backend.BackendException;
import io.lobatto.core.backend.DeviceGeometry;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ErrorNorms;
import io.lobatto.core.backend.HostSetup;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.mesh.ElementGeometry;
import io.lobatto.core.mesh.PointMap;
import io.lobatto.core.pointwise.PointFunction;
import io.lobatto.core.pointwise.Quadrature;

import java.util.function.ToIntFunction;

import static io.lobatto.backend.aparapi.AparapiBackend.ELEMENT_GROUP;
import static io.lobatto.backend.aparapi.AparapiBackend.MAX_DEGREE;
import static io.lobatto.backend.aparapi.BackendCore.checkLen;

/**
 * The setup of the {@link io.lobatto.core.backend.Backend} SPI where the operator runs, on the Aparapi backend: the
 * geometry on the device ({@link ClGeometry}, {@code uploadGeometry}), the geometric factors by
 * {@link io.lobatto.backend.aparapi.kernels.GeometryKernel}, a function at the GLL nodes by
 * {@link io.lobatto.backend.aparapi.kernels.EvaluateKernel} and the error norms by
 * {@link io.lobatto.backend.aparapi.kernels.ErrorKernel}. (The reciprocal of a diagonal is a reduction of
 * {@link Vectors}; the element diagonals are {@link ElementOperators}'; builds ahead of use are {@link BuildsAhead}.)
 */
final class SetupKernels {

    private final BackendCore core;
    private final Vectors vectors;
    /** Tests: plan the geometry kernel with its element regions in global scratch even where they fit the local memory. */
    private boolean geometryGlobalGrids;
    /** Element slots per launch of the error kernel at most (tests: several launches on a small mesh). */
    private int errorSlotCap = Integer.MAX_VALUE;

    SetupKernels(BackendCore core, Vectors vectors) {
        this.core = core;
        this.vectors = vectors;
    }

    /** Caps the element slots per launch of the error kernel (tests). */
    void errorSlotCap(int slots) {
        errorSlotCap = slots;
    }

    void geometryGlobalGrids(boolean on) {
        geometryGlobalGrids = on;
    }

    boolean geometryGlobalGrids() {
        return geometryGlobalGrids;
    }

    /**
     * Uploads the geometry nodes and the map's coefficients; the map (if any) is validated and translated here, so a
     * map outside the translatable subset is an {@link IllegalArgumentException} naming the construct at upload.
     */
    DeviceGeometry uploadGeometry(ElementGeometry geometry) {
        core.ensureOpen();
        if (geometry == null) {
            throw new IllegalArgumentException("uploadGeometry: geometry must not be null");
        }
        PointMap map = geometry.map();
        if (map != null) {
            PointwiseTranslator.translatePoint(map.getClass());
        }
        double[] nodes = geometry.nodes();
        double[] c = map == null ? new double[0] : map.coefficients();
        ClBuffer nb = null;
        ClBuffer cb = null;
        try {
            nb = core.upload(nodes, "geometry nodes (" + nodes.length + " doubles)");
            cb = core.upload(c, "point map coefficients");
        } catch (RuntimeException e) {
            BackendCore.closeAll(nb, cb);
            throw e;
        }
        return new ClGeometry(this, geometry, nb, cb);
    }

    /** {@code g} as an open geometry of this backend, else the error. */
    ClGeometry geom(DeviceGeometry g) {
        core.ensureOpen();
        return BackendCore.own(g, ClGeometry.class, this, "geometry", "a geometry");
    }

    /** The shape functions of {@code g} at the GLL nodes of {@code basis}, uploaded once per degree. */
    private ClBuffer shapes(ClGeometry g, Basis1D basis) {
        ClBuffer b = g.shapes(basis.degree());
        if (b == null) {
            double[] phi = g.geometry().shapes(basis);
            b = core.upload(phi, "shape functions at the GLL nodes");
            g.shapes(basis.degree(), b);
        }
        return b;
    }

    static void checkDegree(String what, Basis1D basis) {
        if (basis == null) {
            throw new IllegalArgumentException(what + ": basis must not be null");
        }
        if (basis.degree() > MAX_DEGREE) {
            throw new IllegalArgumentException(what + ": degree N = " + basis.degree() + " is above the backend's limit N <= "
                    + MAX_DEGREE);
        }
    }

    /** The plan of the geometry kernel for this device: for the element group, then for what the build allows. */
    private KernelBuilds.GeometryPlan geometryPlan(int degree, Quadrature quadrature, int order, int fpp, PointMap map,
                                                  String options) {
        return geometryPlan(degree, quadrature, order, fpp, map, options, core.cl.device().maxWorkGroupSize(),
                core.localMemBytes, geometryGlobalGrids, s -> core.kernel(s).workGroupSize());
    }

    /**
     * {@link #geometryPlan(int, Quadrature, int, int, PointMap, String)} with {@code allowed} the group limit of the kernel
     * built with {@code options} ({@link KernelBuilds#setupOptions}).
     */
    static KernelBuilds.GeometryPlan geometryPlan(int degree, Quadrature quadrature, int order, int fpp, PointMap map,
                                                 String options, int maxWorkGroupSize, long localMemBytes, boolean global,
                                                 ToIntFunction<KernelSource> allowed) {
        int cap = Math.min(ELEMENT_GROUP, maxWorkGroupSize);
        while (true) {
            KernelBuilds.GeometryPlan plan = KernelBuilds.geometryPlan(degree, quadrature, order, cap, localMemBytes, global);
            int fits = allowed.applyAsInt(KernelBuilds.geometry(order, map, plan).withOptions(options));
            if (plan.groupSize() <= fits) {
                return plan;
            }
            if (fits >= cap) {
                throw new BackendException("aparapi: the geometry kernel N=" + degree + " plans groups of " + plan.groupSize()
                        + " but its build allows " + fits);
            }
            cap = fits;
        }
    }

    /** The launch plan of the geometry kernel for {@code geometry} at the basis's degree, e.g. for reports. */
    String geometryPlan(DeviceGeometry geometry, Basis1D basis, Quadrature quadrature, int factorsPerPoint) {
        ClGeometry g = geom(geometry);
        return geometryPlan(basis.degree(), quadrature, g.geometry().order(), factorsPerPoint, g.geometry().map(),
                KernelBuilds.setupOptions(g.geometry().elementCount(), basis.degree())).describe();
    }

    /**
     * The factors by {@link io.lobatto.backend.aparapi.kernels.GeometryKernel}, [E][P][factorsPerPoint]; each element
     * with a point of |J| {@literal <=} 0 flags itself, and the first flagged element is named as
     * {@link HostSetup#nonPositive} names it (one reduction and its read-back decide; the flags are read only then).
     */
    DeviceVector geometricFactors(DeviceGeometry geometry, Basis1D basis, Quadrature quadrature, int factorsPerPoint) {
        ClGeometry g = geom(geometry);
        checkDegree("geometricFactors", basis);
        ElementGeometry eg = g.geometry();
        int length = HostSetup.factorsLength(eg, basis, quadrature, factorsPerPoint);
        int ne = eg.elementCount();
        int degree = basis.degree();
        ClVector out = (ClVector) vectors.allocate(length);
        if (ne == 0) {
            return out;
        }
        ClVector bad = null;
        ClBuffer mats = null;
        ClBuffer scratch = null;
        try {
            String options = KernelBuilds.setupOptions(ne, degree);
            KernelBuilds.GeometryPlan plan = geometryPlan(degree, quadrature, eg.order(), factorsPerPoint, eg.map(), options);
            ClKernel k = core.kernel(KernelBuilds.geometry(eg.order(), eg.map(), plan).withOptions(options));
            KernelBuilds.bindGeometry(k, degree, quadrature, factorsPerPoint, plan);
            boolean gauss = quadrature == Quadrature.GAUSS;
            double[] w = gauss ? basis.gauss().weights() : basis.gll().weights();
            double[] im = gauss ? basis.interpolation() : new double[0];
            double[] dm = gauss ? basis.gaussDifferentiation() : basis.differentiation();
            double[] m = new double[w.length + im.length + dm.length];
            System.arraycopy(w, 0, m, 0, w.length);
            System.arraycopy(im, 0, m, w.length, im.length);
            System.arraycopy(dm, 0, m, w.length + im.length, dm.length);
            mats = core.upload(m, "geometry kernel matrices");
            bad = (ClVector) vectors.allocate(ne);
            int epg = plan.elemsPerGroup();
            long groups = (ne + (long) epg - 1) / epg;
            long perLaunch = groups;
            if (plan.globalGrids()) {
                perLaunch = Math.min(groups, Math.max(1, KernelBuilds.GEOMETRY_SCRATCH_SLOTS / epg));
                long doubles = perLaunch * epg * plan.perElem();
                scratch = core.buffer(doubles, 8, "geometry kernel element grids (" + doubles + " doubles)");
            }
            k.set("nodes", g.nodes).set("phi", shapes(g, basis)).set("mats", mats).set("out", out.buffer)
                    .set("bad", bad.buffer).set("elems", ne)
                    .bindIfUsed("coef", g.coefficients).bindIfUsed("scr", scratch == null ? core.unused : scratch)
                    .local("lds", 8L * plan.localDoubles());
            BackendCore.launchInChunks(k, groups, perLaunch, epg, plan.groupSize());
            if (vectors.norm2(bad) > 0) {
                double[] flags = new double[ne];
                vectors.read(bad, flags);
                int first = 0;
                while (flags[first] == 0) {
                    first++;
                }
                throw HostSetup.nonPositive(eg, basis, quadrature, first);
            }
        } catch (RuntimeException e) {
            out.close();
            throw e;
        } finally {
            BackendCore.closeAll(mats, scratch, bad == null ? null : bad.buffer);
        }
        return out;
    }

    /**
     * {@code f} at the GLL nodes by {@link io.lobatto.backend.aparapi.kernels.EvaluateKernel}, one work-item per node,
     * map and function inlined.
     */
    void evaluate(DeviceGeometry geometry, Basis1D basis, PointFunction f, DeviceVector out) {
        ClGeometry g = geom(geometry);
        ClVector o = core.vec(out, "out");
        checkDegree("evaluate", basis);
        if (f == null) {
            throw new IllegalArgumentException("evaluate: f must not be null");
        }
        ElementGeometry eg = g.geometry();
        long n = (long) eg.elementCount() * basis.np();
        if (o.length() != n * f.outputs()) {
            throw new IllegalArgumentException("evaluate: out has length " + o.length() + ", expected E * Np * outputs = "
                    + eg.elementCount() + " * " + basis.np() + " * " + f.outputs());
        }
        KernelSource src = KernelBuilds.evaluate(basis.degree(), eg.order(), eg.map(), f)
                .withOptions(KernelBuilds.setupOptions(eg.elementCount(), basis.degree()));
        if (n == 0) {
            return;
        }
        ClKernel k = core.kernel(src);
        double[] c = f.coefficients();
        ClBuffer fc = core.buffer(c.length, 8, "function coefficients");
        try {
            core.cl.write(c, 0, c.length, fc, 0);
            k.set("nodes", g.nodes).set("phi", shapes(g, basis)).set("out", o.buffer).set("n", (int) n)
                    .bindIfUsed("coef", g.coefficients).bindIfUsed("fc", fc);
            core.launchPerEntry(k, n);
        } finally {
            // released once the launch that reads it is done (OpenCL keeps it for enqueued commands)
            fc.close();
        }
    }

    /**
     * The errors by {@link io.lobatto.backend.aparapi.kernels.ErrorKernel}, one work-item per element: wJ at the GL
     * points first (the geometry kernel), then per element its max error at the nodes and its squared L2 error; only
     * those two numbers per element are read back, and combined in element order as {@link HostSetup#combine} does.
     */
    ErrorNorms errorNorms(DeviceGeometry geometry, Basis1D basis, DeviceVector uL, PointFunction exact) {
        ClGeometry g = geom(geometry);
        ClVector u = core.vec(uL, "uL");
        checkDegree("errorNorms", basis);
        if (exact == null) {
            throw new IllegalArgumentException("errorNorms: exact must not be null");
        }
        ElementGeometry eg = g.geometry();
        int ne = eg.elementCount();
        checkLen("errorNorms", "uL", u.length(), ne * basis.np());
        // always optimised: built quickly it ran 50x slower on the H100 (211 ms against 4.1 ms for 216 elements at N = 7)
        KernelSource src = KernelBuilds.errors(basis.degree(), eg.order(), eg.map(), exact);
        if (ne == 0) {
            return new ErrorNorms(0, 0);
        }
        ClKernel k = core.kernel(src);
        int per = KernelBuilds.errorScratch(basis.degree());
        int slots = Math.min(Math.min(ne, errorSlotCap), Math.max(1, KernelBuilds.ERROR_SCRATCH_DOUBLES / per));
        double[] c = exact.coefficients();
        double[] im = basis.interpolation();
        try (DeviceVector wj = geometricFactors(geometry, basis, Quadrature.GAUSS, 1);
             DeviceVector sums = vectors.allocate(ne); DeviceVector maxima = vectors.allocate(ne)) {
            ClBuffer fc = core.buffer(Math.max(1, c.length), 8, "function coefficients");
            ClBuffer interp = core.buffer(im.length, 8, "GLL to GL interpolation");
            ClBuffer scratch = core.buffer((long) slots * per, 8, "error kernel grids (" + (long) slots * per + " doubles)");
            try {
                core.cl.write(c, 0, c.length, fc, 0);
                core.cl.write(im, 0, im.length, interp, 0);
                k.set("nodes", g.nodes).set("phi", shapes(g, basis)).set("interp", interp).set("u", u.buffer)
                        .set("wj", core.vec(wj, "wj").buffer).set("sums", core.vec(sums, "sums").buffer)
                        .set("maxima", core.vec(maxima, "maxima").buffer).set("scr", scratch).set("elems", ne)
                        .set("slots", slots).bindIfUsed("coef", g.coefficients).bindIfUsed("fc", fc);
                int group = KernelBuilds.perEntryGroup(k.workGroupSize());
                for (int e0 = 0; e0 < ne; e0 += slots) {
                    k.set("e0", e0);
                    k.launch((slots + group - 1) / group, group);
                }
                return HostSetup.combine(vectors.download(sums), vectors.download(maxima));
            } finally {
                fc.close();
                interp.close();
                scratch.close();
            }
        }
    }
}
