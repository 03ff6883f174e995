package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.kernels.FdmKernel;
import io.lobatto.backend.aparapi.runtime.ClBuffer;
import io.lobatto.backend.aparapi.runtime.ClKernel;
import io.lobatto.core.backend.DeviceFdm;
import io.lobatto.core.backend.DeviceIntVector;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;

import static io.lobatto.backend.aparapi.AparapiBackend.MAX_DEGREE;
import static io.lobatto.backend.aparapi.BackendCore.checkLen;

/**
 * The overlapping Schwarz smoother's local solves on the Aparapi backend, by the fast diagonalisation method (Lynch,
 * Rice and Thomas): on each (extended) element the separable operator's inverse (V_t (x) V_s (x) V_r) D^-1
 * (V_t (x) V_s (x) V_r)^T, D_ijk = lambda_r,i + lambda_s,j + lambda_t,k, from the 1D eigenvectors V_d and eigenvalues
 * lambda_d ({@link ClFdm}), applied in six
 * sum-factorised passes of {@link FdmKernel} or fused with the scatter and the RAS weights in one launch
 * ({@link io.lobatto.backend.aparapi.kernels.FdmLinesKernel}, {@link io.lobatto.backend.aparapi.kernels.FdmElementKernel});
 * the restricted form on the elements' own nodes, and the extended elements' assembled ids
 * ({@link io.lobatto.backend.aparapi.kernels.ExtendedIdsKernel}).
 */
final class Schwarz {

    /**
     * Whether {@link #applySchwarzLocal} runs the fused {@link io.lobatto.backend.aparapi.kernels.FdmElementKernel} (one
     * launch) or the scatter, the six {@link FdmKernel} passes and the weighting (eight launches):
     * {@code -Dlobatto.aparapi.fusedSchwarz}, else true. An A/B switch for the GPU runbook.
     */
    static final boolean FUSED_SCHWARZ = Boolean.parseBoolean(System.getProperty("lobatto.aparapi.fusedSchwarz", "true"));
    /**
     * Whether the fused local solves run {@link io.lobatto.backend.aparapi.kernels.FdmLinesKernel} (a work-item per
     * line, five stages in registers) or {@link io.lobatto.backend.aparapi.kernels.FdmElementKernel} (a work-item per
     * point, six passes through local memory): {@code -Dlobatto.aparapi.schwarzLocal=lines|points}, else lines. The
     * same results bit for bit; an A/B switch for the GPU runbook.
     */
    static final boolean SCHWARZ_LINES = !"points".equals(System.getProperty("lobatto.aparapi.schwarzLocal", "lines"));

    private final BackendCore core;
    private final Vectors vectors;
    private final GatherScatter gatherScatter;
    private final BuildsAhead builds;

    Schwarz(BackendCore core, Vectors vectors, GatherScatter gatherScatter, BuildsAhead builds) {
        this.core = core;
        this.vectors = vectors;
        this.gatherScatter = gatherScatter;
        this.builds = builds;
    }

    /** A dense fast diagonalisation: 3 E lines of {@code points}, line 3 e + d for element e and direction d. */
    DeviceFdm uploadFdm(int points, int elements, double[] eigenvectors, double[] eigenvalues) {
        core.ensureOpen();
        DeviceFdm.checkUpload(points, elements, eigenvectors, eigenvalues);
        checkPoints(points);
        int[] identity = new int[3 * elements];
        java.util.Arrays.setAll(identity, q -> q);
        return uploadFdmTable(points, elements, eigenvectors, eigenvalues, identity);
    }

    /** A fast diagonalisation of distinct lines: element e's line in direction d is {@code lineOf[3 e + d]}. */
    DeviceFdm uploadFdm(int points, int elements, double[] lineVectors, double[] lineValues, int[] lineOf) {
        core.ensureOpen();
        DeviceFdm.checkTable(points, elements, lineVectors, lineValues, lineOf);
        checkPoints(points);
        return uploadFdmTable(points, elements, lineVectors, lineValues, lineOf);
    }

