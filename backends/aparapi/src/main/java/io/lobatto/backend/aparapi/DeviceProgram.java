package io.lobatto.backend.aparapi;

import com.aparapi.Kernel;

/**
 * The "device program" of DESIGN.md: the one Aparapi {@link Kernel} that holds every device array of an
 * {@link AparapiBackend} and whose {@link #run()} dispatches on {@link #op}. Separate Aparapi kernels do
 * not share device buffers (gpu/README.md), so every operation of the backend is an op code here and
 * every vector is an (offset, length) window into {@link #dpool} or {@link #ipool}.
 *
 * <p>Arrays: {@code dpool}/{@code ipool} (vectors, scatter data); {@code gpool} (1D matrices and geometric factors);
 * {@code dstage}/{@code istage} (exact-length staging arrays for single-vector uploads/downloads, so a
 * transfer never moves the whole pool); {@code partials} (one double per work-group of a reduction,
 * two for the two reductions of pcgUpdate: the only array fetched by dot/norm2/cgUpdate/pcgUpdate and the
 * gather with dot); {@code lds} (the one {@code @Local} array, sized by the backend for each
 * launch).
 *
 * <p>No private arrays: Aparapi declares them inside the struct that carries every field, which then
 * cannot live in registers (on the H100 the struct went to a 656-byte stack frame and field reads in
 * the element kernels' loops became stack loads). The element kernels keep their work in local memory.
 *
 * <p>Scalars are fields set by the host before each launch (Aparapi passes them as kernel arguments).
 * This class is written in the subset of Java that Aparapi translates: no objects, no nested classes,
 * arrays only as fields, uniform loops around barriers.
 */
final class DeviceProgram extends Kernel {

    static final int OP_NOP = 0;
    static final int OP_FILL = 1;
    static final int OP_COPY = 2;
    static final int OP_AXPBY = 3;
    static final int OP_PMUL = 4;
    static final int OP_DOT = 5;
    static final int OP_CG_UPDATE = 6;
    static final int OP_SCATTER = 7;
    static final int OP_GATHER = 8;
    static final int OP_ELEMENT = 9;
    static final int OP_COPY_IN = 10;
    static final int OP_COPY_OUT = 11;
    static final int OP_COPY_IN_INT = 12;
    static final int OP_COPY_IN_GEO = 13;
    /** BS5 + Jacobi: x += a p; r -= a Ap; z = d o r; two partials per group (r.r, r.z). */
    static final int OP_PCG_UPDATE = 14;
    /**
     * hipBone's assembled operator in one two-pass execute: pass 0 the element kernel y_L = (L + shift W) Z x_G
     * ({@link #element()}), pass 1 the gather y_G = Z^T y_L ({@link #gatherBlock()}, with the dot when
     * {@link #withDot}). The two passes share the element kernel's range; the gather has fields of its own.
     */
    static final int OP_ASSEMBLED = 15;

    /** Largest points per direction of the element kernels (GL points at N = 15). */
    static final int MAX_P = 17;

    double[] dpool = new double[1];
    /** Element data (1D matrices, geometric factors): a pool of its own, so each stays below Aparapi's 2 GiB per array. */
    double[] gpool = new double[1];
    int[] ipool = new int[1];
    double[] dstage = new double[1];
    int[] istage = new int[1];
    double[] partials = new double[1];
    @Local double[] lds = new double[256];

