package io.lobatto.backend.aparapi;

import io.lobatto.core.backend.BackendException;
import io.lobatto.core.backend.ElementKernel;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How an element kernel is laid out on work-groups, for one operator, degree and device (the build
 * constants of {@link io.lobatto.backend.aparapi.kernels.ElementKernelBase}): 3D structure (one
 * work-item per point, several elements per group) while P^3 fits the group, else the 2D layer-by-layer
 * structure; the local memory per element (the P^3 grid, the 3D gradients or the 2D r/s scratch and,
 * when it fits, the t-fluxes; a second P^3 grid for point-parallel GL stages); I and D staged after the
 * elements' regions.
 *
 * @param points            P, quadrature points per direction (Nq for BP3.5, Nq + 1 for GL)
 * @param threeD            3D structure
 * @param threadsPerElement work-items per element
 * @param elementsPerGroup  elements per work-group
 * @param localPerElement   local doubles per element
 * @param matrixDoubles     local doubles of I and D
 * @param pointInterp       GL stages point-parallel between two grids (else in place by lines)
 * @param tLocal            2D stiffness t-fluxes in local memory (else a global scratch of E P^3)
 * @param onTheFly          BP3.5 with the geometric factors computed from the element vertices
 *                          ({@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearKernel} in the register
 *                          variant, {@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearSharedKernel} in the
 *                          shared one, {@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearPointsKernel} in
 *                          the points one)
 * @param perColumn         points plans' stiffness (stored or on the fly): layers per work-item of its (a, b) column,
 *                          K (1: points strided by the work-items, t, t + T, ...)
 */