    /** The points per line of a local solve: 2 .. N_max + 3 (an element of the highest degree extended by one layer). */
    private static void checkPoints(int points) {
        if (points < 2 || points > MAX_DEGREE + 3) {
            throw new IllegalArgumentException("fdm: points must be in [2, " + (MAX_DEGREE + 3) + "], got " + points);
        }
    }

    /** Uploads the checked table and has the fused local solves' kernels built ahead where they will run. */
    private ClFdm uploadFdmTable(int points, int elements, double[] lineVectors, double[] lineValues, int[] lineOf) {
        java.util.List<ClVector> made = new java.util.ArrayList<>();
        try {
            made.add((ClVector) vectors.upload(lineVectors));
            made.add((ClVector) vectors.upload(lineValues));
            made.add((ClVector) vectors.upload(lineOf));
            if (FUSED_SCHWARZ && KernelBuilds.fdmElementLocalBytes(points) <= core.localMemBytes) {
                builds.prepareSchwarz(points);
            }
            return new ClFdm(this, made.get(0), made.get(1), made.get(2), points, elements);
        } catch (RuntimeException ex) {
            made.forEach(ClVector::close);
            throw ex;
        }
    }

    /** {@code fdm} as an open fast diagonalisation of this backend, else the error naming it. */
    private ClFdm fdmOf(DeviceFdm fdm) {
        return BackendCore.own(fdm, ClFdm.class, this, "fdm", "a fast diagonalisation");
    }

    /** y = the local inverse times x on every element: the six sum-factorised passes of {@link FdmKernel} through the two work blocks. */
    void applyFdm(DeviceFdm fdm, DeviceVector x, DeviceVector y) {
        ClFdm f = fdmOf(fdm);
        ClVector xv = core.vec(x, "x");
        ClVector yv = core.vec(y, "y");
        if (x == y) {
            throw new IllegalArgumentException("applyFdm: x and y must be distinct vectors");
        }
        int n = f.points();
        int block = f.elements() * n * n * n;
        checkLen("applyFdm", "x", xv.length(), block);
        checkLen("applyFdm", "y", yv.length(), block);
        if (block == 0) {
            return;
        }
        ClVector[] w = f.work(vectors::allocate);
        ClBuffer a = w[0].buffer;
        ClBuffer b = w[1].buffer;
        fdmPass(FdmKernel.FORWARD_R, f, xv.buffer, a, block);
        fdmPass(FdmKernel.FORWARD_S, f, a, b, block);
        fdmPass(FdmKernel.FORWARD_T, f, b, a, block);
        fdmPass(FdmKernel.BACKWARD_T, f, a, b, block);
        fdmPass(FdmKernel.BACKWARD_S, f, b, a, block);
        fdmPass(FdmKernel.BACKWARD_R, f, a, yv.buffer, block);
    }

