package io.lobatto.backend.aparapi;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.kernels.CgAlphaKernel;
import io.lobatto.backend.aparapi.kernels.CgBetaKernel;
import io.lobatto.backend.aparapi.kernels.CgStepKernel;
import io.lobatto.backend.aparapi.kernels.CgUpdateKernel;
import io.lobatto.backend.aparapi.kernels.TermSumKernel;
import io.lobatto.backend.aparapi.kernels.ChebyshevKernel;
import io.lobatto.backend.aparapi.kernels.DiagonalBp35Kernel;
import io.lobatto.backend.aparapi.kernels.DiagonalKernel;
import io.lobatto.backend.aparapi.kernels.DotKernel;
import io.lobatto.backend.aparapi.kernels.ErrorKernel;
import io.lobatto.backend.aparapi.kernels.EvaluateKernel;
import io.lobatto.backend.aparapi.kernels.FactorSplitKernel;
import io.lobatto.backend.aparapi.kernels.GeometryKernel;
import io.lobatto.backend.aparapi.kernels.FdmElementKernel;
import io.lobatto.backend.aparapi.kernels.FdmKernel;
import io.lobatto.backend.aparapi.kernels.GatherRowsFusedKernel;
import io.lobatto.backend.aparapi.kernels.GatherScatterKernel;
import io.lobatto.backend.aparapi.kernels.GatherScatterRowsKernel;
import io.lobatto.backend.aparapi.kernels.HaloKernel;
import io.lobatto.backend.aparapi.kernels.IndexedGatherKernel;
import io.lobatto.backend.aparapi.kernels.MassBp10Kernel;
import io.lobatto.backend.aparapi.kernels.MassBp10LineKernel;
import io.lobatto.backend.aparapi.kernels.PointwiseColumnKernel;
import io.lobatto.backend.aparapi.kernels.PointwiseKernel;
import io.lobatto.backend.aparapi.kernels.PointwiseLineKernel;
import io.lobatto.backend.aparapi.kernels.PointwiseMapKernel;
import io.lobatto.backend.aparapi.kernels.ReductionKernel;
import io.lobatto.backend.aparapi.kernels.RowDotKernel;
import io.lobatto.backend.aparapi.kernels.StiffnessBp30ColumnKernel;
import io.lobatto.backend.aparapi.kernels.StiffnessBp30Kernel;
import io.lobatto.backend.aparapi.kernels.StiffnessBp30PipelinedKernel;
import io.lobatto.backend.aparapi.kernels.StiffnessBp35ColumnKernel;
import io.lobatto.backend.aparapi.kernels.StiffnessBp35Kernel;
import io.lobatto.backend.aparapi.kernels.StiffnessBp35PipelinedKernel;
import io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearKernel;
import io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearPointsKernel;
import io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearSharedKernel;
import io.lobatto.backend.aparapi.kernels.StreamKernel;
import io.lobatto.backend.aparapi.kernels.TransferAnyKernel;
import io.lobatto.backend.aparapi.kernels.TransferKernel;
import io.lobatto.backend.aparapi.runtime.KernelSource;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.mesh.PointMap;
import io.lobatto.core.pointwise.FieldEvaluation;
import io.lobatto.core.pointwise.PointFunction;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.Quadrature;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToIntFunction;

/**
 * Which kernels the backend builds and how it launches them: each kernel's family, build constants and
 * exact group, the power-of-two groups of the reductions and gathers, each element kernel's plan, and the
 * local memory each launch binds. {@link AparapiBackend} takes every such choice from here, so
 * {@link #all} gives, for a device known only by its limits, exactly the sources the backend would build
 * on it: offline compilers (kernel-info for AMD GPUs) check what the runtime really builds.
 */
public final class KernelBuilds {

    /** Input modes of the element kernels: x_L, x_G through Z, dir + beta x_G through Z. */
    static final int ELEMENT_MODES = 3;

    private KernelBuilds() {
    }

    /**
     * What the backend builds for one kernel.
     *
     * @param family    the Java kernel class
     * @param constants its build constants
     * @param label     the name in messages and profiles
     * @param groupSize the exact work-group it is built for ({@code reqd_work_group_size}), 0: any
     * @param unroll    an element kernel's contraction unrolling ({@link ContractionUnroll}), 0: the compiler's
     * @param registers an element kernel's register cap on NVIDIA ({@link io.lobatto.backend.aparapi.runtime.PtxRegisterCap}),
     *                  0: none
     */
    record Spec(Class<? extends Kernel> family, Map<String, Integer> constants, String label, int groupSize, int unroll,
                int registers) {

        /** A build whose contraction loops keep the compiler's unrolling, with no register cap. */
        Spec(Class<? extends Kernel> family, Map<String, Integer> constants, String label, int groupSize) {
            this(family, constants, label, groupSize, 0, 0);
        }

        /** This build with build constant {@code name} set to {@code value}. */
        Spec withConstant(String name, int value) {
            Map<String, Integer> c = new java.util.LinkedHashMap<>(constants);
            c.put(name, value);
            return new Spec(family, c, label, groupSize, unroll, registers);
        }

        /**
         * The register cap this build gets on NVIDIA, 0 for none: an element kernel's {@link #registers} (its plan's
         * {@link ElementPlan#registerCap}, {@link ElementPlan#MAX_REGISTERS_PROPERTY} or the table, read once, when the
         * spec was made); no cap for the other kernels.
         */
        int cap() {
            return io.lobatto.backend.aparapi.kernels.ElementOperands.class.isAssignableFrom(family) ? registers : 0;
        }

        /**
         * The OpenCL C of this build (Aparapi's translation, constants as {@code #define}s; an element kernel's contraction
         * loops marked with {@code #pragma unroll} {@link #unroll}, see {@link ContractionUnroll}).
         */
        KernelSource source() {
            if (io.lobatto.backend.aparapi.kernels.ElementOperands.class.isAssignableFrom(family)) {
                KernelSource s = KernelSource.of(family, constants, label, groupSize,
                        t -> ContractionUnroll.apply(AtomicAdd.splice(t), unroll));
                int cap = cap();
                return cap > 0 ? s.withOptions(io.lobatto.backend.aparapi.runtime.PtxRegisterCap.OPTION + cap) : s;
            }
            return KernelSource.of(family, constants, label, groupSize);
        }

        /**
         * The key the backend caches the built kernel by (with an element kernel's register cap, read when it is built, and
         * its contraction unrolling).
         */
        String key() {
            String k = family.getName() + constants + "/" + groupSize + (unroll > 0 ? "/unroll=" + unroll : "");
            int cap = cap();
            return cap > 0 ? k + "/maxnreg=" + cap : k;
        }
    }

    /**
     * One kernel the backend builds, with the launch the backend gives it on the device.
     *
     * @param source     the OpenCL C, exactly as the backend builds it
     * @param groupSize  work-items per group of its launches
     * @param localBytes local memory per group bound at launch ({@code __local} arguments), bytes
     * @param plan       how its work is laid out, e.g. "3D, 125 work-items x 2 elements per group, ..."
     */
    public record Build(KernelSource source, int groupSize, long localBytes, String plan) {
    }

    /**
     * Every kernel the backend builds at {@code degree} on a device with {@code maxWorkGroupSize}
     * ({@code CL_DEVICE_MAX_WORK_GROUP_SIZE}) and {@code localMemBytes} ({@code CL_DEVICE_LOCAL_MEM_SIZE}):
     * {@link #vectorKernels} then, for BP1.0, BP3.5 and BP3.0, {@link #elementKernels}. {@code allowedGroup}
     * stands for the device's {@code CL_KERNEL_WORK_GROUP_SIZE} of a built source, which the backend's choices
     * depend on; {@code device} for its {@code CL_DEVICE_NAME}, which the variant table tells AMD GPUs by.
     */
    public static List<Build> all(String device, int maxWorkGroupSize, long localMemBytes, int degree,
                                  ToIntFunction<KernelSource> allowedGroup) {
        List<Build> out = new ArrayList<>(vectorKernels(maxWorkGroupSize, localMemBytes, allowedGroup));
        for (ElementKernel k : ElementKernel.values()) {
            out.addAll(elementKernels(k, device, maxWorkGroupSize, localMemBytes, degree, allowedGroup));
        }
        return out;
    }

