package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.kernels.ReductionKernel;
import io.lobatto.backend.aparapi.kernels.StreamKernel;
import io.lobatto.backend.aparapi.runtime.ClBuffer;
import io.lobatto.backend.aparapi.runtime.ClKernel;
import io.lobatto.core.backend.DeviceIntVector;
import io.lobatto.core.backend.DeviceVector;

import static io.lobatto.backend.aparapi.BackendCore.sameLength;

/**
 * Memory and streaming of the {@link io.lobatto.core.backend.Backend} SPI on the Aparapi backend: allocate, upload,
 * read and write device vectors ({@link ClVector}); BS1-BS5 with {@link StreamKernel} (fill, copy, axpby, pointwise
 * multiply) and {@link ReductionKernel} (dot, norm², the fused CG and PCG updates, and the reciprocal of the setup).
 *
 * <p>Reductions are deterministic: each work-group sums its share in a fixed tree and the host adds the partials in
 * group order; the grid depends only on the vector length and the device.
 */
final class Vectors {

    private final BackendCore core;
    /** The built kernels of the streaming and reduction ops by op code (no map lookup per launch). */
    private final ClKernel[] streamKernels = new ClKernel[4];
    private final ClKernel[] reductionKernels = new ClKernel[4];

    Vectors(BackendCore core) {
        this.core = core;
    }

    private ClKernel stream(int op) {
        ClKernel k = streamKernels[op];
        if (k == null) {
            k = buildStream(op);
            streamKernels[op] = k;
        }
        return k;
    }

    private ClKernel buildStream(int op) {
        return core.kernel(KernelBuilds.stream(op));
    }

    /** The reduction {@code op} built for the backend's reduction group. */
    private ClKernel reduction(int op) {
        ClKernel k = reductionKernels[op];
        if (k == null) {
            k = buildReduction(op, core.reduceGroup);
            reductionKernels[op] = k;
        }
        return k;
    }

    private ClKernel buildReduction(int op, int group) {
        return core.kernel(KernelBuilds.reduction(op, group));
    }

    // ------------------------------------------------------------------ memory

    DeviceVector allocate(int length) {
        core.ensureOpen();
        if (length < 0) {
            throw new IllegalArgumentException("allocate: length " + length + " < 0");
        }
        return new ClVector(core.owner, core.buffer(length, 8, "a vector of " + length + " doubles"), length);
    }

    DeviceVector upload(double[] values) {
        core.ensureOpen();
        ClVector v = new ClVector(core.owner, core.buffer(values.length, 8, "a vector of " + values.length + " doubles"), values.length);
        core.cl.write(values, 0, values.length, v.buffer, 0);
        return v;
    }

    DeviceIntVector upload(int[] values) {
        core.ensureOpen();
        ClVector v = new ClVector(core.owner, core.buffer(values.length, 4, "an index vector of " + values.length + " ints"), values.length);
        core.cl.write(values, 0, values.length, v.buffer, 0);
        return v;
    }

    void write(double[] values, DeviceVector target) {
        ClVector t = core.vec(target, "target");
        if (values.length != t.length()) {
            throw new IllegalArgumentException("write: values has length " + values.length + " but target has length " + t.length());
        }
        core.cl.write(values, 0, values.length, t.buffer, 0);
    }

    void read(DeviceVector source, double[] values) {
        ClVector s = core.vec(source, "source");
        if (values.length != s.length()) {
            throw new IllegalArgumentException("read: values has length " + values.length + " but source has length " + s.length());
        }
        core.cl.read(s.buffer, 0, values, 0, values.length);
    }

    /** A new host array holding {@code source} (as {@link io.lobatto.core.backend.Backend#download} does). */
    double[] download(DeviceVector source) {
        double[] values = new double[source.length()];
        read(source, values);
        return values;
    }

    void synchronize() {
        core.ensureOpen();
        core.cl.finish();
    }

    // ------------------------------------------------------------------ streaming

    void fill(DeviceVector y, double value) {
        ClVector yv = core.vec(y, "y");
        runStream(StreamKernel.FILL, core.unused, core.unused, yv, value, 0);
    }

    void copy(DeviceVector x, DeviceVector y) {
        ClVector xv = core.vec(x, "x");
        ClVector yv = core.vec(y, "y");
        sameLength("copy", x, "x", y, "y");
        runStream(StreamKernel.COPY, xv.buffer, core.unused, yv, 0, 0);
    }

    void axpby(double a, DeviceVector x, double b, DeviceVector y) {
        ClVector xv = core.vec(x, "x");
        ClVector yv = core.vec(y, "y");
        sameLength("axpby", x, "x", y, "y");
        runStream(StreamKernel.AXPBY, xv.buffer, core.unused, yv, a, b);
    }

    void pointwiseMultiply(DeviceVector a, DeviceVector x, DeviceVector y) {
        ClVector av = core.vec(a, "a");
        ClVector xv = core.vec(x, "x");
        ClVector yv = core.vec(y, "y");
        sameLength("pointwiseMultiply", a, "a", x, "x");
        sameLength("pointwiseMultiply", x, "x", y, "y");
        runStream(StreamKernel.PMUL, xv.buffer, av.buffer, yv, 0, 0);
    }

