package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.kernels.ElementOperands;
import io.lobatto.backend.aparapi.kernels.GatherScatterKernel;
import io.lobatto.backend.aparapi.runtime.ClBuffer;
import io.lobatto.backend.aparapi.runtime.ClKernel;
import io.lobatto.backend.aparapi.runtime.KernelSource;
import io.lobatto.core.backend.BackendException;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceGeometry;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.mesh.ElementGeometry;
import io.lobatto.core.pointwise.Quadrature;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.ToIntFunction;

import static io.lobatto.backend.aparapi.AparapiBackend.ELEMENT_GROUP;
import static io.lobatto.backend.aparapi.AparapiBackend.MAX_DEGREE;
import static io.lobatto.backend.aparapi.BackendCore.checkLen;

/**
 * The element operators of the {@link io.lobatto.core.backend.Backend} SPI on the Aparapi backend: the element data
 * ({@link ClElementData}: I, D and the geometric factors one buffer per factor, split on the device by
 * {@link io.lobatto.backend.aparapi.kernels.FactorSplitKernel}, or the element vertices for BP3.5 with the factors on
 * the fly), the element kernels BP1.0, BP3.5 and BP3.0 planned by {@link KernelBuilds#plan} (element-local, and
 * hipBone's fused operator reading x_G through Z, on all elements or a range, with the gather of
 * {@link GatherScatter}), and the diagonals of the element matrices by
 * {@link io.lobatto.backend.aparapi.kernels.DiagonalBp35Kernel} and {@link io.lobatto.backend.aparapi.kernels.DiagonalKernel}.
 */
final class ElementOperators {

    /** The element kernels' buffers of G00, G01, G02, G11, G12, G22, in the order of the factor buffers. */
    private static final String[] G_FIELDS = {"G00", "G01", "G02", "G11", "G12", "G22"};

    private final BackendCore core;
    private final Vectors vectors;
    private final GatherScatter gatherScatter;
    private final SetupKernels setup;
    private boolean foldSearchDirection = AparapiBackend.FOLD_SEARCH_DIRECTION;
    /** Whether the device is NVIDIA's (the atomic form's {@code auto}): 0 not yet asked, 1 yes, -1 no. */
    private int nvidia;
    /** Tests: plan the element-diagonal kernel with its grids in global scratch even where they fit the local memory. */
    private boolean diagonalGlobalGrids;

    ElementOperators(BackendCore core, Vectors vectors, GatherScatter gatherScatter, SetupKernels setup) {
        this.core = core;
        this.vectors = vectors;
        this.gatherScatter = gatherScatter;
        this.setup = setup;
    }

    /** See {@link AparapiBackend#foldSearchDirection(boolean)}. */
    void foldSearchDirection(boolean fold) {
        foldSearchDirection = fold;
    }

    boolean foldSearchDirection() {
        return foldSearchDirection;
    }

    void diagonalGlobalGrids(boolean on) {
        diagonalGlobalGrids = on;
    }

    boolean diagonalGlobalGrids() {
        return diagonalGlobalGrids;
    }

    // ------------------------------------------------------------------ element data

    DeviceElementData uploadElementData(ElementKernel kernel, Basis1D basis, int elements, double[] geometricData) {
        core.ensureOpen();
        long points = checkElementData(kernel, basis, elements, geometricData.length);
        int perPoint = kernel.factorsPerPoint();
        ElementPlan plan = firstPlan(kernel, basis);
        int block = factorBlock(kernel, basis, plan, elements);
        int p3 = (int) (points / Math.max(1, elements));
        long length = FactorLayout.length(elements, p3, block);
        List<ClBuffer> factors = new ArrayList<>();
        try {
            // one buffer per factor (G00, G01, G02, G11, G12, G22, wJ), filled in chunks from the point-major array
            double[] chunk = new double[(int) Math.min(length, block > 0 ? Math.max(1 << 20, (long) block * p3) : 1 << 20)];
            for (int f = 0; f < perPoint; f++) {
                ClBuffer b = core.buffer(length, 8, kernel + " geometric factor " + f + " (" + length + " doubles)");
                factors.add(b);
                if (block == 0) {
                    core.writeColumn(geometricData, perPoint, f, points, chunk, b, 0);
                } else {
                    writeBlocked(geometricData, perPoint, f, elements, basis, kernel, block, chunk, b);
                }
            }
        } catch (RuntimeException e) {
            factors.forEach(ClBuffer::close);
            throw e;
        }
        return elementData(kernel, basis, elements, factors, plan, block);
    }

    /**
     * Column {@code f} of the point-major {@code src} into {@code dst} blocked by {@code block} elements
     * ({@link FactorLayout}), whole blocks per write (a block's elements past E left as they are: never read).
     */
    private void writeBlocked(double[] src, int perPoint, int f, int elements, Basis1D basis, ElementKernel kernel, int block,
                              double[] chunk, ClBuffer dst) {
        int p = kernel == ElementKernel.STIFFNESS_BP35 ? basis.nq() : basis.nqGauss();
        int p2 = p * p;
        int p3 = p2 * p;
        int perBlock = block * p3;
        int blocksPerWrite = chunk.length / perBlock;
        long blocks = (elements + block - 1) / block;
        for (long b0 = 0; b0 < blocks; b0 += blocksPerWrite) {
            int nb = (int) Math.min(blocksPerWrite, blocks - b0);
            for (int j = 0; j < nb; j++) {
                long first = (b0 + j) * block;
                for (int le = 0; le < block && first + le < elements; le++) {
                    long e = first + le;
                    for (int q = 0; q < p3; q++) {
                        int at = (int) (FactorLayout.index(e, q, p2, p3, block) - b0 * perBlock);
                        chunk[at] = src[(int) ((e * p3 + q) * perPoint + f)];
                    }
                }
            }
            core.cl.write(chunk, 0, nb * perBlock, dst, b0 * perBlock);
        }
    }