    /** The streaming, reduction and gather/scatter kernels (the same for every N), as {@link #all} says. */
    public static List<Build> vectorKernels(int maxWorkGroupSize, long localMemBytes, ToIntFunction<KernelSource> allowedGroup) {
        ToIntFunction<Spec> allowed = allowed(maxWorkGroupSize, allowedGroup);
        List<Build> out = new ArrayList<>();
        for (int op : new int[] {StreamKernel.FILL, StreamKernel.COPY, StreamKernel.AXPBY, StreamKernel.PMUL}) {
            Spec s = stream(op);
            out.add(new Build(s.source(), perEntryGroup(allowed.applyAsInt(s)), 0, "one work-item per entry"));
        }
        Spec halo = halo();
        out.add(new Build(halo.source(), perEntryGroup(allowed.applyAsInt(halo)), 0, "one work-item per shared row"));
        Spec cheb = chebyshev();
        out.add(new Build(cheb.source(), perEntryGroup(allowed.applyAsInt(cheb)), 0, "one work-item per entry"));
        Spec pick = indexedGather();
        out.add(new Build(pick.source(), perEntryGroup(allowed.applyAsInt(pick)), 0, "one work-item per entry of y"));
        int reduce = powerOfTwoGroup(ReductionKernel.class, maxWorkGroupSize, Integer.MAX_VALUE, localMemBytes, allowed);
        boolean dedicated = BackendCore.dedicatedReductionsProperty();
        for (int op : new int[] {ReductionKernel.DOT, ReductionKernel.CG_UPDATE, ReductionKernel.PCG_UPDATE}) {
            out.add(new Build(reduction(op, reduce, dedicated).source(), reduce, reductionLocalBytes(op, reduce, dedicated),
                    "tree of " + reduce));
        }
        out.add(new Build(cgStep(reduce).source(), reduce, cgStepLocalBytes(reduce), "tree of " + reduce));
        for (int xMode = 0; xMode <= 2; xMode++) {
            out.add(new Build(cgStepOnDevice(reduce, xMode).source(), reduce, cgStepLocalBytes(reduce), "tree of " + reduce));
        }
        out.add(new Build(cgAlpha(reduce).source(), reduce, cgStepLocalBytes(reduce), "one group, tree of " + reduce));
        for (int xMode = 0; xMode <= 2; xMode++) {
            out.add(new Build(cgStepQueued(reduce, xMode).source(), reduce, cgStepLocalBytes(reduce), "tree of " + reduce));
        }
        out.add(new Build(cgAlphaQueued(reduce).source(), reduce, cgStepLocalBytes(reduce), "one group, tree of " + reduce));
        out.add(new Build(cgBeta(reduce).source(), reduce, cgStepLocalBytes(reduce), "one group, tree of " + reduce));
        out.add(new Build(termSum(reduce).source(), reduce, cgStepLocalBytes(reduce), "tree of " + reduce));
        int small = BackendCore.smallGroup(BackendCore.smallGroupProperty(), reduce);
        if (small > 0) {      // the reductions over at most small x BackendCore.SMALL_REDUCE_GROUPS entries
            for (int op : new int[] {ReductionKernel.DOT, ReductionKernel.CG_UPDATE, ReductionKernel.PCG_UPDATE}) {
                out.add(new Build(reduction(op, small, dedicated).source(), small, reductionLocalBytes(op, small, dedicated),
                        "tree of " + small + ", vectors of at most " + small * BackendCore.SMALL_REDUCE_GROUPS + " entries"));
            }
            out.add(new Build(cgStep(small).source(), small, cgStepLocalBytes(small),
                    "tree of " + small + ", vectors of at most " + small * BackendCore.SMALL_REDUCE_GROUPS + " entries"));
            for (int xMode = 0; xMode <= 2; xMode++) {
                out.add(new Build(cgStepOnDevice(small, xMode).source(), small, cgStepLocalBytes(small),
                        "tree of " + small + ", vectors of at most " + small * BackendCore.SMALL_REDUCE_GROUPS + " entries"));
                out.add(new Build(cgStepQueued(small, xMode).source(), small, cgStepLocalBytes(small),
                        "tree of " + small + ", vectors of at most " + small * BackendCore.SMALL_REDUCE_GROUPS + " entries"));
            }
        }
        int kind = GatherScatter.kind();
        if (kind != GatherScatter.BLOCKS) {          // the plain scatter and gather of the rows or tiles kind
            for (int op : new int[] {GatherScatterRowsKernel.SCATTER, GatherScatterRowsKernel.GATHER}) {
                Spec s = gatherRows(op, kind == GatherScatter.TILES);
                out.add(new Build(s.source(), perEntryGroup(allowed.applyAsInt(s)), 0,
                        op == GatherScatterRowsKernel.SCATTER ? "four local nodes per work-item" : "one work-item per row"));
            }
        }
        if (kind != GatherScatter.BLOCKS) {          // the fused gathers of the rows or tiles kind (CG's)
            for (int op : new int[] {GatherScatterKernel.GATHER_DOT, GatherScatterKernel.GATHER_DOT_UPDATE}) {
                Spec s = gatherRowsFused(op, 1, kind == GatherScatter.TILES);
                int g = fusedRowsGroup(allowed.applyAsInt(s), localMemBytes);
                out.add(new Build(s.source(), g, 8L * g, "one work-item per row, groups of " + g + " strided over the rows"));
            }
        }
        int gather = powerOfTwoGroup(GatherScatterKernel.class, maxWorkGroupSize, Integer.MAX_VALUE, localMemBytes, allowed);
        // the Chebyshev smoothers' gathers with the residual folded in have block forms only (in every kind), and the
        // block group is chosen by building the block gather+dot (powerOfTwoGroup), so the rows kinds build that too
        int[] blockOps = kind == GatherScatter.BLOCKS
                ? new int[] {GatherScatterKernel.SCATTER, GatherScatterKernel.GATHER, GatherScatterKernel.GATHER_DOT,
                    GatherScatterKernel.GATHER_DOT_UPDATE, GatherScatterKernel.GATHER_RESIDUAL,
                    GatherScatterKernel.GATHER_RESIDUAL2, GatherScatterKernel.GATHER_RESIDUAL_CHEBYSHEV}
                : new int[] {GatherScatterKernel.GATHER_DOT, GatherScatterKernel.GATHER_RESIDUAL,
                    GatherScatterKernel.GATHER_RESIDUAL2, GatherScatterKernel.GATHER_RESIDUAL_CHEBYSHEV};
        for (int op : blockOps) {
            Spec s = gather(op, gather);
            boolean perEntry = op == GatherScatterKernel.SCATTER;
            out.add(new Build(s.source(), perEntry ? perEntryGroup(allowed.applyAsInt(s)) : gather, gatherLocalBytes(op, gather),
                    perEntry ? "one work-item per local node" : "blocks of rows, " + gather + " work-items"));
        }
        return out;
    }

    /**
     * The element kernel of {@code kernel} at {@code degree} in each input mode (x_L, x_G through Z, dir + beta x_G
     * through Z), in the thread structure of the backend's table ({@code -Dlobatto.aparapi.elementVariant} overrides
     * it), planned as {@link #all} says; a {@link io.lobatto.core.backend.BackendException} when no plan fits
     * {@code localMemBytes}.
     */
    public static List<Build> elementKernels(ElementKernel kernel, String device, int maxWorkGroupSize, long localMemBytes,
                                             int degree, ToIntFunction<KernelSource> allowedGroup) {
        if (degree < 1 || degree > AparapiBackend.MAX_DEGREE) {
            throw new IllegalArgumentException("degree " + degree + " is out of range 1.." + AparapiBackend.MAX_DEGREE);
        }
        ToIntFunction<Spec> allowed = allowed(maxWorkGroupSize, allowedGroup);
        ElementPlan plan = plan(kernel, Basis1D.of(degree), maxWorkGroupSize, localMemBytes, device,
                ElementVariant.of(kernel, degree, device), allowed);
        List<Build> out = new ArrayList<>();
        for (int mode = 0; mode < ELEMENT_MODES; mode++) {
            out.add(new Build(element(kernel, degree, plan, mode).source(), plan.groupSize(), elementLocalBytes(plan),
                    plan.describe(kernel)));
        }
        return out;
    }

    private static ToIntFunction<Spec> allowed(int maxWorkGroupSize, ToIntFunction<KernelSource> allowedGroup) {
        Objects.requireNonNull(allowedGroup, "allowedGroup");
        if (maxWorkGroupSize < 1) {
            throw new IllegalArgumentException("maxWorkGroupSize " + maxWorkGroupSize + " must be at least 1");
        }
        Map<String, Integer> seen = new LinkedHashMap<>();
        return s -> seen.computeIfAbsent(s.key(), k -> allowedGroup.applyAsInt(s.source()));
    }

    /**
     * The six passes of p-multigrid's transfer between {@code coarseDegree} and {@code fineDegree} (prolongation and
     * restriction, one direction each, {@link TransferKernel}), one work-item per output, as the backend launches them.
     */
    public static List<Build> transferKernels(int coarseDegree, int fineDegree, ToIntFunction<KernelSource> allowedGroup) {
        if (coarseDegree < 1 || coarseDegree >= fineDegree || fineDegree > AparapiBackend.MAX_DEGREE) {
            throw new IllegalArgumentException("transfer from degree " + fineDegree + " to " + coarseDegree
                    + ": need 1 <= coarse < fine <= " + AparapiBackend.MAX_DEGREE);
        }
        List<Build> out = new ArrayList<>();
        for (int op : new int[] {TransferKernel.PROLONG_I, TransferKernel.PROLONG_J, TransferKernel.PROLONG_K,
            TransferKernel.RESTRICT_K, TransferKernel.RESTRICT_J, TransferKernel.RESTRICT_I}) {
            KernelSource s = transfer(op, coarseDegree, fineDegree).source();
            out.add(new Build(s, perEntryGroup(allowedGroup.applyAsInt(s)), 0, "one work-item per output"));
        }
        KernelSource any = transferAny().source();      // what a small problem launches instead (transferAny(programs))
        out.add(new Build(any, perEntryGroup(allowedGroup.applyAsInt(any)), 0, "one work-item per output, any pass"));
        return out;
    }

    /**
     * The six passes of the fast diagonalisation on blocks of {@code points}^3 ({@link FdmKernel}), one work-item per
     * output, as the backend launches them.
     */
    public static List<Build> fdmKernels(int points, ToIntFunction<KernelSource> allowedGroup) {
        if (points < 2 || points > AparapiBackend.MAX_DEGREE + 3) {
            throw new IllegalArgumentException("fdm blocks of " + points + " points per direction: need 2 <= n <= "
                    + (AparapiBackend.MAX_DEGREE + 3));
        }
        List<Build> out = new ArrayList<>();
        for (int op = FdmKernel.FORWARD_R; op <= FdmKernel.BACKWARD_R; op++) {
            KernelSource s = fdm(op, points).source();
            out.add(new Build(s, perEntryGroup(allowedGroup.applyAsInt(s)), 0, "one work-item per output"));
        }
        return out;
    }

    /** Pass {@code op} of {@link FdmKernel} on blocks of {@code points}^3. */
    static Spec fdm(int op, int points) {
        String label = switch (op) {
            case FdmKernel.FORWARD_R -> "fdm-forward-r";
            case FdmKernel.FORWARD_S -> "fdm-forward-s";
            case FdmKernel.FORWARD_T -> "fdm-forward-t-scale";
            case FdmKernel.BACKWARD_T -> "fdm-backward-t";
            case FdmKernel.BACKWARD_S -> "fdm-backward-s";
            default -> "fdm-backward-r";
        };
        return new Spec(FdmKernel.class, ordered("op", op, "nb", points), label, 0);
    }

