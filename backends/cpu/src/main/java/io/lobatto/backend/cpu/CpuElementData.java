package io.lobatto.backend.cpu;

import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;

/**
 * Element data of the Java backend and the element kernels that read it: the 1D matrices (and their
 * transposes, so that every contraction reads a row-major matrix), a copy of the geometric factors,
 * and per-worker scratch allocated here once so that no apply allocates arrays. Degrees with generated
 * contractions ({@link TensorBlock#of}) run on blocks of elements ({@link BlockKernels}, which keeps the
 * factors re-laid out per block); the others element by element with the kernels below.
 */
final class CpuElementData implements DeviceElementData {

    final CpuBackend backend;
    final ElementKernel kernel;
    final int degree;
    final int elements;
    /** GLL points per direction. */
    final int nq;
    /** Points per direction of the quadrature the kernel integrates with (nq or nq + 1). */
    final int nqq;
    /** Nodes per element (nq^3). */
    final int np;
    /** Quadrature points per element (nqq^3). */
    final int npq;
    final double[] geo;
    /** The geometric data as uploaded ([E][P][factorsPerPoint]), for {@link CpuBackend#elementDiagonal}. */
    final double[] factors;
    private final double[] d;
    private final double[] dt;
    private final double[] interp;
    private final double[] interpT;
    private final double[] dGl;
    private final double[] dGlT;
    private final Scratch[] scratch;
    /** The block kernels of this degree, or null (no generated contractions): then element by element. */
    final BlockKernels blocks;
    private final BlockKernels.Scratch[] blockScratch;
    private volatile boolean closed;

    /** Per-worker temporaries of one element. */
    static final class Scratch {
        final double[] u;
        final double[] a;
        final double[] b;
        final double[] c;
        final double[] v;

        Scratch(int np, int npq, boolean four) {
            u = new double[np];
            a = new double[npq];
            b = new double[npq];
            c = new double[npq];
            v = four ? new double[npq] : null;
        }
    }

    CpuElementData(CpuBackend backend, ElementKernel kernel, Basis1D basis, int elements, double[] geo, int workers) {
        this.backend = backend;
        this.kernel = kernel;
        this.degree = basis.degree();
        this.elements = elements;
        this.nq = basis.nq();
        this.nqq = kernel.usesGaussQuadrature() ? basis.nqGauss() : nq;
        this.np = nq * nq * nq;
        this.npq = nqq * nqq * nqq;
        TensorBlock tb = TensorBlock.of(degree);
        this.blocks = tb == null ? null : new BlockKernels(tb, kernel, basis, elements, geo);
        this.geo = blocks == null ? geo : null;
        this.factors = geo;
        int m = basis.nqGauss();
        this.d = basis.differentiation();
        this.dt = Contractions.transpose(d, nq, nq);
        this.interp = basis.interpolation();
        this.interpT = Contractions.transpose(interp, m, nq);
        this.dGl = basis.gaussDifferentiation();
        this.dGlT = Contractions.transpose(dGl, m, m);
        this.scratch = new Scratch[blocks == null ? workers : 0];
        for (int w = 0; w < scratch.length; w++) {
            scratch[w] = new Scratch(np, npq, kernel == ElementKernel.STIFFNESS_BP30);
        }
        this.blockScratch = new BlockKernels.Scratch[blocks == null ? 0 : workers];
        for (int w = 0; w < blockScratch.length; w++) {
            blockScratch[w] = blocks.newScratch();
        }
    }

    private BlockAssembly assembly;

    /** The fused-operator plan of these blocks with scatter {@code z} (built on first use, kept for the last z). */
    synchronized BlockAssembly assembly(CpuScatter z) {
        BlockAssembly a = assembly;
        if (a == null || a.scatter != z) {
            a = new BlockAssembly(blocks, z);
            assembly = a;
        }
        return a;
    }

    BlockKernels.Scratch blockScratch(int worker) {
        return blockScratch[worker];
    }

    Scratch scratch(int worker) {
        return scratch[worker];
    }

    @Override
    public ElementKernel kernel() {
        return kernel;
    }

    @Override
    public int degree() {
        return degree;
    }

