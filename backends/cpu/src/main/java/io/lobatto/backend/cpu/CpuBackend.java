package io.lobatto.backend.cpu;

import java.util.Objects;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceGeometry;
import io.lobatto.core.backend.DeviceHalo;
import io.lobatto.core.backend.HostHalo;
import io.lobatto.core.backend.DeviceFdm;
import io.lobatto.core.backend.DeviceInfo;
import io.lobatto.core.backend.DeviceIntVector;
import io.lobatto.core.backend.DevicePointwiseData;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceTransfer;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.backend.HostSetup;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.pointwise.PointFunction;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.Quadrature;

/**
 * The Java CPU backend: the reference implementation of the {@link Backend} SPI and the embedded
 * default. Device vectors are host arrays; every operation runs synchronously on a fixed pool of daemon
 * threads (the calling thread takes part), so {@link #synchronize()} has nothing to wait for.
 *
 * <p>Parallelism and determinism: streaming kernels and the scatter run over fixed chunks of
 * {@value #CHUNK} entries, the gather over the row blocks of Z^T ({@code blockStarts}), the element
 * kernels over blocks of elements (a static partition: each block on the same thread every call).
 * Reductions ({@link #dot}, {@link #norm2}, {@link #cgUpdate}, {@link #cgStep}, {@link #pcgUpdate}) sum each fixed chunk in
 * a fixed order and add the chunk partials in chunk order, so their result is bitwise the same for any
 * number of threads; {@link #pcgUpdate}'s r . r and r . z are bitwise those of {@link #cgUpdate} and
 * {@link #dot}.
 *
 * <p>Element kernels use sum factorisation only (never an element matrix). Up to N = 8
 * they run on blocks of interleaved elements with contractions generated per N
 * ({@code BlockKernels}, {@code TensorBlock}), and the assembled operator is fused: each block gathers
 * x_G, runs its kernel and adds into y_G, coloured so that threads never race ({@code BlockAssembly});
 * its x_G . y_G is summed per block and the block partials in block order, and CG's p = z + beta p is
 * folded in ({@link #applyAssembledDotUpdate}). Above N = 8 the kernels run element by element and the
 * assembled operator gathers y_L through Z^T, its x_G . y_G summed per row block of the gather. Either
 * way y_G and x_G . y_G are bitwise the same for any number of threads. The scratch of every worker is
 * allocated at {@link #uploadElementData}, so an apply allocates no arrays. The backend may be used from
 * several threads; its operations are then serialised.
 *
 * <p>User operators ({@link #uploadPointwise}) run the {@link PointwiseFunction} as written inside a
 * sum-factorised element kernel y^e = B^T f(B x^e) ({@code CpuPointwiseData}), element by element over chunks of
 * elements, one call of the function per quadrature point with per-worker scratch (no allocation per apply).
 * The assembled form reads x_G through the scatter ids per component block and gathers y_L per component block
 * and row block; its x_G . y_G is summed per such chunk and the partials in order, so it is deterministic.
 */
public final class CpuBackend implements Backend {

    /** The backend's name, as used by {@code LOBATTO_BACKEND}. */
    public static final String NAME = "cpu";

    /** Entries per chunk of the streaming kernels and the reductions (fixed: reductions depend on it). */
    public static final int CHUNK = 8192;

    private final int threads;
    private final WorkerPool pool;
    private final DeviceInfo device;
    private double[] partials = new double[16];
    private double[] partials2 = new double[16];
    private volatile boolean closed;

    /** A backend with one thread per available processor. */
    public CpuBackend() {
        this(Runtime.getRuntime().availableProcessors());
    }

    /**
     * A backend with {@code threads} threads (the calling thread and {@code threads - 1} daemon workers).
     *
     * @throws IllegalArgumentException if {@code threads < 1}
     */
    public CpuBackend(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        this.threads = threads;
        this.pool = new WorkerPool(threads);
        this.device = new DeviceInfo("Java (" + threads + (threads == 1 ? " thread)" : " threads)"),
                System.getProperty("java.vendor", "unknown"), "CPU", threads, Runtime.getRuntime().maxMemory(),
                "Java " + System.getProperty("java.version", "?") + " (" + System.getProperty("java.vm.name", "?") + ")");
    }

    /** Number of threads this backend computes with. */
    public int threads() {
        return threads;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public DeviceInfo device() {
        return device;
    }

    @Override
    public String toString() {
        return "CpuBackend[" + device.name() + (closed ? ", closed]" : "]");
    }

    // ------------------------------------------------------------------ memory

    @Override
    public DeviceVector allocate(int length) {
        ensureOpen();
        if (length < 0) {
            throw new IllegalArgumentException("length must be >= 0, got " + length);
        }
        return new CpuVector(this, new double[length]);
    }

    @Override
    public DeviceVector upload(double[] values) {
        ensureOpen();
        Objects.requireNonNull(values, "values must not be null");
        return new CpuVector(this, values.clone());
    }

    @Override
    public DeviceIntVector upload(int[] values) {
        ensureOpen();
        Objects.requireNonNull(values, "values must not be null");
        return new CpuIntVector(this, values.clone());
    }

    @Override
    public void write(double[] values, DeviceVector target) {
        Objects.requireNonNull(values, "values must not be null");
        double[] t = vec(target, "target");
        checkLength("values", values.length, "target", t.length);
        System.arraycopy(values, 0, t, 0, t.length);
    }

    @Override
    public void read(DeviceVector source, double[] values) {
        double[] s = vec(source, "source");
        Objects.requireNonNull(values, "values must not be null");
        checkLength("values", values.length, "source", s.length);
        System.arraycopy(s, 0, values, 0, s.length);
    }

    @Override
    public void synchronize() {
        ensureOpen();
    }

    // ------------------------------------------------------------------ streaming

    @Override
    public void fill(DeviceVector y, double value) {
        double[] yy = vec(y, "y");
        forChunks(yy.length, (from, to) -> java.util.Arrays.fill(yy, from, to, value));
    }

    /** y = the random vector of {@code seed}, in place, in parallel chunks ({@link io.lobatto.core.backend.RandomFill}). */
    @Override
    public void fillRandom(DeviceVector y, long seed) {
        double[] yy = vec(y, "y");
        forChunks(yy.length, (from, to) -> io.lobatto.core.backend.RandomFill.fill(yy, from, to, seed));
    }

    @Override
    public void copy(DeviceVector x, DeviceVector y) {
        double[] xx = vec(x, "x");
        double[] yy = vec(y, "y");
        distinct(x, "x", y, "y");
        checkLength("y", yy.length, "x", xx.length);
        forChunks(xx.length, (from, to) -> System.arraycopy(xx, from, yy, from, to - from));
    }

    /** y = a x + b y; with {@code b == 0} y is not read (so NaN or garbage in y does not propagate). */
    @Override
    public void axpby(double a, DeviceVector x, double b, DeviceVector y) {
        double[] xx = vec(x, "x");
        double[] yy = vec(y, "y");
        checkLength("y", yy.length, "x", xx.length);
        if (b == 0) {
            forChunks(xx.length, (from, to) -> {
                for (int i = from; i < to; i++) {
                    yy[i] = a * xx[i];
                }
            });
        } else {
            forChunks(xx.length, (from, to) -> {
                for (int i = from; i < to; i++) {
                    yy[i] = a * xx[i] + b * yy[i];
                }
            });
        }
    }

    @Override
    public void pointwiseMultiply(DeviceVector a, DeviceVector x, DeviceVector y) {
        double[] aa = vec(a, "a");
        double[] xx = vec(x, "x");
        double[] yy = vec(y, "y");
        checkLength("x", xx.length, "a", aa.length);
        checkLength("y", yy.length, "a", aa.length);
        forChunks(xx.length, (from, to) -> {
            for (int i = from; i < to; i++) {
                yy[i] = aa[i] * xx[i];
            }
        });
    }

    /** y_i = x[idx_i], in parallel chunks of y. */
    @Override
    public void indexedGather(DeviceVector x, DeviceIntVector idx, DeviceVector y) {
        ensureOpen();
        Objects.requireNonNull(idx, "idx must not be null");
        if (!(idx instanceof CpuIntVector iv) || iv.backend() != this) {
            throw new IllegalArgumentException("idx is not an index vector of this cpu backend");
        }
        double[] xx = vec(x, "x");
        double[] yy = vec(y, "y");
        int[] ids = iv.data();
        if (ids == null) {
            throw new IllegalStateException("idx: vector is closed");
        }
        Backend.checkIndexedGather(x, idx, y, iv.min(), iv.max());
        forChunks(yy.length, (from, to) -> {
            for (int i = from; i < to; i++) {
                yy[i] = xx[ids[i]];
            }
        });
    }

    @Override
    public double dot(DeviceVector x, DeviceVector y) {
        double[] xx = vec(x, "x");
        double[] yy = vec(y, "y");
        checkLength("y", yy.length, "x", xx.length);
        return reduce(xx.length, (from, to) -> dot(xx, yy, from, to));
    }

    @Override
    public double norm2(DeviceVector x) {
        double[] xx = vec(x, "x");
        return reduce(xx.length, (from, to) -> dot(xx, xx, from, to));
    }

    @Override
    public double cgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r) {
        double[] pp = vec(p, "p");
        double[] aa = vec(ap, "ap");
        double[] xx = vec(x, "x");
        double[] rr = vec(r, "r");
        checkLength("ap", aa.length, "p", pp.length);
        checkLength("x", xx.length, "p", pp.length);
        checkLength("r", rr.length, "p", pp.length);
        distinct(x, "x", r, "r");
        distinct(p, "p", x, "x");
        distinct(p, "p", r, "r");
        distinct(ap, "ap", x, "x");
        distinct(ap, "ap", r, "r");
        return reduce(pp.length, (from, to) -> {
            for (int i = from; i < to; i++) {
                xx[i] = alpha * pp[i] + xx[i];
                rr[i] = -alpha * aa[i] + rr[i];
            }
            return dot(rr, rr, from, to);
        });
    }