    // ---- launch parameters (scalars)
    int op;
    int n;
    int xo;
    int yo;
    int zo;
    int wo;
    /** pcgUpdate: offsets of the inverse diagonal and of z. */
    int ao;
    int bo;
    /** Scatter and assembled element kernel: ipool window of the scatter ids. */
    int io0;
    double sa;
    double sb;
    /** Streaming ops and reductions: total work-items of the launch (grid-stride loops). */
    int stride;
    int nBlocks;
    int cacheCap;
    // ---- gather (fields of its own, so that it can follow the element kernel in one execute)
    /** Gather: ipool windows of the CSR row starts, the local ids and the row-block starts. */
    int gStarts;
    int gIds;
    int gBlocks;
    /** Gather: dpool offsets of the input y_L, the output y_G and (with {@link #withDot}) x_G. */
    int gx;
    int gy;
    int gz;
    /** Gather: 1 to also reduce sum_row y_G[row] * x_G[row] into one partial per group. */
    int withDot;
    /** Gather: the work-groups that take part (the first nGroups of the launch; blocks are strided over them). */
    int nGroups;
    // ---- element kernels
    int nq;
    int pts;
    int threadsPerElem;
    int elemsPerGroup;
    int elems;
    int perElem;
    int gauss;
    int stiff;
    int threeD;
    int fromGlobal;
    int matI;
    int matD;
    int geo;
    /** Element kernels: where in {@link #lds} the group stages I and D (after its elements' regions). */
    int ldsMat;
    /** Element kernels: 1 when the GL stages run point-parallel between two P^3 grids, 0 for in place by lines. */
    int pointInterp;
    /**
     * 2D stiffness: 1 when the t-fluxes of the element live in local memory (a P^3 grid after the r/s
     * scratch), 0 when they live in the global scratch at {@link #scr} (E P^3 doubles of dpool).
     */
    int tLocal;
    int scr;
    double lambda;
    double shift;

    @Override
    public void run() {
        int o = op;
        // one call site per kernel: PoCL's compile time grows with every inlined copy of a kernel with barriers
        if (o == OP_ASSEMBLED) {
            o = OP_ELEMENT;
            if (getPassId() == 1) {
                o = OP_GATHER;
            }
        }
        if (o == OP_FILL) {
            for (int i = getGlobalId(); i < n; i += stride) {
                dpool[yo + i] = sa;
            }
        } else if (o == OP_COPY) {
            for (int i = getGlobalId(); i < n; i += stride) {
                dpool[yo + i] = dpool[xo + i];
            }
        } else if (o == OP_AXPBY) {
            for (int i = getGlobalId(); i < n; i += stride) {
                dpool[yo + i] = sa * dpool[xo + i] + sb * dpool[yo + i];
            }
        } else if (o == OP_PMUL) {
            for (int i = getGlobalId(); i < n; i += stride) {
                dpool[yo + i] = dpool[zo + i] * dpool[xo + i];
            }
        } else if (o == OP_DOT) {
            double s = 0;
            for (int i = getGlobalId(); i < n; i += stride) {
                s += dpool[xo + i] * dpool[yo + i];
            }
            reduceToPartials(s);
        } else if (o == OP_CG_UPDATE) {
            // x += a p (xo: p, yo: Ap, zo: x, wo: r); r -= a Ap; partial r.r
            double s = 0;
            for (int i = getGlobalId(); i < n; i += stride) {
                dpool[zo + i] += sa * dpool[xo + i];
                double r = dpool[wo + i] - sa * dpool[yo + i];
                dpool[wo + i] = r;
                s += r * r;
            }
            reduceToPartials(s);
        } else if (o == OP_PCG_UPDATE) {
            // xo: p, yo: Ap, zo: x, wo: r, ao: inverse diagonal, bo: z; partials r.r and r.z
            double s = 0;
            double t = 0;
            for (int i = getGlobalId(); i < n; i += stride) {
                dpool[zo + i] += sa * dpool[xo + i];
                double r = dpool[wo + i] - sa * dpool[yo + i];
                dpool[wo + i] = r;
                double zi = dpool[ao + i] * r;
                dpool[bo + i] = zi;
                s += r * r;
                t += r * zi;
            }
            reduceTwoToPartials(s, t);
        } else if (o == OP_SCATTER) {
            for (int i = getGlobalId(); i < n; i += stride) {
                int id = ipool[io0 + i];
                double v = 0;
                if (id >= 0) {
                    v = dpool[xo + id];
                }
                dpool[yo + i] = v;
            }
        } else if (o == OP_GATHER) {
            gatherBlock();
        } else if (o == OP_ELEMENT) {
            element();
        } else if (o == OP_COPY_IN) {
            for (int i = getGlobalId(); i < n; i += stride) {
                dpool[yo + i] = dstage[i];
            }
        } else if (o == OP_COPY_IN_GEO) {
            for (int i = getGlobalId(); i < n; i += stride) {
                gpool[yo + i] = dstage[i];
            }
        } else if (o == OP_COPY_OUT) {
            for (int i = getGlobalId(); i < n; i += stride) {
                dstage[i] = dpool[xo + i];
            }
        } else if (o == OP_COPY_IN_INT) {
            for (int i = getGlobalId(); i < n; i += stride) {
                ipool[io0 + i] = istage[i];
            }
        }
    }

