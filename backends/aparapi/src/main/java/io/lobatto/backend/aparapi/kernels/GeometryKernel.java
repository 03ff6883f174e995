package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * The setup kernel of the geometric factors (libCEED's setup operator, NekRS's {@code geometricFactorsKernel}):
 * from each element's geometry nodes ({@link io.lobatto.core.mesh.ElementGeometry}: 8 vertices or 27 hex27 nodes)
 * and its point map, the packed factors (G00, G01, G02, G11, G12, G22, wJ) or wJ alone at the quadrature points,
 * with the arithmetic of {@link io.lobatto.core.mesh.ElementGeometry#relativePositions} and
 * {@link io.lobatto.core.geometry.ElementFactors} (every sum from 0 in ascending order of its index):
 * <ol>
 *   <li>the node positions at the Nq^3 GLL nodes relative to the element's first node: without a map the interpolant
 *       of the node differences X_c - X_0 (shape values phi that are 0 skipped); with a map the mapped interpolant
 *       minus the mapped first node ({@link #mapPoint()}, replaced by the map's translated {@code evaluate});</li>
 *   <li>for Gauss quadrature, I in three sum-factorised stages (r, s, t) to the P^3 points, one output per
 *       work-item per stage;</li>
 *   <li>per point the nine derivatives d x_d / d r_c (D along r, s, t), |J|, and the factors, written point-major
 *       into {@code out} ([E][P^3][fpp]); a point with |J| {@literal <=} 0 (or NaN) sets {@code bad[e]} = 1.</li>
 * </ol>
 * A work-group holds {@link #elemsPerGroup} elements of {@link #threadsPerElem} work-items each; each element has a
 * region of {@link #perElem} doubles: its node differences (3 (g+1)^3), the three coordinate grids at the GLL nodes
 * (3 Nq^3) and, for Gauss, the two stage grids of one coordinate (P Nq^2, P^2 Nq) and the three coordinate grids at
 * the points (3 P^3). The regions are in local memory, or with {@link #globalGrids} in the global scratch
 * {@link #scr} (one region per element slot of a launch), with the 1D matrices (w, I, D) in local memory at
 * {@link #ldsMat}. Launches cover elements e0 .. e0 + groups elemsPerGroup.
 */
public final class GeometryKernel extends Kernel {

    /** GLL points per direction Nq = N + 1 (an argument: one program serves every degree, quadrature and output). */
    int nq;
    /** Quadrature points per direction P: Nq (GLL) or Nq + 1 (Gauss). */
    int pts;
    /** 1 for Gauss quadrature. */
    int gauss;
    /** Geometry nodes per element, 8 or 27. */
    @BuildConstant int nodesPer;
    /** 1 when the element has a point map ({@link #mapPoint()}). */
    @BuildConstant int mapped;
    /** Coefficients of the map. */
    @BuildConstant int ncoef;
    /** Factors per point: 7 (packed G, wJ) or 1 (wJ). */
    int fpp;
    /** Element slots per work-group; the group's work-items past elemsPerGroup x threadsPerElem only share its barriers. */
    int elemsPerGroup;
    int threadsPerElem;
    /** Doubles per element region. */
    int perElem;
    /** Where the matrices start in local memory. */
    int ldsMat;
    /** 1 when the element regions live in {@link #scr}. */
    int globalGrids;

    /** The geometry nodes, [E][nodesPer][3]. */
    double[] nodes = new double[1];
    /** The shape functions at the GLL nodes, [Nq^3][nodesPer]. */
    double[] phi = new double[1];
    /** w (P), then I (P x Nq, Gauss only), then D (P x P). */
    double[] mats = new double[1];
    /** The map's coefficients. */
    double[] coef = new double[1];
    /** The factors, [E][P^3][fpp]. */
    double[] out = new double[1];
    /** 1 at the elements with a point of |J| {@literal <=} 0. */
    double[] bad = new double[1];
    /** The element regions when {@link #globalGrids}. */
    double[] scr = new double[1];
    int elems;
    /** The first element of this launch. */
    int e0;
    @Local double[] lds = new double[1];

    @PrivateMemorySpace(3) double[] px = new double[3];
    @PrivateMemorySpace(64) double[] pc = new double[64];
    @PrivateMemorySpace(3) double[] pout = new double[3];

    @Override
    public void run() {
        int lid = getLocalId();
        int T = threadsPerElem;
        int le = lid / T;
        int t = lid - le * T;
        int slot = getGroupId() * elemsPerGroup + le;
        int e = e0 + slot;
        int valid = 0;
        if (le < elemsPerGroup && e < elems) {
            valid = 1;
        }
        int Q = nq;
        int P = pts;
        int np = Q * Q * Q;
        int P3 = P * P * P;
        int nc = nodesPer;
        int L0 = le * perElem;
        if (globalGrids == 1) {
            L0 = slot * perElem;
        }
        int gX = L0 + 3 * nc;
        int gT1 = gX + 3 * np;
        int gT2 = gT1 + P * Q * Q;
        int gF = gT2 + P * P * Q;
        if (gauss == 0) {
            gF = gX;
        }
        int mW = ldsMat;
        int mI = mW + P;
        int mD = mI + gauss * P * Q;
        int nm = P + gauss * P * Q + P * P;
        for (int i = lid; i < nm; i += getLocalSize()) {
            lds[mW + i] = mats[i];
        }
        for (int k = 0; k < ncoef; k++) {
            pc[k] = coef[k];
        }
        // the element's nodes: differences X_c - X_0 (identity) or the nodes themselves (mapped)
        if (le < elemsPerGroup) {
            for (int i = t; i < 3 * nc; i += T) {
                double v = 0;
                if (valid == 1) {
                    int d = i % 3;
                    v = nodes[e * 3 * nc + i];
                    if (mapped == 0) {
                        v = v - nodes[e * 3 * nc + d];
                    }
                }
                put(L0 + i, v);
            }
        }
        localBarrier();
        // positions at the GLL nodes relative to the first node
        if (le < elemsPerGroup) {
            double x0 = 0;
            double y0 = 0;
            double z0 = 0;
            if (mapped == 1) {
                position(L0, 0, nc);
                mapPoint();
                x0 = pout[0];
                y0 = pout[1];
                z0 = pout[2];
            }
            for (int n = t; n < np; n += T) {
                double x = 0;
                double y = 0;
                double z = 0;
                if (mapped == 1) {
                    position(L0, n, nc);
                    mapPoint();
                    x = pout[0] - x0;
                    y = pout[1] - y0;
                    z = pout[2] - z0;
                } else {
                    for (int c = 1; c < nc; c++) {
                        double f = phi[nc * n + c];
                        if (f != 0) {
                            x += f * get(L0 + 3 * c);
                            y += f * get(L0 + 3 * c + 1);
                            z += f * get(L0 + 3 * c + 2);
                        }
                    }
                }
                put(gX + n, x);
                put(gX + np + n, y);
                put(gX + 2 * np + n, z);
            }
        }
        localBarrier();
        if (gauss == 1) {
            // one call site in a loop (PoCL makes a work-item-loop region of each inlined copy of a barrier loop)
            for (int d = 0; d < 3; d++) {
                interpolate(gX + d * np, gT1, P * Q * Q, 0, t, T, le, mI);
                interpolate(gT1, gT2, P * P * Q, 1, t, T, le, mI);
                interpolate(gT2, gF + d * P3, P3, 2, t, T, le, mI);
            }
        }
        if (valid == 1) {
            for (int pt = t; pt < P3; pt += T) {
                factors(e, pt, gF, mW, mD);
            }
        }
    }

    /** Into {@link #px}: the interpolant sum_c phi_c X_c at GLL node n (phi = 0 skipped), X_c the nodes at L0. */
    private void position(int L0, int n, int nc) {
        double a = 0;
        double b = 0;
        double d = 0;
        for (int c = 0; c < nc; c++) {
            double f = phi[nc * n + c];
            if (f != 0) {
                a += f * get(L0 + 3 * c);
                b += f * get(L0 + 3 * c + 1);
                d += f * get(L0 + 3 * c + 2);
            }
        }
        px[0] = a;
        px[1] = b;
        px[2] = d;
    }

    /**
     * One stage of I (P x Nq) from grid src to grid dst, one output per work-item, as ElementFactors.interpolate:
     * stage 0 gives t1[a + P(j + Nq k)] = sum_i I_ai u[i + Nq(j + Nq k)], stage 1 t2[a + P(b + P k)] =
     * sum_j I_bj t1[a + P(j + Nq k)], stage 2 x[a + P(b + P c)] = sum_k I_ck t2[a + P(b + P k)].
     */
    private void interpolate(int src, int dst, int count, int stage, int t, int T, int le, int mI) {
        int P = pts;
        int Q = nq;
        if (le < elemsPerGroup) {
            for (int o = t; o < count; o += T) {
                double s = 0;
                if (stage == 0) {
                    int a = o % P;
                    int jk = o / P;
                    for (int i = 0; i < Q; i++) {
                        s += lds[mI + a * Q + i] * get(src + i + Q * jk);
                    }
                } else if (stage == 1) {
                    int a = o % P;
                    int b = (o / P) % P;
                    int k = o / (P * P);
                    for (int j = 0; j < Q; j++) {
                        s += lds[mI + b * Q + j] * get(src + a + P * (j + Q * k));
                    }
                } else {
                    int ab = o % (P * P);
                    int c = o / (P * P);
                    for (int k = 0; k < Q; k++) {
                        s += lds[mI + c * Q + k] * get(src + ab + P * P * k);
                    }
                }
                put(dst + o, s);
            }
        }
        localBarrier();
    }

    /** The factors of point pt of element e from the coordinate grids at gF, as ElementFactors.write. */
    private void factors(int e, int pt, int gF, int mW, int mD) {
        int P = pts;
        int P2 = P * P;
        int P3 = P2 * P;
        int i = pt % P;
        int j = (pt / P) % P;
        int k = pt / P2;
        int jk = pt - i;
        int ij = pt - P2 * k;
        double j00 = 0;
        double j01 = 0;
        double j02 = 0;
        double j10 = 0;
        double j11 = 0;
        double j12 = 0;
        double j20 = 0;
        double j21 = 0;
        double j22 = 0;
        for (int a = 0; a < P; a++) {
            double dr = lds[mD + i * P + a];
            j00 += dr * get(gF + a + jk);
            j10 += dr * get(gF + P3 + a + jk);
            j20 += dr * get(gF + 2 * P3 + a + jk);
        }
        int sk = P2 * k + i;
        for (int a = 0; a < P; a++) {
            double ds = lds[mD + j * P + a];
            j01 += ds * get(gF + sk + P * a);
            j11 += ds * get(gF + P3 + sk + P * a);
            j21 += ds * get(gF + 2 * P3 + sk + P * a);
        }
        for (int a = 0; a < P; a++) {
            double dt = lds[mD + k * P + a];
            j02 += dt * get(gF + ij + P2 * a);
            j12 += dt * get(gF + P3 + ij + P2 * a);
            j22 += dt * get(gF + 2 * P3 + ij + P2 * a);
        }
        double c00 = j11 * j22 - j12 * j21;
        double c01 = j12 * j20 - j10 * j22;
        double c02 = j10 * j21 - j11 * j20;
        double det = j00 * c00 + j01 * c01 + j02 * c02;
        int o = (e * P3 + pt) * fpp;
        if (det > 0) {
            double wj = lds[mW + i] * lds[mW + j] * lds[mW + k] * det;
            if (fpp == 1) {
                out[o] = wj;
            } else {
                double inv = 1 / det;
                double i00 = c00 * inv;
                double i01 = (j02 * j21 - j01 * j22) * inv;
                double i02 = (j01 * j12 - j02 * j11) * inv;
                double i10 = c01 * inv;
                double i11 = (j00 * j22 - j02 * j20) * inv;
                double i12 = (j02 * j10 - j00 * j12) * inv;
                double i20 = c02 * inv;
                double i21 = (j01 * j20 - j00 * j21) * inv;
                double i22 = (j00 * j11 - j01 * j10) * inv;
                out[o] = wj * (i00 * i00 + i01 * i01 + i02 * i02);
                out[o + 1] = wj * (i00 * i10 + i01 * i11 + i02 * i12);
                out[o + 2] = wj * (i00 * i20 + i01 * i21 + i02 * i22);
                out[o + 3] = wj * (i10 * i10 + i11 * i11 + i12 * i12);
                out[o + 4] = wj * (i10 * i20 + i11 * i21 + i12 * i22);
                out[o + 5] = wj * (i20 * i20 + i21 * i21 + i22 * i22);
                out[o + 6] = wj;
            }
        } else {
            bad[e] = 1;
        }
    }

    /** An element region's value: local memory, or the global scratch. */
    private double get(int i) {
        double v = 0;
        if (globalGrids == 1) {
            v = scr[i];
        } else {
            v = lds[i];
        }
        return v;
    }

    private void put(int i, double v) {
        if (globalGrids == 1) {
            scr[i] = v;
        } else {
            lds[i] = v;
        }
    }

    /**
     * The placeholder for the map at one point, replaced by a call of the translated {@code evaluate(x, c, out)} on
     * {@link #px}, {@link #pc}, {@link #pout}.
     */
    private void mapPoint() {
        pout[0] = px[0] + pc[0];
        pout[1] = px[1];
        pout[2] = px[2];
    }
}