    /**
     * CG's whole vector step (BS5 with p = r + beta p folded in, hipBone's Algorithm 1), one pass per chunk:
     * p_i = r_i + beta p_i; x_i += alpha p_i; r_i -= alpha Ap_i; returns r . r summed exactly as {@link #dot} sums,
     * so p, x, r and r . r are bitwise those of axpby(1, r, beta, p) then {@link #cgUpdate} on this backend.
     */
    @Override
    public double cgStep(double alpha, double beta, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r) {
        double[] pp = vec(p, "p");
        double[] aa = vec(ap, "ap");
        double[] xx = vec(x, "x");
        double[] rr = vec(r, "r");
        Backend.checkCgStep(p, ap, x, r);
        return reduce(pp.length, (from, to) -> {
            for (int i = from; i < to; i++) {
                double pi = rr[i] + beta * pp[i];      // axpby(1, r, beta, p): 1 * r is r exactly
                pp[i] = pi;
                xx[i] = alpha * pi + xx[i];
                rr[i] = -alpha * aa[i] + rr[i];
            }
            return dot(rr, rr, from, to);
        });
    }

    @Override
    public double dot(DeviceVector x, DeviceVector y, DeviceIntVector excluded) {
        int[] rows = rows(excluded, vec(x, "x").length);
        double[] xx = vec(x, "x");
        double[] yy = vec(y, "y");
        return dot(x, y) - rowDot(rows, xx, yy);
    }