    /**
     * The Schwarz local solves y_ext = W (local inverse) Z_ext x_G in one launch of the fused kernel ({@link #schwarzLocal}), one
     * work-group per extended element (or per group of elements); {@code work} is not used. Returns false, having
     * launched nothing, where the fused kernel does not run (the block beyond the device's local memory, n &gt; 14 on
     * 48 KiB, or {@code -Dlobatto.aparapi.fusedSchwarz=false}): the caller then composes the unfused passes.
     */
    boolean applySchwarzLocal(DeviceScatter zExt, DeviceFdm fdm, DeviceVector weights, DeviceVector xG, DeviceVector work,
                              DeviceVector yExt) {
        ClFdm f = fdmOf(fdm);
        ClScatter z = gatherScatter.scat(zExt);
        ClVector xv = core.vec(xG, "xG");
        ClVector yv = core.vec(yExt, "yExt");
        ClVector wv = weights == null ? null : core.vec(weights, "weights");
        core.vec(work, "work");
        if (work == yExt) {
            throw new IllegalArgumentException("applySchwarzLocal: work and yExt must be distinct vectors");
        }
        int n = f.points();
        int block = f.elements() * n * n * n;
        checkLen("applySchwarzLocal", "zExt.localSize()", z.localSize(), block);
        checkLen("applySchwarzLocal", "xG", xv.length(), z.globalSize());
        checkLen("applySchwarzLocal", "work", work.length(), block);
        checkLen("applySchwarzLocal", "yExt", yv.length(), block);
        if (wv != null) {
            checkLen("applySchwarzLocal", "weights", wv.length(), block);
        }
        long bytes = KernelBuilds.fdmElementLocalBytes(n);
        if (!FUSED_SCHWARZ || bytes > core.localMemBytes) {
            return false;
        }
        if (block == 0) {
            return true;
        }
        schwarzLocal(f, wv != null ? 1 : 0, xv, z.scatterIds, wv != null ? wv : f.values, yv, SCHWARZ_LINES);
        return true;
    }

    /**
     * One launch of the fused local solves: {@link io.lobatto.backend.aparapi.kernels.FdmLinesKernel} where its
     * elements fit a group (and {@code lines}), else {@link io.lobatto.backend.aparapi.kernels.FdmElementKernel};
     * {@code mode} is their {@code weighted}, {@code ids} the extended ids [E][n^3], {@code wv} the weights of the
     * mode (any buffer for mode 0).
     */
    void schwarzLocal(ClFdm f, int mode, ClVector xv, ClVector ids, ClVector wv, ClVector yv, boolean lines) {
        int n = f.points();
        KernelBuilds.Spec spec = KernelBuilds.schwarzLocal(n, core.localMemBytes, lines);
        if (spec.constants().containsKey("epg")) {
            int epg = spec.constants().get("epg");
            ClKernel k = core.kernel(spec);
            if (epg * n * n <= k.workGroupSize()) {
                k.set("weighted", mode).set("elems", f.elements()).set("vm", f.vectors.buffer).set("lm", f.values.buffer)
                        .set("lines", f.lines.buffer).set("x", xv.buffer).set("ids", ids.buffer).set("w", wv.buffer)
                        .set("y", yv.buffer).local("lds", epg * KernelBuilds.fdmLinesLocalBytes(n));
                k.launch((f.elements() + epg - 1) / epg, epg * n * n);
                return;
            }
        }
        ClKernel k = core.kernel(KernelBuilds.fdmElement(n));
        k.set("weighted", mode).set("vm", f.vectors.buffer).set("lm", f.values.buffer).set("lines", f.lines.buffer)
                .set("x", xv.buffer).set("ids", ids.buffer).set("w", wv.buffer).set("y", yv.buffer)
                .local("lds", KernelBuilds.fdmElementLocalBytes(n));
        k.launch(f.elements(), KernelBuilds.fdmElementGroup(n, k.workGroupSize()));
    }

