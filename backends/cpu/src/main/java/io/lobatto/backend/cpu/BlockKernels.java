package io.lobatto.backend.cpu;

import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;

/**
 * The element kernels BP1.0, BP3.5 and BP3.0 on blocks of B elements in the interleaved layout of
 * {@link TensorBlock}, with the geometric factors re-laid out per block once, at upload.
 *
 * <p>Layouts of a block (slowest direction first, the element index b fastest after them):
 * T = [i][k][j] is the layout of the nodal input and output u, y (i is r, j is s, k is t); S = [j][k][i]
 * is T with the slowest and fastest directions exchanged ({@link TensorBlock#swap}). The contractions
 * along r and t run on T, the one along s on S.
 * <ul>
 * <li>BP3.5: y = D^T G D u + lambda wJ u (tensor paper, Algorithm 4): u_r, u_t on T, u_s on S and
 *     swapped to T; G (factors on T) applied pointwise; D^T along r and t added on T, along s on S and
 *     swapped back.</li>
 * <li>BP1.0: y = I^T wJ I u (Algorithms 1-3): I along r (T), t (middle), then swap and I along s, which
 *     leaves the GL values on S; wJ (on S) applied; I^T along s, t, swap, r brings y back to T.</li>
 * <li>BP3.0: y = I^T (D~^T G D~ + lambda wJ) I u (Algorithm 5): interpolation as in BP1.0 to S, the
 *     gradient on GL points as in BP3.5 with the roles of T and S exchanged, projection as in BP1.0.</li>
 * </ul>
 */
final class BlockKernels {

    /**
     * Launches of an operator that run the {@link TensorBlockLoops} contractions before it switches to the generated
     * ones ({@code -Dlobatto.cpu.compactLaunches}; unset: {@link #AUTO}, as many launches as make
     * {@value #COMPACT_WORK} element-local nodes, at least one). On a fresh JVM the generated kernels (a few dozen large
     * methods per degree) are interpreted for their first hundred calls each and then compiled by C1 and C2, a cost that
     * only many launches repay; the loops are a few small methods shared by every degree, compiled after the first few
     * blocks. A small operator (the README job's, 216 elements at N = 7: 110 592 nodes, 304 launches) then never runs the
     * generated kernels, a large one (32^3 elements at N = 7: 16.8M nodes) runs two launches on the loops. Both give the
     * same bits. {@code 0}: the generated contractions from the first launch (the behaviour before).
     */
    static final int COMPACT_LAUNCHES = compactLaunches(System.getProperty("lobatto.cpu.compactLaunches"));

    /** {@link #COMPACT_LAUNCHES} when the property is unset: launches by {@link #COMPACT_WORK}. */
    static final int AUTO = -1;

    /** Element-local nodes an operator applies on the loops (in all its launches) when the property is unset: 2^25. */
    static final long COMPACT_WORK = 1L << 25;