    /**
     * The elements per block of the factors of {@code kernel} on {@code elements} elements ({@link FactorLayout}): the
     * first plan's {@link ElementPlan#factorBlock} where every input mode at this degree runs that plan's variant (the
     * blocked index is only in the pipelined kernels and the diagonals) and the blocked buffer's indices fit an int;
     * else 0.
     */
    private int factorBlock(ElementKernel kernel, Basis1D basis, ElementPlan plan, int elements) {
        int block = plan.factorBlock(kernel);
        if (block == 0) {
            return 0;
        }
        String device = core.info.name();
        for (int mode = 0; mode < ElementOperands.MODES; mode++) {
            ElementVariant v = core.variant != null ? core.variant : ElementVariant.of(kernel, basis.degree(), device, mode);
            if (v != plan.variant()) {
                return 0;
            }
        }
        int p = kernel == ElementKernel.STIFFNESS_BP35 ? basis.nq() : basis.nqGauss();
        return FactorLayout.length(elements, p * p * p, block) <= Integer.MAX_VALUE ? block : 0;
    }

    /**
     * The geometric data already on the device (from {@code geometricFactors}): wJ alone (BP1.0) becomes the kernel's
     * buffer as it is; the packed factors of the stiffness kernels are split on the device into the seven buffers the
     * element kernels read ({@link io.lobatto.backend.aparapi.kernels.FactorSplitKernel}: they read each factor
     * coalesced over the points), and the packed vector is closed. Nothing crosses to the host.
     */
    DeviceElementData uploadElementData(ElementKernel kernel, Basis1D basis, int elements, DeviceVector geometricData) {
        ClVector v = core.vec(geometricData, "geometricData");
        long points = checkElementData(kernel, basis, elements, v.length());
        int perPoint = kernel.factorsPerPoint();
        List<ClBuffer> factors = new ArrayList<>();
        ElementPlan plan;
        int block;
        try {
            plan = firstPlan(kernel, basis);
            block = perPoint == 1 ? 0 : factorBlock(kernel, basis, plan, elements);
        } catch (RuntimeException e) {
            v.close();   // taken over, as on the other failures
            throw e;
        }
        if (perPoint == 1) {
            factors.add(v.buffer);
        } else {
            int p = kernel == ElementKernel.STIFFNESS_BP35 ? basis.nq() : basis.nqGauss();
            factors = split(kernel, v, perPoint, points, p * p, block);
            v.close();
        }
        return elementData(kernel, basis, elements, factors, plan, block);
    }

    /**
     * The packed factors of {@code v} ([points][perPoint]) split into one buffer per factor, blocked by {@code block}
     * elements of layers of {@code p2} points ({@link FactorLayout}; 0: element-major); {@code v} stays open.
     */
    private List<ClBuffer> split(ElementKernel kernel, ClVector v, int perPoint, long points, int p2, int block) {
        List<ClBuffer> factors = new ArrayList<>();
        try {
            ClKernel k = core.kernel(KernelBuilds.factorSplit());
            int p = (int) Math.round(Math.sqrt(p2));
            long length = block == 0 ? points : FactorLayout.length(points / ((long) p2 * p), p2 * p, block);
            for (int f = 0; f < perPoint; f++) {
                ClBuffer b = core.buffer(length, 8, kernel + " geometric factor " + f + " (" + length + " doubles)");
                factors.add(b);
                if (points > 0) {
                    k.set("x", v.buffer).set("y", b).set("stride", perPoint).set("offset", f).set("n", (int) points)
                            .set("p2", p2).set("layers", p).set("block", block);
                    core.launchPerEntry(k, points);
                }
            }
        } catch (RuntimeException e) {
            factors.forEach(ClBuffer::close);
            throw e;
        }
        return factors;
    }

    /**
     * BP3.5 reading the element vertices instead of stored factors
     * ({@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearKernel},
     * {@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearSharedKernel} or
     * {@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearPointsKernel}, by {@link ElementVariant#onTheFly} or
     * the variant a test forced): the data
     * holds its own upload of the vertices (24 doubles per element), D and the GLL nodes and weights. |J| {@literal >} 0 is
     * checked here once, by the geometry kernel's wJ at the GLL nodes (freed at once), with the same error as
     * {@code geometricFactors}.
     */
    DeviceElementData elementDataOnTheFly(ElementKernel kernel, Basis1D basis, DeviceGeometry geometry) {
        ClGeometry g = setup.geom(geometry);
        ElementGeometry eg = io.lobatto.core.backend.Backend.requireOnTheFly(kernel, basis, g);
        SetupKernels.checkDegree("elementDataOnTheFly", basis);
        int elements = eg.elementCount();
        long points = (long) elements * basis.np();
        if (points > Integer.MAX_VALUE) {
            throw new BackendException("aparapi: BP3.5 with N = " + basis.degree() + " and E = " + elements + " has " + points
                    + " nodes; the element kernels index the local vectors with int (at most " + Integer.MAX_VALUE + ")");
        }
        setup.geometricFactors(g, basis, Quadrature.GLL, 1).close();
        ElementPlan plan = KernelBuilds.trilinearPlan(basis, core.cl.device().maxWorkGroupSize(), core.localMemBytes,
                core.info.name(), core.variant != null ? core.variant : ElementVariant.onTheFly(basis.degree()),
                s -> core.kernel(s).workGroupSize());
        ClGeometry own = (ClGeometry) setup.uploadGeometry(eg);
        ClBuffer diff = null;
        ClBuffer gll = null;
        try {
            diff = core.upload(basis.differentiation(), "D");
            double[] r = basis.gll().nodes();
            double[] w = basis.gll().weights();
            double[] rw = new double[2 * r.length];
            System.arraycopy(r, 0, rw, 0, r.length);
            System.arraycopy(w, 0, rw, r.length, w.length);
            gll = core.upload(rw, "GLL nodes and weights");
        } catch (RuntimeException e) {
            own.close();
            BackendCore.closeAll(diff, gll);
            throw e;
        }
        return new ClElementData(this, kernel, basis.degree(), elements, plan, null, diff, List.of(), null, own, gll);
    }

    /** Checks the arguments of an element-data upload of {@code length} doubles; returns E P. */
    private long checkElementData(ElementKernel kernel, Basis1D basis, int elements, long length) {
        core.ensureOpen();
        Objects.requireNonNull(kernel, "kernel");
        int degree = basis.degree();
        if (degree > MAX_DEGREE) {
            throw new BackendException("aparapi: degree N = " + degree + " is above the backend's limit N <= " + MAX_DEGREE);
        }
        if (elements < 0) {
            throw new IllegalArgumentException("elements " + elements + " < 0");
        }
        int nq = basis.nq();
        int p = kernel == ElementKernel.STIFFNESS_BP35 ? nq : basis.nqGauss();
        int p3 = p * p * p;
        int perPoint = kernel.factorsPerPoint();
        long expected = (long) elements * p3 * perPoint;
        if (length != expected) {
            throw new IllegalArgumentException("geometricData has length " + length + " but " + kernel + " with N = "
                    + degree + " and E = " + elements + " needs " + expected);
        }
        long points = (long) elements * p3;
        if (points > Integer.MAX_VALUE) {
            throw new BackendException("aparapi: " + kernel + " with N = " + degree + " and E = " + elements + " has "
                    + points + " quadrature points; the kernels index one factor buffer with int (at most "
                    + Integer.MAX_VALUE + ")");
        }
        return points;
    }

