package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.kernels.ChebyshevKernel;
import io.lobatto.backend.aparapi.kernels.TransferKernel;
import io.lobatto.backend.aparapi.runtime.ClBuffer;
import io.lobatto.backend.aparapi.runtime.ClKernel;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceTransfer;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.basis.Basis1D;

import java.util.Objects;

import static io.lobatto.backend.aparapi.AparapiBackend.MAX_DEGREE;
import static io.lobatto.backend.aparapi.BackendCore.checkLen;
import static io.lobatto.backend.aparapi.BackendCore.sameLength;

/**
 * The p-multigrid part of the {@link io.lobatto.core.backend.Backend} SPI on the Aparapi backend: the transfer between
 * degrees ({@link ClTransfer}; prolongation and restriction in three sum-factorised passes of {@link TransferKernel}
 * each, followed by the gather of {@link GatherScatter}) and the fused Chebyshev smoothing step
 * ({@link ChebyshevKernel}).
 */
final class Multigrid {

    private final BackendCore core;
    private final Vectors vectors;
    private final GatherScatter gatherScatter;

    Multigrid(BackendCore core, Vectors vectors, GatherScatter gatherScatter) {
        this.core = core;
        this.vectors = vectors;
        this.gatherScatter = gatherScatter;
    }

    DeviceTransfer uploadTransfer(Basis1D coarse, Basis1D fine, int elements) {
        core.ensureOpen();
        Objects.requireNonNull(coarse, "coarse");
        Objects.requireNonNull(fine, "fine");
        if (coarse.degree() >= fine.degree()) {
            throw new IllegalArgumentException("transfer: the coarse degree " + coarse.degree() + " must be below the fine degree "
                    + fine.degree());
        }
        if (fine.degree() > MAX_DEGREE) {
            throw new IllegalArgumentException("transfer: fine degree " + fine.degree() + " > " + MAX_DEGREE);
        }
        if (elements < 0) {
            throw new IllegalArgumentException("elements must be >= 0, got " + elements);
        }
        double[] j = Basis1D.interpolationMatrix(coarse.gll().nodes(), fine.gll().nodes());
        long nc = coarse.nq(), nf = fine.nq();
        long wide = elements * nc * nf * nf;
        if (wide > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("transfer: E (Nc+1) (Nf+1)^2 = " + wide + " intermediate entries exceed 2^31 - 9");
        }
        ClVector jv = (ClVector) vectors.upload(j);
        ClVector w = null;
        try {
            w = (ClVector) vectors.allocate((int) wide);
            ClVector narrow = (ClVector) vectors.allocate((int) (elements * nc * nc * nf));
            return new ClTransfer(this, jv, w, narrow, coarse.degree(), fine.degree(), elements);
        } catch (RuntimeException ex) {
            jv.close();
            if (w != null) {
                w.close();
            }
            throw ex;
        }
    }

    private ClTransfer transferOf(DeviceTransfer t) {
        return BackendCore.own(t, ClTransfer.class, this, "t", "a transfer");
    }

    void prolongate(DeviceTransfer t, DeviceScatter zc, DeviceScatter zf, DeviceVector xc, DeviceVector workF, DeviceVector xf) {
        ClTransfer tt = transferOf(t);
        ClScatter c = gatherScatter.scat(zc);
        ClScatter f = gatherScatter.scat(zf);
        ClVector x = core.vec(xc, "xc");
        ClVector w = core.vec(workF, "workF");
        ClVector y = core.vec(xf, "xf");
        checkTransfer(tt, c, f);
        checkLen("prolongate", "xc", x.length(), c.globalSize());
        checkLen("prolongate", "workF", w.length(), f.localSize());
        checkLen("prolongate", "xf", y.length(), f.globalSize());
        runTransfer(TransferKernel.PROLONG_I, tt, c.scatterIds, x, f.inverseDegree, w);
        gatherScatter.runGather(f, w, y, null, null, 0);
    }

    void restrict(DeviceTransfer t, DeviceScatter zf, DeviceScatter zc, DeviceVector rf, DeviceVector workC, DeviceVector rc) {
        ClTransfer tt = transferOf(t);
        ClScatter f = gatherScatter.scat(zf);
        ClScatter c = gatherScatter.scat(zc);
        ClVector r = core.vec(rf, "rf");
        ClVector w = core.vec(workC, "workC");
        ClVector y = core.vec(rc, "rc");
        checkTransfer(tt, c, f);
        checkLen("restrict", "rf", r.length(), f.globalSize());
        checkLen("restrict", "workC", w.length(), c.localSize());
        checkLen("restrict", "rc", y.length(), c.globalSize());
        runTransfer(TransferKernel.RESTRICT_K, tt, f.scatterIds, r, f.inverseDegree, w);
        gatherScatter.runGather(c, w, y, null, null, 0);
    }