    /** The extended elements' assembled ids of {@link io.lobatto.backend.aparapi.kernels.ExtendedIdsKernel} at degree N. */
    static Spec extendedIds(int degree) {
        Map<String, Integer> c = new LinkedHashMap<>();
        c.put("nd", degree);
        return new Spec(io.lobatto.backend.aparapi.kernels.ExtendedIdsKernel.class, c, "extended ids", 0);
    }

    /** The fused Schwarz local solve of {@link FdmElementKernel} on blocks of {@code points}^3 (ASM and RAS). */
    static Spec fdmElement(int points) {
        Map<String, Integer> c = new LinkedHashMap<>();
        c.put("nb", points);
        return new Spec(FdmElementKernel.class, c, "schwarz-local n=" + points, 0);
    }

    /** Local memory of {@link FdmElementKernel}: two n^3 grids, V_r, V_s, V_t and the 3n eigenvalues. */
    static long fdmElementLocalBytes(int points) {
        long n = points;
        return 8 * (2 * n * n * n + 3 * n * n + 3 * n);
    }

    /**
     * The Schwarz local solve of {@link io.lobatto.backend.aparapi.kernels.FdmLinesKernel} on blocks of {@code points}^3,
     * {@code elemsPerGroup} extended elements per work-group of elemsPerGroup points^2 work-items.
     */
    static Spec fdmLines(int points, int elemsPerGroup) {
        Map<String, Integer> c = new LinkedHashMap<>();
        c.put("nb", points);
        c.put("sa", points % 2 == 0 ? points + 1 : points);
        c.put("epg", elemsPerGroup);
        return new Spec(io.lobatto.backend.aparapi.kernels.FdmLinesKernel.class, c, "schwarz-local (lines) n=" + points, 0);
    }

    /**
     * The fused Schwarz local solve on blocks of {@code points}^3: {@link #fdmLines} where its elements fit a group and
     * {@code lines} is asked for, else {@link #fdmElement}. The one choice of the backend's launch and of its build ahead.
     */
    static Spec schwarzLocal(int points, long localMemBytes, boolean lines) {
        int epg = lines ? fdmLinesElements(points, localMemBytes) : 0;
        return epg > 0 ? fdmLines(points, epg) : fdmElement(points);
    }

    /** Local memory of {@link io.lobatto.backend.aparapi.kernels.FdmLinesKernel} per element: the grid, V_r, V_s, V_t, the eigenvalues. */
    static long fdmLinesLocalBytes(int points) {
        long n = points;
        long sa = n % 2 == 0 ? n + 1 : n;
        return 8 * (sa * n * n + 3 * n * n + 3 * n);
    }

    /**
     * Extended elements per work-group of {@link io.lobatto.backend.aparapi.kernels.FdmLinesKernel}: as many as keep the
     * group within 256 work-items and {@code localMemBytes}; 0 where one element does not fit (then the points kernel
     * or the unfused passes run).
     */
    static int fdmLinesElements(int points, long localMemBytes) {
        if (points < 2 || points > io.lobatto.backend.aparapi.kernels.FdmLinesKernel.MAX_POINTS || points * points > 256) {
            return 0;
        }
        long per = fdmLinesLocalBytes(points);
        if (per > localMemBytes) {
            return 0;
        }
        int byThreads = Math.max(1, 256 / (points * points));
        return (int) Math.min(byThreads, localMemBytes / per);
    }

    /**
     * The work-group of {@link FdmElementKernel}: n^3 rounded up to a multiple of 32, at most 256 (the plans' limit,
     * DESIGN.md) and what the built kernel allows.
     */
    static int fdmElementGroup(int points, int allowed) {
        int n3 = points * points * points;
        int g = Math.min(256, (n3 + 31) / 32 * 32);
        return Math.max(1, Math.min(g, allowed));
    }

    /** The fused Chebyshev step of {@link ChebyshevKernel}. */
    static Spec chebyshev() {
        return new Spec(ChebyshevKernel.class, Map.of(), "chebyshevStep", 0);
    }

    /** Pass {@code op} of {@link TransferKernel} between {@code coarseDegree} and {@code fineDegree}. */
    static Spec transfer(int op, int coarseDegree, int fineDegree) {
        String label = switch (op) {
            case TransferKernel.PROLONG_I -> "prolongate-i";
            case TransferKernel.PROLONG_J -> "prolongate-j";
            case TransferKernel.PROLONG_K -> "prolongate-k";
            case TransferKernel.RESTRICT_K -> "restrict-k";
            case TransferKernel.RESTRICT_J -> "restrict-j";
            default -> "restrict-i";
        };
        Map<String, Integer> c = ordered("op", op, "nc", coarseDegree + 1);
        c.put("nf", fineDegree + 1);
        return new Spec(TransferKernel.class, c, label, 0);
    }

    /** System property: {@code auto} (the default), {@code any} or {@code fixed}; see {@link #transferAny(ProgramCache)}. */
    static final String TRANSFER_PROPERTY = "lobatto.aparapi.transferKernel";

    /**
     * Whether p-multigrid's transfers launch {@link #transferAny()}, the one kernel with the pass and degrees as arguments,
     * instead of {@link #transfer}'s six kernels per level pair: {@code auto} when {@code programs} builds quickly first
     * (a small problem on a GPU, where the transfers are launch-bound and each kernel compiled is on the cold start's
     * critical path), {@code any} and {@code fixed} force either.
     */
    static boolean transferAny(io.lobatto.backend.aparapi.runtime.ProgramCache programs) {
        String mode = System.getProperty(TRANSFER_PROPERTY, "auto").strip();
        return switch (mode) {
            case "any" -> true;
            case "fixed" -> false;
            case "auto" -> programs.quickFirst();
            default -> throw new IllegalArgumentException(TRANSFER_PROPERTY + " is '" + mode + "'; it is one of auto, any, fixed");
        };
    }

    /** Every pass of every level pair's transfer in one kernel ({@link TransferAnyKernel}). */
    static Spec transferAny() {
        return new Spec(TransferAnyKernel.class, Map.of(), "transfer (any pass and degrees)", 0);
    }

    /** The halo sums of a distributed gather ({@link HaloKernel}). */
    static Spec halo() {
        return new Spec(HaloKernel.class, Map.of(), "sumHalo", 0);
    }

    /** The indexed gather y_i = x_{idx_i} ({@link IndexedGatherKernel}). */
    static Spec indexedGather() {
        return new Spec(IndexedGatherKernel.class, Map.of(), "indexedGather", 0);
    }

    /** The streaming kernel {@code op} of {@link StreamKernel}. */
    static Spec stream(int op) {
        String label = switch (op) {
            case StreamKernel.FILL -> "fill";
            case StreamKernel.COPY -> "copy";
            case StreamKernel.AXPBY -> "axpby";
            default -> "pointwiseMultiply";
        };
        return new Spec(StreamKernel.class, Map.of("op", op), label, 0);
    }

    /** The reduction {@code op} of {@link ReductionKernel} for groups of {@code group}. */
    static Spec reduction(int op, int group) {
        String label = switch (op) {
            case ReductionKernel.DOT -> "dot";
            case ReductionKernel.CG_UPDATE -> "cgUpdate";
            case ReductionKernel.RECIPROCAL -> "reciprocal";
            case ReductionKernel.UPDATE_DOT -> "updateDot";
            default -> "pcgUpdate";
        };
        return new Spec(ReductionKernel.class, ordered("op", op, "group", group), label, group);
    }

    /**
     * The reduction {@code op} for groups of {@code group} as the backend launches it when it leaves no rows out of the sum:
     * with {@code dedicated} ({@link BackendCore#REDUCTION_KERNELS_PROPERTY}), x . y in {@link DotKernel} and the CG
     * update in {@link CgUpdateKernel}; every other op, and every op without {@code dedicated}, in {@link ReductionKernel}.
     */
    static Spec reduction(int op, int group, boolean dedicated) {
        if (dedicated && op == ReductionKernel.DOT) {
            return new Spec(DotKernel.class, Map.of("group", group), "dot", group);
        }
        if (dedicated && op == ReductionKernel.CG_UPDATE) {
            return new Spec(CgUpdateKernel.class, Map.of("group", group), "cgUpdate", group);
        }
        return reduction(op, group);
    }

    /**
     * CG's whole vector step ({@link CgStepKernel}: BS5 with p = r + beta p folded in) for groups of {@code group}, a
     * kernel of its own in every mode ({@link ReductionKernel} has no such op).
     */
    static Spec cgStep(int group) {
        return new Spec(CgStepKernel.class, Map.of("group", group, "onDevice", 0, "xMode", 0), "cgStep", group);
    }

    /**
     * {@link #cgStep} as the last launch of CG's iteration on the device ({@link CgStepKernel#onDevice}: alpha from the
     * device, Ap zeroed, p . A p after the partials), x updated as {@link CgStepKernel#xMode} says.
     */
    static Spec cgStepOnDevice(int group, int xMode) {
        return cgStepOnDevice(group, xMode, 1);
    }

    /**
     * {@link #cgStepOnDevice} of CG's iterations queued on the device ({@link CgStepKernel#onDevice} 2: alpha, beta and
     * the pending alpha from the device; {@link CgBetaKernel} sums the partials).
     */
    static Spec cgStepQueued(int group, int xMode) {
        return cgStepOnDevice(group, xMode, 2);
    }

    private static Spec cgStepOnDevice(int group, int xMode, int onDevice) {
        if (xMode < 0 || xMode > 2) {
            throw new IllegalArgumentException("xMode is " + xMode + "; expected 0, 1 or 2");
        }
        return new Spec(CgStepKernel.class, Map.of("group", group, "onDevice", onDevice, "xMode", xMode),
                "cgStep (" + (onDevice == 2 ? "alpha, beta" : "alpha") + " on the device"
                        + (xMode == 1 ? ", x deferred)" : xMode == 2 ? ", x for two steps)" : ")"), group);
    }

    /** CG's step length from the element kernel's partials of p . A p ({@link CgAlphaKernel}), one group of {@code group}. */
    static Spec cgAlpha(int group) {
        return new Spec(CgAlphaKernel.class, Map.of("group", group, "rzOnDevice", 0), "cgAlpha", group);
    }