    /** One launch of {@link StreamKernel} {@code op} over {@code y} (nothing for an empty y). */
    void runStream(int op, ClBuffer x, ClBuffer w, ClVector y, double a, double b) {
        if (y.length() == 0) {
            return;
        }
        ClKernel k = stream(op);
        k.set("x", x).set("w", w).set("y", y.buffer).set("a", a).set("b", b).set("n", y.length());
        core.launchPerEntry(k, y.length());
    }

    double dot(DeviceVector x, DeviceVector y) {
        ClVector xv = core.vec(x, "x");
        ClVector yv = core.vec(y, "y");
        sameLength("dot", x, "x", y, "y");
        ClBuffer u = core.unused;
        return reduce(ReductionKernel.DOT, yv.buffer, u, xv.buffer, u, u, u, 0, xv.length(), null);
    }

    double norm2(DeviceVector x) {
        ClVector xv = core.vec(x, "x");
        ClBuffer u = core.unused;
        return reduce(ReductionKernel.DOT, xv.buffer, u, xv.buffer, u, u, u, 0, xv.length(), null);
    }

    double cgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r) {
        ClVector pv = core.vec(p, "p");
        ClVector apv = core.vec(ap, "ap");
        ClVector xv = core.vec(x, "x");
        ClVector rv = core.vec(r, "r");
        sameLength("cgUpdate", p, "p", ap, "ap");
        sameLength("cgUpdate", p, "p", x, "x");
        sameLength("cgUpdate", p, "p", r, "r");
        return reduce(ReductionKernel.CG_UPDATE, pv.buffer, apv.buffer, xv.buffer, rv.buffer, core.unused, core.unused, alpha,
                pv.length(), null);
    }

    /**
     * One pass of BS5 with Jacobi fused in: x += alpha p; r -= alpha Ap; z = inverseDiagonal o r; two
     * tree reductions per work-group (r . r and r . z), summed on the host in group order.
     */
    void pcgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r,
                   DeviceVector inverseDiagonal, DeviceVector z, double[] dots) {
        ClVector pv = core.vec(p, "p");
        ClVector apv = core.vec(ap, "ap");
        ClVector xv = core.vec(x, "x");
        ClVector rv = core.vec(r, "r");
        ClVector dv = core.vec(inverseDiagonal, "inverseDiagonal");
        ClVector zv = core.vec(z, "z");
        if (dots == null || dots.length < 2) {
            throw new IllegalArgumentException("pcgUpdate: dots must have length >= 2, got "
                    + (dots == null ? "null" : "length " + dots.length));
        }
        sameLength("pcgUpdate", p, "p", ap, "ap");
        sameLength("pcgUpdate", p, "p", x, "x");
        sameLength("pcgUpdate", p, "p", r, "r");
        sameLength("pcgUpdate", p, "p", inverseDiagonal, "inverseDiagonal");
        sameLength("pcgUpdate", p, "p", z, "z");
        ClVector[] all = {pv, apv, xv, rv, dv, zv};
        String[] names = {"p", "ap", "x", "r", "inverseDiagonal", "z"};
        for (int i = 0; i < all.length; i++) {
            for (int j = i + 1; j < all.length; j++) {
                if (all[i] == all[j]) {
                    throw new IllegalArgumentException("pcgUpdate: " + names[i] + " and " + names[j] + " must be distinct vectors");
                }
            }
        }
        reduce(ReductionKernel.PCG_UPDATE, pv.buffer, apv.buffer, xv.buffer, rv.buffer, dv.buffer, zv.buffer, alpha,
                pv.length(), dots);
    }

    /** y = 1 / x and the count of entries not positive and finite, in one reduction ({@link ReductionKernel#RECIPROCAL}). */
    long reciprocal(DeviceVector x, DeviceVector y) {
        ClVector xv = core.vec(x, "x");
        ClVector yv = core.vec(y, "y");
        sameLength("reciprocal", x, "x", y, "y");
        ClBuffer u = core.unused;
        double bad = reduce(ReductionKernel.RECIPROCAL, u, u, xv.buffer, u, u, yv.buffer, 0, xv.length(), null);
        return Math.round(bad);
    }

    /** Launches a reduction and sums its partials (two per group into {@code dots} for the PCG update). */
    private double reduce(int op, ClBuffer p, ClBuffer ap, ClBuffer x, ClBuffer r, ClBuffer d, ClBuffer z, double alpha,
                          int n, double[] dots) {
        if (n == 0) {
            if (dots != null) {
                dots[0] = 0;
                dots[1] = 0;
            }
            return 0;
        }
        int groups = core.reductionGroups(n);
        int reduceGroup = core.reduceGroup;
        ClKernel k = reduction(op);
        k.set("p", p).set("ap", ap).set("x", x).set("r", r).set("d", d).set("z", z).set("partials", core.partials)
                .set("alpha", alpha).set("n", n).local("lds", KernelBuilds.reductionLocalBytes(reduceGroup));
        k.launch(groups, reduceGroup);
        if (dots == null) {
            return core.sumPartials(groups);
        }
        core.cl.read(core.partials, 0, core.partialsHost, 2 * groups);
        double rr = 0;
        double rz = 0;
        for (int g = 0; g < groups; g++) {
            rr += core.partialsHost.getDouble(16 * g);
            rz += core.partialsHost.getDouble(16 * g + 8);
        }
        dots[0] = rr;
        dots[1] = rz;
        return rr;
    }
}