    /** The fused Chebyshev step: d = a d + b (inverseDiagonal o r); x += d in one launch ({@link ChebyshevKernel}). */
    void chebyshevStep(double a, double b, DeviceVector inverseDiagonal, DeviceVector r, DeviceVector d, DeviceVector x) {
        ClVector wv = core.vec(inverseDiagonal, "inverseDiagonal");
        ClVector rv = core.vec(r, "r");
        ClVector dv = core.vec(d, "d");
        ClVector xv = core.vec(x, "x");
        sameLength("chebyshevStep", inverseDiagonal, "inverseDiagonal", r, "r");
        sameLength("chebyshevStep", r, "r", d, "d");
        sameLength("chebyshevStep", d, "d", x, "x");
        if (d == x || d == r || x == r) {
            throw new IllegalArgumentException("chebyshevStep: r, d and x must be distinct vectors");
        }
        if (dv.length() == 0) {
            return;
        }
        ClKernel k = core.kernel(KernelBuilds.chebyshev());
        k.set("w", wv.buffer).set("r", rv.buffer).set("d", dv.buffer).set("x", xv.buffer).set("a", a).set("b", b)
                .set("n", dv.length());
        core.launchPerEntry(k, dv.length());
    }

    private static void checkTransfer(ClTransfer t, ClScatter c, ClScatter f) {
        long nc = t.coarseDegree() + 1, nf = t.fineDegree() + 1;
        checkLen("transfer", "zc.localSize()", c.localSize(), (int) (t.elements() * nc * nc * nc));
        checkLen("transfer", "zf.localSize()", f.localSize(), (int) (t.elements() * nf * nf * nf));
    }

    /** One sum-factorised pass of {@link TransferKernel}: {@code n} outputs into {@code out}. */
    private void transferPass(int op, ClTransfer t, ClBuffer ids, ClBuffer xg, ClBuffer wf, ClBuffer in, ClBuffer out, long n) {
        if (n == 0) {
            return;
        }
        ClKernel k;
        if (KernelBuilds.transferAny(core.cl.programs())) {
            k = core.kernel(KernelBuilds.transferAny());
            k.set("op", op).set("nc", t.coarseDegree() + 1).set("nf", t.fineDegree() + 1);
        } else {
            k = core.kernel(KernelBuilds.transfer(op, t.coarseDegree(), t.fineDegree()));
        }
        k.set("jm", t.matrix.buffer).set("ids", ids).set("xg", xg).set("wf", wf).set("ta", in).set("tb", out).set("n", (int) n);
        core.launchPerEntry(k, n);
    }

    /** The element part of prolongation (op PROLONG) or restriction into {@code out}, in three passes. */
    private void runTransfer(int op, ClTransfer t, ClVector ids, ClVector in, ClVector weights, ClVector out) {
        long e = t.elements(), nc = t.coarseDegree() + 1, nf = t.fineDegree() + 1;
        ClBuffer unused = core.unused;
        if (op == TransferKernel.PROLONG_I) {
            transferPass(TransferKernel.PROLONG_I, t, ids.buffer, in.buffer, unused, unused, t.narrow.buffer, e * nc * nc * nf);
            transferPass(TransferKernel.PROLONG_J, t, unused, unused, unused, t.narrow.buffer, t.wide.buffer, e * nc * nf * nf);
            transferPass(TransferKernel.PROLONG_K, t, unused, unused, weights.buffer, t.wide.buffer, out.buffer, e * nf * nf * nf);
        } else {
            transferPass(TransferKernel.RESTRICT_K, t, ids.buffer, in.buffer, weights.buffer, unused, t.wide.buffer, e * nc * nf * nf);
            transferPass(TransferKernel.RESTRICT_J, t, unused, unused, unused, t.wide.buffer, t.narrow.buffer, e * nc * nc * nf);
            transferPass(TransferKernel.RESTRICT_I, t, unused, unused, unused, t.narrow.buffer, out.buffer, e * nc * nc * nc);
        }
    }
}