    /** {@link #cgAlpha} with r . r read from the device ({@link CgAlphaKernel#rzOnDevice}: CG's iterations queued). */
    static Spec cgAlphaQueued(int group) {
        return new Spec(CgAlphaKernel.class, Map.of("group", group, "rzOnDevice", 1), "cgAlpha (r . r on the device)", group);
    }

    /** The first stage of {@link CgAlphaKernel}'s sum where the partials are many ({@link TermSumKernel}). */
    static Spec termSum(int group) {
        return new Spec(TermSumKernel.class, Map.of("group", group), "termSum", group);
    }

    /** The end of a queued CG iteration ({@link CgBetaKernel}): r . r summed, beta set on the device, one group. */
    static Spec cgBeta(int group) {
        return new Spec(CgBetaKernel.class, Map.of("group", group), "cgBeta", group);
    }

    /** Local memory of a launch of {@link #cgStep}: one double per work-item (one tree). */
    static long cgStepLocalBytes(int group) {
        return 8L * group;
    }

    /** Whether {@link #reduction(int, int, boolean)} gives {@code op} a kernel of its own with {@code dedicated}. */
    static boolean hasDedicatedKernel(int op) {
        return op == ReductionKernel.DOT || op == ReductionKernel.CG_UPDATE;
    }

    /** The correction of a reduction less some rows ({@link RowDotKernel}), {@code pairs} sums, groups of {@code group}. */
    static Spec rowDot(int pairs, int group) {
        return new Spec(RowDotKernel.class, ordered("pairs", pairs, "group", group), pairs == 2 ? "rowDot x2" : "rowDot", group);
    }

    /** The gather/scatter {@code op} of {@link GatherScatterKernel} for groups of {@code group} (the scatter: any). */
    static Spec gather(int op, int group) {
        return gather(op, group, 1);
    }

    /** The gather/scatter {@code op} over {@code comps} component blocks (user operators). */
    static Spec gather(int op, int group, int comps) {
        String label = switch (op) {
            case GatherScatterKernel.SCATTER -> "scatter";
            case GatherScatterKernel.GATHER -> "gather";
            case GatherScatterKernel.GATHER_DOT -> "gather+dot";
            case GatherScatterKernel.GATHER_CHEBYSHEV -> "gather+chebyshev";
            case GatherScatterKernel.GATHER_DOT_HALO -> "gather+dot+halo";
            case GatherScatterKernel.GATHER_RESIDUAL -> "gather+residual";
            case GatherScatterKernel.GATHER_RESIDUAL2 -> "gather+residual x2";
            case GatherScatterKernel.GATHER_RESIDUAL_CHEBYSHEV -> "gather+residual+chebyshev";
            case GatherScatterKernel.GATHER_MASKED_RESIDUAL -> "gather+masked residual";
            case GatherScatterKernel.GATHER_HALO -> "gather+halo";
            default -> "gather+dot+update";
        };
        Map<String, Integer> c = ordered("op", op, "group", group);
        c.put("cacheCap", AparapiBackend.GATHER_CACHE);
        c.put("comps", comps);
        return new Spec(GatherScatterKernel.class, c, label + (comps > 1 ? " x" + comps : ""),
                op == GatherScatterKernel.SCATTER ? 0 : group);
    }

    /**
     * The gather/scatter {@code op} of {@link GatherScatterRowsKernel} (the {@code rows} kind of Z on the device, or with
     * {@code tiles} the {@code tiles} kind): any group, no local memory; the scatter takes
     * {@link GatherScatterRowsKernel#ENTRIES} local nodes per work-item.
     */
    static Spec gatherRows(int op, boolean tiles) {
        Map<String, Integer> c = new LinkedHashMap<>();
        c.put("op", op);
        c.put("tiles", tiles ? 1 : 0);
        return new Spec(GatherScatterRowsKernel.class, c, (op == GatherScatterRowsKernel.SCATTER ? "scatter" : "gather")
                + (tiles ? " (tiles)" : " (rows)"), 0);
    }

    /**
     * The fused gather {@code op} (a code of {@link GatherScatterKernel}) of {@link GatherRowsFusedKernel} over
     * {@code comps} component blocks, with the compact tiles or not: the rows and tiles kinds' CG, Chebyshev, halo and
     * multi-component gathers; any group (a power of two, {@link #fusedRowsGroup}).
     */
    static Spec gatherRowsFused(int op, int comps, boolean tiles) {
        return gatherRowsFused(op, comps, tiles, false);
    }

    /**
     * {@link #gatherRowsFused(int, int, boolean)}, or with {@code direct} the one-kernel operator's gather (rows of degree
     * 1 already in y_G; no tiles, one component, {@link GatherScatterKernel#GATHER} or GATHER_DOT).
     */
    static Spec gatherRowsFused(int op, int comps, boolean tiles, boolean direct) {
        String label = switch (op) {
            case GatherScatterKernel.GATHER -> "gather";
            case GatherScatterKernel.GATHER_DOT -> "gather+dot";
            case GatherScatterKernel.GATHER_CHEBYSHEV -> "gather+chebyshev";
            case GatherScatterKernel.GATHER_DOT_HALO -> "gather+dot+halo";
            case GatherScatterKernel.GATHER_DOT_UPDATE -> "gather+dot+update";
            case GatherScatterKernel.GATHER_HALO -> "gather+halo";
            default -> throw new IllegalArgumentException("fused rows gather op " + op + " not in "
                    + GatherScatterKernel.GATHER + ".." + GatherScatterKernel.GATHER_DOT_HALO + " or "
                    + GatherScatterKernel.GATHER_HALO);
        };
        Map<String, Integer> c = ordered("op", op, "comps", comps);
        c.put("tiles", tiles ? 1 : 0);
        c.put("direct", direct ? 1 : 0);
        return new Spec(GatherRowsFusedKernel.class, c, label + (comps > 1 ? " x" + comps : "")
                + (direct ? " (one kernel)" : tiles ? " (tiles)" : " (rows)"), 0);
    }

    /**
     * The group of a {@link GatherRowsFusedKernel} launch whose build allows {@code allowed}: the largest power of two
     * at most {@link AparapiBackend#STREAM_GROUP}, {@code allowed} and one double of local memory per work-item.
     */
    static int fusedRowsGroup(int allowed, long localMemBytes) {
        long cap = Math.min(Math.min(AparapiBackend.STREAM_GROUP, allowed), Math.max(1, localMemBytes / 8));
        return Integer.highestOneBit((int) Math.max(1, cap));
    }

    /** The element kernel of {@code plan}; {@code fromGlobal} 0: x_L, 1: x_G through Z, 2: dir + beta x_G through Z. */
    static Spec element(ElementKernel kernel, int degree, ElementPlan plan, int fromGlobal) {
        if (plan.onTheFly()) {
            ElementVariant v = plan.variant();
            Class<? extends Kernel> family = v == ElementVariant.SHARED ? StiffnessBp35TrilinearSharedKernel.class
                    : v == ElementVariant.POINTS ? StiffnessBp35TrilinearPointsKernel.class : StiffnessBp35TrilinearKernel.class;
            return new Spec(family, plan.constants(kernel, degree + 1, fromGlobal),
                    "BP3.5 N=" + degree + " (factors on the fly" + (v == ElementVariant.SHARED ? ", shared"
                            : v == ElementVariant.POINTS ? ", points" : "") + inTurn(plan, kernel, fromGlobal, ", ", "")
                            + (fromGlobal == 1 ? ", assembled)"
                            : fromGlobal == 2 ? ", assembled, p update)" : fromGlobal == 3 ? ", one kernel)"
                            : fromGlobal >= 10 ? ", one kernel, atomic, p . A p, beta on the device)"
                            : fromGlobal >= 8 ? ", one kernel, atomic, p . A p)"
                            : fromGlobal >= 6 ? ", one kernel, atomic, p update)" : fromGlobal >= 4 ? ", one kernel, atomic)" : ")"),
                    plan.groupSize(), plan.unroll(kernel), plan.registerCap(kernel));
        }
        boolean registers = plan.variant() == ElementVariant.REGISTERS;
        Class<? extends Kernel> family = switch (kernel) {
            case MASS_BP10 -> registers ? MassBp10LineKernel.class : MassBp10Kernel.class;
            case STIFFNESS_BP35 -> plan.variant() == ElementVariant.PIPELINED ? StiffnessBp35PipelinedKernel.class
                    : registers ? StiffnessBp35ColumnKernel.class : StiffnessBp35Kernel.class;
            case STIFFNESS_BP30 -> plan.variant() == ElementVariant.PIPELINED ? StiffnessBp30PipelinedKernel.class
                    : registers ? StiffnessBp30ColumnKernel.class : StiffnessBp30Kernel.class;
        };
        String name = switch (kernel) {
            case MASS_BP10 -> "BP1.0";
            case STIFFNESS_BP35 -> "BP3.5";
            case STIFFNESS_BP30 -> "BP3.0";
        };
        return new Spec(family, plan.constants(kernel, degree + 1, fromGlobal),
                name + " N=" + degree + inTurn(plan, kernel, fromGlobal, " [", "]") + (fromGlobal == 1 ? " (assembled)"
                        : fromGlobal == 2 ? " (assembled, p update)"
                        : fromGlobal == 3 ? " (one kernel)"
                        : fromGlobal >= 10 ? " (one kernel, atomic, p . A p, beta on the device)"
                        : fromGlobal >= 8 ? " (one kernel, atomic, p . A p)"
                        : fromGlobal >= 6 ? " (one kernel, atomic, p update)"
                        : fromGlobal >= 4 ? " (one kernel, atomic)" : ""),
                plan.groupSize(), plan.unroll(kernel), plan.registerCap(kernel));
    }

    /**
     * "S elements per slot" where the plan's slots take S &gt; 1 elements in turn ({@link ElementPlan#sweep}), "ids kept"
     * where S = 1, between {@code open} and {@code close}; else "".
     */
    private static String inTurn(ElementPlan plan, ElementKernel kernel, int fromGlobal, String open, String close) {
        int s = plan.sweep(kernel);
        boolean atomic = fromGlobal >= io.lobatto.backend.aparapi.kernels.ElementOperands.ATOMIC;
        boolean kept = atomic && (s == 1 || plan.keepIds(kernel) == 1);
        return s > 1 ? open + s + " elements per slot" + close : kept ? open + "ids kept" + close
                : s == 1 ? open + "u through registers" + close : "";
    }

