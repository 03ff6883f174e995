package io.lobatto.backend.aparapi.kernels;

import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * What the element kernels BP1.0, BP3.5 and BP3.0 share (tensor-product paper, kernel sequences 1-3;
 * NekBone's 2D-thread kernels): the sum-factorised GLL -> GL interpolation I and its transpose, the
 * stiffness D^T G D at the quadrature points (3D structure: one work-item per point; 2D: one per
 * (a,b) column looping over the layers), and the read of u from x_L or, for hipBone's fused operator,
 * from x_G through the scatter ids. The degree, the points per direction and the work-group plan are
 * build constants, so every loop bound is known to the compiler. The subclasses fix the operator.
 */
public abstract class ElementKernelBase extends PointColumnOperands {

    /** Quadrature points per direction P: Nq (BP3.5) or Nq + 1 (GL). */
    @BuildConstant int pts;
    @BuildConstant int threadsPerElem;
    /** Local doubles per element. */
    @BuildConstant int perElem;
    /** 1 for GL quadrature (BP1.0, BP3.0). */
    @BuildConstant int gauss;
    /** 1 for the stiffness kernels. */
    @BuildConstant int stiff;
    /** 1 for one work-item per point, 0 for the 2D layer-by-layer structure. */
    @BuildConstant int threeD;
    /** 1 when the GL stages run point-parallel between two P^3 grids, 0 in place by lines. */
    @BuildConstant int pointInterp;
    /** 2D stiffness: 1 when the t-fluxes live in local memory, 0 in the global scratch. */
    @BuildConstant int tLocal;
    /** Row stride of D in local memory: P, or P + 1 when P is even (odd strides avoid bank conflicts). */
    @BuildConstant int dStride;
    /** Where in lds the group stages I and D (after its elements' regions). */
    @BuildConstant int ldsMat;
    /**
     * 3D stiffness: 1, the points t, t + T, ... of the element; else K, the layers K s .. K s + K - 1 of column (a, b)
     * that work-item t = (a + P b) + P^2 s takes (at most 8, the size of the gradient arrays).
     */
    @BuildConstant int perColumn;
    /**
     * Where the 3D stiffness reads its points' geometric factors: 0 where they are used, point by point; 1 early, with u
     * before the first barrier, into registers ({@link #q00} ..), so that their loads overlap the gather of u (columns,
     * {@link #perColumn} &gt; 1, and one point per work-item); 2 all K points' at once after the gradient sums (columns).
     */
    @BuildConstant int prefetch;

    /** The K points' factors G00 .. G22 ({@link #prefetch}). */
    @PrivateMemorySpace(8) double[] q00 = new double[8];
    @PrivateMemorySpace(8) double[] q01 = new double[8];
    @PrivateMemorySpace(8) double[] q02 = new double[8];
    @PrivateMemorySpace(8) double[] q11 = new double[8];
    @PrivateMemorySpace(8) double[] q12 = new double[8];
    @PrivateMemorySpace(8) double[] q22 = new double[8];

    /** The 2D stiffness's global t-flux scratch when the t-fluxes do not fit the local memory. */
    double[] scr = new double[1];

    /**
     * One launch of BP1.0 / BP3.5 / BP3.0 (and the element part of the fused assembled operator).
     * A work-group holds {@link #elemsPerGroup} elements, each with {@link #threadsPerElem} work-items
     * and a region of {@link #perElem} doubles of {@link #lds}: the element's values on a P^3 grid
     * (P = pts: Nq for BP3.5, Nq+1 GL points otherwise; index a + P(b + Pc)), a second P^3 grid when the
     * GL stages run point-parallel ({@link #pointInterp}), and gradient scratch. After the elements'
     * regions, at {@link #ldsMat}, the group stages the 1D matrices: I (P x Nq), then D (P x P).
     * 3D structure ({@link #threeD} = 1): one work-item per point; 2D structure: one work-item per
     * (a,b) column (or several, when P^2 exceeds the group) looping over the layers c.
     * Buffers: x input (x_L, or x_G read through the scatter ids when {@link #fromGlobal}), y output
     * y_L, w the inverse degree W, matI interpolation I, matD differentiation, the geometric factors
     * G00, G01, G02, G11, G12, G22, wJ each as one buffer [E][P^3]. Each element slot takes max(1, {@link #sweep})
     * elements in turn.
     */
    protected final void element() {
        beginElementDot();
        int lid = getLocalId();
        int T = threadsPerElem;
        int le = lid / T;
        int t = lid - le * T;
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
            lds[mI + i] = matI[i];
        }
        for (int i = lid; i < nD; i += getLocalSize()) {
            lds[mD + (i / P) * dStride + i % P] = matD[i];
        }
        int slots = (np + T - 1) / T;
        int count = sweep;
        if (count < 1) {
            count = 1;
        }
        for (int i = 0; i < count; i++) {
            elementOf(lid, T, le, t, (getGroupId() * count + i) * elemsPerGroup + le, i, P, P3, L0, Q, np, mI, nI, mD, slots);
        }
        // p . A p of the group's elements (ATOMIC_DOT; the 3D stiffness sums u y where y replaces u)
        endElementDot();
    }

    /**
     * Element {@code firstElem + slotElem} of work-item t of slot le, the i-th of its sweep ({@link #sweep}): its u
     * (loaded, or with a sweep from the registers the previous element filled), the stages, the stiffness, its output.
     */
    private void elementOf(int lid, int T, int le, int t, int slotElem, int i, int P, int P3, int L0, int Q, int np, int mI,
                           int nI, int mD, int slots) {
        int e = firstElem + slotElem;
        int valid = 0;
        if (le < elemsPerGroup && e < elems) {
            valid = 1;
        }
        if (sweep >= 1) {
            // this element's u from the registers (the first of the sweep loads them now), then the next one's in flight
            // across the first barrier and the sums
            if (i == 0) {
                loadSlots(e, valid, t, T, np, slots);
            }
            for (int j = 0; j < slots; j++) {
                int p = t + j * T;
                if (p < np) {
                    lds[L0 + p] = un[j];
                    idc[j] = idn[j];
                }
            }
        }
        if (sweep == 0 && le < elemsPerGroup) {
            // load u (masked nodes read as 0 when gathering from x_G through the scatter ids)
            for (int p = t; p < np; p += T) {
                double u = 0;
                if (valid == 1) {
                    if (gauss == 1) {
                        u = readU(e * np + p);
                    } else {
                        u = readUGuarded(e * np + p);
                    }
                }
                lds[L0 + gridIndex(p, Q, P)] = u;
            }
        }
        if (stiff == 1 && threeD == 1 && prefetch == 1 && valid == 1) {
            if (perColumn > 1) {
                columnFactors(t, e);
            } else if (t < P3) {
                pointFactors(e * P3 + t);
            }
        }
        localBarrier();
        if (sweep > 1 && i + 1 < sweep) {
            int next = e + elemsPerGroup;
            int nextValid = 0;
            if (le < elemsPerGroup && next < elems) {
                nextValid = 1;
            }
            loadSlots(next, nextValid, t, T, np, slots);
        }
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
                    lds[cur + p] = lds[cur + p] * wJ[e * P3 + p];
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
            if (threeD == 1 && perColumn > 1) {
                stiffnessColumns(L0, t, e, valid, mD);
            } else if (threeD == 1) {
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
        if (sweep >= 1) {
            if (valid == 1) {
                for (int j = 0; j < slots; j++) {
                    int p = t + j * T;
                    if (p < np) {
                        double v = withShift(e * np + p, lds[cur + p]);
                        // the atomic form adds at the id loaded with u: no second read of it, no wait on it
                        if (fromGlobal < ATOMIC) {
                            store(e * np + p, v);
                        }
                        if (fromGlobal >= ATOMIC && idc[j] >= 0) {
                            addToGlobal(idc[j], v);
                        }
                    }
                }
            }
        }
        if (sweep == 0 && valid == 1) {
            for (int p = t; p < np; p += T) {
                store(e * np + p, withShift(e * np + p, lds[cur + gridIndex(p, Q, P)]));
            }
        }
    }

    /**
     * The output v at local node li, plus shift W u for the fused assembled operator, where shift is not 0: W and u are
     * read only then (CG's and the benchmarks' operators have shift 0; the two reads were 12 of the ~60 bytes per node
     * of the stored-factor BP3.5 kernels).
     */
    private double withShift(int li, double v) {
        double out = v;
        if (fromGlobal >= 1) {
            if (shift != 0) {
                if (gauss == 1) {
                    out += shift * w[li] * readU(li);
                } else {
                    out += shift * w[li] * readUGuarded(li);
                }
            }
        }
        return out;
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
     * Factor k of point p of element e is at e P^3 + p of its buffer (coalesced over p).
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
                    vr += lds[mD + a * dStride + m] * lds[L0 + m + P * (b + P * c)];
                    vs += lds[mD + b * dStride + m] * lds[L0 + a + P * (m + P * c)];
                    vt += lds[mD + c * dStride + m] * lds[L0 + a + P * (b + P * m)];
                }
                if (prefetch == 1 && T >= P3) {
                    // one point per work-item, its factors loaded with u
                    lds[L0 + P3 + p] = q00[0] * vr + q01[0] * vs + q02[0] * vt;
                    lds[L0 + 2 * P3 + p] = q01[0] * vr + q11[0] * vs + q12[0] * vt;
                    lds[L0 + 3 * P3 + p] = q02[0] * vr + q12[0] * vs + q22[0] * vt;
                } else {
                    int g = e * P3 + p;
                    double g01 = G01[g];
                    double g02 = G02[g];
                    double g12 = G12[g];
                    lds[L0 + P3 + p] = G00[g] * vr + g01 * vs + g02 * vt;
                    lds[L0 + 2 * P3 + p] = g01 * vr + G11[g] * vs + g12 * vt;
                    lds[L0 + 3 * P3 + p] = g02 * vr + g12 * vs + G22[g] * vt;
                }
            }
        }
        localBarrier();
        if (le < elemsPerGroup && valid == 1) {
            for (int p = t; p < P3; p += T) {
                int a = p % P;
                int b = (p / P) % P;
                int c = p / P2;
                double y = lambda * wJ[e * P3 + p] * lds[L0 + p];
                for (int m = 0; m < P; m++) {
                    y += lds[mD + m * dStride + a] * lds[L0 + P3 + m + P * (b + P * c)]
                            + lds[mD + m * dStride + b] * lds[L0 + 2 * P3 + a + P * (m + P * c)]
                            + lds[mD + m * dStride + c] * lds[L0 + 3 * P3 + a + P * (b + P * m)];
                }
                elementDot(lds[L0 + p], y);
                lds[L0 + p] = y;
            }
        }
        localBarrier();
    }

    /**
     * 3D stiffness with K = {@link #perColumn} layers per work-item: work-item (a + P b) + P^2 s takes the points (a, b, c),
     * c = K s .. K s + K - 1: their gradients ({@link #columnGradients}), the fluxes G grad u into the three grids; after the
     * barrier D^T back ({@link #columnDivergence}) + lambda wJ u (wJ read only where lambda is not 0), y replacing u at
     * the own points. Layers past P - 1 (the last slot where K does not divide P) write nothing.
     */
    private void stiffnessColumns(int L0, int t, int e, int valid, int mD) {
        int P = pts;
        int P2 = P * P;
        int P3 = P2 * P;
        int S = dStride;
        int K = perColumn;
        int col = t % P2;
        int c0 = (t / P2) * K;
        int fr = L0 + P3;
        int fs = fr + P3;
        int ft = fs + P3;
        if (valid == 1) {
            columnGradients(L0, P, K, S, mD, col, c0);
            if (prefetch == 2) {
                columnFactors(t, e);
            }
            for (int k = 0; k < K; k++) {
                int p = col + P2 * (c0 + k);
                if (c0 + k < P) {
                    if (prefetch == 0) {
                        int g = e * P3 + p;
                        double g01 = G01[g];
                        double g02 = G02[g];
                        double g12 = G12[g];
                        lds[fr + p] = G00[g] * gr[k] + g01 * gs[k] + g02 * gt[k];
                        lds[fs + p] = g01 * gr[k] + G11[g] * gs[k] + g12 * gt[k];
                        lds[ft + p] = g02 * gr[k] + g12 * gs[k] + G22[g] * gt[k];
                    } else {
                        lds[fr + p] = q00[k] * gr[k] + q01[k] * gs[k] + q02[k] * gt[k];
                        lds[fs + p] = q01[k] * gr[k] + q11[k] * gs[k] + q12[k] * gt[k];
                        lds[ft + p] = q02[k] * gr[k] + q12[k] * gs[k] + q22[k] * gt[k];
                    }
                }
            }
        }
        localBarrier();
        if (valid == 1) {
            columnDivergence(fr, P, K, S, mD, col, c0);
            // y replaces u at the own points only, which no other work-item reads after the barrier (wJ read only where
            // lambda is not 0)
            for (int k = 0; k < K; k++) {
                int c = c0 + k;
                if (c < P) {
                    int p = col + P2 * c;
                    double y = gr[k];
                    if (lambda != 0) {
                        y += lambda * wJ[e * P3 + p] * lds[L0 + p];
                    }
                    elementDot(lds[L0 + p], y);
                    lds[L0 + p] = y;
                }
            }
        }
        localBarrier();
    }

    /**
     * The geometric factors of work-item t's K points (a, b, c), c = K s .. K s + K - 1 ({@link #stiffnessColumns}), into
     * {@link #q00} .. {@link #q22}; layers past P - 1 read nothing.
     */
    private void columnFactors(int t, int e) {
        int P = pts;
        int P2 = P * P;
        int K = perColumn;
        int c0 = (t / P2) * K;
        int g0 = e * P2 * P + t % P2;
        for (int k = 0; k < K; k++) {
            if (c0 + k < P) {
                int g = g0 + P2 * (c0 + k);
                q00[k] = G00[g];
                q01[k] = G01[g];
                q02[k] = G02[g];
                q11[k] = G11[g];
                q12[k] = G12[g];
                q22[k] = G22[g];
            }
        }
    }

    /** The geometric factors at index g into {@link #q00} .. {@link #q22}, slot 0 (one point per work-item). */
    private void pointFactors(int g) {
        q00[0] = G00[g];
        q01[0] = G01[g];
        q02[0] = G02[g];
        q11[0] = G11[g];
        q12[0] = G12[g];
        q22[0] = G22[g];
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
            tg = e * P3;
        }
        if (valid == 1) {
            for (int col = t; col < P2; col += T) {
                for (int c = 0; c < P; c++) {
                    double vt = 0;
                    for (int m = 0; m < P; m++) {
                        vt += lds[mD + c * dStride + m] * lds[L0 + col + P2 * m];
                    }
                    writeTFlux(tg + col + P2 * c, vt);
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
                        vr += lds[mD + a * dStride + m] * lds[L0 + m + P * (b + P * c)];
                        vs += lds[mD + b * dStride + m] * lds[L0 + a + P * (m + P * c)];
                    }
                    double vt = readTFlux(tg + col + P2 * c);
                    int g = e * P3 + col + P2 * c;
                    double g01 = G01[g];
                    double g02 = G02[g];
                    double g12 = G12[g];
                    lds[sgr + col] = G00[g] * vr + g01 * vs + g02 * vt;
                    lds[sgs + col] = g01 * vr + G11[g] * vs + g12 * vt;
                    writeTFlux(tg + col + P2 * c, g02 * vr + g12 * vs + G22[g] * vt);
                }
            }
            localBarrier();
            if (valid == 1) {
                for (int col = t; col < P2; col += T) {
                    int a = col % P;
                    int b = col / P;
                    double y = lambda * wJ[e * P3 + col + P2 * c] * lds[L0 + col + P2 * c];
                    for (int m = 0; m < P; m++) {
                        y += lds[mD + m * dStride + a] * lds[sgr + m + P * b] + lds[mD + m * dStride + b] * lds[sgs + a + P * m];
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
                        y += lds[mD + c * dStride + m] * readTFlux(tg + col + P2 * c);
                    }
                    lds[L0 + col + P2 * m] = y;
                }
            }
        }
        localBarrier();
    }

    /** The t-grid of {@link #stiffness2D}: local memory, or the global scratch (written and read by one work-item). */
    private double readTFlux(int i) {
        double v = 0;
        if (tLocal == 1) {
            v = lds[i];
        } else {
            v = scr[i];
        }
        return v;
    }

    private void writeTFlux(int i, double v) {
        if (tLocal == 1) {
            lds[i] = v;
        } else {
            scr[i] = v;
        }
    }
}