    /**
     * Work-group tree reduction in local memory; one partial per group. A group size ls that is not a
     * power of two (the element kernels' ranges, shared by the gather in {@link #OP_ASSEMBLED}) is first
     * folded onto its largest power of two p2: lds[i] += lds[i + p2] for i < ls - p2.
     */
    private void reduceToPartials(double s) {
        int lid = getLocalId();
        int ls = getLocalSize();
        int p2 = 1;
        while (p2 * 2 <= ls) {
            p2 = p2 * 2;
        }
        lds[lid] = s;
        localBarrier();
        if (lid < ls - p2) {
            lds[lid] = lds[lid] + lds[lid + p2];
        }
        localBarrier();
        for (int h = p2 / 2; h > 0; h = h / 2) {
            if (lid < h) {
                lds[lid] = lds[lid] + lds[lid + h];
            }
            localBarrier();
        }
        if (lid == 0) {
            partials[getGroupId()] = lds[0];
        }
    }

    /**
     * Two tree reductions at once (lds[0..ls) and lds[ls..2ls)); partials[2 group] and
     * partials[2 group + 1]. Needs lds of at least twice the group size, and a group size that is a power
     * of two (pcgUpdate launches the streaming group size; unlike {@link #reduceToPartials} it does not fold).
     */
    private void reduceTwoToPartials(double s, double t) {
        int lid = getLocalId();
        int ls = getLocalSize();
        lds[lid] = s;
        lds[ls + lid] = t;
        localBarrier();
        for (int h = ls / 2; h > 0; h = h / 2) {
            if (lid < h) {
                lds[lid] = lds[lid] + lds[lid + h];
                lds[ls + lid] = lds[ls + lid] + lds[ls + lid + h];
            }
            localBarrier();
        }
        if (lid == 0) {
            partials[2 * getGroupId()] = lds[0];
            partials[2 * getGroupId() + 1] = lds[ls];
        }
    }

    /**
     * BS6, one work-group per block of CSR rows (streaming paper, Listing 4): the block's entries are
     * read once into local memory when they fit ({@link #cacheCap}), then each row is summed there;
     * a block too large for the cache is summed straight from global memory. ipool windows: gStarts row
     * starts, gIds local ids, gBlocks block starts; y_L at gx, y_G at gy. Blocks are strided over the
     * first {@link #nGroups} groups of the launch; later groups (the element kernel's range in
     * {@link #OP_ASSEMBLED}) do nothing. With {@link #withDot} each work-item also sums y_G[row] * x_G[row]
     * over its rows (x_G at gz), and the group reduces that into partials[group] (hipBone's p . Ap fused
     * into the gather).
     */
    private void gatherBlock() {
        if (getGroupId() < nGroups) {
            int lid = getLocalId();
            int ls = getLocalSize();
            double d = 0;
            for (int b = getGroupId(); b < nBlocks; b += nGroups) {
                d += gatherOneBlock(b, lid, ls);
                // the next block (or the reduction) overwrites the cache
                localBarrier();
            }
            if (withDot == 1) {
                reduceToPartials(d);
            }
        }
    }

    private double gatherOneBlock(int b, int lid, int ls) {
        double d = 0;
        int rowStart = ipool[gBlocks + b];
        int rowEnd = ipool[gBlocks + b + 1];
        int s0 = ipool[gStarts + rowStart];
        int count = ipool[gStarts + rowEnd] - s0;
        if (count <= cacheCap) {
            for (int i = lid; i < count; i += ls) {
                lds[i] = dpool[gx + ipool[gIds + s0 + i]];
            }
            localBarrier();
            for (int row = rowStart + lid; row < rowEnd; row += ls) {
                int c0 = ipool[gStarts + row] - s0;
                int c1 = ipool[gStarts + row + 1] - s0;
                double g = 0;
                for (int c = c0; c < c1; c++) {
                    g += lds[c];
                }
                dpool[gy + row] = g;
                if (withDot == 1) {
                    d += g * dpool[gz + row];
                }
            }
        } else {
            for (int row = rowStart + lid; row < rowEnd; row += ls) {
                int c0 = ipool[gStarts + row];
                int c1 = ipool[gStarts + row + 1];
                double g = 0;
                for (int c = c0; c < c1; c++) {
                    g += dpool[gx + ipool[gIds + c]];
                }
                dpool[gy + row] = g;
                if (withDot == 1) {
                    d += g * dpool[gz + row];
                }
            }
        }
        return d;
    }