    /**
     * The element data of {@code factors} (taken over: closed here on failure; blocked by {@code block} elements, see
     * {@link FactorLayout}) for the first plan {@code plan} (each input mode checks it against its build at its first
     * use): I, D and the plan's scratch added.
     */
    private ClElementData elementData(ElementKernel kernel, Basis1D basis, int elements, List<ClBuffer> factors,
                                      ElementPlan plan, int block) {
        int degree = basis.degree();
        int p = kernel == ElementKernel.STIFFNESS_BP35 ? basis.nq() : basis.nqGauss();
        long points = (long) elements * p * p * p;
        ClBuffer interp = null;
        ClBuffer diff = null;
        ClBuffer scratch = null;
        try {
            if (kernel.usesGaussQuadrature()) {
                interp = core.upload(basis.interpolation(), "I");
            }
            if (kernel != ElementKernel.MASS_BP10) {
                double[] m = kernel == ElementKernel.STIFFNESS_BP35 ? basis.differentiation() : basis.gaussDifferentiation();
                diff = core.upload(m, "D");
            }
            if (!plan.tLocal()) {
                scratch = core.buffer(points, 8, kernel + " t-flux scratch");
            }
        } catch (RuntimeException e) {
            factors.forEach(ClBuffer::close);
            BackendCore.closeAll(interp, diff, scratch);
            throw e;
        }
        return new ClElementData(this, kernel, degree, elements, plan, interp, diff, factors, scratch, block);
    }

    /** The first plan of {@code kernel} at the basis's degree on this device ({@link KernelBuilds#firstPlan}), unbuilt. */
    private ElementPlan firstPlan(ElementKernel kernel, Basis1D basis) {
        String device = core.info.name();
        return KernelBuilds.firstPlan(kernel, basis, core.cl.device().maxWorkGroupSize(), core.localMemBytes, device,
                core.variant != null ? core.variant : ElementVariant.of(kernel, basis.degree(), device));
    }

    /**
     * The plan input mode {@code mode} of {@code d} launches ({@link KernelBuilds#plan} for that mode alone: the first plan
     * unless the mode's build allows smaller groups), found at the mode's first use, so that a mode never used is never
     * built (the README job's p-MG levels apply only x_G through Z, its mass only x_L); its t-flux scratch allocated then
     * if it needs one. Factors on the fly keep their checked plan.
     */
    private ElementPlan plan(ClElementData d, int mode) {
        ElementPlan p = d.plans[mode];
        if (p == null) {
            if (d.trilinear != null) {
                p = d.plan;
            } else {
                String device = core.info.name();
                Basis1D basis = Basis1D.of(d.degree);
                p = KernelBuilds.plan(d.kernel, basis, core.cl.device().maxWorkGroupSize(), core.localMemBytes, device,
                        core.variant != null ? core.variant : ElementVariant.of(d.kernel, d.degree, device, mode),
                        s -> core.kernel(s).workGroupSize(), mode);
                if (!p.tLocal() && d.scratch == null) {
                    int q = d.kernel == ElementKernel.STIFFNESS_BP35 ? basis.nq() : basis.nqGauss();
                    d.scratch = core.buffer((long) d.elements * q * q * q, 8, d.kernel + " t-flux scratch");
                }
            }
            d.plans[mode] = p;
        }
        return p;
    }

    private ClElementData elem(DeviceElementData d) {
        return BackendCore.own(d, ClElementData.class, this, "data", "element data");
    }

    /**
     * The launch plan of element data, e.g. for reports: "2D, 81 work-items x 3 elements per group, ..." (of the form a plain
     * apply launches: x_G through Z, or its atomic form where that is on, whose variant table differs at some N; checked
     * against its build here if it was not yet used).
     */
    String plan(DeviceElementData data) {
        ClElementData d = elem(data);
        if (nvidia == 0) {
            nvidia = AparapiBackend.isNvidia(core.cl.device().vendor()) ? 1 : -1;
        }
        int atomic = AparapiBackend.atomicOperator(nvidia > 0, d.localSize());
        return d.kernel + " N=" + d.degree + ": " + plan(d, atomic != 0 ? atomic : 1).describe(d.kernel)
                + (d.factorBlock > 0 ? ", factors in blocks of " + d.factorBlock + " elements" : "");
    }

    // ------------------------------------------------------------------ element kernels

    /** Stored factor {@code f} of {@code d}, or the unused buffer when the kernel computes the factors on the fly. */
    private ClBuffer factor(ClElementData d, int f) {
        return d.factors.isEmpty() ? core.unused : d.factors.get(f);
    }

    private void runElements(ClElementData d, double lambda, ClBuffer x, ClScatter z, double shift, ClBuffer y,
                             ClBuffer dir, double beta) {
        runElements(d, lambda, x, z, shift, y, dir, beta, 0, d.elements, null);
    }

    /**
     * The element kernel on elements [first, end) (the kernel adds {@code firstElem} to its element index); with
     * {@code yG} not null the one-kernel operator's ({@link ElementOperands#DIRECT}: Z's flagged ids, degree-1 rows
     * written to yG).
     */
    private void runElements(ClElementData d, double lambda, ClBuffer x, ClScatter z, double shift, ClBuffer y,
                             ClBuffer dir, double beta, int first, int end, ClBuffer yG) {
        runElements(d, lambda, x, z, shift, y, dir, beta, first, end, yG,
                yG != null ? ElementOperands.DIRECT : z == null ? 0 : dir == null ? 1 : 2);
    }