    @Override
    public int elements() {
        return elements;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public String toString() {
        return "CpuElementData[" + kernel + ", N=" + degree + ", E=" + elements + (closed ? ", closed]" : "]");
    }

    // ------------------------------------------------------------------ element kernels

    /**
     * y[yOff .. yOff+np) = L u + shift * w .* u for element e, with u = x[xOff .. xOff+np). {@code w} may be
     * null (then shift is ignored). {@code x} and {@code y} must not overlap.
     */
    void applyElement(int e, double lambda, double shift, double[] w, double[] x, int xOff, double[] y, int yOff,
                      Scratch s) {
        switch (kernel) {
            case STIFFNESS_BP35 -> bp35(e, lambda, shift, w, x, xOff, y, yOff, s);
            case MASS_BP10 -> bp10(e, shift, w, x, xOff, y, yOff, s);
            case STIFFNESS_BP30 -> bp30(e, lambda, shift, w, x, xOff, y, yOff, s);
            default -> throw new IllegalStateException("unknown kernel " + kernel);
        }
    }

    /** BP3.5: y = D^T G D u + (lambda wJ + shift W) u, collocated at the GLL nodes. */
    private void bp35(int e, double lambda, double shift, double[] w, double[] u, int uOff, double[] y, int yOff,
                      Scratch s) {
        final int n = nq;
        final int n2 = n * n;
        final double[] ur = s.a;
        final double[] us = s.b;
        final double[] ut = s.c;
        Contractions.dim0(d, n, n, n2, u, uOff, ur, 0, false);
        Contractions.dim1(d, n, n, n, n, u, uOff, us, 0, false);
        Contractions.dim2(d, n, n, n2, u, uOff, ut, 0, false);
        final double[] g = geo;
        int gb = e * np * 7;
        if (w == null) {
            for (int p = 0; p < np; p++, gb += 7) {
                double a = ur[p], b = us[p], c = ut[p];
                ur[p] = g[gb] * a + g[gb + 1] * b + g[gb + 2] * c;
                us[p] = g[gb + 1] * a + g[gb + 3] * b + g[gb + 4] * c;
                ut[p] = g[gb + 2] * a + g[gb + 4] * b + g[gb + 5] * c;
                y[yOff + p] = lambda * g[gb + 6] * u[uOff + p];
            }
        } else {
            int wb = e * np;
            for (int p = 0; p < np; p++, gb += 7) {
                double a = ur[p], b = us[p], c = ut[p];
                ur[p] = g[gb] * a + g[gb + 1] * b + g[gb + 2] * c;
                us[p] = g[gb + 1] * a + g[gb + 3] * b + g[gb + 4] * c;
                ut[p] = g[gb + 2] * a + g[gb + 4] * b + g[gb + 5] * c;
                y[yOff + p] = (lambda * g[gb + 6] + shift * w[wb + p]) * u[uOff + p];
            }
        }
        Contractions.dim0(dt, n, n, n2, ur, 0, y, yOff, true);
        Contractions.dim1(dt, n, n, n, n, us, 0, y, yOff, true);
        Contractions.dim2(dt, n, n, n2, ut, 0, y, yOff, true);
    }

    /** BP1.0: y = I^T wJ I u (+ shift W u). */
    private void bp10(int e, double shift, double[] w, double[] u, int uOff, double[] y, int yOff, Scratch s) {
        final int n = nq;
        final int m = nqq;
        final double[] a = s.a;
        final double[] b = s.b;
        Contractions.dim0(interp, m, n, n * n, u, uOff, a, 0, false);   // (m, n, n)
        Contractions.dim1(interp, m, n, m, n, a, 0, b, 0, false);       // (m, m, n)
        Contractions.dim2(interp, m, n, m * m, b, 0, a, 0, false);      // (m, m, m)
        final double[] g = geo;
        final int gb = e * npq;
        for (int p = 0; p < npq; p++) {
            a[p] *= g[gb + p];
        }
        Contractions.dim2(interpT, n, m, m * m, a, 0, b, 0, false);     // (m, m, n)
        Contractions.dim1(interpT, n, m, m, n, b, 0, a, 0, false);      // (m, n, n)
        Contractions.dim0(interpT, n, m, n * n, a, 0, y, yOff, false);  // (n, n, n)
        addShift(e, shift, w, u, uOff, y, yOff);
    }

    /** BP3.0: y = I^T (D~^T G D~ + lambda wJ) I u (+ shift W u). */
    private void bp30(int e, double lambda, double shift, double[] w, double[] u, int uOff, double[] y, int yOff,
                      Scratch s) {
        final int n = nq;
        final int m = nqq;
        final int m2 = m * m;
        final double[] v = s.v;
        final double[] vr = s.a;
        final double[] vs = s.b;
        final double[] vt = s.c;
        Contractions.dim0(interp, m, n, n * n, u, uOff, vr, 0, false);  // (m, n, n)
        Contractions.dim1(interp, m, n, m, n, vr, 0, vs, 0, false);     // (m, m, n)
        Contractions.dim2(interp, m, n, m2, vs, 0, v, 0, false);        // (m, m, m)
        Contractions.dim0(dGl, m, m, m2, v, 0, vr, 0, false);
        Contractions.dim1(dGl, m, m, m, m, v, 0, vs, 0, false);
        Contractions.dim2(dGl, m, m, m2, v, 0, vt, 0, false);
        final double[] g = geo;
        int gb = e * npq * 7;
        for (int p = 0; p < npq; p++, gb += 7) {
            double a = vr[p], b = vs[p], c = vt[p];
            vr[p] = g[gb] * a + g[gb + 1] * b + g[gb + 2] * c;
            vs[p] = g[gb + 1] * a + g[gb + 3] * b + g[gb + 4] * c;
            vt[p] = g[gb + 2] * a + g[gb + 4] * b + g[gb + 5] * c;
            v[p] *= lambda * g[gb + 6];
        }
        Contractions.dim0(dGlT, m, m, m2, vr, 0, v, 0, true);
        Contractions.dim1(dGlT, m, m, m, m, vs, 0, v, 0, true);
        Contractions.dim2(dGlT, m, m, m2, vt, 0, v, 0, true);
        Contractions.dim2(interpT, n, m, m2, v, 0, vr, 0, false);       // (m, m, n)
        Contractions.dim1(interpT, n, m, m, n, vr, 0, vs, 0, false);    // (m, n, n)
        Contractions.dim0(interpT, n, m, n * n, vs, 0, y, yOff, false); // (n, n, n)
        addShift(e, shift, w, u, uOff, y, yOff);
    }

    private void addShift(int e, double shift, double[] w, double[] u, int uOff, double[] y, int yOff) {
        if (w == null || shift == 0) {
            return;
        }
        int wb = e * np;
        for (int p = 0; p < np; p++) {
            y[yOff + p] += shift * w[wb + p] * u[uOff + p];
        }
    }
}