    // ------------------------------------------------------------------ element kernels

    /**
     * One launch of BP1.0 / BP3.5 / BP3.0 (and the element part of the fused assembled operator).
     * A work-group holds {@link #elemsPerGroup} elements, each with {@link #threadsPerElem} work-items
     * and a region of {@link #perElem} doubles of {@link #lds}: the element's values on a P^3 grid
     * (P = pts: Nq for BP3.5, Nq+1 GL points otherwise; index a + P(b + Pc)), a second P^3 grid when the
     * GL stages run point-parallel ({@link #pointInterp}), and gradient scratch. After the elements'
     * regions, at {@link #ldsMat}, the group stages the 1D matrices: I (P x Nq), then D (P x P).
     * 3D structure ({@link #threeD} = 1): one work-item per point; 2D structure: one work-item per
     * (a,b) column (or several, when P^2 exceeds the group) looping over the layers c.
     * Field windows: xo input (x_L, or x_G when {@link #fromGlobal}), yo output y_L, io0 scatter ids,
     * wo inverse degree, matI interpolation I, matD differentiation, geo factors (per element: for the
     * stiffness kernels the seven factors G00, G01, G02, G11, G12, G22, wJ each as a P^3 block).
     */
    private void element() {
        int lid = getLocalId();
        int T = threadsPerElem;
        int le = lid / T;
        int t = lid - le * T;
        int e = getGroupId() * elemsPerGroup + le;
        int valid = 0;
        if (le < elemsPerGroup && e < elems) {
            valid = 1;
        }
        int P = pts;
        int P3 = P * P * P;
        int L0 = le * perElem;
        int Q = nq;
        int np = Q * Q * Q;
        int mI = ldsMat;
        int nI = gauss * P * Q;
        int mD = ldsMat + nI;
        int nD = stiff * P * P;

        // stage I and D for the whole group
        for (int i = lid; i < nI; i += getLocalSize()) {
            lds[mI + i] = gpool[matI + i];
        }
        for (int i = lid; i < nD; i += getLocalSize()) {
            lds[mD + i] = gpool[matD + i];
        }
        // load u (masked nodes read as 0 when gathering from x_G through the scatter ids)
        if (le < elemsPerGroup) {
            for (int p = t; p < np; p += T) {
                double u = 0;
                if (valid == 1) {
                    u = readU(e * np + p);
                }
                lds[L0 + gridIndex(p, Q, P)] = u;
            }
        }
        localBarrier();
        int cur = L0;
        if (gauss == 1) {
            if (pointInterp == 1) {
                // u: GLL grid -> GL grid, one direction per stage, alternating between the two P^3 grids.
                // Every slot of the group runs the stages (a slot past the last element holds zeros): with
                // the stages guarded by the slot's validity, PoCL gave wrong results in partly filled groups.
                interpolatePoints(L0, L0 + P3, t, T, 0, mI);
                interpolatePoints(L0 + P3, L0, t, T, 1, mI);
                interpolatePoints(L0, L0 + P3, t, T, 2, mI);
                cur = L0 + P3;
            } else {
                // one call site in a loop: PoCL turns each inlined copy of a loop with barriers into a
                // work-item-loop region, and six straight-line copies took its compiler over 10 minutes
                for (int d = 0; d < 3; d++) {
                    stageByLines(L0, t, T, d, mI, 0);
                }
            }
        }
        if (stiff == 0) {
            if (valid == 1) {
                for (int p = t; p < P3; p += T) {
                    lds[cur + p] = lds[cur + p] * gpool[geo + e * P3 + p];
                }
            }
            localBarrier();
        } else {
            if (cur != L0) {
                if (valid == 1) {
                    for (int p = t; p < P3; p += T) {
                        lds[L0 + p] = lds[cur + p];
                    }
                }
                localBarrier();
                cur = L0;
            }
            if (threeD == 1) {
                stiffness3D(L0, t, T, e, valid, le, mD);
            } else {
                stiffness2D(L0, t, T, e, valid, le, mD);
            }
        }
        if (gauss == 1) {
            if (pointInterp == 1) {
                int other = L0 + P3;
                if (cur != L0) {
                    other = L0;
                }
                projectPoints(cur, other, t, T, 2, mI);
                projectPoints(other, cur, t, T, 1, mI);
                projectPoints(cur, other, t, T, 0, mI);
                cur = other;
            } else {
                for (int d = 2; d >= 0; d--) {
                    stageByLines(L0, t, T, d, mI, 1);
                }
            }
        }
        if (valid == 1) {
            for (int p = t; p < np; p += T) {
                double y = lds[cur + gridIndex(p, Q, P)];
                if (fromGlobal == 1) {
                    y += shift * dpool[wo + e * np + p] * readU(e * np + p);
                }
                dpool[yo + e * np + p] = y;
            }
        }
    }