    @Override
    public double cgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r,
                           DeviceIntVector excluded) {
        int[] rows = rows(excluded, vec(r, "r").length);
        double rr = cgUpdate(alpha, p, ap, x, r);
        double[] res = vec(r, "r");
        return rr - rowDot(rows, res, res);
    }

    @Override
    public void pcgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r,
                          DeviceVector inverseDiagonal, DeviceVector z, DeviceIntVector excluded, double[] dots) {
        int[] rows = rows(excluded, vec(r, "r").length);
        pcgUpdate(alpha, p, ap, x, r, inverseDiagonal, z, dots);
        double[] rr = vec(r, "r");
        double[] zz = vec(z, "z");
        dots[0] -= rowDot(rows, rr, rr);
        dots[1] -= rowDot(rows, rr, zz);
    }

    /** The ids of {@code excluded}, checked to lie in [0, n). */
    private int[] rows(DeviceIntVector excluded, int n) {
        ensureOpen();
        Objects.requireNonNull(excluded, "excluded must not be null");
        if (!(excluded instanceof CpuIntVector iv) || iv.backend() != this) {
            throw new IllegalArgumentException("excluded is not an index vector of this cpu backend");
        }
        int[] rows = iv.data();
        if (rows == null) {
            throw new IllegalStateException("excluded: vector is closed");
        }
        for (int e : rows) {
            if (e < 0 || e >= n) {
                throw new IllegalArgumentException("excluded row " + e + " is not in [0, " + n + ")");
            }
        }
        return rows;
    }

    /** Sum over k of x[rows[k]] y[rows[k]], in k order. */
    private static double rowDot(int[] rows, double[] x, double[] y) {
        double s = 0;
        for (int e : rows) {
            s += x[e] * y[e];
        }
        return s;
    }

    /**
     * Fused Jacobi PCG update, one pass per chunk: x += alpha p; r -= alpha Ap; z = inverseDiagonal o r;
     * dots = (r . r, r . z), each summed exactly as {@link #dot} sums (so bitwise equal to
     * cgUpdate + pointwiseMultiply + dot on this backend).
     */
    @Override
    public void pcgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r,
                          DeviceVector inverseDiagonal, DeviceVector z, double[] dots) {
        double[] pp = vec(p, "p");
        double[] aa = vec(ap, "ap");
        double[] xx = vec(x, "x");
        double[] rr = vec(r, "r");
        double[] dd = vec(inverseDiagonal, "inverseDiagonal");
        double[] zz = vec(z, "z");
        if (dots == null || dots.length < 2) {
            throw new IllegalArgumentException("pcgUpdate: dots must have length >= 2, got "
                    + (dots == null ? "null" : "length " + dots.length));
        }
        checkLength("ap", aa.length, "p", pp.length);
        checkLength("x", xx.length, "p", pp.length);
        checkLength("r", rr.length, "p", pp.length);
        checkLength("inverseDiagonal", dd.length, "p", pp.length);
        checkLength("z", zz.length, "p", pp.length);
        DeviceVector[] all = {p, ap, x, r, inverseDiagonal, z};
        String[] names = {"p", "ap", "x", "r", "inverseDiagonal", "z"};
        for (int i = 0; i < all.length; i++) {
            for (int j = i + 1; j < all.length; j++) {
                distinct(all[i], names[i], all[j], names[j]);
            }
        }
        int n = pp.length;
        reduce2(n, (from, to, out, c) -> {
            for (int i = from; i < to; i++) {
                xx[i] = alpha * pp[i] + xx[i];
                double ri = -alpha * aa[i] + rr[i];
                rr[i] = ri;
                zz[i] = dd[i] * ri;
            }
            out[c] = dot(rr, rr, from, to);
            out[c + 1] = dot(rr, zz, from, to);
        }, dots);
    }

    /**
     * Sum of x_i y_i over [from, to) in a fixed order: four interleaved partial sums (i mod 4 relative to
     * {@code from}) added as (s0 + s1) + (s2 + s3), then the tail. Every caller passes chunk bounds that do
     * not depend on the thread count.
     */
    static double dot(double[] x, double[] y, int from, int to) {
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        int i = from;
        for (; i + 3 < to; i += 4) {
            s0 += x[i] * y[i];
            s1 += x[i + 1] * y[i + 1];
            s2 += x[i + 2] * y[i + 2];
            s3 += x[i + 3] * y[i + 3];
        }
        for (; i < to; i++) {
            s0 += x[i] * y[i];
        }
        return (s0 + s1) + (s2 + s3);
    }

    // ------------------------------------------------------------------ gather/scatter

    @Override
    public DeviceScatter uploadScatter(int[] scatterIds, int[] gatherStarts, int[] gatherIds, int[] blockStarts,
                                       double[] inverseDegree, int globalSize) {
        ensureOpen();
        ScatterValidation.validate(scatterIds, gatherStarts, gatherIds, blockStarts, inverseDegree, globalSize);
        return new CpuScatter(this, scatterIds.clone(), gatherStarts.clone(), gatherIds.clone(), blockStarts.clone(),
                inverseDegree.clone(), globalSize);
    }

    @Override
    public void scatter(DeviceScatter z, DeviceVector xG, DeviceVector xL) {
        CpuScatter zz = scatterOf(z);
        double[] g = vec(xG, "xG");
        double[] l = vec(xL, "xL");
        distinct(xG, "xG", xL, "xL");
        checkLength("xG", g.length, "z.globalSize()", zz.globalSize);
        checkLength("xL", l.length, "z.localSize()", zz.localSize);
        final int[] ids = zz.scatterIds;
        forChunks(l.length, (from, to) -> {
            for (int n = from; n < to; n++) {
                int id = ids[n];
                l[n] = id < 0 ? 0.0 : g[id];
            }
        });
    }

    @Override
    public void gather(DeviceScatter z, DeviceVector xL, DeviceVector xG) {
        CpuScatter zz = scatterOf(z);
        double[] l = vec(xL, "xL");
        double[] g = vec(xG, "xG");
        distinct(xL, "xL", xG, "xG");
        checkLength("xL", l.length, "z.localSize()", zz.localSize);
        checkLength("xG", g.length, "z.globalSize()", zz.globalSize);
        gather(zz, l, g);
    }

    /** The gather with sum_row g[row] * x[row] per row block, block partials added in block order. */
    private synchronized double gatherDot(CpuScatter z, double[] l, double[] g, double[] x) {
        final int[] starts = z.gatherStarts;
        final int[] ids = z.gatherIds;
        final int[] blocks = z.blockStarts;
        int nb = z.blocks();
        if (nb == 0) {
            return 0;
        }
        if (partials2.length < nb) {
            partials2 = new double[Math.max(nb, 2 * partials2.length)];
        }
        final double[] part = partials2;
        pool.run(nb, (w, c) -> {
            int end = blocks[c + 1];
            double d = 0;
            for (int row = blocks[c]; row < end; row++) {
                double s = 0;
                int stop = starts[row + 1];
                for (int k = starts[row]; k < stop; k++) {
                    s += l[ids[k]];
                }
                g[row] = s;
                d += s * x[row];
            }
            part[c] = d;
        });
        double sum = 0;
        for (int c = 0; c < nb; c++) {
            sum += part[c];
        }
        return sum;
    }

    private void gather(CpuScatter z, double[] l, double[] g) {
        final int[] starts = z.gatherStarts;
        final int[] ids = z.gatherIds;
        final int[] blocks = z.blockStarts;
        pool.run(z.blocks(), (w, c) -> {
            int end = blocks[c + 1];
            for (int row = blocks[c]; row < end; row++) {
                double s = 0;
                int stop = starts[row + 1];
                for (int k = starts[row]; k < stop; k++) {
                    s += l[ids[k]];
                }
                g[row] = s;
            }
        });
    }

    // ------------------------------------------------------------------ element kernels

    @Override
    public DeviceElementData uploadElementData(ElementKernel kernel, Basis1D basis, int elements,
                                               double[] geometricData) {
        return elementData(kernel, basis, elements, geometricData, true);
    }

    /** Takes {@code geometricData}'s array over (no copy) and closes the vector. */
    @Override
    public DeviceElementData uploadElementData(ElementKernel kernel, Basis1D basis, int elements, DeviceVector geometricData) {
        double[] data = vec(geometricData, "geometricData");
        DeviceElementData d = elementData(kernel, basis, elements, data, false);
        geometricData.close();
        return d;
    }

    /**
     * The reference of the on-the-fly option: the factors by the same closed form the compiled kernels evaluate per node
     * ({@link io.lobatto.core.geometry.TrilinearFactors}), computed once here and stored (so
     * {@link DeviceElementData#factorsOnTheFly()} is false): the block kernels then run as for stored factors.
     */
    @Override
    public DeviceElementData elementDataOnTheFly(ElementKernel kernel, Basis1D basis, DeviceGeometry geometry) {
        ensureOpen();
        io.lobatto.core.mesh.ElementGeometry g = Backend.requireOnTheFly(kernel, basis, geometry);
        double[] factors = io.lobatto.core.geometry.TrilinearFactors.packed(g, basis);
        return elementData(kernel, basis, g.elementCount(), factors, false);
    }

    private DeviceElementData elementData(ElementKernel kernel, Basis1D basis, int elements, double[] geometricData,
                                          boolean copy) {
        ensureOpen();
        Objects.requireNonNull(kernel, "kernel must not be null");
        Objects.requireNonNull(basis, "basis must not be null");
        Objects.requireNonNull(geometricData, "geometricData must not be null");
        if (elements < 0) {
            throw new IllegalArgumentException("elements must be >= 0, got " + elements);
        }
        int perDir = kernel.usesGaussQuadrature() ? basis.nqGauss() : basis.nq();
        String where = kernel.usesGaussQuadrature() ? "GL" : "GLL";
        long points = (long) perDir * perDir * perDir;
        int f = kernel.factorsPerPoint();
        long expected = elements * points * f;
        long local = (long) elements * basis.np();
        if (expected > Integer.MAX_VALUE - 8 || local > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException(kernel + ": E = " + elements + " elements of degree " + basis.degree()
                    + " need " + expected + " geometric doubles and local vectors of " + local
                    + " entries; Java arrays hold at most 2^31 - 9");
        }
        if (geometricData.length != expected) {
            throw new IllegalArgumentException(kernel + ": geometricData has length " + geometricData.length
                    + ", expected E * P * factors = " + elements + " * " + points + " (" + perDir + "^3 " + where
                    + " points) * " + f + " = " + expected);
        }
        for (int i = 0; i < geometricData.length; i++) {
            if (!Double.isFinite(geometricData[i])) {
                long e = i / (points * f);
                long p = (i / f) % points;
                throw new IllegalArgumentException(kernel + ": geometricData[" + i + "] = " + geometricData[i]
                        + " is not finite (element " + e + ", point " + p + ", factor " + (i % f) + ")");
            }
        }
        return new CpuElementData(this, kernel, basis, elements, copy ? geometricData.clone() : geometricData, threads);
    }

    // ---------------------------------------------------------------- setup kernels (threaded, CpuSetup)

    @Override
    public DeviceVector geometricFactors(DeviceGeometry geometry, Basis1D basis, Quadrature quadrature, int factorsPerPoint) {
        ensureOpen();
        double[] out = new double[HostSetup.factorsLength(geometry.geometry(), basis, quadrature, factorsPerPoint)];
        HostSetup.factors(geometry.geometry(), basis, quadrature, factorsPerPoint, out);
        return new CpuVector(this, out);
    }

    @Override
    public void evaluate(DeviceGeometry geometry, Basis1D basis, PointFunction f, DeviceVector out) {
        HostSetup.evaluate(geometry.geometry(), basis, f, vec(out, "out"));
    }

    /** The errors on the field in place (no copy): {@link HostSetup#errorNorms}, threaded. */
    @Override
    public io.lobatto.core.backend.ErrorNorms errorNorms(DeviceGeometry geometry, Basis1D basis, DeviceVector uL,
                                                         PointFunction exact) {
        ensureOpen();
        return HostSetup.errorNorms(geometry.geometry(), basis, vec(uL, "uL"), exact);
    }

    @Override
    public void elementDiagonal(DeviceElementData data, double lambda, DeviceVector diagonalL) {
        CpuElementData d = dataOf(data);
        double[] out = vec(diagonalL, "diagonalL");
        checkLength("diagonalL", out.length, "the local size E*Nq^3 of data", d.elements * d.np);
        CpuSetup.elementDiagonal(d, lambda, out);
    }

    @Override
    public long reciprocal(DeviceVector x, DeviceVector y) {
        double[] xx = vec(x, "x");
        double[] yy = vec(y, "y");
        checkLength("y", yy.length, "x", xx.length);
        return CpuSetup.reciprocal(xx, yy);
    }

    @Override
    public void applyElements(DeviceElementData data, double lambda, DeviceVector xL, DeviceVector yL) {
        CpuElementData d = dataOf(data);
        double[] x = vec(xL, "xL");
        double[] y = vec(yL, "yL");
        distinct(xL, "xL", yL, "yL");
        int nl = d.elements * d.np;
        checkLength("xL", x.length, "the local size E*Nq^3 of data", nl);
        checkLength("yL", y.length, "the local size E*Nq^3 of data", nl);
        if (d.blocks != null) {
            // a static partition: every block runs on the same thread each call
            final BlockKernels bk = d.blocks;
            final TensorBlock tb = bk.contractions();
            final int nb = bk.blocks;
            final int parts = Math.min(threads, nb);
            pool.runPinned(parts, (w, t) -> {
                BlockKernels.Scratch s = d.blockScratch(w);
                int end = (int) ((long) nb * (t + 1) / parts);
                for (int blk = (int) ((long) nb * t / parts); blk < end; blk++) {
                    bk.load(blk, x, s.u);
                    bk.apply(tb, blk, lambda, s);
                    bk.store(blk, s.y, y);
                }
            });
            bk.launched();
            return;
        }
        final int np = d.np;
        final int per = elementsPerChunk(d.elements);
        final int elements = d.elements;
        pool.run(chunks(elements, per), (w, c) -> {
            CpuElementData.Scratch s = d.scratch(w);
            int end = Math.min(elements, (c + 1) * per);
            for (int e = c * per; e < end; e++) {
                d.applyElement(e, lambda, 0, null, x, e * np, y, e * np, s);
            }
        });
    }

    @Override
    public void applyAssembled(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                               DeviceVector xG, DeviceVector yL, DeviceVector yG) {
        assembled(data, z, lambda, shift, xG, yL, yG, false);
    }

    /** {@link #applyAssembled} with x_G . y_G summed in the gather pass (per row block, in block order). */
    @Override
    public double applyAssembledDot(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                    DeviceVector xG, DeviceVector yL, DeviceVector yG) {
        return assembled(data, z, lambda, shift, xG, yL, yG, true);
    }

    private double assembled(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                             DeviceVector xG, DeviceVector yL, DeviceVector yG, boolean withDot) {
        CpuElementData d = dataOf(data);
        CpuScatter zz = scatterOf(z);
        double[] xg = vec(xG, "xG");
        double[] yl = vec(yL, "yL");
        double[] yg = vec(yG, "yG");
        distinct(xG, "xG", yG, "yG");
        distinct(xG, "xG", yL, "yL");
        distinct(yL, "yL", yG, "yG");
        int nl = d.elements * d.np;
        checkLength("z.localSize()", zz.localSize, "the local size E*Nq^3 of data", nl);
        checkLength("xG", xg.length, "z.globalSize()", zz.globalSize);
        checkLength("yG", yg.length, "z.globalSize()", zz.globalSize);
        checkLength("yL", yl.length, "z.localSize()", zz.localSize);
        if (d.blocks != null) {
            return fused(d, zz, lambda, shift, xg, null, 0, yg, withDot);
        }
        final int np = d.np;
        final int per = elementsPerChunk(d.elements);
        final int elements = d.elements;
        final int[] ids = zz.scatterIds;
        final double[] w = zz.inverseDegree;
        pool.run(chunks(elements, per), (worker, c) -> {
            CpuElementData.Scratch s = d.scratch(worker);
            double[] u = s.u;
            int end = Math.min(elements, (c + 1) * per);
            for (int e = c * per; e < end; e++) {
                int base = e * np;
                for (int p = 0; p < np; p++) {
                    int id = ids[base + p];
                    u[p] = id < 0 ? 0.0 : xg[id];
                }
                d.applyElement(e, lambda, shift, w, u, 0, yl, base, s);
            }
        });
        if (withDot) {
            return gatherDot(zz, yl, yg, xg);
        }
        gather(zz, yl, yg);
        return 0;
    }

    /**
     * The element half of the fused operator on elements [first, end): per element as {@link #applyAssembled} (the
     * same arithmetic), or, with block kernels, on the blocks that hold those elements, storing only theirs.
     */
    @Override
    public void applyAssembledElements(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                       DeviceVector xG, DeviceVector yL, int first, int end) {
        CpuElementData d = dataOf(data);
        CpuScatter zz = scatterOf(z);
        double[] xg = vec(xG, "xG");
        double[] yl = vec(yL, "yL");
        distinct(xG, "xG", yL, "yL");
        int nl = d.elements * d.np;
        checkLength("z.localSize()", zz.localSize, "the local size E*Nq^3 of data", nl);
        checkLength("xG", xg.length, "z.globalSize()", zz.globalSize);
        checkLength("yL", yl.length, "z.localSize()", zz.localSize);
        if (first < 0 || end < first || end > d.elements) {
            throw new IllegalArgumentException("applyAssembledElements: elements [" + first + ", " + end + ") not within [0, "
                    + d.elements + ")");
        }
        if (first == end) {
            return;
        }
        final int np = d.np;
        final int[] ids = zz.scatterIds;
        final double[] w = zz.inverseDegree;
        if (d.blocks == null) {
            final int per = elementsPerChunk(end - first);
            pool.run(chunks(end - first, per), (worker, c) -> {
                CpuElementData.Scratch s = d.scratch(worker);
                double[] u = s.u;
                int stop = Math.min(end, first + (c + 1) * per);
                for (int e = first + c * per; e < stop; e++) {
                    int base = e * np;
                    for (int p = 0; p < np; p++) {
                        int id = ids[base + p];
                        u[p] = id < 0 ? 0.0 : xg[id];
                    }
                    d.applyElement(e, lambda, shift, w, u, 0, yl, base, s);
                }
            });
            return;
        }
        final BlockKernels bk = d.blocks;
        final BlockAssembly a = d.assembly(zz);
        final int bb = bk.b;
        final int blk0 = first / bb;
        final int nb = (end + bb - 1) / bb - blk0;
        final int parts = Math.min(threads, nb);
        final TensorBlock tb = bk.contractions();
        pool.runPinned(parts, (wk, t) -> {
            BlockKernels.Scratch s = d.blockScratch(wk);
            int stop = blk0 + (int) ((long) nb * (t + 1) / parts);
            for (int blk = blk0 + (int) ((long) nb * t / parts); blk < stop; blk++) {
                rangeBlock(bk, tb, a, blk, lambda, shift, xg, yl, first, end, s);
            }
        });
        bk.launched();
    }

    /** One block of {@link #applyAssembledElements}: {@link #fusedBlock}'s element part, storing elements in range. */
    private static void rangeBlock(BlockKernels bk, TensorBlock tb, BlockAssembly a, int blk, double lambda, double shift,
                                   double[] x, double[] yl, int first, int end, BlockKernels.Scratch s) {
        final int len = bk.npBlock;
        final int off = blk * len;
        final int[] ids = a.ids;
        final double[] u = s.u;
        if (a.complete[blk]) {
            for (int c = 0; c < len; c++) {
                u[c] = x[ids[off + c]];
            }
        } else {
            gatherChecked(ids, a.flags, off, len, x, null, 0, u);
        }
        bk.apply(tb, blk, lambda, s);
        final double[] y = s.y;
        final int np = bk.np;
        final int bb = bk.b;
        final int[] nat = bk.naturalOfT;
        final int e0 = blk * bb;
        final int count = Math.min(bb, bk.elements - e0);
        if (shift != 0) {
            final double[] w = a.scatter.inverseDegree;
            for (int e = 0; e < count; e++) {
                int base = (e0 + e) * np;
                for (int t = 0, c = e; t < np; t++, c += bb) {
                    y[c] += shift * w[base + nat[t]] * u[c];
                }
            }
        }
        for (int e = 0; e < count; e++) {
            if (e0 + e < first || e0 + e >= end) {
                continue;
            }
            int base = (e0 + e) * np;
            for (int t = 0, c = e; t < np; t++, c += bb) {
                yl[base + nat[t]] = y[c];
            }
        }
    }

    /** y_G = Z^T y_L with x_G . y_G per row block, block partials added in block order. */
    @Override
    public double gatherDot(DeviceScatter z, DeviceVector yL, DeviceVector xG, DeviceVector yG) {
        CpuScatter zz = scatterOf(z);
        double[] l = vec(yL, "yL");
        double[] x = vec(xG, "xG");
        double[] g = vec(yG, "yG");
        distinct(yL, "yL", yG, "yG");
        distinct(xG, "xG", yG, "yG");
        checkLength("yL", l.length, "z.localSize()", zz.localSize);
        checkLength("xG", x.length, "z.globalSize()", zz.globalSize);
        checkLength("yG", g.length, "z.globalSize()", zz.globalSize);
        return gatherDot(zz, l, g, x);
    }

    /** The halo sums in place ({@link HostHalo#sum}: the arithmetic every backend matches). */
    @Override
    public void sumHalo(DeviceHalo halo, DeviceVector received, DeviceVector yG) {
        if (!(halo instanceof HostHalo h) || halo.isClosed()) {
            throw new IllegalArgumentException("halo is not an open halo of the cpu backend");
        }
        double[] r = vec(received, "received");
        double[] y = vec(yG, "yG");
        checkLength("received", r.length, "halo.receivedSize()", h.receivedSize());
        checkLength("yG", y.length, "halo.globalSize()", h.globalSize());
        h.sum(r, y);
    }

    /**
     * {@link #applyAssembledDot} on p_G = z_G + beta p_G. With block kernels the update is folded into the
     * fused operator (the owner of each global node writes its new p_G, {@code BlockAssembly}); else it
     * is {@link #axpby} followed by {@link #applyAssembledDot}.
     */
    @Override
    public double applyAssembledDotUpdate(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                          DeviceVector zG, double beta, DeviceVector pG, DeviceVector yL, DeviceVector yG) {
        CpuElementData d = dataOf(data);
        double[] zz = vec(zG, "zG");
        distinct(zG, "zG", pG, "pG");
        distinct(zG, "zG", yG, "yG");
        distinct(zG, "zG", yL, "yL");
        if (d.blocks == null) {
            double[] pp = vec(pG, "pG");
            checkLength("pG", pp.length, "zG", zz.length);
            axpby(1, zG, beta, pG);
            return applyAssembledDot(data, z, lambda, shift, pG, yL, yG);
        }
        CpuScatter sc = scatterOf(z);
        double[] pg = vec(pG, "pG");
        double[] yl = vec(yL, "yL");
        double[] yg = vec(yG, "yG");
        distinct(pG, "pG", yG, "yG");
        distinct(pG, "pG", yL, "yL");
        distinct(yL, "yL", yG, "yG");
        checkLength("z.localSize()", sc.localSize, "the local size E*Nq^3 of data", d.elements * d.np);
        checkLength("zG", zz.length, "z.globalSize()", sc.globalSize);
        checkLength("pG", pg.length, "z.globalSize()", sc.globalSize);
        checkLength("yG", yg.length, "z.globalSize()", sc.globalSize);
        checkLength("yL", yl.length, "z.localSize()", sc.localSize);
        return fused(d, sc, lambda, shift, pg, zz, beta, yg, true);
    }

    /**
     * The fused operator on element blocks ({@code BlockAssembly}): y_G = Z^T (L + shift W) Z x_G, each block's
     * element values added straight into y_G (y_L is not formed: it cost a strided write of every local node, 5-15 %
     * of the apply on 2 cores); with {@code dir != null} x_G is first replaced by dir + beta x_G. Returns x_G . y_G, or 0
     * without {@code withDot} (the dot's chain of dependent adds then does not lengthen the blocks' adds into y_G).
     */
    private synchronized double fused(CpuElementData d, CpuScatter z, double lambda, double shift, double[] x,
                                      double[] dir, double beta, double[] yg, boolean withDot) {
        final BlockKernels bk = d.blocks;
        final BlockAssembly a = d.assembly(z);
        final int nb = bk.blocks;
        if (partials2.length < nb) {
            partials2 = new double[Math.max(nb, 2 * partials2.length)];
        }
        final double[] part = partials2;
        for (int g : a.untouched) {
            if (dir != null) {
                x[g] = dir[g] + beta * x[g];
            }
            yg[g] = 0;
        }
        final int[] slabOrder = a.slabOrder;
        final int[] slabStarts = a.slabStarts;
        final int[] starts = a.colourStarts;
        final TensorBlock tb = bk.contractions();
        for (int c = 0; c < a.colours(); c++) {
            final int from = starts[c];
            final int count = starts[c + 1] - from;
            final int parts = Math.min(threads, count);
            pool.runPinned(parts, (w, t) -> {
                BlockKernels.Scratch s = d.blockScratch(w);
                int end = from + (int) ((long) count * (t + 1) / parts);
                for (int o = from + (int) ((long) count * t / parts); o < end; o++) {
                    int slab = slabOrder[o];
                    for (int blk = slabStarts[slab]; blk < slabStarts[slab + 1]; blk++) {
                        part[blk] = fusedBlock(bk, tb, a, blk, lambda, shift, x, dir, beta, yg, withDot, s);
                    }
                }
            });
        }
        bk.launched();
        double sum = 0;
        for (int blk = 0; blk < nb; blk++) {
            sum += part[blk];
        }
        return sum;
    }

    /**
     * One block of {@link #fused}; returns its u . y. A block whose positions all have global ids
     * ({@link BlockAssembly#complete}) reads and adds through loops without the id check, the others through
     * {@link #gatherChecked} and {@link #scatterChecked}: the same operations in the same order, so the same bits.
     */
    private static double fusedBlock(BlockKernels bk, TensorBlock tb, BlockAssembly a, int blk, double lambda, double shift,
                                     double[] x, double[] dir, double beta, double[] yg, boolean withDot,
                                     BlockKernels.Scratch s) {
        final int len = bk.npBlock;
        final int off = blk * len;
        final int[] ids = a.ids;
        final byte[] flags = a.flags;
        final double[] u = s.u;
        final boolean complete = a.complete[blk];
        if (complete) {
            if (dir == null) {
                for (int c = 0; c < len; c++) {
                    u[c] = x[ids[off + c]];
                }
            } else {
                // the owner of a node is its last position in processing order, so every read of x[id] (this block's
                // earlier positions, earlier blocks) comes before the owner's write: one pass reads and writes
                for (int c = 0; c < len; c++) {
                    int id = ids[off + c];
                    double v = dir[id] + beta * x[id];
                    u[c] = v;
                    if ((flags[off + c] & BlockAssembly.OWNER) != 0) {
                        x[id] = v;
                    }
                }
            }
        } else {
            gatherChecked(ids, flags, off, len, x, dir, beta, u);
        }
        bk.apply(tb, blk, lambda, s);
        final double[] y = s.y;
        final int np = bk.np;
        final int bb = bk.b;
        final int[] nat = bk.naturalOfT;
        final int first = blk * bb;
        final int count = Math.min(bb, bk.elements - first);
        if (shift != 0) {
            final double[] w = a.scatter.inverseDegree;
            for (int e = 0; e < count; e++) {
                int base = (first + e) * np;
                for (int t = 0, c = e; t < np; t++, c += bb) {
                    y[c] += shift * w[base + nat[t]] * u[c];
                }
            }
        }
        if (!complete) {
            return scatterChecked(ids, flags, off, len, u, y, yg);
        }
        if (!withDot) {
            for (int c = 0; c < len; c++) {
                int id = ids[off + c];
                if ((flags[off + c] & BlockAssembly.FIRST) != 0) {
                    yg[id] = y[c];
                } else {
                    yg[id] += y[c];
                }
            }
            return 0;
        }
        // u . y in the same pass as the adds into y_G (same order of summation): its chain of dependent adds
        // overlaps the scattered adds instead of running alone
        double dot = 0;
        for (int c = 0; c < len; c++) {
            double yc = y[c];
            dot += u[c] * yc;
            int id = ids[off + c];
            if ((flags[off + c] & BlockAssembly.FIRST) != 0) {
                yg[id] = yc;
            } else {
                yg[id] += yc;
            }
        }
        return dot;
    }

    /** {@link #fusedBlock}'s read of u = x_G (or of dir + beta x_G) through ids that may be -1 (masked or padding: 0). */
    private static void gatherChecked(int[] ids, byte[] flags, int off, int len, double[] x, double[] dir, double beta,
                                      double[] u) {
        if (dir == null) {
            for (int c = 0; c < len; c++) {
                int id = ids[off + c];
                u[c] = id < 0 ? 0.0 : x[id];
            }
            return;
        }
        for (int c = 0; c < len; c++) {
            int id = ids[off + c];
            if (id >= 0) {
                double v = dir[id] + beta * x[id];
                u[c] = v;
                if ((flags[off + c] & BlockAssembly.OWNER) != 0) {
                    x[id] = v;
                }
            } else {
                u[c] = 0.0;
            }
        }
    }

    /** {@link #fusedBlock}'s adds of y into y_G through ids that may be -1 (skipped); returns u . y. */
    private static double scatterChecked(int[] ids, byte[] flags, int off, int len, double[] u, double[] y, double[] yg) {
        double dot = 0;
        for (int c = 0; c < len; c++) {
            double yc = y[c];
            dot += u[c] * yc;
            int id = ids[off + c];
            if (id >= 0) {
                if ((flags[off + c] & BlockAssembly.FIRST) != 0) {
                    yg[id] = yc;
                } else {
                    yg[id] += yc;
                }
            }
        }
        return dot;
    }

    // ------------------------------------------------------------------ user operators (CpuPointwiseData)

    /**
     * Copies the point data and the 1D matrices of {@code basis} and {@code quadrature} into a
     * {@link CpuPointwiseData}; the function runs as written (no translation), element by element.
     */
    @Override
    public DevicePointwiseData uploadPointwise(PointwiseFunction function, Basis1D basis, Quadrature quadrature,
                                               int elements, double[] pointData) {
        ensureOpen();
        if (function == null) {
            throw new IllegalArgumentException("uploadPointwise: function must not be null");
        }
        if (basis == null) {
            throw new IllegalArgumentException("uploadPointwise: basis must not be null");
        }
        if (quadrature == null) {
            throw new IllegalArgumentException("uploadPointwise: quadrature must not be null");
        }
        if (pointData == null) {
            throw new IllegalArgumentException("uploadPointwise: pointData must not be null");
        }
        if (elements < 1) {
            throw new IllegalArgumentException("uploadPointwise: elements must be >= 1, got " + elements);
        }
        int perDir = quadrature.pointsPerDirection(basis);
        long points = (long) perDir * perDir * perDir;
        int dpp = function.dataPerPoint();
        long expected = elements * points * dpp;
        long local = (long) function.components() * elements * basis.np();
        if (expected > Integer.MAX_VALUE - 8 || local > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("uploadPointwise: E = " + elements + " elements of degree "
                    + basis.degree() + " with " + function + " need " + expected + " point-data doubles and local vectors of "
                    + local + " entries; Java arrays hold at most 2^31 - 9");
        }
        if (pointData.length != expected) {
            throw new IllegalArgumentException("uploadPointwise: pointData has length " + pointData.length
                    + ", expected E * P * dataPerPoint = " + elements + " * " + points + " (" + perDir + "^3 "
                    + quadrature + " points) * " + dpp + " = " + expected);
        }
        for (int i = 0; i < pointData.length; i++) {
            if (!Double.isFinite(pointData[i])) {
                long e = i / (points * dpp);
                long p = (i / dpp) % points;
                throw new IllegalArgumentException("uploadPointwise: pointData[" + i + "] = " + pointData[i]
                        + " is not finite (element " + e + ", point " + p + ", entry " + (i % dpp) + ")");
            }
        }
        return new CpuPointwiseData(this, function, basis, quadrature, elements, pointData.clone(), threads);
    }

    @Override
    public void applyPointwise(DevicePointwiseData data, DeviceVector xL, DeviceVector yL) {
        CpuPointwiseData d = pointwiseOf(data);
        double[] x = vec(xL, "xL");
        double[] y = vec(yL, "yL");
        distinct(xL, "xL", yL, "yL");
        int nl = d.ncomp * d.elements * d.np;
        checkLength("xL", x.length, "the local size ncomp*E*Nq^3 of data", nl);
        checkLength("yL", y.length, "the local size ncomp*E*Nq^3 of data", nl);
        final int np = d.np;
        final int stride = d.elements * np;
        final int per = elementsPerChunk(d.elements);
        final int elements = d.elements;
        pool.run(chunks(elements, per), (w, c) -> {
            CpuPointwiseData.Scratch s = d.scratch(w);
            int end = Math.min(elements, (c + 1) * per);
            for (int e = c * per; e < end; e++) {
                d.applyElement(e, x, e * np, stride, y, e * np, stride, s);
            }
        });
    }

    @Override
    public void applyPointwiseAssembled(DevicePointwiseData data, DeviceScatter z, DeviceVector xG, DeviceVector yL,
                                        DeviceVector yG) {
        pointwiseAssembled(data, z, xG, yL, yG, false);
    }

    /** {@link #applyPointwiseAssembled} with x_G . y_G summed in the gather pass (per component and row block, in order). */
    @Override
    public double applyPointwiseAssembledDot(DevicePointwiseData data, DeviceScatter z, DeviceVector xG,
                                             DeviceVector yL, DeviceVector yG) {
        return pointwiseAssembled(data, z, xG, yL, yG, true);
    }

    /**
     * y_G = Z^T B^T f(B Z x_G) per component block: each element reads its nodes of every component through the
     * scatter ids (masked nodes read 0) into its scratch, runs the element kernel into y_L, and the gather sums
     * each component block of y_L into the same block of y_G.
     */
    private double pointwiseAssembled(DevicePointwiseData data, DeviceScatter z, DeviceVector xG, DeviceVector yL,
                                      DeviceVector yG, boolean withDot) {
        CpuPointwiseData d = pointwiseOf(data);
        CpuScatter zz = scatterOf(z);
        double[] xg = vec(xG, "xG");
        double[] yl = vec(yL, "yL");
        double[] yg = vec(yG, "yG");
        distinct(xG, "xG", yG, "yG");
        distinct(xG, "xG", yL, "yL");
        distinct(yL, "yL", yG, "yG");
        final int ncomp = d.ncomp;
        final int np = d.np;
        final int nl = d.elements * np;
        final int ng = zz.globalSize;
        checkLength("z.localSize()", zz.localSize, "the local size E*Nq^3 of one component of data", nl);
        checkLength("xG", xg.length, "ncomp*z.globalSize() = " + ncomp + "*" + ng, ncomp * ng);
        checkLength("yG", yg.length, "ncomp*z.globalSize() = " + ncomp + "*" + ng, ncomp * ng);
        checkLength("yL", yl.length, "the local size ncomp*E*Nq^3 of data", ncomp * nl);
        final int per = elementsPerChunk(d.elements);
        final int elements = d.elements;
        final int[] ids = zz.scatterIds;
        pool.run(chunks(elements, per), (worker, c) -> {
            CpuPointwiseData.Scratch s = d.scratch(worker);
            double[] xe = s.xe;
            int end = Math.min(elements, (c + 1) * per);
            for (int e = c * per; e < end; e++) {
                int base = e * np;
                for (int comp = 0; comp < ncomp; comp++) {
                    int gOff = comp * ng;
                    int eOff = comp * np;
                    for (int p = 0; p < np; p++) {
                        int id = ids[base + p];
                        xe[eOff + p] = id < 0 ? 0.0 : xg[gOff + id];
                    }
                }
                d.applyElement(e, xe, 0, np, yl, base, nl, s);
            }
        });
        return gatherBlocks(zz, ncomp, yl, yg, withDot ? xg : null);
    }

    /**
     * The gather of {@code ncomp} component blocks (block c of l, length z.localSize(), into block c of g, length
     * z.globalSize()), one parallel chunk per component and row block. With {@code x != null} returns x . g, summed
     * per chunk and the chunk partials in order (component-major), so deterministic; else returns 0.
     */
    private synchronized double gatherBlocks(CpuScatter z, int ncomp, double[] l, double[] g, double[] x) {
        final int[] starts = z.gatherStarts;
        final int[] ids = z.gatherIds;
        final int[] blocks = z.blockStarts;
        final int nb = z.blocks();
        final int nl = z.localSize;
        final int ng = z.globalSize;
        final int chunks = ncomp * nb;
        if (chunks == 0) {
            return 0;
        }
        if (partials2.length < chunks) {
            partials2 = new double[Math.max(chunks, 2 * partials2.length)];
        }
        final double[] part = partials2;
        pool.run(chunks, (w, ch) -> {
            int c = ch / nb;
            int blk = ch % nb;
            int lOff = c * nl;
            int gOff = c * ng;
            int end = blocks[blk + 1];
            double dot = 0;
            for (int row = blocks[blk]; row < end; row++) {
                double s = 0;
                int stop = starts[row + 1];
                for (int k = starts[row]; k < stop; k++) {
                    s += l[lOff + ids[k]];
                }
                g[gOff + row] = s;
                if (x != null) {
                    dot += s * x[gOff + row];
                }
            }
            part[ch] = dot;
        });
        if (x == null) {
            return 0;
        }
        double sum = 0;
        for (int ch = 0; ch < chunks; ch++) {
            sum += part[ch];
        }
        return sum;
    }

    private CpuPointwiseData pointwiseOf(DevicePointwiseData data) {
        ensureOpen();
        Objects.requireNonNull(data, "data must not be null");
        if (!(data instanceof CpuPointwiseData cd) || cd.backend != this) {
            throw new IllegalArgumentException("data is not user-operator data uploaded to this cpu backend (" + data + ")");
        }
        if (cd.isClosed()) {
            throw new IllegalStateException("data: user-operator data is closed");
        }
        return cd;
    }

    // ------------------------------------------------------------------ p-multigrid transfer (CpuTransfer)

    @Override
    public DeviceTransfer uploadTransfer(Basis1D coarse, Basis1D fine, int elements) {
        ensureOpen();
        Objects.requireNonNull(coarse, "coarse must not be null");
        Objects.requireNonNull(fine, "fine must not be null");
        if (coarse.degree() >= fine.degree()) {
            throw new IllegalArgumentException("transfer: the coarse degree " + coarse.degree()
                    + " must be below the fine degree " + fine.degree());
        }
        if (elements < 0) {
            throw new IllegalArgumentException("elements must be >= 0, got " + elements);
        }
        return new CpuTransfer(this, coarse, fine, elements, threads);
    }

    @Override
    public void prolongate(DeviceTransfer t, DeviceScatter zc, DeviceScatter zf, DeviceVector xc, DeviceVector workF,
                           DeviceVector xf) {
        CpuTransfer tt = transferOf(t);
        CpuScatter c = scatterOf(zc);
        CpuScatter f = scatterOf(zf);
        double[] x = vec(xc, "xc");
        double[] w = vec(workF, "workF");
        double[] y = vec(xf, "xf");
        distinct(xc, "xc", workF, "workF");
        distinct(xc, "xc", xf, "xf");
        distinct(workF, "workF", xf, "xf");
        checkTransfer(tt, c, f);
        checkLength("xc", x.length, "zc.globalSize()", c.globalSize);
        checkLength("workF", w.length, "zf.localSize()", f.localSize);
        checkLength("xf", y.length, "zf.globalSize()", f.globalSize);
        final int per = elementsPerChunk(tt.elements());
        final int elements = tt.elements();
        pool.run(chunks(elements, per), (worker, ch) -> tt.prolongateElements(worker, ch * per,
                Math.min(elements, (ch + 1) * per), c.scatterIds, x, f.inverseDegree, w));
        gather(f, w, y);
    }

    @Override
    public void restrict(DeviceTransfer t, DeviceScatter zf, DeviceScatter zc, DeviceVector rf, DeviceVector workC,
                         DeviceVector rc) {
        CpuTransfer tt = transferOf(t);
        CpuScatter f = scatterOf(zf);
        CpuScatter c = scatterOf(zc);
        double[] r = vec(rf, "rf");
        double[] w = vec(workC, "workC");
        double[] y = vec(rc, "rc");
        distinct(rf, "rf", workC, "workC");
        distinct(rf, "rf", rc, "rc");
        distinct(workC, "workC", rc, "rc");
        checkTransfer(tt, c, f);
        checkLength("rf", r.length, "zf.globalSize()", f.globalSize);
        checkLength("workC", w.length, "zc.localSize()", c.localSize);
        checkLength("rc", y.length, "zc.globalSize()", c.globalSize);
        final int per = elementsPerChunk(tt.elements());
        final int elements = tt.elements();
        pool.run(chunks(elements, per), (worker, ch) -> tt.restrictElements(worker, ch * per,
                Math.min(elements, (ch + 1) * per), f.scatterIds, r, f.inverseDegree, w));
        gather(c, w, y);
    }

    /** Fused: d = a d + b (inverseDiagonal o r); x += d, in one pass over fixed chunks. */
    @Override
    public void chebyshevStep(double a, double b, DeviceVector inverseDiagonal, DeviceVector r, DeviceVector d,
                              DeviceVector x, DeviceVector scratch) {
        double[] dinv = vec(inverseDiagonal, "inverseDiagonal");
        double[] rr = vec(r, "r");
        double[] dd = vec(d, "d");
        double[] xx = vec(x, "x");
        checkLength("r", rr.length, "inverseDiagonal", dinv.length);
        checkLength("d", dd.length, "inverseDiagonal", dinv.length);
        checkLength("x", xx.length, "inverseDiagonal", dinv.length);
        distinct(d, "d", x, "x");
        distinct(d, "d", r, "r");
        distinct(x, "x", r, "r");
        forChunks(dd.length, (from, to) -> {
            for (int i = from; i < to; i++) {
                double v = a * dd[i] + b * dinv[i] * rr[i];
                dd[i] = v;
                xx[i] += v;
            }
        });
    }

    // ------------------------------------------------------------------ fast diagonalisation (CpuFdm)

    @Override
    public DeviceFdm uploadFdm(int points, int elements, double[] eigenvectors, double[] eigenvalues) {
        ensureOpen();
        DeviceFdm.checkUpload(points, elements, eigenvectors, eigenvalues);
        return new CpuFdm(this, points, elements, eigenvectors, eigenvalues, null, threads);
    }

    @Override
    public DeviceFdm uploadFdm(int points, int elements, double[] lineVectors, double[] lineValues, int[] lineOf) {
        ensureOpen();
        DeviceFdm.checkTable(points, elements, lineVectors, lineValues, lineOf);
        return new CpuFdm(this, points, elements, lineVectors, lineValues, lineOf, threads);
    }

    /** The walk of {@link io.lobatto.core.backend.ExtendedElementWalk} per extended point, elements in parallel. */
    @Override
    public DeviceIntVector extendedIds(DeviceScatter z, int degree, int[] faceNeighbour, int[] faceCode) {
        ensureOpen();
        CpuScatter zz = scatterOf(z);
        int nq = degree + 1, np = nq * nq * nq, ne = degree + 3, ne3 = ne * ne * ne;
        if (degree < 1 || zz.localSize % np != 0) {
            throw new IllegalArgumentException("extendedIds: z.localSize() = " + zz.localSize + " is not E (N+1)^3 for N = " + degree);
        }
        int elements = zz.localSize / np;
        io.lobatto.core.backend.ExtendedElementWalk.check(elements, faceNeighbour, faceCode);
        int[] sid = zz.scatterIds;
        int[] nb = faceNeighbour.clone();
        int[] code = faceCode.clone();
        int[] ids = new int[Math.multiplyExact(elements, ne3)];
        final int per = elementsPerChunk(elements);
        pool.run(chunks(elements, per), (worker, ch) -> {
            for (int e = ch * per, end = Math.min(elements, (ch + 1) * per); e < end; e++) {
                for (int p = 0; p < ne3; p++) {
                    int local = io.lobatto.core.backend.ExtendedElementWalk.local(e, p % ne - 1, (p / ne) % ne - 1,
                            p / (ne * ne) - 1, degree, nb, code);
                    ids[e * ne3 + p] = local < 0 ? -1 : sid[local];
                }
            }
        });
        return new CpuIntVector(this, ids);
    }

    /** Always, for blocks of at least 3 points per direction. */
    @Override
    public boolean hasRestrictedSchwarzLocal(int points) {
        return points >= 3;
    }

    @Override
    public void applyRestrictedSchwarzLocal(DeviceIntVector extIds, DeviceFdm fdm, DeviceScatter z, DeviceVector xG,
                                            DeviceVector yL) {
        ensureOpen();
        if (!(fdm instanceof CpuFdm f) || f.backend != this) {
            throw new IllegalArgumentException("fdm is not a fast diagonalisation uploaded to this cpu backend (" + fdm + ")");
        }
        if (f.isClosed()) {
            throw new IllegalStateException("fdm: fast diagonalisation is closed");
        }
        Objects.requireNonNull(extIds, "extIds must not be null");
        if (!(extIds instanceof CpuIntVector iv) || iv.backend() != this) {
            throw new IllegalArgumentException("extIds is not an index vector of this cpu backend");
        }
        int[] ids = iv.data();
        if (ids == null) {
            throw new IllegalStateException("extIds: vector is closed");
        }
        CpuScatter zz = scatterOf(z);
        double[] x = vec(xG, "xG");
        double[] y = vec(yL, "yL");
        int n = f.points();
        int m = n - 2;
        checkLength("extIds", ids.length, "E n^3 of the fast diagonalisation", f.elements() * n * n * n);
        checkLength("z.localSize()", zz.localSize, "E (n-2)^3 of the fast diagonalisation", f.elements() * m * m * m);
        checkLength("xG", x.length, "z.globalSize()", zz.globalSize);
        checkLength("yL", y.length, "z.localSize()", zz.localSize);
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] >= x.length) {
                throw new IllegalArgumentException("extIds[" + i + "] = " + ids[i] + " is out of range [-1, " + x.length + ")");
            }
        }
        final double[] w = zz.inverseDegree;
        final int per = elementsPerChunk(f.elements());
        final int elements = f.elements();
        pool.run(chunks(elements, per), (worker, ch) -> f.applyRestricted(worker, ch * per,
                Math.min(elements, (ch + 1) * per), ids, x, w, y));
    }

    @Override
    public void applyFdm(DeviceFdm fdm, DeviceVector x, DeviceVector y) {
        ensureOpen();
        if (!(fdm instanceof CpuFdm f) || f.backend != this) {
            throw new IllegalArgumentException("fdm is not a fast diagonalisation uploaded to this cpu backend (" + fdm + ")");
        }
        if (f.isClosed()) {
            throw new IllegalStateException("fdm: fast diagonalisation is closed");
        }
        double[] xx = vec(x, "x");
        double[] yy = vec(y, "y");
        distinct(x, "x", y, "y");
        int block = f.points() * f.points() * f.points();
        checkLength("x", xx.length, "E n^3 of the fast diagonalisation", f.elements() * block);
        checkLength("y", yy.length, "E n^3 of the fast diagonalisation", f.elements() * block);
        final int per = elementsPerChunk(f.elements());
        final int elements = f.elements();
        pool.run(chunks(elements, per), (worker, ch) -> f.applyElements(worker, ch * per,
                Math.min(elements, (ch + 1) * per), xx, yy));
    }

    private void checkTransfer(CpuTransfer t, CpuScatter c, CpuScatter f) {
        checkLength("zc.localSize()", c.localSize, "E*(Nc+1)^3 of the transfer", t.elements() * t.coarseNp());
        checkLength("zf.localSize()", f.localSize, "E*(Nf+1)^3 of the transfer", t.elements() * t.fineNp());
    }

    private CpuTransfer transferOf(DeviceTransfer t) {
        ensureOpen();
        Objects.requireNonNull(t, "t must not be null");
        if (!(t instanceof CpuTransfer ct) || ct.backend != this) {
            throw new IllegalArgumentException("t is not a transfer uploaded to this cpu backend (" + t + ")");
        }
        if (ct.isClosed()) {
            throw new IllegalStateException("t: transfer is closed");
        }
        return ct;
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            pool.close();
        }
    }

    /** True once {@link #close()} has been called. */
    public boolean isClosed() {
        return closed;
    }

    // ------------------------------------------------------------------ helpers

    @FunctionalInterface
    private interface Range {
        void run(int from, int to);
    }

    @FunctionalInterface
    private interface RangeSum {
        double sum(int from, int to);
    }

    private void forChunks(int n, Range body) {
        int chunks = chunks(n, CHUNK);
        if (chunks <= 1) {
            if (n > 0) {
                body.run(0, n);
            }
            return;
        }
        pool.run(chunks, (w, c) -> body.run(c * CHUNK, Math.min(n, (c + 1) * CHUNK)));
    }

    private synchronized double reduce(int n, RangeSum body) {
        int chunks = chunks(n, CHUNK);
        if (chunks == 0) {
            return 0;
        }
        if (chunks == 1) {
            return body.sum(0, n);
        }
        if (partials.length < chunks) {
            partials = new double[Math.max(chunks, 2 * partials.length)];
        }
        final double[] part = partials;
        pool.run(chunks, (w, c) -> part[c] = body.sum(c * CHUNK, Math.min(n, (c + 1) * CHUNK)));
        double s = 0;
        for (int c = 0; c < chunks; c++) {
            s += part[c];
        }
        return s;
    }

    @FunctionalInterface
    private interface RangeSum2 {
        /** Processes [from, to) and stores its two partial sums at out[c] and out[c + 1]. */
        void sum(int from, int to, double[] out, int c);
    }

    /** Two reductions in one pass over fixed chunks; each summed in chunk order into result[0], result[1]. */
    private synchronized void reduce2(int n, RangeSum2 body, double[] result) {
        int chunks = chunks(n, CHUNK);
        if (chunks == 0) {
            result[0] = 0;
            result[1] = 0;
            return;
        }
        if (partials2.length < 2 * chunks) {
            partials2 = new double[Math.max(2 * chunks, 2 * partials2.length)];
        }
        final double[] part = partials2;
        if (chunks == 1) {
            body.sum(0, n, part, 0);
        } else {
            pool.run(chunks, (w, c) -> body.sum(c * CHUNK, Math.min(n, (c + 1) * CHUNK), part, 2 * c));
        }
        double s0 = 0, s1 = 0;
        for (int c = 0; c < chunks; c++) {
            s0 += part[2 * c];
            s1 += part[2 * c + 1];
        }
        result[0] = s0;
        result[1] = s1;
    }

    private static int chunks(int n, int per) {
        return (int) (((long) n + per - 1) / per);
    }

    /** Element blocks: about 8 per thread for load balance, at most 64 elements each. */
    private int elementsPerChunk(int elements) {
        return Math.max(1, Math.min(64, elements / (8 * threads)));
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("cpu backend is closed");
        }
    }

    private double[] vec(DeviceVector v, String name) {
        ensureOpen();
        Objects.requireNonNull(v, name + " must not be null");
        if (!(v instanceof CpuVector cv) || cv.owner() != this) {
            throw new IllegalArgumentException(name + " is not a vector of this cpu backend (it belongs to "
                    + describeOwner(v) + ")");
        }
        double[] data = cv.data();
        if (data == null) {
            throw new IllegalStateException(name + ": vector is closed");
        }
        return data;
    }

    private static String describeOwner(DeviceVector v) {
        try {
            Backend b = v.backend();
            return b == null ? "no backend" : b.toString();
        } catch (RuntimeException e) {
            return v.getClass().getName();
        }
    }

    private CpuScatter scatterOf(DeviceScatter z) {
        ensureOpen();
        Objects.requireNonNull(z, "z must not be null");
        if (!(z instanceof CpuScatter cz) || cz.backend != this) {
            throw new IllegalArgumentException("z is not a scatter operator uploaded to this cpu backend (" + z + ")");
        }
        if (cz.isClosed()) {
            throw new IllegalStateException("z: scatter operator is closed");
        }
        return cz;
    }

    private CpuElementData dataOf(DeviceElementData data) {
        ensureOpen();
        Objects.requireNonNull(data, "data must not be null");
        if (!(data instanceof CpuElementData cd) || cd.backend != this) {
            throw new IllegalArgumentException("data is not element data uploaded to this cpu backend (" + data + ")");
        }
        if (cd.isClosed()) {
            throw new IllegalStateException("data: element data is closed");
        }
        return cd;
    }

    private static void checkLength(String name, int length, String expectedName, int expected) {
        if (length != expected) {
            throw new IllegalArgumentException(name + " has length " + length + " but " + expectedName + " has length "
                    + expected);
        }
    }

    private static void distinct(Object a, String an, Object b, String bn) {
        if (a == b) {
            throw new IllegalArgumentException(an + " and " + bn + " must be distinct vectors (aliasing is not allowed here)");
        }
    }
}
