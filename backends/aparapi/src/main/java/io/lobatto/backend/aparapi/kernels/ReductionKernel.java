package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * The streaming kernels that return scalars (streaming paper, BS3-BS5; hipBone, Algorithm 1): each
 * work-item strides over the vectors, then the work-group sums in local memory (a tree of
 * {@code group} = 2^k work-items) and writes one partial per group, which the host sums in group order
 * (deterministic). {@link #DOT} x . y (BS3/BS4); {@link #CG_UPDATE} x += alpha p, r -= alpha Ap,
 * partial r . r (BS5); {@link #PCG_UPDATE} the same with z = d o r (Jacobi) and partials r . r, r . z;
 * {@link #RECIPROCAL} z = 1 / x and the count of entries of x that are not positive and finite; {@link #UPDATE_DOT}
 * CG's p = z + alpha p and partial p . ap, after the one-kernel operator with atomics.
 *
 * <p>The sums of {@link #DOT}, {@link #CG_UPDATE} and {@link #PCG_UPDATE} leave out the rows in [{@code skipLo},
 * {@code skipHi}) (the update still covers them): on a rank of a distributed solve, the rows it shares but a
 * neighbour owns, when they are one contiguous range, so that the owned reduction needs no second launch.
 */
public final class ReductionKernel extends Kernel {

    /** x . y. */
    public static final int DOT = 0;
    /** BS5: x += alpha p; r -= alpha Ap; r . r. */
    public static final int CG_UPDATE = 1;
    /** BS5 with Jacobi: also z = d o r; r . r and r . z. */
    public static final int PCG_UPDATE = 2;
    /** z = 1 / x; the number of entries of x not in (0, Double.MAX_VALUE] (NaN included). */
    public static final int RECIPROCAL = 3;
    /** CG's search direction after an atomic operator apply: p = z + alpha p; p . ap (ap = A (z + alpha p), complete). */
    public static final int UPDATE_DOT = 4;
    /** The number of ops: one past the largest op code. */
    public static final int OPS = 5;

    @BuildConstant int op;
    /** Work-items per group, a power of two. */
    @BuildConstant int group;

    double[] p = new double[1];
    double[] ap = new double[1];
    double[] x = new double[1];
    double[] r = new double[1];
    double[] d = new double[1];
    double[] z = new double[1];
    double[] partials = new double[1];
    double alpha;
    int n;
    /** The first row left out of the sums. */
    int skipLo;
    /** One past the last row left out of the sums ({@code skipLo} = {@code skipHi}: none). */
    int skipHi;
    @Local double[] lds = new double[1];

    @Override
    public void run() {
        int stride = getGlobalSize();
        double s = 0;
        double t = 0;
        for (int i = getGlobalId(); i < n; i += stride) {
            boolean counted = i < skipLo || i >= skipHi;
            if (op == DOT) {
                if (counted) {
                    s += x[i] * p[i];
                }
            } else if (op == UPDATE_DOT) {
                double pi = z[i] + alpha * p[i];
                p[i] = pi;
                if (counted) {
                    s += pi * ap[i];
                }
            } else if (op == RECIPROCAL) {
                double v = x[i];
                z[i] = 1 / v;
                double bad = 1;
                if (v > 0) {
                    if (v <= Double.MAX_VALUE) {
                        bad = 0;
                    }
                }
                s += bad;
            } else {
                x[i] += alpha * p[i];
                double ri = r[i] - alpha * ap[i];
                r[i] = ri;
                if (counted) {
                    s += ri * ri;
                }
                if (op == PCG_UPDATE) {
                    double zi = d[i] * ri;
                    z[i] = zi;
                    if (counted) {
                        t += ri * zi;
                    }
                }
            }
        }
        int lid = getLocalId();
        lds[lid] = s;
        if (op == PCG_UPDATE) {
            lds[group + lid] = t;
        }
        localBarrier();
        for (int h = group / 2; h > 0; h = h / 2) {
            if (lid < h) {
                lds[lid] = lds[lid] + lds[lid + h];
                if (op == PCG_UPDATE) {
                    lds[group + lid] = lds[group + lid] + lds[group + lid + h];
                }
            }
            localBarrier();
        }
        if (lid == 0) {
            if (op == PCG_UPDATE) {
                partials[2 * getGroupId()] = lds[0];
                partials[2 * getGroupId() + 1] = lds[group];
            } else {
                partials[getGroupId()] = lds[0];
            }
        }
    }
}