    /** Position on the element's P^3 grid of GLL node p = i + Q(j + Qk) (the identity when P = Q). */
    private int gridIndex(int p, int Q, int P) {
        int g = p;
        if (P != Q) {
            int i = p % Q;
            int r = p / Q;
            g = i + P * ((r % Q) + P * (r / Q));
        }
        return g;
    }

    private double readU(int li) {
        double u = 0;
        if (fromGlobal == 1) {
            int id = ipool[io0 + li];
            if (id >= 0) {
                u = dpool[xo + id];
            }
        } else {
            u = dpool[xo + li];
        }
        return u;
    }

    /**
     * One sum-factorisation stage GLL -> GL from grid src to grid dst, one output point per work-item
     * (tensor paper, kernel sequence 3): direction 0 gives (a, j, k) = sum_m I[a][m] u(m, j, k) for
     * a < P, j, k < Nq; direction 1 gives (a, b, k) along b; direction 2 gives (a, b, c) along c.
     */
    private void interpolatePoints(int src, int dst, int t, int T, int dir, int mI) {
        int P = pts;
        int Q = nq;
        int count = P * Q * Q;
        if (dir == 1) {
            count = P * P * Q;
        } else if (dir == 2) {
            count = P * P * P;
        }
        for (int p = t; p < count; p += T) {
            int a = p % P;
            int r = p / P;
            int b = r % P;
            int c = r / P;
            if (dir == 0) {
                b = r % Q;
                c = r / Q;
            }
            double s = 0;
            if (dir == 0) {
                for (int m = 0; m < Q; m++) {
                    s += lds[mI + a * Q + m] * lds[src + m + P * (b + P * c)];
                }
            } else if (dir == 1) {
                for (int m = 0; m < Q; m++) {
                    s += lds[mI + b * Q + m] * lds[src + a + P * (m + P * c)];
                }
            } else {
                for (int m = 0; m < Q; m++) {
                    s += lds[mI + c * Q + m] * lds[src + a + P * (b + P * m)];
                }
            }
            lds[dst + a + P * (b + P * c)] = s;
        }
        localBarrier();
    }

    /**
     * The transpose stage GL -> GLL (I^T) from grid src to grid dst, one output point per work-item:
     * direction 2 gives (a, b, k) = sum_c I[c][k] v(a, b, c) for k < Nq; direction 1 (a, j, k) along b;
     * direction 0 (i, j, k) along a.
     */
    private void projectPoints(int src, int dst, int t, int T, int dir, int mI) {
        int P = pts;
        int Q = nq;
        int count = P * P * Q;
        int d0 = P;
        int d1 = P;
        if (dir == 1) {
            count = P * Q * Q;
            d1 = Q;
        } else if (dir == 0) {
            count = Q * Q * Q;
            d0 = Q;
            d1 = Q;
        }
        for (int p = t; p < count; p += T) {
            int a = p % d0;
            int r = p / d0;
            int b = r % d1;
            int c = r / d1;
            double s = 0;
            if (dir == 2) {
                for (int m = 0; m < P; m++) {
                    s += lds[mI + m * Q + c] * lds[src + a + P * (b + P * m)];
                }
            } else if (dir == 1) {
                for (int m = 0; m < P; m++) {
                    s += lds[mI + m * Q + b] * lds[src + a + P * (m + P * c)];
                }
            } else {
                for (int m = 0; m < P; m++) {
                    s += lds[mI + m * Q + a] * lds[src + m + P * (b + P * c)];
                }
            }
            lds[dst + a + P * (b + P * c)] = s;
        }
        localBarrier();
    }

