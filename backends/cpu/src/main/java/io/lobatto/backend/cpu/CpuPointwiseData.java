package io.lobatto.backend.cpu;

import io.lobatto.core.backend.DevicePointwiseData;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.Quadrature;

/**
 * A user operator on the Java backend and its element kernel y^e = B^T f(B x^e), per component
 * B = (I x I x I ; D_r ; D_s ; D_t): with {@link Quadrature#GLL} I is the identity and D_r = D x 1 x 1 etc.
 * (D the GLL differentiation, BP3.5's structure); with {@link Quadrature#GAUSS} the values are interpolated to
 * the Gauss-Legendre points by I x I x I and differentiated there by D~ (BP3.0's structure). Holds the
 * function, the 1D matrices it needs (with their transposes, so every contraction reads a row-major matrix), a
 * copy of the point data {@code [E][P][dataPerPoint]} and per-worker scratch allocated here once, so that an
 * apply allocates nothing.
 */
final class CpuPointwiseData implements DevicePointwiseData {

    final CpuBackend backend;
    final PointwiseFunction function;
    final Quadrature quadrature;
    final int degree;
    final int elements;
    final int ncomp;
    final int dataPerPoint;
    /** GLL nodes per direction N+1. */
    final int nq;
    /** Quadrature points per direction Q (nq for GLL, nq + 1 for GAUSS). */
    final int q;
    /** Nodes per element (nq^3). */
    final int np;
    /** Quadrature points per element (q^3). */
    final int npq;
    private final boolean values;
    private final boolean gradients;
    /** D (GLL) or D~ (GAUSS), q x q, and its transpose. */
    private final double[] deriv;
    private final double[] derivT;
    /** I (GAUSS only; q x nq) and its transpose; null for GLL. */
    private final double[] interp;
    private final double[] interpT;
    /** A copy of the point data, [E][P][dataPerPoint]. */
    final double[] pointData;
    private final Scratch[] scratch;
    private volatile boolean closed;

    /** Per-worker temporaries of one element: fields at the points and the arguments of {@link PointwiseFunction#apply}. */
    static final class Scratch {
        /** The element's input nodes when read through a scatter, [ncomp][np]. */
        final double[] xe;
        /** Values at the points, [ncomp][npq]; overwritten by v. */
        final double[] val;
        /** Reference gradients at the points, [3 c + d][npq]; overwritten by dv. */
        final double[] grad;
        final double[] t1;
        final double[] t2;
        final double[] u;
        final double[] du;
        final double[] data;
        final double[] v;
        final double[] dv;

        Scratch(int ncomp, int np, int npq, int dataPerPoint) {
            xe = new double[ncomp * np];
            val = new double[ncomp * npq];
            grad = new double[3 * ncomp * npq];
            t1 = new double[npq];
            t2 = new double[npq];
            u = new double[ncomp];
            du = new double[3 * ncomp];
            data = new double[dataPerPoint];
            v = new double[ncomp];
            dv = new double[3 * ncomp];
        }
    }

    CpuPointwiseData(CpuBackend backend, PointwiseFunction function, Basis1D basis, Quadrature quadrature, int elements,
                     double[] pointData, int workers) {
        this.backend = backend;
        this.function = function;
        this.quadrature = quadrature;
        this.degree = basis.degree();
        this.elements = elements;
        this.ncomp = function.components();
        this.dataPerPoint = function.dataPerPoint();
        this.nq = basis.nq();
        this.q = quadrature.pointsPerDirection(basis);
        this.np = nq * nq * nq;
        this.npq = q * q * q;
        this.values = function.evaluation().readsValues();
        this.gradients = function.evaluation().readsGradients();
        boolean gauss = quadrature == Quadrature.GAUSS;
        this.deriv = gauss ? basis.gaussDifferentiation() : basis.differentiation();
        this.derivT = Contractions.transpose(deriv, q, q);
        this.interp = gauss ? basis.interpolation() : null;
        this.interpT = gauss ? Contractions.transpose(interp, q, nq) : null;
        this.pointData = pointData;
        this.scratch = new Scratch[workers];
        for (int w = 0; w < workers; w++) {
            scratch[w] = new Scratch(ncomp, np, npq, dataPerPoint);
        }
    }

    Scratch scratch(int worker) {
        return scratch[worker];
    }

    @Override
    public PointwiseFunction function() {
        return function;
    }

    @Override
    public Quadrature quadrature() {
        return quadrature;
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
        return "CpuPointwiseData[" + function + ", " + quadrature + ", N=" + degree + ", E=" + elements
                + (closed ? ", closed]" : "]");
    }

    // ------------------------------------------------------------------ the element kernel