record ElementPlan(ElementVariant variant, int points, boolean threeD, int threadsPerElement, int elementsPerGroup,
                   int localPerElement, int matrixDoubles, boolean pointInterp, boolean tLocal, int stride, boolean onTheFly,
                   int perColumn) {

    /** A plan whose work-items do not own columns ({@link #perColumn} 1). */
    ElementPlan(ElementVariant variant, int points, boolean threeD, int threadsPerElement, int elementsPerGroup,
                int localPerElement, int matrixDoubles, boolean pointInterp, boolean tLocal, int stride, boolean onTheFly) {
        this(variant, points, threeD, threadsPerElement, elementsPerGroup, localPerElement, matrixDoubles, pointInterp, tLocal,
                stride, onTheFly, 1);
    }

    /**
     * System property: the layers K each work-item of a points plan's stiffness takes in its (a, b) column
     * ({@link #perColumn}): unset or {@code table}, {@link #pointsPerColumn}'s measured choice; {@code auto}, the smallest
     * K whose work-items fit the group; 1..8 that K (1: the points t, t + T, ... instead). An A/B switch for the GPU
     * runbooks.
     */
    static final String PER_COLUMN_PROPERTY = "lobatto.aparapi.pointsPerColumn";

    /**
     * The plan of BP3.5 with the geometric factors on the fly: the register columns of
     * {@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearKernel} (Nq^2 work-items per element; per element
     * three Nq x S layers, the Nq^3 columns and 24 vertex coordinates; then D and the GLL nodes and weights), or null
     * where Nq^2 exceeds {@code groupCap} or one element does not fit {@code localMemBytes}.
     */
    static ElementPlan trilinear(int nq, int groupCap, long localMemBytes) {
        long limit = localMemBytes / 8;
        int p = nq;
        int stride = odd(p);
        int threads = p * p;
        int perElem = 3 * p * stride + p * p * p + 24;
        int matrices = p * stride + 2 * p;
        if (threads > groupCap || perElem + matrices > limit) {
            return null;
        }
        int perGroup = elementsPerGroup(groupCap, threads, perElem, matrices, limit);
        return new ElementPlan(ElementVariant.REGISTERS, p, false, threads, perGroup, perElem, matrices, false, true, stride,
                true);
    }

    /**
     * The plan of BP3.5 with the geometric factors on the fly in the shared-memory layout of
     * {@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearSharedKernel} (Nq^2 work-items per element; per
     * element the grid and the t-grid, Nq x S each layer, two pairs of r- and s-flux layers and the map's 21 coefficients; then D,
     * the GLL nodes and weights), or null where Nq^2 exceeds {@code groupCap} or one element does not fit
     * {@code localMemBytes} (N = 13 and above in 48 KiB).
     */
    static ElementPlan trilinearShared(int nq, int groupCap, long localMemBytes) {
        long limit = localMemBytes / 8;
        int p = nq;
        int stride = odd(p);
        int threads = p * p;
        int perElem = 2 * p * stride * p + 4 * p * stride + 21;
        int matrices = p * stride + 2 * p;
        if (threads > groupCap || perElem + matrices > limit) {
            return null;
        }
        int perGroup = elementsPerGroup(groupCap, threads, perElem, matrices, limit);
        return new ElementPlan(ElementVariant.SHARED, p, false, threads, perGroup, perElem, matrices, false, true, stride,
                true);
    }

    /**
     * The plan of BP3.5 with the geometric factors on the fly in the points structure, of
     * {@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearPointsKernel}: K = {@link #pointsPerColumn} layers of
     * an (a, b) column per work-item where K &gt; 1 (the table's N = 7 and 8: 256 and 243 work-items), else points strided
     * by the work-items as {@link #points} has them; per element the grid u, three flux grids, P^3 each, and the map's 21
     * coefficients; then D, the GLL nodes and weights. Null where one element does not fit {@code localMemBytes} (N = 11
     * and above in 48 KiB).
     */
    static ElementPlan trilinearPoints(int nq, int groupCap, long localMemBytes) {
        long limit = localMemBytes / 8;
        int p = nq;
        int stride = odd(p);
        int perElem = 4 * p * p * p + 21;
        int matrices = p * stride + 2 * p;
        if (perElem + matrices > limit) {
            return null;
        }
        int k = pointsPerColumn(ElementKernel.STIFFNESS_BP35, true, p, groupCap);
        int threads = k == 1 ? pointThreads(p * p * p, groupCap) : columnThreads(false, p, k, groupCap);
        int perGroup = elementsPerGroup(groupCap, threads, perElem, matrices, limit);
        return new ElementPlan(ElementVariant.POINTS, p, true, threads, perGroup, perElem, matrices, false, true, stride,
                true, k);
    }

    /**
     * K, the layers of its (a, b) column each work-item of a points plan's stiffness takes (layers K s .. K s + K - 1 for
     * slot s, P^2 ceil(P / K) work-items per element), so that a work-item reads D's rows a and b and the t-line of u once
     * for its K points: {@link #PER_COLUMN_PROPERTY} where set (a K whose work-items do not fit {@code groupCap} gives
     * way to the smallest that does), else the measured table: the smallest K that fits for BP3.5 at N = 7 (P = 8: K = 2,
     * 256 work-items) and N = 8 (P = 9: K = 3, 243; with the stored factors padded to 256, {@link #columnThreads}), 1
     * elsewhere. At N = 6 the stored factors keep K = 1: K = 2 alone applies slower ({@code warm26.sh} at a459423: 16.67
     * against 17.61 GDOF/s; with the factors early 18.38, {@code prefetch26.sh}) and runs CG slower ({@code bp} 9.10 against
     * 10.16; {@code pad26.sh}, padded to 224: 9.70 against 10.52). At N = 8 K = 3 unpadded applied faster (18.71 against
     * 17.81) but ran CG slower (9.49 against 10.63); padded, {@code op} 19.43 and {@code bp} 10.52 ({@code pad26.sh} at
     * a818621; {@code table26.sh} at e3f58eb: {@code op} 19.44 against 17.96, {@code bp} 10.36 and 9.24 against 10.55;
     * {@code spread26.sh} at 15631f3, four alternated rounds: {@code bp} 10.08-10.45 against 10.52-10.65, 2.8 % slower):
     * kept for the plain apply, which p-multigrid's smoothers and residuals call.
     * {@code benchmarks/gpu/columns26.sh} at
     * 1323f1c (H100, {@code op} BP5 apply at 8M DOFs, two alternated runs, GDOF/s K = 1 / the smallest K that fits): stored
     * N = 6 17.67, 17.63 / 17.55, 17.54 (K = 2), N = 7 19.44, 19.36 / 21.10, 21.08 (2), N = 8 18.01, 18.02 / 18.19, 18.21
     * (3), N = 9 17.32, 17.31 / 18.18 (5; {@code bp} 10.36 / 9.76); BP3.0 in points slower than its table at N = 5..7 with
     * either. On the fly, {@code benchmarks/gpu/final26.sh} at 2c4982e (J per point from the coefficients; 78 registers
     * at N = 7 where 15 column constants took 100): N = 6 18.82 / 17.61, 7 20.69 / 21.16, 8 18.73 / 21.25, 9 21.24 /
     * 18.33.
     */
    static int pointsPerColumn(ElementKernel kernel, boolean onTheFly, int p, int groupCap) {
        String forced = System.getProperty(PER_COLUMN_PROPERTY, "table").trim();
        if (forced.equalsIgnoreCase("table")) {
            boolean measured = kernel == ElementKernel.STIFFNESS_BP35 && (p == 8 || p == 9);
            return measured ? smallestPerColumn(p, groupCap) : 1;
        }
        if (forced.equalsIgnoreCase("auto")) {
            return smallestPerColumn(p, groupCap);
        }
        int k;
        try {
            k = Integer.parseInt(forced);
        } catch (NumberFormatException e) {
            k = 0;
        }
        if (k < 1 || k > MAX_PER_COLUMN) {
            throw new IllegalArgumentException("-D" + PER_COLUMN_PROPERTY + "=" + forced + ": expected table, auto or 1.."
                    + MAX_PER_COLUMN);
        }
        return k == 1 || (long) p * p * ((p + k - 1) / k) <= groupCap ? k : smallestPerColumn(p, groupCap);
    }

    /**
     * The smallest K whose P^2 ceil(P / K) work-items fit {@code groupCap} (1 while P^3 fits; N = 6 K = 2 (196 work-items),
     * N = 7 2 (256), N = 8 3 (243), N = 9 5 (200), N = 10 6 (242) in groups of 256), or 1 where that K exceeds
     * {@link #MAX_PER_COLUMN}.
     */
    static int smallestPerColumn(int p, int groupCap) {
        for (int k = 1; k <= p; k++) {
            if ((long) p * p * ((p + k - 1) / k) <= groupCap) {
                return k <= MAX_PER_COLUMN ? k : 1;
            }
        }
        return 1;
    }

    /**
     * System property: where the stored-factor 3D stiffness loads its points' geometric factors: unset or {@code table},
     * {@link #prefetchTable}'s measured choice; {@code after} the gradient sums, each point's where it is used;
     * {@code early}, with u before the first barrier, into registers (K layers of a column, or one point per work-item);
     * {@code batched}, the K points' all at once after the gradient sums (K layers of a column). An A/B switch for the
     * GPU runbooks; where a choice does not apply, the factors are loaded after.
     */
    static final String PREFETCH_PROPERTY = "lobatto.aparapi.prefetchFactors";

    /** {@link #PREFETCH_PROPERTY} as a build constant {@code prefetch} (0 after, 1 early, 2 batched), or -1 for the table. */
    static int prefetchFactors() {
        String v = System.getProperty(PREFETCH_PROPERTY, "table").trim();
        return switch (v.toLowerCase(java.util.Locale.ROOT)) {
            case "table" -> -1;
            case "after" -> 0;
            case "early" -> 1;
            case "batched" -> 2;
            default -> throw new IllegalArgumentException("-D" + PREFETCH_PROPERTY + "=" + v
                    + ": expected table, after, early or batched");
        };
    }

    /**
     * The build constant {@code prefetch} of this plan's stiffness: {@link #prefetchFactors} or its table where the plan
     * allows the choice (3D; K layers of a column, or for early also one point per work-item), else 0.
     */
    int prefetch(ElementKernel kernel) {
        boolean column = perColumn > 1;
        boolean onePoint = perColumn == 1 && threadsPerElement >= points * points * points;
        if (kernel == ElementKernel.MASS_BP10 || !threeD || onTheFly || !(column || onePoint)) {
            return 0;
        }
        int v = prefetchFactors();
        if (v < 0) {
            v = prefetchTable(kernel, points - 1, column);
        }
        return v == 2 && !column ? 0 : v;
    }

    /**
     * The measured choice of {@link #prefetch}: BP3.5 early at N = 3 and 4 (one point per work-item; {@code caps26.sh} at
     * 99183da, one lease, {@code op} 14.90 and 16.37 GDOF/s, {@code bp} 9.30 and 10.13 GDOF&middot;it/s against 9.06 and
     * 9.73 with the factors after), and where K layers of a column are forced at N = 6 (K = 2) early; after elsewhere and
     * for BP3.0. At N = 8 (K = 3) batched applied 1.5 % faster than after unpadded (18.99 against 18.71 GDOF/s), but with
     * the table's 256 work-items ({@link #columnThreads}) after is far ahead ({@code loads26.sh} at 7adae63, two rounds:
     * {@code op} 19.45, 19.43 after, 14.98, 14.98 batched, 15.33, 15.34 early; {@code bp} 10.35, 10.30 / 8.46, 8.43 / 8.21,
     * 8.56). {@code benchmarks/gpu/prefetch26.sh}
     * at 67f943c (H100, {@code op} BP5 apply at 8M DOFs, the atomic form, GDOF/s after / early / batched, then after
     * again): in points with K auto (one point per work-item to N = 5, then K = 2, 2, 3) N = 2 9.94 / 10.32 / 9.94 / 9.94,
     * 3 14.29 / 14.60 / 14.30 / 14.29, 4 15.61 / 16.12 / 15.63 / 15.66, 5 17.82 / 17.30 / 17.94 / 17.93, 6 16.66 /
     * 18.38 / 16.03 / 16.67, 7 21.85 / 21.37 / 20.11 / 21.90, 8 (cut) / 15.49 / 18.99 / 18.71; in the variant table after
     * / early (shared 3D at N = 3..5, early one point per work-item) N = 3 14.30 / 14.60, 4 15.66 / 16.16, 5 17.92 /
     * 17.29; the table's strided points at N = 6 and 8 17.54 and 17.81.
     */
    static int prefetchTable(ElementKernel kernel, int degree, boolean column) {
        if (kernel != ElementKernel.STIFFNESS_BP35) {
            return 0;
        }
        if (column) {
            return degree == 6 ? 1 : 0;
        }
        return degree == 3 || degree == 4 ? 1 : 0;
    }

    /**
     * System property: how far the compiler unrolls the element kernels' contraction loops ({@link ContractionUnroll}):
     * unset or {@code table}, {@link #unrollTable}'s measured choice; {@code compiler} (or 0), the compiler's own choice;
     * 1..32, {@code #pragma unroll} that count (1: rolled). An A/B switch for the GPU runbooks.
     */
    static final String UNROLL_PROPERTY = "lobatto.aparapi.contractionUnroll";

    /** {@link #UNROLL_PROPERTY} as an unroll count (0 the compiler's choice), or -1 for the table. */
    static int contractionUnroll() {
        String v = System.getProperty(UNROLL_PROPERTY, "table").trim();
        if (v.equalsIgnoreCase("table")) {
            return -1;
        }
        if (v.equalsIgnoreCase("compiler")) {
            return 0;
        }
        try {
            int n = Integer.parseInt(v);
            if (n >= 0 && n <= ContractionUnroll.MAX) {
                return n;
            }
        } catch (NumberFormatException ignored) {
            // named below
        }
        throw new IllegalArgumentException("-D" + UNROLL_PROPERTY + "=" + v + ": expected table, compiler or 0.."
                + ContractionUnroll.MAX);
    }

    /**
     * The {@code #pragma unroll} count of this plan's contraction loops: {@link #contractionUnroll} or its table; 0 for
     * BP1.0, whose kernels have no loop {@link ContractionUnroll} marks.
     */
    int unroll(ElementKernel kernel) {
        if (kernel == ElementKernel.MASS_BP10) {
            return 0;
        }
        int v = contractionUnroll();
        return v >= 0 ? v : unrollTable(kernel, points - 1, onTheFly, variant);
    }

    /**
     * The measured choice of {@link #unroll}: BP3.5 with the stored factors fully at N = 8 (16, more than P = 9; the points
     * kernel) and by 2 at N = 10 (the pipelined shared columns), with the factors on the fly rolled (1) at N = 7 and
     * unrolled by 2 at N = 8 (points, K layers of a column); the compiler's choice elsewhere, in the other kernels (the
     * register columns' loops over m index their private arrays: unrolled, the arrays go to a stack frame) and for BP3.0
     * (forced rolled or by 2 it ran 2.2-2.5x slower). Measured by
     * {@code benchmarks/gpu/unroll26.sh} on the H100, one lease per part, {@code op} at 8M DOFs, GDOF/s compiler / rolled /
     * by 2: at 08d0411 (part bp5) stored N = 3 14.63 / 14.57 / 13.77, 4 16.18 / 16.06 / 15.31, 5 17.84 / 16.54 / 17.10,
     * 6 17.67 / 16.68 / 16.73, 7 21.91 / 21.91 / 20.98; on the fly N = 6 18.75 / 18.81 / 18.80, 7 23.75 / 25.03 / 24.40,
     * 8 20.86 / 21.71 / 22.06; {@code bp} stored, GDOF&middot;it/s, N = 3..10 compiler 9.26 10.02 10.41 10.26 11.16 10.30
     * 10.27 9.73, rolled 9.18 9.52 9.78 9.94 11.24 10.60 10.21 9.72, by 2 8.47 9.50 10.17 9.94 10.90 10.15 10.34 10.28;
     * at 13cfce7 (part hi) stored N = 8 19.45 / 19.14 / 18.37, 9 17.32 / 16.49 / 16.97, 10 16.35 / 17.99 / 18.01; on the
     * fly N = 9 21.37 / 20.58 / 20.85, 10 18.92 / 18.24 / 18.84; BP3.0 N = 4..7 8.95 9.87 12.23 11.24 / 3.59 4.12 5.14 4.46
     * / 4.05 4.34 5.22 4.53. At ab2d278 (parts full and n8) full unrolling (16) against the compiler's: stored N = 8
     * {@code op} 20.01 / 19.47, then alternated 19.99, 20.00 / 19.53, 19.46, {@code bp} 10.52, 10.69 / 10.33, 10.41; stored
     * N = 3..7 within 0.4 % (N = 9 17.33 against 17.32-17.33 in the other leases), BP3.0 at N = 4..9 0.3-0.8 % slower, on the
     * fly below rolled and by 2.
     */
    static int unrollTable(ElementKernel kernel, int degree, boolean onTheFly, ElementVariant variant) {
        if (kernel != ElementKernel.STIFFNESS_BP35) {
            return 0;
        }
        if (onTheFly) {
            return variant != ElementVariant.POINTS ? 0 : degree == 7 ? 1 : degree == 8 ? 2 : 0;
        }
        // keyed on the kernel measured: the register columns, whose private arrays the loops index, spill when unrolled
        return variant == ElementVariant.POINTS && degree == 8 ? 16 : variant == ElementVariant.PIPELINED && degree == 10 ? 2 : 0;
    }

    /**
     * System property: the most registers per work-item of the element kernels on NVIDIA
     * ({@link io.lobatto.backend.aparapi.runtime.PtxRegisterCap}): unset or {@code table}, {@link #registerCapTable}'s
     * choice per plan; {@code none}, the compiler's choice everywhere; 16..255, that cap on every element kernel. An A/B
     * switch for the GPU runbooks: more work-groups per SM against spills ({@code benchmarks/gpu/caps26.sh} at 99183da,
     * H100, {@code op} BP5 at 8M DOFs, the tables, GDOF/s none / 48 / 40: stored N = 6 18.53 / 15.88 / 13.65, N = 7
     * 22.15 / 21.47 / 22.08; on the fly N = 4 17.71 / 5.64 / 2.89, N = 7 23.57 / 23.86 / 22.91, the on-the-fly points
     * kernels taking 64 registers uncapped; {@code occ26.sh}, see {@link #registerCapTable}).
     */
    static final String MAX_REGISTERS_PROPERTY = "lobatto.aparapi.elementMaxRegisters";

    /** {@link #MAX_REGISTERS_PROPERTY}'s cap on every element kernel: -1 for the table, 0 for none. */
    static int maxRegisters() {
        String v = System.getProperty(MAX_REGISTERS_PROPERTY, "table").trim();
        if (v.equalsIgnoreCase("table")) {
            return -1;
        }
        if (v.equalsIgnoreCase("none")) {
            return 0;
        }
        int n = io.lobatto.backend.aparapi.runtime.PtxRegisterCap.count(v);
        if (n < 0) {
            throw new IllegalArgumentException("-D" + MAX_REGISTERS_PROPERTY + "=" + v + ": expected table, none or 16..255");
        }
        return n;
    }

    /**
     * The register cap of this plan's kernel on NVIDIA, 0 for none: {@link #MAX_REGISTERS_PROPERTY} where it names one
     * (or none), else {@link #registerCapTable}.
     */
    int registerCap(ElementKernel kernel) {
        int v = maxRegisters();
        return v >= 0 ? v : registerCapTable(kernel, points - 1, variant, onTheFly, perColumn);
    }

    /**
     * The measured register caps: 64 for BP3.5's pipelined kernel at N = 2 (70 registers uncapped: 3 groups of 252
     * work-items per SM, 4 with 64; {@code benchmarks/gpu/blocks26.sh} at 4d198b2, H200, {@code op} BP5 at 8M DOFs with
     * the blocked factors and the padded regions: 13.10, 13.10 uncapped, 14.53 GDOF/s at 64; on the H100 at ab0cafa caps of
     * 48, 40 and 32 were slower); 32 for BP3.5's stored-factor points kernel at N = 7 with 2 layers of a column per
     * work-item (256 work-items; 40 registers uncapped, so 6 groups per SM, and 8 with 32), else none. Every input mode
     * takes it; CG's (the atomic form with the p update) measured level with it. {@code benchmarks/gpu/occ26.sh}
     * at 25be850 (H100, {@code op} BP5 at 8M DOFs, two alternated rounds, GDOF/s none / 40 / 32): N = 7 23.36, 23.34 /
     * 23.18, 23.19 / 23.77, 23.79; N = 8 21.38, 21.37 / 18.92, 18.91 / 16.19, 16.19; N = 9 20.30, 20.18 / 20.38, 20.28 /
     * 19.08, 18.98.
     */
    static int registerCapTable(ElementKernel kernel, int degree, ElementVariant variant, boolean onTheFly, int perColumn) {
        if (kernel != ElementKernel.STIFFNESS_BP35 || onTheFly) {
            return 0;
        }
        return variant == ElementVariant.POINTS && degree == 7 && perColumn == 2 ? 32
                : variant == ElementVariant.PIPELINED && degree == 2 ? 64 : 0;
    }

    /**
     * System property: how the element slots of a BP3.5 3D-structure group read u ({@link #sweep}): unset or
     * {@code table}, {@link #sweepTable}'s choice; 0, straight into local memory, one element per slot; 1..{@link #MAX_SWEEP},
     * u and the scatter ids into registers first, that many elements per slot in turn, the next one's loaded while the
     * current one is computed. An A/B switch for the GPU runbooks.
     */
    static final String SWEEP_PROPERTY = "lobatto.aparapi.elementSweep";

    /** The most elements a slot takes in turn ({@link #SWEEP_PROPERTY}). */
    static final int MAX_SWEEP = 64;

    /** {@link #SWEEP_PROPERTY} as a count, or -1 for the table. */
    static int elementSweep() {
        String v = System.getProperty(SWEEP_PROPERTY, "table").trim();
        if (v.equalsIgnoreCase("table")) {
            return -1;
        }
        try {
            int n = Integer.parseInt(v);
            if (n >= 0 && n <= MAX_SWEEP) {
                return n;
            }
        } catch (NumberFormatException ignored) {
            // named below
        }
        throw new IllegalArgumentException("-D" + SWEEP_PROPERTY + "=" + v + ": expected table or 0.." + MAX_SWEEP);
    }

    /**
     * The build constant {@code sweep} of this plan's kernel: 0, u straight into local memory; S &gt;= 1, u and the ids
     * through registers, S elements per slot in turn. Where the kernel allows it (BP3.5 in the 3D structure of
     * {@link io.lobatto.backend.aparapi.kernels.ElementKernelBase} or in
     * {@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearPointsKernel}, at most {@link #MAX_SLOTS} points per
     * work-item), {@link #elementSweep} or its table; else 0.
     */
    int sweep(ElementKernel kernel) {
        if (!sweeps(kernel)) {
            return 0;
        }
        int v = elementSweep();
        if (v < 0) {
            return sweepTable(points - 1, onTheFly);
        }
        // on the fly a work-item's outputs are not the points it loads: no ids to keep, so 1 is 0
        return onTheFly && v == 1 ? 0 : v;
    }

    /** Whether {@link #sweep} may be other than 0 for this plan. */
    boolean sweeps(ElementKernel kernel) {
        int np = points * points * points;
        // on the fly, work-items t < 21 hold the next element's coefficients: a sweep needs 21 of them per element
        boolean structure = onTheFly ? variant == ElementVariant.POINTS && threadsPerElement >= 21
                : threeD && (variant == ElementVariant.SHARED || variant == ElementVariant.POINTS);
        return kernel == ElementKernel.STIFFNESS_BP35 && structure && (np + threadsPerElement - 1) / threadsPerElement <= MAX_SLOTS;
    }

    /**
     * The measured choice of {@link #sweep}, stored factors: 2 at N = 5 (the 3D structure, one point per work-item), 1
     * (u and the ids through registers) at N = 3 (the atomic form's shared 3D kernel) and at N = 8 and 9, else 0; on the
     * fly 0. {@code sweep26.sh} at 5f70759 (part low, H100, one lease, two rounds, S = 0 / 1 / 2): {@code op} N = 3 15.33,
     * 15.36 / 16.40, 16.40 / 15.07, 15.08, N = 4 17.67, 17.61 / 17.38, 17.38 / 16.65, 16.67, N = 5 18.31 / 18.43, 18.43 / -;
     * {@code bp} N = 3 9.56 / 10.07 / 9.56, N = 4 10.50 / 10.46 / 9.95. {@code sweep26.sh} at a1efb31 (part keep, H100,
     * one lease, S = 0 / 1): {@code op} N = 5 18.28, 18.15 / 18.44, 18.42, N = 6 18.30, 18.26 / 18.19, 18.19, N = 7
     * 23.46, 23.47 / 21.33, 21.25, N = 8 - / 21.39 (the runs were cut there); {@code bp} N = 5..9 10.57 10.51 11.84 10.97
     * 10.63 / 10.63 10.46 11.67 11.03 11.38, with the table then (2 at N = 5, else 0) 11.29 10.64 11.90 11.19 10.85.
     * {@code benchmarks/gpu/sweep26.sh} at b836e3d (H100, {@code op} BP5 at 8M DOFs, GDOF/s, S = 1 /
     * 2 / 4 / 8, where that commit's S = 1 read u straight into local memory, today's 0): stored N = 5 18.39 / 19.60 / 19.16 / 19.01, N = 6 18.35 / 16.90 / 16.84 / 16.73, N = 7 23.49 / 18.95 /
     * 19.06 / 18.73, N = 8 20.99 / 16.75 / 17.06 / 16.95; on the fly (S = 1 / 2 / 4; capped at 64 registers S = 2 / 4) N =
     * 6 18.64 / 18.49 / 18.52; 19.02 / 18.79, N = 7 24.95 / 19.35 / 19.39; 17.04 / 17.39; {@code bp} stored S = 1 / 4 N =
     * 5..9 10.48 / 10.74, 10.75 / 10.07, 12.08 / 10.29, 10.87 / 9.21, 10.67 / 9.99 GDOF&middot;it/s.
     */
    static int sweepTable(int degree, boolean onTheFly) {
        if (onTheFly) {
            return 0;
        }
        return degree == 5 ? 2 : degree == 3 || degree == 8 || degree == 9 ? 1 : 0;
    }

    /**
     * System property: whether BP3.5's register and pipelined columns (stored factors) keep their column's scatter ids in
     * registers from the read of u to the atomic adds ({@link #keepIds}): unset or {@code table}, {@link #keepIdsTable}'s choice; 0 or 1.
     * An A/B switch for the GPU runbooks.
     */
    static final String KEEP_IDS_PROPERTY = "lobatto.aparapi.keepIds";

    /**
     * Whether this plan's kernel keeps its ids (the build constant {@code keepIds} of its atomic form; 0 in the others):
     * for BP3.5's register and pipelined columns with the stored factors {@link #KEEP_IDS_PROPERTY} or its table, else 0.
     */
    int keepIds(ElementKernel kernel) {
        if (kernel != ElementKernel.STIFFNESS_BP35 || onTheFly
                || variant != ElementVariant.REGISTERS && variant != ElementVariant.PIPELINED) {
            return 0;
        }
        String v = System.getProperty(KEEP_IDS_PROPERTY, "table").trim();
        return switch (v.toLowerCase(java.util.Locale.ROOT)) {
            case "table" -> keepIdsTable(points - 1, variant);
            case "0" -> 0;
            case "1" -> 1;
            default -> throw new IllegalArgumentException("-D" + KEEP_IDS_PROPERTY + "=" + v + ": expected table, 0 or 1");
        };
    }

    /**
     * The measured choice of {@link #keepIds}: the register columns at N = 11 and the pipelined columns at N = 10, else 0
     * (in the atomic form N = 3 and 4 take the shared 3D kernel, so the register columns' rows there compared one kernel).
     * {@code sweep26.sh} at ab0cafa (part pipe, H100, one lease, two rounds, read again / kept): the pipelined columns'
     * {@code op} at N = 2 10.89, 10.89 / 10.47, 10.47, at N = 10 18.00, 18.00 / 18.29, 18.28 GDOF/s; {@code bp} at N = 10
     * 10.47 / 10.67 GDOF&middot;it/s. {@code benchmarks/gpu/sweep26.sh} at 3f93a27 (part ids,
     * H100, one lease, {@code op} BP5 at 8M DOFs, GDOF/s, read again / kept): N = 11 16.41 / 17.50.
     */
    static int keepIdsTable(int degree, ElementVariant variant) {
        return variant == ElementVariant.REGISTERS && degree == 11 || variant == ElementVariant.PIPELINED && degree == 10 ? 1 : 0;
    }

    /** The most points per work-item of a sweep: the size of its private arrays of the next element's u and ids. */
    static final int MAX_SLOTS = 8;

    /** The most layers per work-item of the points kernel: the size of its private gradient arrays. */
    static final int MAX_PER_COLUMN = 8;

    /**
     * The plan of {@code kernel} at {@code degree} for groups of at most {@code groupCap} and {@code localMemBytes}:
     * the variant {@code wanted}, or where that variant has no kernel or does not fit the next one down
     * ({@link ElementVariant#PIPELINED}, then {@link ElementVariant#REGISTERS}, then {@link ElementVariant#SHARED}).
     */
    static ElementPlan of(ElementKernel kernel, int nq, int nqGauss, int groupCap, long localMemBytes, String device,
                          ElementVariant wanted) {
        if (wanted == ElementVariant.PIPELINED && kernel != ElementKernel.MASS_BP10) {
            ElementPlan r = kernel == ElementKernel.STIFFNESS_BP30 ? pipelined(nq, nqGauss, groupCap, localMemBytes)
                    : pipelinedBp35(nq, groupCap, localMemBytes);
            if (r != null) {
                return r;
            }
        }
        if (wanted == ElementVariant.POINTS) {
            ElementPlan r = points(kernel, nq, nqGauss, groupCap, localMemBytes);
            if (r != null) {
                return r;
            }
        }
        if (wanted == ElementVariant.REGISTERS || wanted == ElementVariant.PIPELINED) {
            ElementPlan r = registers(kernel, nq, nqGauss, groupCap, localMemBytes);
            if (r != null) {
                return r;
            }
        }
        return shared(kernel, nq, nqGauss, groupCap, localMemBytes, device);
    }

    /**
     * The pipelined BP3.0 plan of {@link io.lobatto.backend.aparapi.kernels.StiffnessBp30PipelinedKernel}, or null where it
     * does not fit: P^2 work-items per element (P = Nq + 1), or where P^2 exceeds the group (N = 15: 289 against 256)
     * ceil(P^2 / 2) work-items with two columns each; per element the S x P x P GL grid and two pairs of P x S flux
     * layers (one pair where two do not fit: N = 15 in 48 KiB), then I and D. Unlike the register plan no u layer: the
     * grid's layer is read in place.
     */
    static ElementPlan pipelined(int nq, int nqGauss, int groupCap, long localMemBytes) {
        long limit = localMemBytes / 8;
        int p = nqGauss;
        int stride = odd(p);
        int threads = p * p;
        if (threads > groupCap) {
            threads = (p * p + 1) / 2;
            if (threads > groupCap) {
                return null;
            }
        }
        int matrices = p * nq + p * stride;
        int grid = stride * p * p;
        int buffers = (long) grid + 4L * p * stride + matrices <= limit ? 2 : 1;
        int perElem = grid + 2 * buffers * p * stride;
        if (perElem + matrices > limit) {
            return null;
        }
        int perGroup = elementsPerGroup(groupCap, threads, perElem, matrices, limit);
        return new ElementPlan(ElementVariant.PIPELINED, p, false, threads, perGroup, perElem, matrices, false, true, stride,
                false);
    }

    /**
     * The pipelined BP3.5 plan of {@link io.lobatto.backend.aparapi.kernels.StiffnessBp35PipelinedKernel}, or null where it
     * does not fit: Nq^2 work-items per element (null where that exceeds {@code groupCap}: N = 11 and above in groups of
     * 128); per element the grid u and the t-grid, S x Nq x Nq each, and two pairs of Nq x S flux layers (S odd), then D
     * (null where one element does not fit {@code localMemBytes}: N = 13 and above in 48 KiB, N = 15 in 64 KiB).
     */
    static ElementPlan pipelinedBp35(int nq, int groupCap, long localMemBytes) {
        long limit = localMemBytes / 8;
        int p = nq;
        int stride = odd(p);
        int threads = p * p;
        int matrices = p * stride;
        int perElem = 2 * stride * p * p + 4 * p * stride;
        if (threads > groupCap || perElem + matrices > limit) {
            return null;
        }
        int perGroup = elementsPerGroup(groupCap, threads, perElem, matrices, limit);
        if (perGroup > 1 && stride == p && on(BANK_PAD_PROPERTY)) {
            int padded = bankPad(perElem, p * p);
            if (elementsPerGroup(groupCap, threads, padded, matrices, limit) == perGroup) {
                perElem = padded;
            }
        }
        return new ElementPlan(ElementVariant.PIPELINED, p, false, threads, perGroup, perElem, matrices, false, true, stride,
                false);
    }

    /**
     * System property: {@code true} (the default) pads the element regions of a pipelined BP3.5 group of several elements
     * (odd Nq, whose own columns a + Nq b fill 0 .. Nq^2 - 1) to {@link #bankPad} doubles, so that the columns of
     * consecutive elements fall on consecutive 8-byte slots of the shared memory's 16 per wavefront instead of overlapping;
     * {@code false} does not. Nsight Compute on the H200 ({@code benchmarks/gpu/ptxprof26.sh} at 1fbe6ab) counted 18.7M
     * excess shared wavefronts in the N = 2 kernel (28 elements of 90 doubles per group), the largest at the stores and
     * loads of the own columns. {@code benchmarks/gpu/blocks26.sh} at 4d198b2 (H200, {@code op} BP5 at 8M DOFs, GDOF/s):
     * N = 2 12.14, 12.15 without, 12.31 padded; with {@link #FACTOR_BLOCKS_PROPERTY} 12.97, 12.97 without, 13.10, 13.10
     * padded; N = 4 (the pipelined kernel forced) with the blocks 15.11, 15.10 without, 15.44, 15.43 padded. The results
     * are the same bits either way.
     */
    static final String BANK_PAD_PROPERTY = "lobatto.aparapi.elementBankPad";

    /**
     * System property: {@code true} (the default) stores the geometric factors of the pipelined BP3.5 and BP3.0 kernels
     * blocked by the plan's elements per group, layer-major inside a block ({@link FactorLayout}), where P^2 is odd and a
     * group holds several elements ({@link #factorBlock}); {@code false} keeps them element-major.
     * {@code benchmarks/gpu/blocks26.sh} at 4d198b2 (H200, 8M DOFs, two rounds): {@code op} BP5 at N = 2 12.14, 12.15
     * element-major, 12.97, 12.97 blocked GDOF/s (unpadded);
     * N = 4 with the pipelined kernel forced 14.61, 14.62 / 15.11, 15.10 (the table's kernel there: 17.98, 18.20);
     * {@code bp} BP5 at N = 2 8.10 / 9.31 GDOF&middot;it/s. BP3.0 ({@code blocks26.sh} PART=bp3 at ac78468, H200, {@code op}
     * BP3, element-major / blocked): N = 3 7.14, 7.13 / 7.42, 7.42; N = 5 10.35, 10.35 / 10.60, 10.62; N = 7 11.64, 11.64 /
     * 11.61, 11.63 (level); N = 4, even Gauss points, unchanged. The results are the same bits either way.
     */
    static final String FACTOR_BLOCKS_PROPERTY = "lobatto.aparapi.factorBlocks";

    /**
     * The elements per block of the factor layout this plan's kernel reads ({@link FactorLayout}): its elements per group
     * for the pipelined BP3.5 plan with stored factors and the pipelined BP3.0 plan with one column per work-item where
     * {@link #FACTOR_BLOCKS_PROPERTY} is on, P (BP3.0: the Gauss points) is odd and a group holds several elements; else 0
     * (element-major). The data's layout decides what a kernel is built for ({@code ElementOperators}); this is the plan's
     * wish, and the default of the builds made ahead.
     */
    int factorBlock(ElementKernel kernel) {
        boolean applies = kernel != ElementKernel.MASS_BP10 && variant == ElementVariant.PIPELINED && !onTheFly
                && points % 2 == 1 && elementsPerGroup > 1 && threadsPerElement == points * points;
        return applies && on(FACTOR_BLOCKS_PROPERTY) ? elementsPerGroup : 0;
    }

    /** A switch that is on unless its property says {@code false}. */
    private static boolean on(String property) {
        String v = System.getProperty(property, "true").trim();
        if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("table")) {
            return true;
        }
        if (v.equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException("-D" + property + "=" + v + ": expected true or false");
    }

    /**
     * The least region of at least {@code doubles} doubles whose length is {@code lanes} modulo 16: element le's own
     * columns then start at slot le * lanes (mod 16) of a wavefront's 16 doubles, right after element le - 1's.
     */
    static int bankPad(int doubles, int lanes) {
        return doubles + Math.floorMod(lanes - doubles, 16);
    }

    /**
     * The {@link ElementVariant#POINTS} plan: the shared kernel's 3D structure with one element per group where P^3
     * exceeds {@code groupCap}. The stiffness kernels take K = {@link #pointsPerColumn} layers of an (a, b) column per
     * work-item where K &gt; 1, P^2 ceil(P / K) work-items (BP3.5 N = 7: 256 in groups of 256; N = 8: 243 padded to 256,
     * {@link #columnThreads}); else, and for BP1.0, each work-item takes ceil(P^3 / T) points strided by the work-items, T
     * the P^3 points split into the fewest equal shares of at most {@code groupCap}, rounded up to a multiple of 32 (BP3.5
     * N = 6: 192, N = 9: 256, N = 10: 224). Per element the grid and, for the stiffness kernels, the three fluxes (4 P^3
     * doubles), and for GL quadrature the GL stages point-parallel between two P^3 grids; then I and D. Null where one
     * element does not fit {@code localMemBytes} (BP3.5 N = 11, BP3.0 N = 10, BP1.0 N = 13 and above in 48 KiB). Where
     * P^3 fits the group it is the shared plan's 3D structure.
     */
    static ElementPlan points(ElementKernel kernel, int nq, int nqGauss, int groupCap, long localMemBytes) {
        long limit = localMemBytes / 8;
        boolean stiff = kernel != ElementKernel.MASS_BP10;
        boolean gauss = kernel.usesGaussQuadrature();
        int p = gauss ? nqGauss : nq;
        int p3 = p * p * p;
        int matrices = (gauss ? p * nq : 0) + (stiff ? p * odd(p) : 0);
        int perElem = stiff ? 4 * p3 : gauss ? 2 * p3 : p3;
        if (perElem + matrices > limit) {
            return null;
        }
        int k = stiff ? pointsPerColumn(kernel, false, p, groupCap) : 1;
        int threads = k == 1 ? pointThreads(p3, groupCap) : columnThreads(kernel == ElementKernel.STIFFNESS_BP35, p, k, groupCap);
        int perGroup = elementsPerGroup(groupCap, threads, perElem, matrices, limit);
        return new ElementPlan(ElementVariant.POINTS, p, true, threads, perGroup, perElem, matrices, gauss, true, p, false,
                k);
    }

    /**
     * System property: whether the work-items of a plan with K layers of a column are rounded up to whole warps of 32
     * (P = 7, K = 2: 196 to 224; P = 9, K = 3: 243 to 256) where the group allows; the extra work-items take no layer.
     * Unset or {@code table}: where measured faster (the stored factors at N = 8); {@code true} or {@code false}: always or
     * never, an A/B switch for the GPU runbooks.
     */
    static final String PAD_COLUMNS_PROPERTY = "lobatto.aparapi.padColumns";

    /**
     * Work-items per element of K layers of a column: P^2 ceil(P / K), whole warps where {@link #PAD_COLUMNS_PROPERTY}
     * asks ({@code storedBp35}: the plan is BP3.5's with stored factors). The table pads those at P = 9, K = 3: {@code benchmarks/gpu/pad26.sh} at a818621 (H100, BP5, 8M
     * DOFs, factors after, K = 1 / 243 work-items / 256): {@code op} 17.81 / 18.71 / 19.43 GDOF/s, {@code bp} 10.63 / 9.49 /
     * 10.52 GDOF&middot;it/s; at N = 6 (K = 2, 224) padding did not pay ({@code op} 17.54 / 16.65 / 16.26, {@code bp}
     * 10.52 / 9.44 / 9.70), nor on the fly at N = 8 (20.76 / 20.56).
     */
    static int columnThreads(boolean storedBp35, int p, int k, int groupCap) {
        int threads = p * p * ((p + k - 1) / k);
        int padded = (threads + 31) / 32 * 32;
        String v = System.getProperty(PAD_COLUMNS_PROPERTY, "table").trim();
        boolean pad = switch (v.toLowerCase(java.util.Locale.ROOT)) {
            case "table" -> storedBp35 && p == 9 && k == 3;
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("-D" + PAD_COLUMNS_PROPERTY + "=" + v
                    + ": expected table, true or false");
        };
        return pad && padded <= groupCap ? padded : threads;
    }

    /**
     * Work-items per element of a point-parallel plan of {@code p3} points: all of them while they fit {@code groupCap},
     * else the points split into equal shares of at most the group, rounded up to a warp of 32.
     */
    private static int pointThreads(int p3, int groupCap) {
        if (p3 <= groupCap) {
            return p3;
        }
        int shares = (p3 + groupCap - 1) / groupCap;
        return Math.min(groupCap, ((p3 + shares - 1) / shares + 31) / 32 * 32);
    }

    /**
     * Pairs of flux layers per element of a {@link ElementVariant#PIPELINED} BP3.0 plan: 2 (one barrier per layer) or 1
     * (the BP3.5 plan always has 2).
     */
    int fluxBuffers() {
        return (localPerElement - stride * points * points) / (2 * points * stride);
    }

    /** Columns per work-item of a {@link ElementVariant#PIPELINED} plan: 1, or 2 where P^2 exceeds the group. */
    int columnsPerItem() {
        return threadsPerElement < points * points ? 2 : 1;
    }

    /**
     * Elements per group: as many as groups of {@code groupCap} hold at {@code threads} work-items each, fewer where
     * their {@code perElem} local doubles and the {@code matrices} would exceed {@code limit} doubles; at least one.
     */
    private static int elementsPerGroup(int groupCap, int threads, int perElem, int matrices, long limit) {
        int perGroup = Math.max(1, groupCap / threads);
        while (perGroup > 1 && (long) perGroup * perElem + matrices > limit) {
            perGroup--;
        }
        return perGroup;
    }

    /** Odd stride at least {@code n}: rows of doubles at an odd stride fall in distinct banks. */
    private static int odd(int n) {
        return n % 2 == 0 ? n + 1 : n;
    }

    /**
     * The register variant of {@link io.lobatto.backend.aparapi.kernels.RegisterKernelBase}, or null where it
     * does not fit: BP3.5 columns (Nq^2 work-items per element, three Nq x S layers and the Nq^3 columns), BP1.0 lines (up to P^2
     * work-items per element, one SA x P x P grid), BP3.0 both (P^2 work-items, the grid and three P x S
     * layers; N = 15 does not fit 48 KiB).
     */
    private static ElementPlan registers(ElementKernel kernel, int nq, int nqGauss, int groupCap, long localMemBytes) {
        long limit = localMemBytes / 8;
        int threads;
        int perElem;
        int matrices;
        int stride;
        int p;
        switch (kernel) {
            case STIFFNESS_BP35 -> {
                p = nq;
                stride = odd(p);
                threads = p * p;
                perElem = 3 * p * stride + p * p * p;
                matrices = p * stride;
            }
            case MASS_BP10 -> {
                p = nqGauss;
                stride = odd(p);
                threads = Math.min(p * p, groupCap);
                perElem = stride * p * p;
                matrices = p * nq;
            }
            default -> {
                p = nqGauss;
                stride = odd(p);
                threads = p * p;
                perElem = stride * p * p + 3 * p * stride;
                matrices = p * nq + p * stride;
            }
        }
        if (threads > groupCap) {
            return null;
        }
        int perGroup = elementsPerGroup(groupCap, threads, perElem, matrices, limit);
        if (perElem + matrices > limit) {
            return null;
        }
        return new ElementPlan(ElementVariant.REGISTERS, p, false, threads, perGroup, perElem, matrices, false, true, stride, false);
    }

    /** The shared-memory variant (the element's grid in local memory; 3D or 2D structure). */
    private static ElementPlan shared(ElementKernel kernel, int nq, int nqGauss, int groupCap, long localMemBytes, String device) {
        boolean stiff = kernel != ElementKernel.MASS_BP10;
        boolean gauss = kernel.usesGaussQuadrature();
        int p = gauss ? nqGauss : nq;
        int p2 = p * p;
        int p3 = p2 * p;
        boolean threeD = p3 <= groupCap;
        int threads = threeD ? p3 : Math.min(p2, groupCap);
        int matrices = (gauss ? p * nq : 0) + (stiff ? p * odd(p) : 0);
        long limit = localMemBytes / 8;
        boolean tLocal = false;
        int perElem = p3;
        if (stiff && threeD) {
            perElem = 4 * p3;
        } else if (stiff) {
            tLocal = 2L * p3 + 2L * p2 + matrices <= limit;
            perElem = p3 + 2 * p2 + (tLocal ? p3 : 0);
        }
        boolean pointInterp = gauss && Math.max(perElem, 2 * p3) + matrices <= limit;
        if (pointInterp) {
            perElem = Math.max(perElem, 2 * p3);
        } else if (gauss) {
            perElem = Math.max(perElem, p3 + p2);
        }
        int perGroup = elementsPerGroup(groupCap, threads, perElem, matrices, limit);
        if (perElem + matrices > limit) {
            throw new BackendException("aparapi: " + kernel + " with N = " + (nq - 1) + " needs " + (perElem + matrices) * 8L
                    + " bytes of local memory per element but " + device + " has " + localMemBytes + " (out of resources)");
        }
        return new ElementPlan(ElementVariant.SHARED, p, threeD, threads, perGroup, perElem, matrices, pointInterp,
                !stiff || threeD || tLocal, p, false);
    }

    int localDoubles() {
        return elementsPerGroup * localPerElement + matrixDoubles;
    }

    int groupSize() {
        return elementsPerGroup * threadsPerElement;
    }

    /** The build constants of the element kernel for this plan. */
    Map<String, Integer> constants(ElementKernel kernel, int nq, int fromGlobal) {
        Map<String, Integer> c = new LinkedHashMap<>();
        c.put("nq", nq);
        if (onTheFly && variant == ElementVariant.POINTS) {
            c.put("elemsPerGroup", elementsPerGroup);
            c.put("fromGlobal", fromGlobal);
            c.put("threadsPerElem", threadsPerElement);
            c.put("perColumn", perColumn);
            c.put("perElem", localPerElement);
            c.put("dStride", stride);
            c.put("ldsMat", localDoubles() - matrixDoubles);
            c.put("sweep", sweep(kernel));
            return c;
        }
        if (onTheFly && variant == ElementVariant.SHARED) {
            c.put("elemsPerGroup", elementsPerGroup);
            c.put("fromGlobal", fromGlobal);
            c.put("sweep", 0);
            c.put("perElem", localPerElement);
            c.put("dStride", stride);
            c.put("ldsMat", localDoubles() - matrixDoubles);
            return c;
        }
        if (variant == ElementVariant.PIPELINED && kernel == ElementKernel.STIFFNESS_BP35) {
            c.put("elemsPerGroup", elementsPerGroup);
            c.put("fromGlobal", fromGlobal);
            c.put("keepIds", fromGlobal >= io.lobatto.backend.aparapi.kernels.ElementOperands.ATOMIC ? keepIds(kernel) : 0);
            c.put("perElem", localPerElement);
            c.put("dStride", stride);
            c.put("ldsMat", localDoubles() - matrixDoubles);
            c.put("factorBlock", factorBlock(kernel));
            return c;
        }
        if (variant == ElementVariant.REGISTERS || variant == ElementVariant.PIPELINED) {
            c.put("elemsPerGroup", elementsPerGroup);
            c.put("fromGlobal", fromGlobal);
            c.put("pts", points);
            c.put("threadsPerElem", threadsPerElement);
            c.put("rounds", (points * points + threadsPerElement - 1) / threadsPerElement);
            c.put("strideA", stride);
            c.put("stride", stride);
            // only the atomic form adds at the ids
            c.put("keepIds", fromGlobal >= io.lobatto.backend.aparapi.kernels.ElementOperands.ATOMIC ? keepIds(kernel) : 0);
            if (variant == ElementVariant.PIPELINED) {
                c.put("buffers", fluxBuffers());
                c.put("columns", columnsPerItem());
                c.put("factorBlock", factorBlock(kernel));
            }
            return c;
        }
        c.put("pts", points);
        c.put("threadsPerElem", threadsPerElement);
        c.put("elemsPerGroup", elementsPerGroup);
        c.put("perElem", localPerElement);
        c.put("gauss", kernel.usesGaussQuadrature() ? 1 : 0);
        c.put("stiff", kernel == ElementKernel.MASS_BP10 ? 0 : 1);
        c.put("threeD", threeD ? 1 : 0);
        c.put("fromGlobal", fromGlobal);
        c.put("pointInterp", pointInterp ? 1 : 0);
        c.put("tLocal", tLocal ? 1 : 0);
        c.put("ldsMat", localDoubles() - matrixDoubles);
        c.put("dStride", odd(points));
        c.put("perColumn", perColumn);
        c.put("prefetch", prefetch(kernel));
        c.put("sweep", sweep(kernel));
        return c;
    }

    /** ", factors early" or ", factors batched" where {@link #prefetch} moves the factor loads, else "". */
    private String factorLoads(ElementKernel kernel) {
        int v = onTheFly ? 0 : prefetch(kernel);
        return v == 1 ? ", factors early" : v == 2 ? ", factors batched" : "";
    }

    /**
     * E.g. "2D, 81 work-items x 3 elements per group, 2673 doubles local, GL stages by points", with ", at most R
     * registers on NVIDIA" where {@link #registerCap} caps the kernel, ", contractions rolled", ", contractions unrolled by
     * U" or (U at least P) ", contractions unrolled fully" where {@link #unroll} sets the contraction loops' unrolling.
     */
    String describe(ElementKernel kernel) {
        int u = unroll(kernel);
        int s = sweep(kernel);
        int cap = registerCap(kernel);
        return layout(kernel) + (cap > 0 ? ", at most " + cap + " registers on NVIDIA" : "")
                + (u == 1 ? ", contractions rolled" : u >= points ? ", contractions unrolled fully"
                : u > 1 ? ", contractions unrolled by " + u : "")
                + (s > 1 ? ", " + s + " elements per slot in turn" : s == 1 ? ", u and ids through registers" : "")
                + (keepIds(kernel) == 1 ? ", ids kept in the atomic form" : "");
    }

    /** Work-groups of a launch over {@code elements} elements: each takes {@code perGroup} x max(1, {@code sweep}). */
    static long groups(int perGroup, int sweep, long elements) {
        long n = (long) perGroup * Math.max(1, sweep);
        return (elements + n - 1) / n;
    }

    private String layout(ElementKernel kernel) {
        if (onTheFly && variant == ElementVariant.SHARED) {
            return "shared, 2D columns (geometric factors on the fly), " + threadsPerElement + " work-items x "
                    + elementsPerGroup + " elements per group, " + localDoubles() + " doubles local";
        }
        if (variant == ElementVariant.PIPELINED && kernel == ElementKernel.STIFFNESS_BP35) {
            return "pipelined, shared columns, one barrier per layer, " + threadsPerElement + " work-items x "
                    + elementsPerGroup + " elements per group, " + localDoubles() + " doubles local";
        }
        if (variant == ElementVariant.PIPELINED) {
            return "pipelined, lines + columns, " + (fluxBuffers() == 2 ? "one barrier" : "two barriers") + " per layer, "
                    + (columnsPerItem() == 2 ? "two columns per work-item, " : "") + threadsPerElement + " work-items x "
                    + elementsPerGroup + " elements per group, " + localDoubles() + " doubles local";
        }
        if (variant == ElementVariant.REGISTERS) {
            String shape = switch (kernel) {
                case MASS_BP10 -> "lines";
                case STIFFNESS_BP35 -> "columns";
                case STIFFNESS_BP30 -> "lines + columns";
            };
            return "registers, " + shape + (onTheFly ? " (geometric factors on the fly)" : "") + ", " + threadsPerElement
                    + " work-items x " + elementsPerGroup + " elements per group, " + localDoubles() + " doubles local";
        }
        if (variant == ElementVariant.POINTS) {
            return "points, 3D" + (onTheFly ? " (geometric factors on the fly)" : "") + ", "
                    + (perColumn > 1 ? perColumn + " layers of a column"
                    : (points * points * points + threadsPerElement - 1) / threadsPerElement + " points")
                    + " per work-item, " + threadsPerElement + " work-items x " + elementsPerGroup
                    + " elements per group, " + localDoubles() + " doubles local"
                    + (kernel.usesGaussQuadrature() ? ", GL stages by points" : "") + factorLoads(kernel);
        }
        return (threeD ? "3D" : "2D") + ", " + threadsPerElement + " work-items x " + elementsPerGroup
                + " elements per group, " + localDoubles() + " doubles local"
                + (!tLocal ? ", t-fluxes in global scratch" : "") + factorLoads(kernel)
                + (kernel.usesGaussQuadrature() ? (pointInterp ? ", GL stages by points" : ", GL stages by lines") : "");
    }
}
