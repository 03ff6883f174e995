package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * What every element kernel (BP1.0, BP3.5, BP3.0, in any thread structure) reads and writes: the input x
 * (x_L, or x_G read through the scatter ids of Z for hipBone's fused assembled operator), the output y_L,
 * the 1D matrices I and D, the geometric factors G00, G01, G02, G11, G12, G22 and wJ (one buffer each,
 * [E][P^3], coalesced over the point), lambda, and for the fused operator the inverse degree W and the
 * shift of y_L += shift W u. The subclasses fix the thread structure and the operator.
 */
public abstract class ElementOperands extends Kernel {

    /** GLL points per direction, N + 1. */
    @BuildConstant int nq;
    /** Elements per work-group. */
    @BuildConstant int elemsPerGroup;
    /**
     * 1 when u is read from x_G through the scatter ids and y_L += shift W u (hipBone's fused operator);
     * 2 when u is read as dirG + beta x_G (CG's p = z + beta p folded into the operator);
     * {@link #DIRECT} as 1 with the ids of Z flagged ({@link #DIRECT_FLAG}) where the local node is the only entry of its
     * row of Z^T: the kernel writes that row of y_G itself, and only the shared nodes' y_L (the one-kernel operator);
     * {@link #ATOMIC} ({@link #ATOMIC_PTX}) as 1 with every node's value added into y_G atomically (no y_L, no gather),
     * {@link #ATOMIC_DIR} ({@link #ATOMIC_PTX_DIR}) the same reading u as 2 does; {@link #ATOMIC_DOT}
     * ({@link #ATOMIC_PTX_DOT}) that and the element energies u_e . y_e summed into one partial per work-group.
     */
    @BuildConstant int fromGlobal;

    /** {@link #fromGlobal} of the one-kernel operator: degree-1 rows written to y_G by the element kernel. */
    public static final int DIRECT = 3;
    /**
     * {@link #fromGlobal} of the one-kernel operator with atomics: y_G = Z^T y_L summed in place, each local node's value
     * added into its row of y_G (zeroed before the launch) by {@link #addToGlobal}, as libCEED's generated CUDA
     * operator adds its element outputs. The order of the additions is the hardware's, so y_G is not bitwise
     * reproducible.
     */
    public static final int ATOMIC = 4;
    /** {@link #ATOMIC} with NVIDIA's {@code red.global.add.f64} (inline PTX) as the atomic add. */
    public static final int ATOMIC_PTX = 5;
    /** {@link #ATOMIC} reading u as dirG + beta x_G (CG's call: the p update follows in one pass over y_G). */
    public static final int ATOMIC_DIR = 6;
    /** {@link #ATOMIC_PTX} reading u as dirG + beta x_G. */
    public static final int ATOMIC_PTX_DIR = 7;
    /**
     * {@link #ATOMIC_DIR} that also sums p . A p over its elements, p = dirG + beta x_G: since A = Z^T A_L Z,
     * p . A p = sum_e p_e . (A_e p_e), each work-item sums u y over its outputs ({@link #elementDot}), the work-group
     * sums its work-items in a tree and writes one partial ({@link #endElementDot}). CG's update of p then follows in
     * the pass that updates x and r, and no pass reads y_G for the dot.
     */
    public static final int ATOMIC_DOT = 8;
    /** {@link #ATOMIC_DOT} with {@link #ATOMIC_PTX}'s atomic add. */
    public static final int ATOMIC_PTX_DOT = 9;
    /**
     * {@link #ATOMIC_DOT} with beta read from the device, {@code cgScalars[}{@link #CG_BETA}{@code ]}, where the step
     * before left it ({@link CgBetaKernel}): CG's iterations then queue one after another with no read-back between them.
     */
    public static final int ATOMIC_DOT_DEVICE = 10;
    /** {@link #ATOMIC_DOT_DEVICE} with {@link #ATOMIC_PTX}'s atomic add. */
    public static final int ATOMIC_PTX_DOT_DEVICE = 11;
    /** The number of input modes: one past the largest value of {@link #fromGlobal}. */
    public static final int MODES = 12;

    /** CG's scalars on the device ({@link CgAlphaKernel}, {@link CgStepKernel}, {@link CgBetaKernel}): p . A p. */
    public static final int CG_PAP = 0;
    /** CG's scalars on the device: alpha = r . r / p . A p of the step. */
    public static final int CG_ALPHA = 1;
    /** CG's scalars on the device: beta = r . r / (r . r of the step before), for the next step's p = r + beta p. */
    public static final int CG_BETA = 2;
    /** CG's scalars on the device: the alpha of the step before, whose x += alpha p_old a deferring step left. */
    public static final int CG_PENDING = 3;
    /** CG's scalars on the device: r . r of the residual the next step starts from. */
    public static final int CG_RR = 4;
    /** The number of CG's scalars on the device. */
    public static final int CG_SCALARS = 5;
    /** Added to the scatter id of a local node that is the only entry of its row (ids below it: {@code N_G <= 2^30}). */
    public static final int DIRECT_FLAG = 1 << 30;

    double[] x = new double[1];
    double[] y = new double[1];
    int[] ids = new int[1];
    double[] w = new double[1];
    double[] matI = new double[1];
    double[] matD = new double[1];
    double[] G00 = new double[1];
    double[] G01 = new double[1];
    double[] G02 = new double[1];
    double[] G11 = new double[1];
    double[] G12 = new double[1];
    double[] G22 = new double[1];
    double[] wJ = new double[1];
    double[] dirG = new double[1];
    /** {@link #ATOMIC_DOT_DEVICE}: CG's scalars, beta at {@link #CG_BETA}. */
    double[] cgScalars = new double[1];
    /** y_G of the one-kernel operator ({@link #DIRECT}). */
    double[] yG = new double[1];
    double beta;
    /** The first element of this launch (element ranges of the fused operator); elements [firstElem, elems) run. */
    int firstElem;
    /** One past the last element of this launch. */
    int elems;
    double lambda;
    double shift;
    @Local double[] lds = new double[1];
    /** {@link #ATOMIC_DOT}: one partial sum of u . y per work-group. */
    double[] dotPartials = new double[1];
    /** {@link #ATOMIC_DOT}: this work-item's sum of u . y. */
    @PrivateMemorySpace(1) double[] dotSum = new double[1];

    /**
     * u at local node li: x_L[li], or x_G[Z(li)] (0 where masked), or dirG + beta x_G there. A masked node (id &lt; 0) reads
     * entry 0 (every device vector has one) and drops it: no branch on the id stands between its load and x_G's, so the
     * compiler issues the loads of a work-item's nodes together instead of one id, then one x_G, at a time. BP1.0 and
     * BP3.0 read u so ({@code benchmarks/gpu/gather26.sh} at bb53937, H100, {@code op} at 8M DOFs, GDOF/s before / after: BP1
     * at N = 4..7 26.84 / 28.57, 29.00 / 30.69, 30.07 / 31.94, 32.28 / 33.58; BP3 at N = 5..7 9.76 / 10.11, 12.09 / 12.64,
     * 11.15 / 11.48); the BP3.5 kernels keep {@link #readUGuarded} (there BP5 applied 0.7-1.3 % slower at N = 3..8 and ran
     * CG 1-3 % slower at N = 6..8).
     */
    protected final double readU(int li) {
        double u = 0;
        if (fromGlobal >= 1) {
            int id = ids[li];
            if (fromGlobal == DIRECT && id >= DIRECT_FLAG) {
                id = id - DIRECT_FLAG;
            }
            int j = max(id, 0);
            u = x[j];
            if (fromGlobal == 2 || fromGlobal >= ATOMIC_DIR) {
                u = dirG[j] + directionBeta() * u;
            }
            if (id < 0) {
                u = 0;
            }
        } else {
            u = x[li];
        }
        return u;
    }

    /**
     * {@link #readU} with the loads of x_G (and dirG) inside the test of the id's mask: each node's id load, a branch on
     * it, then x_G's load. The BP3.5 kernels read u so (measured faster there, see {@link #readU}).
     */
    protected final double readUGuarded(int li) {
        double u = 0;
        if (fromGlobal >= 1) {
            int id = ids[li];
            if (fromGlobal == DIRECT && id >= DIRECT_FLAG) {
                id = id - DIRECT_FLAG;
            }
            if (id >= 0) {
                u = x[id];
                if (fromGlobal == 2 || fromGlobal >= ATOMIC_DIR) {
                    u = dirG[id] + directionBeta() * u;
                }
            }
        } else {
            u = x[li];
        }
        return u;
    }

    /** beta of u = dirG + beta x_G: the argument, or with {@link #ATOMIC_DOT_DEVICE} CG's on the device. */
    protected final double directionBeta() {
        double b = beta;
        if (fromGlobal >= ATOMIC_DOT_DEVICE) {
            b = cgScalars[CG_BETA];
        }
        return b;
    }

    /**
     * y_L at local node li: v, plus shift W u for the fused assembled operator (W read only where shift is not 0: the
     * screened operators of CG and the benchmarks have shift = 0, and W is 8 of the ~40 bytes per node BP3.5 moves
     * with its factors on the fly).
     */
    protected final void writeY(int li, double v, double u) {
        double out = v;
        if (fromGlobal >= 1) {
            if (shift != 0) {
                out += shift * w[li] * u;
            }
        }
        store(li, out);
    }

    /**
     * The atomic form's output at local node li whose scatter id the kernel kept from its read of u: y_G[id] += v plus
     * shift W u (W read only where shift is not 0); nothing where the node is masked (id &lt; 0).
     */
    protected final void addAtKeptId(int li, int id, double v, double u) {
        double out = v;
        if (shift != 0) {
            out += shift * w[li] * u;
        }
        if (id >= 0) {
            addToGlobal(id, out);
        }
    }

    /** {@link #ATOMIC_DOT}: the work-item's sum of u . y starts at 0 (call first in the kernel). */
    protected final void beginElementDot() {
        if (fromGlobal >= ATOMIC_DOT) {
            dotSum[0] = 0;
        }
    }

    /**
     * {@link #ATOMIC_DOT}: u y of one output node (or the t-gradient times the t-flux of one point, where the kernel
     * no longer holds u) into the work-item's sum; u is 0 at a masked node. The shift term is not in it: the backend
     * takes this mode only where shift = 0.
     */
    protected final void elementDot(double u, double y) {
        if (fromGlobal >= ATOMIC_DOT) {
            dotSum[0] += u * y;
        }
    }

    /**
     * {@link #ATOMIC_DOT}: the work-group sums its work-items' u . y in local memory (a tree over the group, whose size
     * need not be a power of two) and writes the partial of its group. Every work-item calls it, last, after its outputs:
     * it reuses the first group-size doubles of {@link #lds}.
     */
    protected final void endElementDot() {
        if (fromGlobal >= ATOMIC_DOT) {
            int lid = getLocalId();
            int n = getLocalSize();
            localBarrier();
            lds[lid] = dotSum[0];
            localBarrier();
            int h = 1;
            while (h < n) {
                h = h * 2;
            }
            for (int span = h / 2; span > 0; span = span / 2) {
                if (lid < span && lid + span < n) {
                    lds[lid] = lds[lid] + lds[lid + span];
                }
                localBarrier();
            }
            if (lid == 0) {
                dotPartials[getGroupId()] = lds[0];
            }
        }
    }

    /**
     * y_G[id] += v, atomically: the backend replaces this method's translated body by the device's atomic double add
     * ({@link io.lobatto.backend.aparapi.AtomicAdd}); the Java body is the sum it stands for.
     */
    protected final void addToGlobal(int id, double v) {
        yG[id] = yG[id] + v;
    }

    /**
     * The element's output at local node li: y_L[li], or with {@link #DIRECT} y_G at its row where li is the row's only
     * entry (0 + v is v: the gather's sum of a degree-1 row).
     */
    protected final void store(int li, double v) {
        if (fromGlobal >= ATOMIC) {
            int id = ids[li];
            if (id >= 0) {
                addToGlobal(id, v);
            }
        } else if (fromGlobal == DIRECT) {
            int id = ids[li];
            if (id >= DIRECT_FLAG) {
                yG[id - DIRECT_FLAG] = v;
            } else {
                y[li] = v;
            }
        } else {
            y[li] = v;
        }
    }
}