    /** The group of a one-work-item-per-entry launch of a kernel whose build allows {@code allowed}. */
    static int perEntryGroup(int allowed) {
        return Math.min(AparapiBackend.STREAM_GROUP, allowed);
    }

    /** Local memory of a reduction launch of {@link ReductionKernel}: two doubles per work-item (the PCG update's two trees). */
    static long reductionLocalBytes(int group) {
        return 16L * group;
    }

    /**
     * Local memory of a launch of {@link #reduction(int, int, boolean)}: one double per work-item for a dedicated kernel
     * (one tree), else {@link #reductionLocalBytes(int)}.
     */
    static long reductionLocalBytes(int op, int group, boolean dedicated) {
        return dedicated && hasDedicatedKernel(op) ? 8L * group : reductionLocalBytes(group);
    }

    /** Local memory of a gather/scatter launch: the block cache (or one work-item's double each), 8 bytes for the scatter. */
    static long gatherLocalBytes(int op, int group) {
        return op == GatherScatterKernel.SCATTER ? 8 : 8L * Math.max(AparapiBackend.GATHER_CACHE, group);
    }

    /** Local memory of an element kernel launch. */
    static long elementLocalBytes(ElementPlan plan) {
        return 8L * plan.localDoubles();
    }

    /**
     * The largest power-of-two group (at most {@link AparapiBackend#STREAM_GROUP}, {@code maxWorkGroupSize} and
     * the local memory the kernel needs) that the kernel family builds for: the group is a build constant of
     * the tree reductions, so a kernel whose registers allow less is built again for less. The first try is at most
     * {@code firstTry} ({@link #probeStart}).
     */
    static int powerOfTwoGroup(Class<? extends Kernel> family, int maxWorkGroupSize, int firstTry, long localMemBytes,
                               ToIntFunction<Spec> allowed) {
        int g = Integer.highestOneBit(Math.max(1, Math.min(Math.min(AparapiBackend.STREAM_GROUP, maxWorkGroupSize), firstTry)));
        while (g * 16L > localMemBytes && g > 1) {
            g /= 2;
        }
        while (true) {
            Spec s = family == ReductionKernel.class ? reduction(ReductionKernel.PCG_UPDATE, g)
                    : gather(GatherScatterKernel.GATHER_DOT, g);
            int a = allowed.applyAsInt(s);
            if (a >= g || g == 1) {
                return g;
            }
            // the next try is the largest power of two the build allowed (a build at that group rarely allows less), not
            // simply half: each try is a compile on the critical path of the backend's start
            g = a >= 1 ? Integer.highestOneBit(a) : g / 2;
        }
    }

    /** System property: the first group {@link #powerOfTwoGroup} tries on the device ({@code 0}: no cap); see {@link #probeStart}. */
    static final String PROBE_START_PROPERTY = "lobatto.aparapi.probeStart";

    /**
     * The first group the start-up probes ({@link #powerOfTwoGroup} of the reductions and the block gathers) try on a
     * device of {@code vendor}: 256 on NVIDIA, where both families built at 1024 allow fewer than 512 work-items (the
     * H100, driver 580: a second build at 256 followed each, two of the four builds on the critical path of a cold
     * start), else no cap. {@code -Dlobatto.aparapi.probeStart=N} sets it (0: no cap).
     */
    static int probeStart(String vendor) {
        Integer forced = Integer.getInteger(PROBE_START_PROPERTY);
        if (forced != null) {
            return forced <= 0 ? Integer.MAX_VALUE : forced;
        }
        return vendor != null && vendor.toUpperCase(java.util.Locale.ROOT).contains("NVIDIA") ? 256 : Integer.MAX_VALUE;
    }

    /**
     * The plan of {@code kernel} at the basis's degree in thread structure {@code variant} (where it has one, else
     * the shared one: {@link ElementPlan#of}): planned for groups of {@link AparapiBackend#ELEMENT_GROUP}
     * (at most {@code maxWorkGroupSize}), then again for what the built kernel allows when its registers allow fewer:
     * the kernel in input modes {@code modes} (x_L 0, x_G through Z 1, ...; none given: 0 and 1), each built to ask.
     */
    static ElementPlan plan(ElementKernel kernel, Basis1D basis, int maxWorkGroupSize, long localMemBytes, String device,
                            ElementVariant variant, ToIntFunction<Spec> allowed, int... modes) {
        int[] checked = modes.length == 0 ? new int[] {0, 1} : modes;
        int cap = Math.min(AparapiBackend.ELEMENT_GROUP, maxWorkGroupSize);
        while (true) {
            ElementPlan plan = planFor(kernel, basis, cap, localMemBytes, device, variant);
            int fits = Integer.MAX_VALUE;
            for (int mode : checked) {
                fits = Math.min(fits, allowed.applyAsInt(element(kernel, basis.degree(), plan, mode)));
            }
            if (plan.groupSize() <= fits) {
                return plan;
            }
            if (fits >= cap) {
                throw new io.lobatto.core.backend.BackendException("aparapi: " + kernel + " N=" + basis.degree()
                        + " plans groups of " + plan.groupSize() + " but its build allows " + fits);
            }
            cap = fits;
        }
    }

    /**
     * The first plan {@link #plan} tries (groups of at most {@link AparapiBackend#ELEMENT_GROUP}): the one whose builds
     * {@link BuildsAhead} bundles before planning.
     */
    static ElementPlan firstPlan(ElementKernel kernel, Basis1D basis, int maxWorkGroupSize, long localMemBytes, String device,
                                 ElementVariant variant) {
        return planFor(kernel, basis, Math.min(AparapiBackend.ELEMENT_GROUP, maxWorkGroupSize), localMemBytes, device, variant);
    }

    private static ElementPlan planFor(ElementKernel kernel, Basis1D basis, int cap, long localMemBytes, String device,
                                       ElementVariant variant) {
        return ElementPlan.of(kernel, basis.nq(), basis.nqGauss(), cap, localMemBytes, device, variant);
    }

    /**
     * The plan of BP3.5 with the geometric factors on the fly at the basis's degree in thread structure {@code variant}
     * ({@link ElementPlan#trilinear} for {@link ElementVariant#REGISTERS}, {@link ElementPlan#trilinearShared} for
     * {@link ElementVariant#SHARED}, {@link ElementPlan#trilinearPoints} for {@link ElementVariant#POINTS}; where the
     * wanted one does not fit, points falls back to shared and then registers, and registers and shared to each other),
     * planned as
     * {@link #plan} plans; a
     * {@link io.lobatto.core.backend.BackendException} where neither fits.
     */
    static ElementPlan trilinearPlan(Basis1D basis, int maxWorkGroupSize, long localMemBytes, String device,
                                     ElementVariant variant, ToIntFunction<Spec> allowed) {
        int cap = Math.min(AparapiBackend.ELEMENT_GROUP, maxWorkGroupSize);
        while (true) {
            ElementPlan registers = ElementPlan.trilinear(basis.nq(), cap, localMemBytes);
            ElementPlan shared = ElementPlan.trilinearShared(basis.nq(), cap, localMemBytes);
            ElementPlan points = variant == ElementVariant.POINTS
                    ? ElementPlan.trilinearPoints(basis.nq(), cap, localMemBytes) : null;
            ElementPlan plan = points != null ? points
                    : variant == ElementVariant.SHARED || variant == ElementVariant.POINTS ? (shared != null ? shared : registers)
                    : (registers != null ? registers : shared);
            if (plan == null) {
                int nq = basis.nq();
                int s = nq | 1;
                throw new io.lobatto.core.backend.BackendException("aparapi: BP3.5 with geometric factors on the fly at N = "
                        + basis.degree() + " needs groups of Nq^2 = " + nq * nq + " work-items and "
                        + 8L * (3 * nq * s + basis.np() + 24 + nq * s + 2 * nq) + " (registers) or "
                        + 8L * (2 * nq * s * nq + 4 * nq * s + 21 + nq * s + 2 * nq) + " (shared) bytes of local memory (the"
                        + " points layout needs " + 8L * (4 * basis.np() + 21 + nq * s + 2 * nq) + "), but "
                        + device + " allows groups of " + cap + " and " + localMemBytes + " bytes");
            }
            int fits = Math.min(allowed.applyAsInt(element(ElementKernel.STIFFNESS_BP35, basis.degree(), plan, 0)),
                    allowed.applyAsInt(element(ElementKernel.STIFFNESS_BP35, basis.degree(), plan, 1)));
            if (plan.groupSize() <= fits) {
                return plan;
            }
            if (fits >= cap) {
                throw new io.lobatto.core.backend.BackendException("aparapi: BP3.5 (factors on the fly) N=" + basis.degree()
                        + " plans groups of " + plan.groupSize() + " but its build allows " + fits);
            }
            cap = fits;
        }
    }

    /**
     * The thread structure of a user operator's element kernel: {@link #GENERAL} for every function
     * ({@link PointwiseKernel}); for functions of values only ({@link FieldEvaluation#VALUES}) {@link #LINES} at Gauss
     * points ({@link PointwiseLineKernel}) and {@link #MAP} at GLL points ({@link PointwiseMapKernel}); for one-component
     * functions of gradients {@link #COLUMNS} ({@link PointwiseColumnKernel}) where the general kernel's grids would not
     * fit the local memory. {@code -Dlobatto.aparapi.pointwiseVariant=general} forces the general kernel (benchmarks,
     * tests).
     */
    public enum PointwiseShape {
        /** y^e = B^T f(B x^e) sum-factorised on P^3 grids, one work-item per point. */
        GENERAL,
        /** y^e = I^T f(I x^e) in BP1.0's register lines, f inlined in the r-stage. */
        LINES,
        /** y = f(x) node by node (GLL collocation, B = identity). */
        MAP,
        /** y^e = B^T f(B x^e) in BP3.5/BP3.0's register columns, one component, f inlined per layer. */
        COLUMNS;