    /**
     * As above in input mode {@code mode} ({@link ElementOperands#fromGlobal}'s values); returns the work-groups launched
     * (the partials of {@link ElementOperands#ATOMIC_DOT}).
     */
    private long runElements(ClElementData d, double lambda, ClBuffer x, ClScatter z, double shift, ClBuffer y,
                             ClBuffer dir, double beta, int first, int end, ClBuffer yG, int mode) {
        if (end <= first) {
            return 0;
        }
        ElementPlan plan = plan(d, mode);
        ClKernel k = d.kernels[mode];
        if (k == null) {
            KernelBuilds.Spec spec = KernelBuilds.element(d.kernel, d.degree, plan, mode);
            Integer wants = spec.constants().get("factorBlock");
            if (wants != null && wants != d.factorBlock) {
                // the data's layout, not this mode's plan, decides (a mode whose build allows smaller groups)
                spec = spec.withConstant("factorBlock", d.factorBlock);
            }
            // the launches take the elements per group the kernel was built for (its sweep constant, where it has one)
            d.sweeps[mode] = spec.constants().getOrDefault("sweep", 0);
            k = core.kernel(spec);
            d.kernels[mode] = k;
        }
        boolean stiff = d.kernel != ElementKernel.MASS_BP10;
        ClBuffer unused = core.unused;
        long groups = ElementPlan.groups(plan.elementsPerGroup(), d.sweeps[mode], (long) end - first);
        boolean dot = mode >= ElementOperands.ATOMIC_DOT;
        if (dot) {
            ensureDotPartials(d, groups);
        }
        k.set("x", x).set("y", y)
                .bindIfUsed("ids", z == null ? unused : mode == ElementOperands.DIRECT ? z.directIds.buffer : z.scatterIds.buffer)
                .bindIfUsed("yG", yG == null ? unused : yG)
                .bindIfUsed("w", z == null ? unused : z.inverseDegree.buffer)
                .bindIfUsed("matI", d.interp == null ? unused : d.interp)
                .bindIfUsed("matD", d.diff == null ? unused : d.diff)
                .bindIfUsed("wJ", factor(d, stiff ? 6 : 0))
                .bindIfUsed("scr", d.scratch == null ? unused : d.scratch)
                .bindIfUsed("verts", d.trilinear == null ? unused : d.trilinear.nodes)
                .bindIfUsed("gll", d.gll == null ? unused : d.gll)
                .bindIfUsed("dirG", dir == null ? unused : dir)
                .bindIfUsed("firstElem", first)
                .bindIfUsed("dotPartials", dot ? d.dotPartials : unused)
                .bindIfUsed("cgScalars", mode >= ElementOperands.ATOMIC_DOT_DEVICE ? vectors.cgScalars() : unused)
                .set("elems", end)
                // the group's tree of p . A p reuses the first group-size doubles of the local memory
                .local("lds", dot ? Math.max(KernelBuilds.elementLocalBytes(plan), 8L * plan.groupSize())
                        : KernelBuilds.elementLocalBytes(plan));
        for (int f = 0; f < G_FIELDS.length; f++) {
            k.bindIfUsed(G_FIELDS[f], stiff ? factor(d, f) : unused);
        }
        k.bindIfUsed("lambda", stiff ? lambda : 0).bindIfUsed("shift", shift).bindIfUsed("beta", beta);
        k.launch(groups, plan.groupSize());
        return groups;
    }

    /** The partials of p . A p for {@code groups} work-groups, (re)allocated when too short. */
    private void ensureDotPartials(ClElementData d, long groups) {
        long have = d.dotPartials == null ? 0 : d.dotPartials.bytes() / 8;
        if (have >= groups) {
            return;
        }
        if (d.dotPartials != null) {
            d.dotPartials.close();
            d.dotPartials = null;
        }
        d.dotPartials = core.buffer(groups, 8, "p . A p partials");
    }

    void applyElements(DeviceElementData data, double lambda, DeviceVector xL, DeviceVector yL) {
        ClElementData d = elem(data);
        ClVector x = core.vec(xL, "xL");
        ClVector y = core.vec(yL, "yL");
        checkLen("applyElements", "xL", x.length(), d.localSize());
        checkLen("applyElements", "yL", y.length(), d.localSize());
        if (x == y) {
            throw new IllegalArgumentException("applyElements: xL and yL must be distinct");
        }
        runElements(d, lambda, x.buffer, null, 0, y.buffer, null, 0);
    }

    void applyAssembled(DeviceElementData data, DeviceScatter z, double lambda, double shift, DeviceVector xG, DeviceVector yL,
                        DeviceVector yG) {
        runAssembled("applyAssembled", data, z, lambda, shift, xG, yL, yG, false, null, 0);
    }

    /** {@code applyAssembled} with x_G . y_G reduced in the gather: two launches, one read-back. */
    double applyAssembledDot(DeviceElementData data, DeviceScatter z, double lambda, double shift, DeviceVector xG,
                             DeviceVector yL, DeviceVector yG) {
        return runAssembled("applyAssembledDot", data, z, lambda, shift, xG, yL, yG, true, null, 0);
    }

    /**
     * p_G = z_G + beta p_G, y_G = A p_G and p_G . y_G in two launches: the element kernel reads
     * z_G + beta p_G through the scatter ids, the gather (which owns each row) writes the new p_G and
     * reduces p_G . y_G. CG then needs three launches per iteration.
     */
    double applyAssembledDotUpdate(DeviceElementData data, DeviceScatter z, double lambda, double shift, DeviceVector zG,
                                   double beta, DeviceVector pG, DeviceVector yL, DeviceVector yG) {
        ClVector dir = core.vec(zG, "zG");
        if (zG == pG || zG == yG) {
            throw new IllegalArgumentException("applyAssembledDotUpdate: zG must be distinct from pG and yG");
        }
        if (!foldSearchDirection) {
            vectors.axpby(1, zG, beta, pG);
            return runAssembled("applyAssembledDot", data, z, lambda, shift, pG, yL, yG, true, null, 0);
        }
        return runAssembled("applyAssembledDotUpdate", data, z, lambda, shift, pG, yL, yG, true, dir, beta);
    }