    /** The launches on the loops of an operator of {@code localNodes} element-local nodes under {@code setting}. */
    static int compactLaunches(int setting, long localNodes) {
        if (setting != AUTO) {
            return setting;
        }
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (COMPACT_WORK + localNodes - 1) / Math.max(1, localNodes)));
    }

    /** The generated contractions of this degree. */
    final TensorBlock tb;
    /** The loop contractions of this degree and block size (same bits as {@link #tb}). */
    final TensorBlock compact;
    /** The launches of this operator on {@link #compact} ({@link #compactLaunches(int, long)}). */
    private int compactLaunches;
    /** The contractions the next launch runs: {@link #compact} for the first {@link #compactLaunches} launches. */
    private volatile TensorBlock contractions;
    private int launches;
    final ElementKernel kernel;
    final int elements;
    final int blocks;
    /** Elements per block. */
    final int b;
    /** GLL nodes per element and per block. */
    final int np;
    final int npBlock;
    /** Length of a block tensor on the quadrature points. */
    final int npqBlock;
    /** Natural node index (i + n(j + n k)) of each position of layout T; the gather order of a block. */
    final int[] naturalOfT;
    private final double[] d;
    private final double[] dt;
    private final double[] interp;
    private final double[] interpT;
    private final double[] dGl;
    private final double[] dGlT;
    /** Factors per point of the kernel (1 for BP1.0, 7 else). */
    private final int factors;
    /** Geometric factors per block: {@code geo[block * factors + f]} holds factor f on the block's layout. */
    private final double[][] geo;

    /** Per-worker block tensors. */
    static final class Scratch {
        final double[] u;
        final double[] y;
        final double[] t1;
        final double[] t2;
        final double[] vr;
        final double[] vs;
        final double[] vt;
        final double[] v;

        Scratch(int length) {
            u = new double[length];
            y = new double[length];
            t1 = new double[length];
            t2 = new double[length];
            vr = new double[length];
            vs = new double[length];
            vt = new double[length];
            v = new double[length];
        }
    }

    BlockKernels(TensorBlock tb, ElementKernel kernel, Basis1D basis, int elements, double[] geometricData) {
        this.tb = tb;
        this.compact = new TensorBlockLoops(tb.degree, tb.b);
        this.compactLaunches = compactLaunches(COMPACT_LAUNCHES, (long) elements * tb.n * tb.n * tb.n);
        this.contractions = compactLaunches > 0 ? compact : tb;
        this.kernel = kernel;
        this.elements = elements;
        this.b = tb.b;
        this.blocks = (elements + b - 1) / b;
        final int n = tb.n;
        final int m = tb.m;
        this.np = n * n * n;
        this.npBlock = np * b;
        this.npqBlock = (kernel.usesGaussQuadrature() ? m * m * m : np) * b;
        this.d = basis.differentiation();
        this.dt = Contractions.transpose(d, n, n);
        this.interp = basis.interpolation();
        this.interpT = Contractions.transpose(interp, m, n);
        this.dGl = basis.gaussDifferentiation();
        this.dGlT = Contractions.transpose(dGl, m, m);
        this.naturalOfT = new int[np];
        for (int i = 0, t = 0; i < n; i++) {
            for (int k = 0; k < n; k++) {
                for (int j = 0; j < n; j++, t++) {
                    naturalOfT[t] = i + n * (j + n * k);
                }
            }
        }
        this.factors = kernel.factorsPerPoint();
        // the factors of BP3.5 live on T (GLL), those of BP1.0 and BP3.0 on S (GL)
        int q = kernel.usesGaussQuadrature() ? m : n;
        int points = q * q * q;
        int[] naturalOfLayout = new int[points];
        for (int s = 0, t = 0; s < q; s++) {
            for (int k = 0; k < q; k++) {
                for (int f = 0; f < q; f++, t++) {
                    // T: s = i, f = j; S: s = j, f = i
                    naturalOfLayout[t] = kernel.usesGaussQuadrature() ? f + q * (s + q * k) : s + q * (f + q * k);
                }
            }
        }
        this.geo = new double[blocks * factors][];
        for (int blk = 0; blk < blocks; blk++) {
            for (int f = 0; f < factors; f++) {
                double[] g = new double[points * b];
                for (int e = 0; e < b; e++) {
                    long el = (long) blk * b + e;
                    if (el >= elements) {
                        continue; // padding: zero factors, zero result
                    }
                    long base = el * points;
                    for (int t = 0; t < points; t++) {
                        g[t * b + e] = geometricData[(int) ((base + naturalOfLayout[t]) * factors + f)];
                    }
                }
                geo[blk * factors + f] = g;
            }
        }
    }

    /**
     * {@code -Dlobatto.cpu.compactLaunches}: a count >= 0, or the default for null.
     *
     * @throws IllegalArgumentException naming the property and the value when it is not a count >= 0
     */
    static int compactLaunches(String value) {
        if (value == null) {
            return AUTO;
        }
        try {
            int v = Integer.parseInt(value.trim());
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("-Dlobatto.cpu.compactLaunches = '" + value + "' must be a count >= 0 (launches of an "
                + "operator on the loop contractions before the generated ones)");
    }

    /** The contractions this launch runs ({@link #compact} or {@link #tb}); call {@link #launched} after it. */
    TensorBlock contractions() {
        return contractions;
    }

    /** The launches of this operator on the loops, then the generated contractions (before its first launch; tests). */
    synchronized void compactLaunches(int launches) {
        this.compactLaunches = launches;
        this.contractions = launches > this.launches ? compact : tb;
    }

    /** The launches of this operator on the loops. */
    synchronized int compactLaunches() {
        return compactLaunches;
    }

    /** Counts a finished launch (on the launching thread): after {@link #compactLaunches} the generated contractions. */
    synchronized void launched() {
        if (++launches >= compactLaunches) {
            contractions = tb;
        }
    }

    Scratch newScratch() {
        int n = tb.n, m = tb.m;
        return new Scratch(Math.max(n * n * n, m * m * m) * b);
    }

    /**
     * y = L u on block {@code blk} with the contractions {@code tb} ({@link #contractions()} of the launch): {@code s.u}
     * holds u on T, {@code s.y} gets y on T.
     */
    void apply(TensorBlock tb, int blk, double lambda, Scratch s) {
        switch (kernel) {
            case STIFFNESS_BP35 -> bp35(tb, blk, lambda, s);
            case MASS_BP10 -> bp10(tb, blk, s);
            case STIFFNESS_BP30 -> bp30(tb, blk, lambda, s);
            default -> throw new IllegalStateException("unknown kernel " + kernel);
        }
    }

    /** BP3.5: y = D^T G D u + lambda wJ u. */
    private void bp35(TensorBlock tb, int blk, double lambda, Scratch s) {
        final int n = tb.n;
        final double[] u = s.u, y = s.y, ur = s.vr, us = s.vs, ut = s.vt, w = s.t1, t = s.t2;
        tb.gradSlow(d, u, ur, false);
        tb.gradMid(d, u, ut, false);
        tb.swap(u, n, n, n, w, false);
        tb.gradSlow(d, w, t, false);
        tb.swap(t, n, n, n, us, false);
        int g = blk * 7;
        // G (u_r, u_s, u_t): the r part into v, the s part into w, the t part in place
        final double[] fr = s.v, fs = w, ft = ut;
        applyG(geo[g], geo[g + 1], geo[g + 2], geo[g + 3], geo[g + 4], geo[g + 5], ur, us, ut, fr, fs, npBlock);
        // at lambda = 0 (BP5) the mass term is not formed: wJ is not read, the first contraction sets y
        if (lambda != 0) {
            massTerm(lambda, geo[g + 6], u, y, npBlock);
        }
        tb.gradSlow(dt, fr, y, lambda != 0);
        tb.gradMid(dt, ft, y, true);
        tb.swap(fs, n, n, n, us, false);
        tb.gradSlow(dt, us, t, false);
        tb.swap(t, n, n, n, y, true);
    }

    /** BP1.0: y = I^T wJ I u. */
    private void bp10(TensorBlock tb, int blk, Scratch s) {
        final double[] v = s.v;
        interpolate(tb, s.u, v, s);
        final double[] wj = geo[blk];
        for (int c = 0; c < npqBlock; c++) {
            v[c] *= wj[c];
        }
        project(tb, v, s.y, s);
    }

    /** BP3.0: y = I^T (D~^T G D~ + lambda wJ) I u. */
    private void bp30(TensorBlock tb, int blk, double lambda, Scratch s) {
        final int m = tb.m;
        final double[] v = s.v, vr = s.vr, vs = s.vs, vt = s.vt, t1 = s.t1, t2 = s.t2;
        interpolate(tb, s.u, v, s);
        tb.gaussSlow(dGl, v, vs, false);
        tb.gaussMid(dGl, v, vt, false);
        tb.swap(v, m, m, m, t1, false);
        tb.gaussSlow(dGl, t1, t2, false);
        tb.swap(t2, m, m, m, vr, false);
        int g = blk * 7;
        // G (v_r, v_s, v_t): the r part into t1, the s part into t2, the t part in place
        applyG(geo[g], geo[g + 1], geo[g + 2], geo[g + 3], geo[g + 4], geo[g + 5], vr, vs, vt, t1, t2, npqBlock);
        if (lambda != 0) {
            massTerm(lambda, geo[g + 6], v, v, npqBlock);
        }
        tb.gaussSlow(dGlT, t2, v, lambda != 0);
        tb.gaussMid(dGlT, vt, v, true);
        tb.swap(t1, m, m, m, vr, false);
        tb.gaussSlow(dGlT, vr, t2, false);
        tb.swap(t2, m, m, m, v, true);
        project(tb, v, s.y, s);
    }

    /** I along r, t, s: u (n^3 on T) to v (m^3 on S). */
    private void interpolate(TensorBlock tb, double[] u, double[] v, Scratch s) {
        final int n = tb.n, m = tb.m;
        tb.interpSlowN(interp, u, s.t1);
        tb.interpMid(interp, s.t1, s.t2);
        tb.swap(s.t2, m, m, n, s.t1, false);
        tb.interpSlowM(interp, s.t1, v);
    }

    /** I^T along s, t, r: v (m^3 on S) to y (n^3 on T). */
    private void project(TensorBlock tb, double[] v, double[] y, Scratch s) {
        final int n = tb.n, m = tb.m;
        tb.projectSlowM(interpT, v, s.t1);
        tb.projectMid(interpT, s.t1, s.t2);
        tb.swap(s.t2, n, n, m, s.t1, false);
        tb.projectSlowN(interpT, s.t1, y);
    }

    /**
     * (ra, rb, c) = G (a, b, c) pointwise, G symmetric with entries g00, g01, g02, g11, g12, g22: the first two rows into
     * ra and rb, the third in place in c. One loop per row: C2 vectorises a loop only when it unrolls it, and it does not
     * unroll the one loop of all three rows (its body is over {@code -XX:LoopUnrollLimit}'s default), which then ran 2x
     * slower on 512-bit vectors. Each row is summed in the same order as before, so the same bits.
     */
    private static void applyG(double[] g00, double[] g01, double[] g02, double[] g11, double[] g12, double[] g22,
                               double[] a, double[] b, double[] c, double[] ra, double[] rb, int len) {
        for (int p = 0; p < len; p++) {
            ra[p] = g00[p] * a[p] + g01[p] * b[p] + g02[p] * c[p];
        }
        for (int p = 0; p < len; p++) {
            rb[p] = g01[p] * a[p] + g11[p] * b[p] + g12[p] * c[p];
        }
        for (int p = 0; p < len; p++) {
            c[p] = g02[p] * a[p] + g12[p] * b[p] + g22[p] * c[p];
        }
    }

    /** y = lambda wJ u pointwise (y may be u). */
    private static void massTerm(double lambda, double[] wj, double[] u, double[] y, int len) {
        for (int p = 0; p < len; p++) {
            y[p] = lambda * wj[p] * u[p];
        }
    }

    /** Interleaves the elements of block {@code blk} of x ([E][Np], natural order) into {@code u} (layout T). */
    void load(int blk, double[] x, double[] u) {
        final int bb = b;
        final int[] nat = naturalOfT;
        for (int e = 0; e < bb; e++) {
            long el = (long) blk * bb + e;
            if (el >= elements) {
                for (int t = 0; t < np; t++) {
                    u[t * bb + e] = 0;
                }
                continue;
            }
            int base = (int) (el * np);
            for (int t = 0; t < np; t++) {
                u[t * bb + e] = x[base + nat[t]];
            }
        }
    }

    /** The inverse of {@link #load}: writes the block's elements of y (layout T) into out ([E][Np]). */
    void store(int blk, double[] y, double[] out) {
        final int bb = b;
        final int[] nat = naturalOfT;
        for (int e = 0; e < bb; e++) {
            long el = (long) blk * bb + e;
            if (el >= elements) {
                return;
            }
            int base = (int) (el * np);
            for (int t = 0; t < np; t++) {
                out[base + nat[t]] = y[t * bb + e];
            }
        }
    }
}