        /** True when {@code -Dlobatto.aparapi.pointwiseVariant=general}. */
        static boolean forcedGeneral() {
            return "general".equalsIgnoreCase(System.getProperty("lobatto.aparapi.pointwiseVariant", "").trim());
        }
    }

    /**
     * How a user operator's element kernel lays out its work: {@code threadsPerElem} work-items per element (one per
     * quadrature point up to the group cap; {@link PointwiseShape#LINES}: up to P^2; {@link PointwiseShape#MAP}: the
     * whole group, one work-item per node), {@code elemsPerGroup} element slots of {@code perElem} local doubles each,
     * then the matrices I and D from {@code ldsMat}; {@code localDoubles} in all.
     */
    record PointwisePlan(int pts, int threadsPerElem, int elemsPerGroup, int perElem, int ldsMat, int localDoubles,
                         boolean globalGrids, PointwiseShape shape) {

        PointwisePlan(int pts, int threadsPerElem, int elemsPerGroup, int perElem, int ldsMat, int localDoubles,
                      boolean globalGrids) {
            this(pts, threadsPerElem, elemsPerGroup, perElem, ldsMat, localDoubles, globalGrids, PointwiseShape.GENERAL);
        }

        int groupSize() {
            return threadsPerElem * elemsPerGroup;
        }

        String describe() {
            if (shape == PointwiseShape.MAP) {
                return "pointwise map, one work-item per node, groups of " + groupSize();
            }
            if (shape == PointwiseShape.LINES || shape == PointwiseShape.COLUMNS) {
                return "registers, " + (shape == PointwiseShape.LINES ? "lines" : "columns") + ", " + threadsPerElem + " work-items x " + elemsPerGroup + " elements per group, "
                        + pts + "^3 points, " + (8L * localDoubles) + " bytes of local memory";
            }
            return "3D, " + threadsPerElem + " work-items x " + elemsPerGroup + " elements per group, " + pts
                    + "^3 points, " + (8L * localDoubles) + " bytes of local memory"
                    + (globalGrids ? ", element grids in global scratch (" + (8L * perElem) + " bytes per element)" : "");
        }
    }

    /**
     * The plan of {@code function} at {@code degree} with {@code quadrature}, for groups of at most {@code cap}
     * work-items and {@code localMemBytes}. A function of values only gets {@link PointwiseShape#MAP} at GLL points
     * and {@link PointwiseShape#LINES} at Gauss points where its grids fit the local memory (unless
     * {@code general} or {@code forceGlobal}); a one-component function of gradients gets {@link PointwiseShape#COLUMNS}
     * where the general kernel's grids would go to the global scratch (or always, with {@code columns}) and the columns
     * fit; otherwise the general kernel. When one element's grids do not fit the
     * local memory (or {@code forceGlobal}) they go to a global scratch and only the matrices stay local; a
     * {@link io.lobatto.core.backend.BackendException} naming the need and the limit when not even those fit.
     */
    static PointwisePlan pointwisePlan(PointwiseFunction function, Quadrature quadrature, int degree, int cap,
                                       long localMemBytes, boolean forceGlobal, boolean general, boolean columns) {
        int q = degree + 1;
        int p = quadrature == Quadrature.GAUSS ? q + 1 : q;
        FieldEvaluation ev = function.evaluation();
        if (!general && !forceGlobal && !ev.readsGradients()) {
            if (quadrature == Quadrature.GLL) {
                return new PointwisePlan(p, cap, 1, 0, 0, 0, false, PointwiseShape.MAP);
            }
            int threads = Math.min(p * p, cap);
            int perElem = function.components() * dStride(p) * p * p;
            int mats = p * q;
            long limit = localMemBytes / 8;
            if (perElem + (long) mats <= limit) {
                int elems = Math.max(1, cap / threads);
                while (elems > 1 && (long) elems * perElem + mats > limit) {
                    elems--;
                }
                return new PointwisePlan(p, threads, elems, perElem, elems * perElem, elems * perElem + mats, false,
                        PointwiseShape.LINES);
            }
        }
        PointwisePlan plan = pointwisePlan(function, quadrature, degree, cap, localMemBytes, forceGlobal);
        if (!general && !forceGlobal && ev.readsGradients() && function.components() == 1 && (plan.globalGrids() || columns)) {
            PointwisePlan c = columnPlan(quadrature, degree, cap, localMemBytes);
            if (c != null) {
                return c;
            }
        }
        return plan;
    }

    /**
     * The plan of {@link PointwiseColumnKernel}: P^2 work-items per element, per element the P^3 grid (at Gauss points
     * SA x P x P) and three P x S layers, then I (Gauss) and D; null where P^2 exceeds {@code cap} or one element does not
     * fit the local memory.
     */
    static PointwisePlan columnPlan(Quadrature quadrature, int degree, int cap, long localMemBytes) {
        int q = degree + 1;
        int gauss = quadrature == Quadrature.GAUSS ? 1 : 0;
        int p = q + gauss;
        int s = dStride(p);
        int threads = p * p;
        int perElem = (gauss == 1 ? s * p * p : p * p * p) + 3 * p * s;
        int mats = gauss * p * q + p * s;
        long limit = localMemBytes / 8;
        if (threads > cap || perElem + (long) mats > limit) {
            return null;
        }
        int elems = Math.max(1, cap / threads);
        while (elems > 1 && (long) elems * perElem + mats > limit) {
            elems--;
        }
        return new PointwisePlan(p, threads, elems, perElem, elems * perElem, elems * perElem + mats, false,
                PointwiseShape.COLUMNS);
    }

    /** The general kernel's plan ({@link PointwiseKernel}), as {@link #pointwisePlan(PointwiseFunction, Quadrature, int, int, long, boolean, boolean, boolean)}. */
    static PointwisePlan pointwisePlan(PointwiseFunction function, Quadrature quadrature, int degree, int cap,
                                       long localMemBytes, boolean forceGlobal) {
        int q = degree + 1;
        int p = quadrature == Quadrature.GAUSS ? q + 1 : q;
        int p3 = p * p * p;
        FieldEvaluation ev = function.evaluation();
        int vals = ev.readsValues() ? 1 : 0;
        int grads = ev.readsGradients() ? 1 : 0;
        int gauss = quadrature == Quadrature.GAUSS ? 1 : 0;
        int grids = 1 + 3 * grads + vals * grads;
        int perElem = function.components() * grids * p3 + gauss * p3;
        int mats = gauss * p * q + grads * p * dStride(p);
        int threads = Math.min(p3, cap);
        int elems = Math.max(1, cap / threads);
        if (8L * mats > localMemBytes) {
            throw new io.lobatto.core.backend.BackendException("aparapi: user operator " + function + " at N = " + degree
                    + " with " + quadrature + " quadrature needs " + (8L * mats) + " bytes of local memory for its"
                    + " matrices, but the device has " + localMemBytes);
        }
        if (forceGlobal || 8L * (perElem + (long) mats) > localMemBytes) {
            return new PointwisePlan(p, threads, elems, perElem, 0, mats, true);
        }
        while (elems > 1 && 8L * (elems * (long) perElem + mats) > localMemBytes) {
            elems--;
        }
        return new PointwisePlan(p, threads, elems, perElem, elems * perElem, elems * perElem + mats, false);
    }

    /** Row stride of D in a user operator's local memory: P, or P + 1 when P is even (fewer bank conflicts). */
    static int dStride(int p) {
        return p % 2 == 0 ? p + 1 : p;
    }

    /** The placeholder function of a user-operator kernel family in Aparapi's translation. */
    private static String placeholder(Class<? extends Kernel> family) {
        return "void " + family.getName().replace('.', '_') + "__pointwise(This *this)";
    }

    /**
     * The OpenCL C of {@code function}'s element kernel: the plan's kernel ({@link PointwiseKernel},
     * {@link PointwiseLineKernel}, {@link PointwiseMapKernel} or {@link PointwiseColumnKernel}) with its placeholder replaced by a call of the
     * translated {@code apply} ({@link PointwiseTranslator}); {@code fromGlobal} 1 reads x_G through Z.
     */
    static KernelSource pointwise(PointwiseFunction function, Quadrature quadrature, int degree, PointwisePlan plan,
                                  int fromGlobal) {
        PointwiseTranslator.Translation t = PointwiseTranslator.translate(function.getClass());
        FieldEvaluation ev = function.evaluation();
        Map<String, Integer> c = new LinkedHashMap<>();
        Class<? extends Kernel> family;
        String label = "pointwise " + function.getClass().getSimpleName() + " N=" + degree + " " + quadrature;
        switch (plan.shape()) {
            case MAP -> {
                family = PointwiseMapKernel.class;
                c.put("ncomp", function.components());
                c.put("ndata", function.dataPerPoint());
                c.put("fromGlobal", fromGlobal);
                label += " map";
            }
            case COLUMNS -> {
                family = PointwiseColumnKernel.class;
                c.put("nq", degree + 1);
                c.put("elemsPerGroup", plan.elemsPerGroup());
                c.put("fromGlobal", fromGlobal);
                c.put("pts", plan.pts());
                c.put("threadsPerElem", plan.threadsPerElem());
                // the register base's line stages run in compile-time rounds (ElementPlan's constant)
                c.put("rounds", (plan.pts() * plan.pts() + plan.threadsPerElem() - 1) / plan.threadsPerElem());
                c.put("strideA", dStride(plan.pts()));
                c.put("stride", dStride(plan.pts()));
                c.put("keepIds", 0);
                c.put("gauss", quadrature == Quadrature.GAUSS ? 1 : 0);
                c.put("ndata", function.dataPerPoint());
                c.put("vals", ev.readsValues() ? 1 : 0);
                label += " columns";
            }
            case LINES -> {
                family = PointwiseLineKernel.class;
                c.put("nq", degree + 1);
                c.put("pts", plan.pts());
                c.put("ncomp", function.components());
                c.put("ndata", function.dataPerPoint());
                c.put("elemsPerGroup", plan.elemsPerGroup());
                c.put("threadsPerElem", plan.threadsPerElem());
                c.put("strideA", dStride(plan.pts()));
                c.put("fromGlobal", fromGlobal);
                label += " lines";
            }
            default -> {
                family = PointwiseKernel.class;
                c.put("nq", degree + 1);
                c.put("pts", plan.pts());
                c.put("gauss", quadrature == Quadrature.GAUSS ? 1 : 0);
                c.put("ncomp", function.components());
                c.put("ndata", function.dataPerPoint());
                c.put("vals", ev.readsValues() ? 1 : 0);
                c.put("grads", ev.readsGradients() ? 1 : 0);
                c.put("elemsPerGroup", plan.elemsPerGroup());
                c.put("threadsPerElem", plan.threadsPerElem());
                c.put("perElem", plan.perElem());
                c.put("ldsMat", plan.ldsMat());
                c.put("fromGlobal", fromGlobal);
                c.put("dStride", dStride(plan.pts()));
                c.put("globalGrids", plan.globalGrids() ? 1 : 0);
            }
        }
        label += fromGlobal == 1 ? " (assembled)" : "";
        String ph = placeholder(family);
        return KernelSource.of(family, c, label, plan.groupSize(), generic -> splice(generic, t, ph));
    }