    /**
     * One stage in place on the element's grid, for elements whose two P^3 grids do not fit the local
     * memory: the stage's lines (direction 0: lines (j,k) along a; 1: (a,k) along b; 2: (a,b) along c)
     * are copied in chunks into the P^2 scratch after the grid, then each output point is computed from
     * the copy and written back in place. Interpolation ({@code transpose} = 0) maps Nq values to P
     * with I, projection ({@code transpose} = 1) P values to Nq with I^T.
     */
    private void stageByLines(int L0, int t, int T, int dir, int mI, int transpose) {
        int P = pts;
        int Q = nq;
        int nIn = Q;
        int nOut = P;
        if (transpose == 1) {
            nIn = P;
            nOut = Q;
        }
        int lines = Q * Q;
        int stride = 1;
        if (dir == 1) {
            lines = P * Q;
            stride = P;
        } else if (dir == 2) {
            lines = P * P;
            stride = P * P;
        }
        int sc = L0 + P * P * P;
        int chunk = (P * P) / nIn;
        for (int l0 = 0; l0 < lines; l0 += chunk) {
            int cl = min(chunk, lines - l0);
            for (int i = t; i < cl * nIn; i += T) {
                int l = l0 + i / nIn;
                lds[sc + i] = lds[lineBase(L0, l, dir) + (i % nIn) * stride];
            }
            localBarrier();
            for (int i = t; i < cl * nOut; i += T) {
                int k = i / nOut;
                int a = i - k * nOut;
                double s = 0;
                if (transpose == 0) {
                    for (int m = 0; m < nIn; m++) {
                        s += lds[mI + a * Q + m] * lds[sc + k * nIn + m];
                    }
                } else {
                    for (int m = 0; m < nIn; m++) {
                        s += lds[mI + m * Q + a] * lds[sc + k * nIn + m];
                    }
                }
                lds[lineBase(L0, l0 + k, dir) + a * stride] = s;
            }
            localBarrier();
        }
    }

    /** First point of line l of a stage in direction dir (see {@link #stageByLines}). */
    private int lineBase(int L0, int l, int dir) {
        int P = pts;
        int Q = nq;
        int base = L0 + l;
        if (dir == 0) {
            base = L0 + P * ((l % Q) + P * (l / Q));
        } else if (dir == 1) {
            base = L0 + (l % P) + P * P * (l / P);
        }
        return base;
    }

    /**
     * 3D structure: gradients and G at each point into local scratch, then D^T back, + lambda wJ u.
     * Factor k of point p of element e is gpool[geo + 7 e P^3 + k P^3 + p] (coalesced over p).
     */
    private void stiffness3D(int L0, int t, int T, int e, int valid, int le, int mD) {
        int P = pts;
        int P2 = P * P;
        int P3 = P2 * P;
        if (le < elemsPerGroup && valid == 1) {
            for (int p = t; p < P3; p += T) {
                int a = p % P;
                int b = (p / P) % P;
                int c = p / P2;
                double vr = 0;
                double vs = 0;
                double vt = 0;
                for (int m = 0; m < P; m++) {
                    vr += lds[mD + a * P + m] * lds[L0 + m + P * (b + P * c)];
                    vs += lds[mD + b * P + m] * lds[L0 + a + P * (m + P * c)];
                    vt += lds[mD + c * P + m] * lds[L0 + a + P * (b + P * m)];
                }
                int g = geo + 7 * e * P3 + p;
                double g01 = gpool[g + P3];
                double g02 = gpool[g + 2 * P3];
                double g12 = gpool[g + 4 * P3];
                lds[L0 + P3 + p] = gpool[g] * vr + g01 * vs + g02 * vt;
                lds[L0 + 2 * P3 + p] = g01 * vr + gpool[g + 3 * P3] * vs + g12 * vt;
                lds[L0 + 3 * P3 + p] = g02 * vr + g12 * vs + gpool[g + 5 * P3] * vt;
            }
        }
        localBarrier();
        if (le < elemsPerGroup && valid == 1) {
            for (int p = t; p < P3; p += T) {
                int a = p % P;
                int b = (p / P) % P;
                int c = p / P2;
                double y = lambda * gpool[geo + 7 * e * P3 + 6 * P3 + p] * lds[L0 + p];
                for (int m = 0; m < P; m++) {
                    y += lds[mD + m * P + a] * lds[L0 + P3 + m + P * (b + P * c)]
                            + lds[mD + m * P + b] * lds[L0 + 2 * P3 + a + P * (m + P * c)]
                            + lds[mD + m * P + c] * lds[L0 + 3 * P3 + a + P * (b + P * m)];
                }
                lds[L0 + p] = y;
            }
        }
        localBarrier();
    }