    /**
     * Whether {@link #applyAssembledDirectionDot} runs for {@code data}: the atomic form of CG's apply is on
     * ({@link AparapiBackend#atomicOperator(boolean, long)}, {@link AparapiBackend#atomicCg()}), p . A p in the element
     * kernel is on at this degree ({@link AparapiBackend#elementDot(int)}), the shift is 0, and the kernel is BP3.5 with stored
     * factors in a structure that sums u . y ({@link ElementOperands#ATOMIC_DOT}: the register or pipelined columns, or
     * the 3D structure of the shared and points kernels).
     */
    boolean foldsDirectionDot(DeviceElementData data, double shift) {
        ClElementData d = elem(data);
        if (shift != 0 || d.kernel != ElementKernel.STIFFNESS_BP35 || d.trilinear != null
                || !AparapiBackend.elementDot(d.degree) || !AparapiBackend.atomicCg()) {
            return false;
        }
        int atomic = atomicMode(d);
        if (atomic == 0) {
            return false;
        }
        ElementPlan plan = plan(d, dotMode(d));
        return plan.variant() == ElementVariant.REGISTERS || plan.variant() == ElementVariant.PIPELINED || plan.threeD();
    }

    /** The input mode of the element kernel that sums p . A p for {@code d}: ATOMIC_DOT or ATOMIC_PTX_DOT. */
    private int dotMode(ClElementData d) {
        return atomicMode(d) + (ElementOperands.ATOMIC_DOT - ElementOperands.ATOMIC);
    }

    /** The refusal of {@code what} where {@link #foldsDirectionDot} is false. */
    private static UnsupportedOperationException noElementDot(String what, ClElementData d, double shift) {
        return new UnsupportedOperationException(what + ": p . A p is not summed in the element kernel here (shift " + shift
                + ", " + d.kernel + " N=" + d.degree + (d.trilinear != null ? ", factors on the fly" : "")
                + "); see foldsDirectionDot");
    }

    /** The atomic form of the element kernels for {@code d} on this device now: 0 (off), ATOMIC or ATOMIC_PTX. */
    private int atomicMode(ClElementData d) {
        if (nvidia == 0) {
            nvidia = AparapiBackend.isNvidia(core.cl.device().vendor()) ? 1 : -1;
        }
        return AparapiBackend.atomicOperator(nvidia > 0, d.localSize());
    }

    /**
     * y_G = A (z_G + beta p_G) and returns (z_G + beta p_G) . y_G, p_G unchanged, in the element kernel's launch
     * ({@link ElementOperands#ATOMIC_DOT}: y_G zeroed, every element's output added into it, and p . A p summed over the
     * elements as sum_e p_e . A_e p_e), then one work-group sums its per-group partials (one per element group: about 10^4
     * at N = 7 and 8M DOFs) on the device ({@link Vectors#sumOnDevice}).
     * CG's p = z + beta p follows in its update ({@link Vectors#cgStep}).
     *
     * @throws UnsupportedOperationException where {@link #foldsDirectionDot} is false
     */
    double applyAssembledDirectionDot(DeviceElementData data, DeviceScatter z, double lambda, double shift, DeviceVector zG,
                                      double beta, DeviceVector pG, DeviceVector yL, DeviceVector yG) {
        String what = "applyAssembledDirectionDot";
        ClScatter s = gatherScatter.scat(z);
        ClVector yl = core.vec(yL, "yL");
        ClVector yg = core.vec(yG, "yG");
        ClElementData d = elem(data);
        ClVector p = core.vec(pG, "pG");
        ClVector dir = core.vec(zG, "zG");
        checkLen(what, "z.localSize", s.localSize(), d.localSize());
        checkLen(what, "pG", p.length(), s.globalSize());
        checkLen(what, "zG", dir.length(), s.globalSize());
        checkLen(what, "yG", yg.length(), s.globalSize());
        checkLen(what, "yL", yl.length(), d.localSize());
        if (dir == p || dir == yg || p == yg) {
            throw new IllegalArgumentException(what + ": " + (dir == p ? "zG and pG" : dir == yg ? "zG and yG" : "pG and yG")
                    + " must be distinct");
        }
        if (!foldsDirectionDot(data, shift)) {
            throw noElementDot(what, d, shift);
        }
        int mode = dotMode(d);
        vectors.fill(yg, 0.0);
        long groups = runElements(d, lambda, p.buffer, s, shift, yl.buffer, dir.buffer, beta, 0, d.elements, yg.buffer, mode);
        return vectors.sumOnDevice(d.dotPartials, (int) groups);
    }

    /**
     * One CG iteration after the first, with one read-back ({@link io.lobatto.core.backend.Backend#assembledCgIteration}):
     * the element kernel applies q = r + beta p into y_G (zero on entry) and sums q . A q
     * ({@link ElementOperands#ATOMIC_DOT}), then {@link Vectors#cgStepOnDevice} sets alpha on the device and writes
     * p = q, x += pending p_old + alpha p (or only the first term with {@code deferX}), r -= alpha y and y = 0;
     * out[0] = p . A p, out[1] = r . r, out[2] = the alpha still to add to x with this p (deferX), else 0.
     *
     * @throws UnsupportedOperationException where {@link #foldsDirectionDot} is false
     */
    void assembledCgIteration(DeviceElementData data, DeviceScatter z, double lambda, double shift, double beta, double rz,
                              double pending, boolean deferX, DeviceVector pG, DeviceVector yL, DeviceVector yG,
                              DeviceVector xG, DeviceVector rG, double[] out) {
        String what = "assembledCgIteration";
        ClScatter s = gatherScatter.scat(z);
        ClVector yl = core.vec(yL, "yL");
        ClElementData d = elem(data);
        ClVector[] v = cgVectors(what, s, d, yl, pG, yG, xG, rG);
        io.lobatto.core.backend.Backend.checkCgIteration(what, pending, deferX, out);
        if (!foldsDirectionDot(data, shift)) {
            throw noElementDot(what, d, shift);
        }
        if (s.globalSize() == 0) {
            out[0] = 0;
            out[1] = 0;
            out[2] = 0;
            return;
        }
        int mode = dotMode(d);
        long groups = runElements(d, lambda, v[0].buffer, s, shift, yl.buffer, v[3].buffer, beta, 0, d.elements, v[1].buffer,
                mode);
        vectors.cgStepOnDevice(d.dotPartials, (int) groups, rz, beta, pending, deferX, v[0], v[1], v[2], v[3], out);
        // the alpha CgAlphaKernel set, the same division here: what the next step adds to x where this one deferred it
        out[2] = deferX ? io.lobatto.core.backend.Backend.cgAlpha(rz, out[0]) : 0;
    }