    /** {@link #splice(String, PointwiseTranslator.Translation, String)} for {@link PointwiseKernel}. */
    static String splice(String generic, PointwiseTranslator.Translation t) {
        return splice(generic, t, placeholder(PointwiseKernel.class));
    }

    /** Replaces the placeholder function {@code placeholder} of a kernel's translation by the user's functions and a call. */
    static String splice(String generic, PointwiseTranslator.Translation t, String placeholder) {
        int h = generic.indexOf(placeholder);
        int end = h < 0 ? -1 : generic.indexOf("\n}\n", h);
        if (end < 0) {
            throw new io.lobatto.core.backend.BackendException("aparapi: no placeholder '" + placeholder
                    + "' in the translation of the user-operator kernel");
        }
        return generic.substring(0, h) + "// the user's pointwise function, translated from its bytecode by Aparapi\n"
                + t.functions() + placeholder + "{\n   " + t.entry()
                + "(this, this->pu, this->pdu, this->pq, this->pv, this->pdv);\n}\n" + generic.substring(end + 3);
    }

    /**
     * The OpenCL C the backend builds for a user operator (kernel-info): {@code function}'s element kernel at
     * {@code degree} with {@code quadrature} (x_L and x_G input), planned for a device with {@code maxWorkGroupSize}
     * and {@code localMemBytes}. Validates the function first ({@link IllegalArgumentException} outside the subset).
     */
    public static List<Build> pointwiseKernels(PointwiseFunction function, Quadrature quadrature, int degree,
                                               int maxWorkGroupSize, long localMemBytes) {
        if (degree < 1 || degree > AparapiBackend.MAX_DEGREE) {
            throw new IllegalArgumentException("degree " + degree + " is out of range 1.." + AparapiBackend.MAX_DEGREE);
        }
        PointwisePlan plan = pointwisePlan(function, quadrature, degree,
                Math.min(AparapiBackend.ELEMENT_GROUP, maxWorkGroupSize), localMemBytes, false,
                PointwiseShape.forcedGeneral(), false);
        List<Build> out = new ArrayList<>();
        for (int mode = 0; mode < 2; mode++) {
            out.add(new Build(pointwise(function, quadrature, degree, plan, mode), plan.groupSize(),
                    8L * plan.localDoubles(), plan.describe()));
        }
        return out;
    }

    // ------------------------------------------------------------------ setup kernels

    /** System property: {@code auto} (the default), {@code true} or {@code false}; see {@link #setupOptions}. */
    static final String QUICK_SETUP_PROPERTY = "lobatto.opencl.quickSetup";
    /** The build options of a quick setup build: the compiler's optimisations off. */
    static final String QUICK_OPTIONS = "-cl-opt-disable";
    /**
     * Points (elements x Nq^3) below which {@link #setupOptions} builds a setup kernel quickly: below it the optimised
     * build costs more than it saves. On the H100 (commit 1aee0fd) the quick geometry kernel (Gauss, wJ) ran 14-15x
     * slower (0.49 ms against 0.035 ms for 216 elements at N = 7, 39.6 against 2.6 ms for 32^3), about 1.5 ns more per
     * point, while its build took 0.14-0.2 s less (0.38 s optimised); at this many points a quick build of each setup
     * kernel still saves 0.1 s or more. The error kernel is not built quickly: it ran 50x slower.
     */
    static final long QUICK_SETUP_POINTS = 1L << 21;
    private static volatile String quickSetup = System.getProperty(QUICK_SETUP_PROPERTY, "auto").strip();

    /** Sets {@link #QUICK_SETUP_PROPERTY}'s mode for this JVM (tests); returns the previous one. */
    static String quickSetup(String mode) {
        if (!mode.equals("auto") && !mode.equals("true") && !mode.equals("false")) {
            throw new IllegalArgumentException(QUICK_SETUP_PROPERTY + " is '" + mode + "'; it is one of auto, true, false");
        }
        String old = quickSetup;
        quickSetup = mode;
        return old;
    }

    /**
     * The build options of a setup kernel that runs once over {@code points} points (elements x Nq^3 of the launch: the
     * geometry, the element diagonals and a function's evaluation): {@link #QUICK_OPTIONS} below
     * {@link #QUICK_SETUP_POINTS}, where compiling the kernel costs more time than optimising it saves, else none. The
     * sources hold {@code #pragma OPENCL FP_CONTRACT OFF} and no relaxed-math option, so both builds do the same IEEE
     * operations in the same order and give the same bits. {@code -Dlobatto.opencl.quickSetup=true|false} forces one.
     */
    static String setupOptions(long points) {
        boolean quick = switch (quickSetup) {
            case "true" -> true;
            case "false" -> false;
            default -> points < QUICK_SETUP_POINTS;
        };
        return quick ? QUICK_OPTIONS : "";
    }

    /** {@link #setupOptions} of {@code elements} elements at {@code degree}. */
    static String setupOptions(long elements, int degree) {
        long nq = degree + 1L;
        return setupOptions(elements * nq * nq * nq);
    }

    /**
     * How {@link GeometryKernel} lays out its work: {@code threadsPerElem} work-items per element (one per GLL node or
     * quadrature point, up to the group cap), {@code elemsPerGroup} element slots of {@code perElem} doubles each, in
     * local memory or ({@code globalGrids}) in a global scratch of {@code scratchSlots} slots, the matrices (w, I, D)
     * from {@code ldsMat}; {@code localDoubles} of local memory in all; groups of {@code group} work-items (at least
     * threadsPerElem x elemsPerGroup).
     */
    record GeometryPlan(int pts, int threadsPerElem, int elemsPerGroup, int perElem, int ldsMat, int localDoubles,
                        boolean globalGrids, int group) {

        /** A plan whose groups are exactly its element slots' work-items. */
        GeometryPlan(int pts, int threadsPerElem, int elemsPerGroup, int perElem, int ldsMat, int localDoubles,
                     boolean globalGrids) {
            this(pts, threadsPerElem, elemsPerGroup, perElem, ldsMat, localDoubles, globalGrids, threadsPerElem * elemsPerGroup);
        }

        int groupSize() {
            return group;
        }

        String describe() {
            return "geometry, " + threadsPerElem + " work-items x " + elemsPerGroup + " elements per group of " + group + ", " + pts
                    + "^3 points, " + (8L * localDoubles) + " bytes of local memory"
                    + (globalGrids ? ", element grids in global scratch (" + (8L * perElem) + " bytes per element)" : "");
        }
    }

    /** Element slots per launch of {@link GeometryKernel} with global grids (their scratch: slots x perElem doubles). */
    static final int GEOMETRY_SCRATCH_SLOTS = 1024;

    /**
     * The plan of {@link GeometryKernel} at {@code degree} with {@code quadrature} for geometry order {@code order},
     * groups of {@code cap} work-items (those past the element slots idle, so that one build serves every degree) and
     * {@code localMemBytes}; {@code forceGlobal} puts the element regions in the global scratch even where they fit (tests).
     */
    static GeometryPlan geometryPlan(int degree, Quadrature quadrature, int order, int cap, long localMemBytes,
                                     boolean forceGlobal) {
        int q = degree + 1;
        int gauss = quadrature == Quadrature.GAUSS ? 1 : 0;
        int p = q + gauss;
        int nc = (order + 1) * (order + 1) * (order + 1);
        int np = q * q * q;
        int p3 = p * p * p;
        int perElem = 3 * nc + 3 * np + gauss * (p * q * q + p * p * q + 3 * p3);
        int mats = p + gauss * p * q + p * p;
        int threads = Math.min(cap, Math.max(np, p3));
        int elems = Math.max(1, cap / threads);
        long limit = localMemBytes / 8;
        if (mats > limit) {
            throw new io.lobatto.core.backend.BackendException("aparapi: the geometry kernel at N = " + degree + " needs "
                    + (8L * mats) + " bytes of local memory for its matrices, but the device has " + localMemBytes);
        }
        if (forceGlobal || perElem + (long) mats > limit) {
            return new GeometryPlan(p, threads, elems, perElem, 0, mats, true, cap);
        }
        while (elems > 1 && elems * (long) perElem + mats > limit) {
            elems--;
        }
        return new GeometryPlan(p, threads, elems, perElem, elems * perElem, elems * perElem + mats, false, cap);
    }

    /** The placeholder function {@code method} of a kernel family in Aparapi's translation. */
    private static String placeholder(Class<? extends Kernel> family, String method) {
        return "void " + family.getName().replace('.', '_') + "__" + method + "(This *this)";
    }

    /**
     * Replaces the placeholder function {@code placeholder} by {@code functions} (may be empty) and a body that is
     * {@code call}.
     */
    static String spliceCall(String generic, String placeholder, String functions, String call) {
        int h = generic.indexOf(placeholder);
        int end = h < 0 ? -1 : generic.indexOf("\n}\n", h);
        if (end < 0) {
            throw new io.lobatto.core.backend.BackendException("aparapi: no placeholder '" + placeholder
                    + "' in the translation of a setup kernel");
        }
        return generic.substring(0, h) + functions + placeholder + "{\n   " + call + "\n}\n" + generic.substring(end + 3);
    }