    /**
     * The restricted Schwarz local solves on the elements' own nodes in one launch of the fused kernel (mode 2: the
     * block read through {@code extIds}, the inner (n-2)^3 points written times z's inverse degree); without it
     * ({@link #hasRestrictedSchwarzLocal}) an {@link UnsupportedOperationException} naming n, the bytes and the limit.
     */
    void applyRestrictedSchwarzLocal(DeviceIntVector extIds, DeviceFdm fdm, DeviceScatter z, DeviceVector xG,
                                     DeviceVector yL) {
        ClFdm f = fdmOf(fdm);
        ClScatter s = gatherScatter.scat(z);
        ClVector ids = core.vec(extIds, "extIds");
        ClVector xv = core.vec(xG, "xG");
        ClVector yv = core.vec(yL, "yL");
        int n = f.points();
        int m = n - 2;
        checkLen("applyRestrictedSchwarzLocal", "extIds", ids.length(), f.elements() * n * n * n);
        checkLen("applyRestrictedSchwarzLocal", "z.localSize()", s.localSize(), f.elements() * m * m * m);
        checkLen("applyRestrictedSchwarzLocal", "xG", xv.length(), s.globalSize());
        checkLen("applyRestrictedSchwarzLocal", "yL", yv.length(), s.localSize());
        long bytes = KernelBuilds.fdmElementLocalBytes(n);
        if (!hasRestrictedSchwarzLocal(n)) {
            throw new UnsupportedOperationException("applyRestrictedSchwarzLocal: needs the fused Schwarz kernel (n = " + n
                    + ", " + bytes + " bytes of local memory of " + core.localMemBytes + ", fusedSchwarz " + FUSED_SCHWARZ + ")");
        }
        if (f.elements() == 0) {
            return;
        }
        schwarzLocal(f, 2, xv, ids, s.inverseDegree, yv, SCHWARZ_LINES);
    }

    /**
     * The extended elements' assembled ids on the device ({@link io.lobatto.backend.aparapi.kernels.ExtendedIdsKernel},
     * one work-item per point): only the 6 E face neighbours and codes cross from the host.
     */
    DeviceIntVector extendedIds(DeviceScatter z, int degree, int[] faceNeighbour, int[] faceCode) {
        core.ensureOpen();
        ClScatter s = gatherScatter.scat(z);
        if (degree < 1 || degree > MAX_DEGREE) {
            throw new IllegalArgumentException("extendedIds: degree must be in [1, " + MAX_DEGREE + "], got " + degree);
        }
        int nq = degree + 1, np = nq * nq * nq, ne = degree + 3;
        if (s.localSize() % np != 0) {
            throw new IllegalArgumentException("extendedIds: z.localSize() = " + s.localSize() + " is not E (N+1)^3 for N = " + degree);
        }
        int elements = s.localSize() / np;
        io.lobatto.core.backend.ExtendedElementWalk.check(elements, faceNeighbour, faceCode);
        long count = (long) elements * ne * ne * ne;
        if (count > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("extendedIds: E (N+3)^3 = " + count + " must stay below 2^31 - 8");
        }
        ClVector ids = new ClVector(core.owner, core.cl, core.buffer(count, 4, "the extended ids, " + count + " ints"), (int) count);
        if (count == 0) {
            return ids;
        }
        try (ClVector nb = (ClVector) vectors.upload(faceNeighbour); ClVector cd = (ClVector) vectors.upload(faceCode)) {
            ClKernel k = core.kernel(KernelBuilds.extendedIds(degree));
            k.set("nbr", nb.buffer).set("code", cd.buffer).set("sid", s.scatterIds.buffer).set("ids", ids.buffer)
                    .set("n", (int) count);
            core.launchPerEntry(k, count);
            vectors.synchronize();
            ids.minIndex = -1;
            ids.maxIndex = s.globalSize() - 1;
        } catch (RuntimeException ex) {
            ids.close();
            throw ex;
        }
        return ids;
    }

    /** The fused kernel, where its block fits the local memory and {@code lobatto.aparapi.fusedSchwarz} is not false. */
    boolean hasRestrictedSchwarzLocal(int points) {
        return FUSED_SCHWARZ && points >= 3 && KernelBuilds.fdmElementLocalBytes(points) <= core.localMemBytes;
    }

    /** One sum-factorised pass of {@link FdmKernel}: {@code n} outputs into {@code out}. */
    private void fdmPass(int op, ClFdm f, ClBuffer in, ClBuffer out, int n) {
        ClKernel k = core.kernel(KernelBuilds.fdm(op, f.points()));
        k.set("vm", f.vectors.buffer).set("lm", f.values.buffer).set("lines", f.lines.buffer).set("ta", in).set("tb", out)
                .set("n", n);
        core.launchPerEntry(k, n);
    }
}