    /**
     * Queues CG iteration {@code k} ({@link io.lobatto.core.backend.Backend#queueAssembledCgIteration}): with
     * {@code first} the scalars beta, rz and pending go to the device first; then the element kernel applies
     * q = r + beta p with beta read on the device ({@link ElementOperands#ATOMIC_DOT_DEVICE}) and
     * {@link Vectors#queueCgEnd} sets alpha, updates the vectors, sets the next beta and queues the read-back of
     * p . A p, r . r and alpha, all without waiting.
     *
     * @throws UnsupportedOperationException where {@link #foldsDirectionDot} is false
     */
    void queueAssembledCgIteration(DeviceElementData data, DeviceScatter z, double lambda, double shift, int k,
                                   boolean first, double beta, double rz, double pending, boolean deferX, DeviceVector pG,
                                   DeviceVector yL, DeviceVector yG, DeviceVector xG, DeviceVector rG) {
        String what = "queueAssembledCgIteration";
        ClScatter s = gatherScatter.scat(z);
        ClVector yl = core.vec(yL, "yL");
        ClElementData d = elem(data);
        ClVector[] v = cgVectors(what, s, d, yl, pG, yG, xG, rG);
        if (!foldsDirectionDot(data, shift)) {
            throw noElementDot(what, d, shift);
        }
        vectors.checkQueueCg(k, first, deferX, pending);
        if (s.globalSize() == 0) {
            throw new IllegalArgumentException(what + ": the vectors are empty");
        }
        if (first) {
            vectors.startQueuedCg(beta, rz, pending);
        }
        int mode = dotMode(d) + (ElementOperands.ATOMIC_DOT_DEVICE - ElementOperands.ATOMIC_DOT);
        long groups = runElements(d, lambda, v[0].buffer, s, shift, yl.buffer, v[3].buffer, 0, 0, d.elements, v[1].buffer,
                mode);
        vectors.queueCgEnd(d.dotPartials, (int) groups, k, deferX, v[0], v[1], v[2], v[3]);
    }

    /** p, y, x and r of a CG iteration on the device, checked: of the scatter's global size, distinct; y_L of the elements. */
    private ClVector[] cgVectors(String what, ClScatter s, ClElementData d, ClVector yl, DeviceVector pG, DeviceVector yG,
                                 DeviceVector xG, DeviceVector rG) {
        ClVector[] v = {core.vec(pG, "pG"), core.vec(yG, "yG"), core.vec(xG, "xG"), core.vec(rG, "rG")};
        String[] names = {"pG", "yG", "xG", "rG"};
        checkLen(what, "z.localSize", s.localSize(), d.localSize());
        checkLen(what, "yL", yl.length(), d.localSize());
        for (int i = 0; i < v.length; i++) {
            checkLen(what, names[i], v[i].length(), s.globalSize());
            for (int j = i + 1; j < v.length; j++) {
                if (v[i] == v[j]) {
                    throw new IllegalArgumentException(what + ": " + names[i] + " and " + names[j] + " must be distinct");
                }
            }
        }
        return v;
    }

    /** The element launch of the fused operator on elements [first, end) only; the gather is {@code gatherDot}. */
    void applyAssembledElements(DeviceElementData data, DeviceScatter z, double lambda, double shift, DeviceVector xG,
                                DeviceVector yL, int first, int end) {
        ClScatter s = gatherScatter.scat(z);
        ClVector yl = core.vec(yL, "yL");
        ClElementData d = elem(data);
        ClVector x = core.vec(xG, "xG");
        checkLen("applyAssembledElements", "z.localSize", s.localSize(), d.localSize());
        checkLen("applyAssembledElements", "xG", x.length(), s.globalSize());
        checkLen("applyAssembledElements", "yL", yl.length(), d.localSize());
        if (first < 0 || end < first || end > d.elements) {
            throw new IllegalArgumentException("applyAssembledElements: elements [" + first + ", " + end + ") not within [0, "
                    + d.elements + ")");
        }
        runElements(d, lambda, x.buffer, s, shift, yl.buffer, null, 0, first, end, null);
    }

    /**
     * {@link #applyAssembledElements} on [first, mid) on the kernel queue, then on [mid, end) on the second kernel queue
     * behind a marker taken before the first launch, so that both run at once ({@link AparapiBackend#joinConcurrent}
     * joins them). An empty range queues nothing on its queue.
     */
    void applyAssembledElementsConcurrent(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                          DeviceVector xG, DeviceVector yL, int first, int mid, int end) {
        if (first < 0 || mid < first || end < mid) {
            throw new IllegalArgumentException("applyAssembledElementsConcurrent: first " + first + ", mid " + mid + ", end "
                    + end + " must satisfy 0 <= first <= mid <= end");
        }
        // checks the lengths and end <= E before anything is queued
        applyAssembledElements(data, z, lambda, shift, xG, yL, mid, mid);
        if (end > elem(data).elements) {
            throw new IllegalArgumentException("applyAssembledElementsConcurrent: elements [" + mid + ", " + end
                    + ") not within [0, " + elem(data).elements + ")");
        }
        if (end == mid) {
            applyAssembledElements(data, z, lambda, shift, xG, yL, first, mid);
            return;
        }
        core.cl.fork();
        applyAssembledElements(data, z, lambda, shift, xG, yL, first, mid);
        core.cl.alongside(() -> applyAssembledElements(data, z, lambda, shift, xG, yL, mid, end));
    }

    /**
     * The operator apply with the residual update folded into its gather: y_L = (L + shift W) Z x_G, then
     * r = c1 Z^T y_L + r and, where {@code sG} is not null, s = c2 Z^T y_L + s (two launches, A x_G not stored).
     */
    void applyAssembledResidual(DeviceElementData data, DeviceScatter z, double lambda, double shift, DeviceVector xG,
                                DeviceVector yL, double c1, DeviceVector rG, double c2, DeviceVector sG) {
        String what = "applyAssembledResidual";
        ClScatter s = gatherScatter.scat(z);
        ClVector yl = core.vec(yL, "yL");
        ClVector r = core.vec(rG, "rG");
        ClVector sv = sG == null ? null : core.vec(sG, "sG");
        ClElementData d = elem(data);
        ClVector x = core.vec(xG, "xG");
        checkLen(what, "z.localSize", s.localSize(), d.localSize());
        checkLen(what, "xG", x.length(), s.globalSize());
        checkLen(what, "yL", yl.length(), d.localSize());
        checkLen(what, "rG", r.length(), s.globalSize());
        if (sv != null) {
            checkLen(what, "sG", sv.length(), s.globalSize());
        }
        if (x == r || x == sv || r == sv) {
            throw new IllegalArgumentException(what + ": xG, rG and sG must be distinct");
        }
        runElements(d, lambda, x.buffer, s, shift, yl.buffer, null, 0);
        gatherScatter.runGatherResidual(s, yl, c1, r, c2, sv);
    }