    /**
     * The OpenCL C of {@link GeometryKernel} for groups of {@code plan}'s size, from geometry nodes of order {@code order},
     * with {@code map} (null: the identity) translated and inlined ({@link PointwiseTranslator#translatePoint}); the
     * degree, the quadrature, the factors per point and the plan's layout are its arguments
     * ({@link #bindGeometry}), so one program serves every p-MG level and both quadratures.
     */
    static KernelSource geometry(int order, PointMap map, GeometryPlan plan) {
        Map<String, Integer> c = new LinkedHashMap<>();
        c.put("nodesPer", (order + 1) * (order + 1) * (order + 1));
        c.put("mapped", map == null ? 0 : 1);
        c.put("ncoef", map == null ? 0 : map.coefficientCount());
        String label = "geometry hex" + (order == 1 ? "8" : "27") + (map == null ? "" : " " + map.getClass().getSimpleName());
        if (map == null) {
            return KernelSource.of(GeometryKernel.class, c, label, plan.groupSize(), KernelBuilds::noContraction);
        }
        PointwiseTranslator.Translation t = PointwiseTranslator.translatePoint(map.getClass());
        String ph = placeholder(GeometryKernel.class, "mapPoint");
        return KernelSource.of(GeometryKernel.class, c, label, plan.groupSize(), generic -> noContraction(spliceCall(generic, ph,
                "// the point map, translated from its bytecode by Aparapi\n" + t.functions(),
                t.entry() + "(this, this->px, this->pc, this->pout);")));
    }
    /**
     * Binds {@code plan}'s layout and the degree, quadrature and factors per point to {@code k}, a kernel of
     * {@link #geometry}.
     */
    static void bindGeometry(io.lobatto.backend.aparapi.runtime.ClKernel k, int degree, Quadrature quadrature, int fpp,
                             GeometryPlan plan) {
        k.set("nq", degree + 1).set("pts", plan.pts()).set("gauss", quadrature == Quadrature.GAUSS ? 1 : 0).set("fpp", fpp)
                .set("elemsPerGroup", plan.elemsPerGroup()).set("threadsPerElem", plan.threadsPerElem())
                .set("perElem", plan.perElem()).set("ldsMat", plan.ldsMat()).set("globalGrids", plan.globalGrids() ? 1 : 0);
    }


    /**
     * The OpenCL C of {@link EvaluateKernel}: {@code f} at the GLL nodes of degree {@code degree} of elements of
     * geometry order {@code order} with {@code map} (null: the identity), both translated and inlined.
     */
    static KernelSource evaluate(int degree, int order, PointMap map, PointFunction f) {
        Map<String, Integer> c = new LinkedHashMap<>();
        int q = degree + 1;
        c.put("nodesPer", (order + 1) * (order + 1) * (order + 1));
        c.put("np", q * q * q);
        return withPointFunctions(EvaluateKernel.class, c, "evaluate", degree, order, map, f);
    }

    /** Doubles of {@link ErrorKernel}'s scratch per launch at most (its element slots: this / {@link #errorScratch}). */
    static final int ERROR_SCRATCH_DOUBLES = 1 << 25;

    /** Scratch doubles per element of {@link ErrorKernel} at {@code degree}: 4 Nq^3 + P Nq^2 + P^2 Nq + 4 P^3. */
    static int errorScratch(int degree) {
        int q = degree + 1;
        int p = q + 1;
        return 4 * q * q * q + p * q * q + p * p * q + 4 * p * p * p;
    }

    /**
     * The OpenCL C of {@link ErrorKernel}: the error of a field of degree {@code degree} against {@code f} on elements
     * of geometry order {@code order} with {@code map} (null: the identity), both translated and inlined as in
     * {@link #evaluate}.
     */
    static KernelSource errors(int degree, int order, PointMap map, PointFunction f) {
        Map<String, Integer> c = new LinkedHashMap<>();
        c.put("nq", degree + 1);
        c.put("pts", degree + 2);
        c.put("nodesPer", (order + 1) * (order + 1) * (order + 1));
        // never built quickly first: it runs once, over every quadrature point, and built quickly it ran 50x slower
        return withPointFunctions(ErrorKernel.class, c, "errors", degree, order, map, f)
                .withOptions(io.lobatto.backend.aparapi.runtime.ProgramCache.OPTIMISED_ONLY);
    }

    /**
     * A kernel of position with the placeholders {@code mapPoint()} and {@code function()} (EvaluateKernel,
     * ErrorKernel): the constants {@code c} plus the map's and the function's counts, and both placeholders replaced by
     * the translated {@code evaluate(x, c, out)} of {@code map} (null: the identity, {@code mapped} = 0) and of {@code f}.
     */
    private static KernelSource withPointFunctions(Class<? extends Kernel> family, Map<String, Integer> c, String what,
                                                   int degree, int order, PointMap map, PointFunction f) {
        c.put("mapped", map == null ? 0 : 1);
        c.put("ncoef", map == null ? 0 : map.coefficientCount());
        c.put("nout", f.outputs());
        c.put("fcoef", f.coefficientCount());
        String label = what + " " + f.getClass().getSimpleName() + " N=" + degree + " hex" + (order == 1 ? "8" : "27")
                + (map == null ? "" : " " + map.getClass().getSimpleName());
        PointwiseTranslator.Translation ft = PointwiseTranslator.translatePoint(f.getClass());
        PointwiseTranslator.Translation mt = map == null ? null : PointwiseTranslator.translatePoint(map.getClass());
        String fph = placeholder(family, "function");
        String mph = placeholder(family, "mapPoint");
        return KernelSource.of(family, c, label, 0, generic -> {
            String s = spliceCall(generic, fph, "// the function, translated from its bytecode by Aparapi\n" + ft.functions(),
                    ft.entry() + "(this, this->px, this->qc, this->qout);");
            if (mt != null) {
                // one class as both map and function: its functions are in the text once
                String functions = map.getClass() == f.getClass() ? ""
                        : "// the point map, translated from its bytecode by Aparapi\n" + mt.functions();
                s = spliceCall(s, mph, functions, mt.entry() + "(this, this->px, this->pc, this->pout);");
            }
            return noContraction(s);
        });
    }

    /** {@link FactorSplitKernel}. */
    static Spec factorSplit() {
        return new Spec(FactorSplitKernel.class, Map.of(), "factorSplit", 0);
    }

    /** {@link DiagonalBp35Kernel} at {@code degree}. */
    static KernelSource diagonalBp35(int degree) {
        // Nq is the launch's argument: one source for every degree ({@code degree} only checked)
        if (degree < 1 || degree > AparapiBackend.MAX_DEGREE) {
            throw new IllegalArgumentException("degree is " + degree + "; need 1.." + AparapiBackend.MAX_DEGREE);
        }
        return KernelSource.of(DiagonalBp35Kernel.class, Map.of(), "BP3.5 diagonal", 0, KernelBuilds::noContraction);
    }

    /**
     * The plan of {@link DiagonalKernel} (BP1.0 and BP3.0) at {@code degree}: one work-item per output of the largest
     * stage (Nq P^2) up to {@code cap}, element regions t1 and t2 (Nq P^2 + Nq^2 P doubles) in local memory or
     * ({@code forceGlobal}, or where one does not fit) in the global scratch, the matrices pp, bb, pb (3 P Nq) after them.
     */
    static GeometryPlan diagonalPlan(int degree, int cap, long localMemBytes, boolean forceGlobal) {
        int q = degree + 1;
        int p = q + 1;
        int perElem = q * p * p + q * q * p;
        int mats = 3 * p * q;
        int threads = Math.min(cap, q * p * p);
        int elems = Math.max(1, cap / threads);
        long limit = localMemBytes / 8;
        if (mats > limit) {
            throw new io.lobatto.core.backend.BackendException("aparapi: the element-diagonal kernel at N = " + degree
                    + " needs " + (8L * mats) + " bytes of local memory for its matrices, but the device has " + localMemBytes);
        }
        if (forceGlobal || perElem + (long) mats > limit) {
            return new GeometryPlan(p, threads, elems, perElem, 0, mats, true);
        }
        while (elems > 1 && elems * (long) perElem + mats > limit) {
            elems--;
        }
        return new GeometryPlan(p, threads, elems, perElem, elems * perElem, elems * perElem + mats, false);
    }

    /** {@link DiagonalKernel} for {@code plan} at {@code degree}. */
    static KernelSource diagonal(int degree, GeometryPlan plan) {
        Map<String, Integer> c = new LinkedHashMap<>();
        c.put("nq", degree + 1);
        c.put("pts", plan.pts());
        c.put("elemsPerGroup", plan.elemsPerGroup());
        c.put("threadsPerElem", plan.threadsPerElem());
        c.put("perElem", plan.perElem());
        c.put("ldsMat", plan.ldsMat());
        c.put("globalGrids", plan.globalGrids() ? 1 : 0);
        return KernelSource.of(DiagonalKernel.class, c, "element diagonal N=" + degree + (plan.globalGrids() ? " (global grids)" : ""),
                plan.groupSize(), KernelBuilds::noContraction);
    }

    /**
     * {@code generic} with floating-point contraction off: the setup kernels then round every product and sum as the
     * host reference does (no fused multiply-add), so their results equal {@link io.lobatto.core.backend.HostSetup}'s
     * bit for bit except where a map or function calls a transcendental function. Positions relative to an element's
     * first node are differences of nearly equal numbers for a mapped mesh far from the origin; without this, the
     * rounding differences of contracted sums grew to 6e-12 of the factors at N = 10 (PoCL).
     */
    static String noContraction(String generic) {
        return "#pragma OPENCL FP_CONTRACT OFF\n" + generic;
    }

    private static Map<String, Integer> ordered(String k1, int v1, String k2, int v2) {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put(k1, v1);
        m.put(k2, v2);
        return m;
    }
}