    /**
     * y^e = B^T f(B x^e) for element e: component c of the input is {@code x[xOff + c * xStride ..][np]}, of the
     * output {@code y[yOff + c * yStride ..][np]} (overwritten). {@code x} and {@code y} must not overlap.
     */
    void applyElement(int e, double[] x, int xOff, int xStride, double[] y, int yOff, int yStride, Scratch s) {
        final double[] val = s.val;
        final double[] grad = s.grad;
        // B x: values and/or reference gradients at the points, component by component
        for (int c = 0; c < ncomp; c++) {
            int xo = xOff + c * xStride;
            if (interp == null) {
                if (values) {
                    System.arraycopy(x, xo, val, c * npq, np);
                }
                if (gradients) {
                    derivatives(x, xo, grad, 3 * c * npq);
                }
            } else {
                interpolate(x, xo, val, c * npq, s);
                if (gradients) {
                    derivatives(val, c * npq, grad, 3 * c * npq);
                }
            }
        }
        // f at every point: (v, dv) = f(u, du, data), written over (val, grad)
        final PointwiseFunction f = function;
        final double[] u = s.u;
        final double[] du = s.du;
        final double[] data = s.data;
        final double[] v = s.v;
        final double[] dv = s.dv;
        final double[] pd = pointData;
        final int nc = ncomp;
        final int dpp = dataPerPoint;
        int db = e * npq * dpp;
        for (int p = 0; p < npq; p++, db += dpp) {
            for (int c = 0; c < nc; c++) {
                u[c] = values ? val[c * npq + p] : 0.0;
                v[c] = 0.0;
            }
            for (int k = 0; k < 3 * nc; k++) {
                du[k] = gradients ? grad[k * npq + p] : 0.0;
                dv[k] = 0.0;
            }
            System.arraycopy(pd, db, data, 0, dpp);
            f.apply(u, du, data, v, dv);
            if (values) {
                for (int c = 0; c < nc; c++) {
                    val[c * npq + p] = v[c];
                }
            }
            if (gradients) {
                for (int k = 0; k < 3 * nc; k++) {
                    grad[k * npq + p] = dv[k];
                }
            }
        }
        // B^T (v, dv): v + D_r^T dv_r + D_s^T dv_s + D_t^T dv_t at the points, then I^T x I^T x I^T for GAUSS
        for (int c = 0; c < nc; c++) {
            int yo = yOff + c * yStride;
            if (interp == null) {
                if (values) {
                    System.arraycopy(val, c * npq, y, yo, np);
                }
                if (gradients) {
                    derivativesT(grad, 3 * c * npq, y, yo, values);
                }
            } else {
                if (gradients) {
                    derivativesT(grad, 3 * c * npq, val, c * npq, values);
                }
                interpolateT(val, c * npq, y, yo, s);
            }
        }
    }

    /** out[outOff ..] = (D_r in, D_s in, D_t in), three blocks of npq, at q points per direction. */
    private void derivatives(double[] in, int inOff, double[] out, int outOff) {
        final int m = q;
        final int m2 = m * m;
        Contractions.dim0(deriv, m, m, m2, in, inOff, out, outOff, false);
        Contractions.dim1(deriv, m, m, m, m, in, inOff, out, outOff + npq, false);
        Contractions.dim2(deriv, m, m, m2, in, inOff, out, outOff + 2 * npq, false);
    }

    /** out[outOff ..] (+)= D_r^T g_r + D_s^T g_s + D_t^T g_t for the three blocks g at in[inOff ..]. */
    private void derivativesT(double[] in, int inOff, double[] out, int outOff, boolean acc) {
        final int m = q;
        final int m2 = m * m;
        Contractions.dim0(derivT, m, m, m2, in, inOff, out, outOff, acc);
        Contractions.dim1(derivT, m, m, m, m, in, inOff + npq, out, outOff, true);
        Contractions.dim2(derivT, m, m, m2, in, inOff + 2 * npq, out, outOff, true);
    }

    /** out[outOff ..][npq] = (I x I x I) in[inOff ..][np], GLL nodes to GL points. */
    private void interpolate(double[] in, int inOff, double[] out, int outOff, Scratch s) {
        final int n = nq;
        final int m = q;
        Contractions.dim0(interp, m, n, n * n, in, inOff, s.t1, 0, false);  // (m, n, n)
        Contractions.dim1(interp, m, n, m, n, s.t1, 0, s.t2, 0, false);     // (m, m, n)
        Contractions.dim2(interp, m, n, m * m, s.t2, 0, out, outOff, false); // (m, m, m)
    }

    /** out[outOff ..][np] = (I^T x I^T x I^T) in[inOff ..][npq], GL points back to GLL nodes. */
    private void interpolateT(double[] in, int inOff, double[] out, int outOff, Scratch s) {
        final int n = nq;
        final int m = q;
        Contractions.dim2(interpT, n, m, m * m, in, inOff, s.t1, 0, false);  // (m, m, n)
        Contractions.dim1(interpT, n, m, m, n, s.t1, 0, s.t2, 0, false);     // (m, n, n)
        Contractions.dim0(interpT, n, m, n * n, s.t2, 0, out, outOff, false); // (n, n, n)
    }
}