    /**
     * A distributed level's partial residual t = (mask o r) + c1 Z^T y_L after the operator apply y_L = (L + shift W) Z
     * x_G, in two launches (the element kernel, then {@link GatherScatterKernel#GATHER_MASKED_RESIDUAL}); where Z has no
     * row blocks, the pointwise multiply and the gather with the residual folded in, as the calls in turn.
     */
    void applyAssembledMaskedResidual(DeviceElementData data, DeviceScatter z, double lambda, double shift, DeviceVector xG,
                                      DeviceVector yL, double c1, DeviceVector mask, DeviceVector rG, DeviceVector tG) {
        String what = "applyAssembledMaskedResidual";
        ClScatter s = gatherScatter.scat(z);
        ClVector yl = core.vec(yL, "yL");
        ClVector m = core.vec(mask, "mask");
        ClVector r = core.vec(rG, "rG");
        ClVector t = core.vec(tG, "tG");
        ClElementData d = elem(data);
        ClVector x = core.vec(xG, "xG");
        checkLen(what, "z.localSize", s.localSize(), d.localSize());
        checkLen(what, "yL", yl.length(), d.localSize());
        checkLen(what, "xG", x.length(), s.globalSize());
        checkLen(what, "mask", m.length(), s.globalSize());
        checkLen(what, "rG", r.length(), s.globalSize());
        checkLen(what, "tG", t.length(), s.globalSize());
        runElements(d, lambda, x.buffer, s, shift, yl.buffer, null, 0);
        if (!gatherScatter.runGatherMaskedResidual(s, yl, c1, m, r, t)) {
            vectors.pointwiseMultiply(mask, rG, tG);
            gatherScatter.runGatherResidual(s, yl, c1, t, 0, null);
        }
    }

    /**
     * A Chebyshev-Jacobi smoothing step after the operator apply, in two launches: y_L = (L + shift W) Z d_G, then the
     * gather with r = -Z^T y_L + r, d = a d + b (w o r) and x += d folded in (A d not stored).
     */
    void applyAssembledResidualChebyshev(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                         DeviceVector dG, DeviceVector yL, DeviceVector rG, double a, double b,
                                         DeviceVector inverseDiagonal, DeviceVector xG) {
        String what = "applyAssembledResidualChebyshev";
        ClScatter s = gatherScatter.scat(z);
        ClVector yl = core.vec(yL, "yL");
        ClVector r = core.vec(rG, "rG");
        ClVector w = core.vec(inverseDiagonal, "inverseDiagonal");
        ClVector x = core.vec(xG, "xG");
        ClElementData e = elem(data);
        ClVector d = core.vec(dG, "dG");
        checkLen(what, "z.localSize", s.localSize(), e.localSize());
        checkLen(what, "yL", yl.length(), e.localSize());
        for (ClVector v : new ClVector[] {d, r, w, x}) {
            checkLen(what, v == d ? "dG" : v == r ? "rG" : v == w ? "inverseDiagonal" : "xG", v.length(), s.globalSize());
        }
        if (d == r || d == x || d == w || r == x || r == w || x == w) {
            throw new IllegalArgumentException(what + ": dG, rG, inverseDiagonal and xG must be distinct");
        }
        runElements(e, lambda, d.buffer, s, shift, yl.buffer, null, 0);
        gatherScatter.runGatherResidualChebyshev(s, yl, r, a, b, w, d, x);
    }

    /** hipBone's fused operator: the element kernel reads x_G through the scatter ids, then the gather. */
    private double runAssembled(String what, DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                DeviceVector xG, DeviceVector yL, DeviceVector yG, boolean withDot, ClVector dir, double beta) {
        ClScatter s = gatherScatter.scat(z);
        ClVector yl = core.vec(yL, "yL");
        ClVector yg = core.vec(yG, "yG");
        ClElementData d = elem(data);
        ClVector x = core.vec(xG, "xG");
        checkLen(what, "z.localSize", s.localSize(), d.localSize());
        checkLen(what, "xG", x.length(), s.globalSize());
        checkLen(what, "yL", yl.length(), d.localSize());
        checkLen(what, "yG", yg.length(), s.globalSize());
        if (x == yg) {
            throw new IllegalArgumentException(what + ": xG and yG must be distinct");
        }
        if (dir != null) {
            checkLen(what, "zG", dir.length(), s.globalSize());
        }
        int atomic = atomicMode(d);
        if (atomic != 0 && ((dir == null && !withDot) || AparapiBackend.atomicCg())) {
            // the one-kernel operator with atomics: y_G zeroed, then every element's output added into it in place; CG's
            // p = z + beta p and its dot in one pass after it (the element kernel read z + beta p through Z)
            vectors.fill(yg, 0.0);
            int mode = dir == null ? atomic : atomic + (ElementOperands.ATOMIC_DIR - ElementOperands.ATOMIC);
            runElements(d, lambda, x.buffer, s, shift, yl.buffer, dir == null ? null : dir.buffer, beta, 0, d.elements,
                    yg.buffer, mode);
            if (dir != null) {
                return vectors.updateDot(x.buffer, dir.buffer, beta, yg.buffer, s.globalSize());
            }
            return withDot ? vectors.dot(x.buffer, yg.buffer, s.globalSize()) : 0;
        }
        if (s.directIds != null && dir == null) {
            // the one-kernel operator: the interiors straight to y_G, the shared nodes through y_L and a smaller gather
            runElements(d, lambda, x.buffer, s, shift, yl.buffer, null, 0, 0, d.elements, yg.buffer);
            return gatherScatter.directGather(s, yl, yg, withDot ? x : null);
        }
        runElements(d, lambda, x.buffer, s, shift, yl.buffer, dir == null ? null : dir.buffer, beta);
        return gatherScatter.runGather(s, yl, yg, withDot ? x : null, dir, beta);
    }

    // ------------------------------------------------------------------ diagonals