    /**
     * 2D layer-by-layer structure (NekBone 2D-thread kernels) without private arrays: work-item t owns
     * the columns (a,b) = t, t + T, ... First vt = D_c u along each own column goes into the t-grid; then
     * for each layer c the r- and s-fluxes of the layer go through local memory, the t-flux replaces vt
     * in the t-grid, and the r/s divergence (+ lambda wJ u) replaces u(.,.,c), which no later layer reads;
     * last each column adds D^T of its t-fluxes. The t-grid is {@link #tLocal} ? local : global scratch.
     */
    private void stiffness2D(int L0, int t, int T, int e, int valid, int le, int mD) {
        int P = pts;
        int P2 = P * P;
        int P3 = P2 * P;
        int sgr = L0 + P3;
        int sgs = L0 + P3 + P2;
        int tg = L0 + P3 + 2 * P2;
        if (tLocal == 0) {
            tg = scr + e * P3;
        }
        if (valid == 1) {
            for (int col = t; col < P2; col += T) {
                for (int c = 0; c < P; c++) {
                    double vt = 0;
                    for (int m = 0; m < P; m++) {
                        vt += lds[mD + c * P + m] * lds[L0 + col + P2 * m];
                    }
                    setT(tg + col + P2 * c, vt);
                }
            }
        }
        for (int c = 0; c < P; c++) {
            if (valid == 1) {
                for (int col = t; col < P2; col += T) {
                    int a = col % P;
                    int b = col / P;
                    double vr = 0;
                    double vs = 0;
                    for (int m = 0; m < P; m++) {
                        vr += lds[mD + a * P + m] * lds[L0 + m + P * (b + P * c)];
                        vs += lds[mD + b * P + m] * lds[L0 + a + P * (m + P * c)];
                    }
                    double vt = getT(tg + col + P2 * c);
                    int g = geo + 7 * e * P3 + col + P2 * c;
                    double g01 = gpool[g + P3];
                    double g02 = gpool[g + 2 * P3];
                    double g12 = gpool[g + 4 * P3];
                    lds[sgr + col] = gpool[g] * vr + g01 * vs + g02 * vt;
                    lds[sgs + col] = g01 * vr + gpool[g + 3 * P3] * vs + g12 * vt;
                    setT(tg + col + P2 * c, g02 * vr + g12 * vs + gpool[g + 5 * P3] * vt);
                }
            }
            localBarrier();
            if (valid == 1) {
                for (int col = t; col < P2; col += T) {
                    int a = col % P;
                    int b = col / P;
                    double y = lambda * gpool[geo + 7 * e * P3 + 6 * P3 + col + P2 * c] * lds[L0 + col + P2 * c];
                    for (int m = 0; m < P; m++) {
                        y += lds[mD + m * P + a] * lds[sgr + m + P * b] + lds[mD + m * P + b] * lds[sgs + a + P * m];
                    }
                    lds[L0 + col + P2 * c] = y;
                }
            }
            localBarrier();
        }
        if (valid == 1) {
            for (int col = t; col < P2; col += T) {
                for (int m = 0; m < P; m++) {
                    double y = lds[L0 + col + P2 * m];
                    for (int c = 0; c < P; c++) {
                        y += lds[mD + c * P + m] * getT(tg + col + P2 * c);
                    }
                    lds[L0 + col + P2 * m] = y;
                }
            }
        }
        localBarrier();
    }

    /** The t-grid of {@link #stiffness2D}: local memory, or the global scratch (written and read by one work-item). */
    private double getT(int i) {
        double v = 0;
        if (tLocal == 1) {
            v = lds[i];
        } else {
            v = dpool[i];
        }
        return v;
    }

    private void setT(int i, double v) {
        if (tLocal == 1) {
            lds[i] = v;
        } else {
            dpool[i] = v;
        }
    }
}