    /**
     * The diagonal of the element matrices: BP3.5 by {@link io.lobatto.backend.aparapi.kernels.DiagonalBp35Kernel}
     * (one work-item per node, the collocated formula of {@link io.lobatto.core.backend.ElementMatrixDiagonal}); BP1.0
     * and BP3.0 by {@link io.lobatto.backend.aparapi.kernels.DiagonalKernel} (its separable contractions, sum-factorised
     * per element).
     */
    void elementDiagonal(DeviceElementData data, double lambda, DeviceVector diagonalL) {
        ClElementData d = elem(data);
        ClVector y = core.vec(diagonalL, "diagonalL");
        checkLen("elementDiagonal", "diagonalL", y.length(), d.localSize());
        if (d.elements == 0) {
            return;
        }
        Basis1D basis = Basis1D.of(d.degree);
        if (d.kernel != ElementKernel.STIFFNESS_BP35) {
            separableDiagonal(d, basis, lambda, y);
            return;
        }
        double[] dm = basis.differentiation();
        double[] bb = io.lobatto.core.backend.ElementMatrixDiagonal.hadamard(dm, dm);
        double[] m = new double[bb.length + dm.length];
        System.arraycopy(bb, 0, m, 0, bb.length);
        System.arraycopy(dm, 0, m, bb.length, dm.length);
        // factors on the fly: the stored factors for this setup kernel only, freed after it
        List<ClBuffer> factors = d.factors;
        if (d.trilinear != null) {
            try (ClVector packed = (ClVector) setup.geometricFactors(d.trilinear, basis, Quadrature.GLL, 7)) {
                factors = split(d.kernel, packed, 7, (long) d.localSize(), basis.nq() * basis.nq(), 0);
            }
        }
        ClBuffer mats = null;
        try {
            mats = core.upload(m, "BP3.5 diagonal matrices");
            ClKernel k = core.kernel(KernelBuilds.diagonalBp35(d.degree).withOptions(KernelBuilds.setupOptions(d.elements, d.degree)));
            for (int f = 0; f < G_FIELDS.length; f++) {
                k.set(G_FIELDS[f], factors.get(f));
            }
            int n = d.localSize();
            k.set("wJ", factors.get(6)).set("mats", mats).set("y", y.buffer).set("lambda", lambda).set("n", n)
                    .set("nq", d.degree + 1).set("block", d.trilinear != null ? 0 : d.factorBlock);
            core.launchPerEntry(k, n);
        } finally {
            if (mats != null) {
                mats.close();
            }
            if (d.trilinear != null) {
                // released once the launch that reads them is done (OpenCL keeps them for enqueued commands)
                factors.forEach(ClBuffer::close);
            }
        }
    }

    /** BP1.0 and BP3.0: {@link io.lobatto.backend.aparapi.kernels.DiagonalKernel}, launched in chunks with global grids. */
    private void separableDiagonal(ClElementData d, Basis1D basis, double lambda, ClVector y) {
        String options = KernelBuilds.setupOptions(d.elements, d.degree);
        KernelBuilds.GeometryPlan plan = diagonalPlan(d.degree, options, core.cl.device().maxWorkGroupSize(),
                core.localMemBytes, diagonalGlobalGrids, s -> core.kernel(s).workGroupSize());
        ClKernel k = core.kernel(KernelBuilds.diagonal(d.degree, plan).withOptions(options));
        int nq = basis.nq();
        int mq = basis.nqGauss();
        double[] interp = basis.interpolation();
        double[] deriv = io.lobatto.core.backend.ElementMatrixDiagonal.multiply(basis.gaussDifferentiation(), interp, mq, mq, nq);
        double[][] parts = {io.lobatto.core.backend.ElementMatrixDiagonal.hadamard(interp, interp),
            io.lobatto.core.backend.ElementMatrixDiagonal.hadamard(deriv, deriv),
            io.lobatto.core.backend.ElementMatrixDiagonal.hadamard(interp, deriv)};
        double[] m = new double[3 * mq * nq];
        for (int i = 0; i < 3; i++) {
            System.arraycopy(parts[i], 0, m, i * mq * nq, mq * nq);
        }
        boolean mass = d.kernel == ElementKernel.MASS_BP10;
        ClBuffer mats = null;
        ClBuffer scratch = null;
        try {
            mats = core.upload(m, "element-diagonal matrices");
            int epg = plan.elemsPerGroup();
            long groups = (d.elements + (long) epg - 1) / epg;
            long perLaunch = groups;
            if (plan.globalGrids()) {
                perLaunch = Math.min(groups, Math.max(1, KernelBuilds.GEOMETRY_SCRATCH_SLOTS / epg));
                long doubles = perLaunch * epg * plan.perElem();
                scratch = core.buffer(doubles, 8, "element-diagonal grids (" + doubles + " doubles)");
            }
            for (int f = 0; f < G_FIELDS.length; f++) {
                k.set(G_FIELDS[f], mass ? core.unused : d.factors.get(f));
            }
            k.set("wJ", d.factors.get(mass ? 0 : 6)).set("mats", mats).set("y", y.buffer)
                    .set("scale", mass ? 1.0 : lambda).set("first", mass ? 6 : 0).set("last", mass || lambda != 0 ? 7 : 6)
                    .set("elems", d.elements).set("block", d.factorBlock)
                    .bindIfUsed("scr", scratch == null ? core.unused : scratch)
                    .local("lds", 8L * plan.localDoubles());
            BackendCore.launchInChunks(k, groups, perLaunch, epg, plan.groupSize());
        } finally {
            BackendCore.closeAll(mats, scratch);
        }
    }

    /**
     * The plan of {@link io.lobatto.backend.aparapi.kernels.DiagonalKernel}: for the element group, then for what the build
     * with {@code options} ({@link KernelBuilds#setupOptions}) allows.
     */
    static KernelBuilds.GeometryPlan diagonalPlan(int degree, String options, int maxWorkGroupSize, long localMemBytes,
                                                 boolean global, ToIntFunction<KernelSource> allowed) {
        int cap = Math.min(ELEMENT_GROUP, maxWorkGroupSize);
        while (true) {
            KernelBuilds.GeometryPlan plan = KernelBuilds.diagonalPlan(degree, cap, localMemBytes, global);
            int fits = allowed.applyAsInt(KernelBuilds.diagonal(degree, plan).withOptions(options));
            if (plan.groupSize() <= fits) {
                return plan;
            }
            if (fits >= cap) {
                throw new BackendException("aparapi: the element-diagonal kernel N=" + degree + " plans groups of "
                        + plan.groupSize() + " but its build allows " + fits);
            }
            cap = fits;
        }
    }
}
