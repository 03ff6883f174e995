package io.lobatto.solvers;

import java.util.Objects;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceFdm;
import io.lobatto.core.backend.DeviceIntVector;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;

/**
 * The overlapping Schwarz method with minimal overlap (Fischer 1997; Lottes &amp; Fischer 2005), the relaxation NekRS
 * uses inside Chebyshev: each element extended by one GLL layer of its neighbours ({@link ExtendedElements}) is a
 * subdomain, its local problem is the separable approximation solved by fast diagonalisation
 * ({@link FastDiagonalization}, {@link Backend#applyFdm}), and
 * <pre>
 *   ASM:  z = sum_e R_e^T  A~_e^-1 R_e r           (symmetric positive semi-definite per term)
 *   RAS:  z = sum_e R_e^T W_e A~_e^-1 R_e r        (W_e: 1/multiplicity on e's own nodes, 0 on its extension)
 * </pre>
 * R_e is a second scatter operator Z_ext on the E (N+3)^3 extended points (extension points without a node and
 * Dirichlet nodes masked), so the exchange with the neighbours is Z_ext's scatter and gather on the backend; nothing
 * moves to the host. RAS needs only Z_ext's scatter: W_e is 0 on the extension, so its sum is the gather of the mesh's
 * own Z over the elements' own nodes, with W_e = W, Z's inverse degree. So where the backend has
 * {@link Backend#applyRestrictedSchwarzLocal} RAS keeps just the extended points' assembled ids (walked to on the
 * backend from the face neighbours, {@link Backend#extendedIds}), the local problems as a table of their distinct 1D
 * lines ({@link FastDiagonalization#table}) and one vector of Z's local size; no extended map on the host, no Z_ext,
 * no weights array and no extended vectors ({@code -Dlobatto.schwarz.compact=false} restores the full Z_ext setup, for
 * an A/B). Owns its device memory (release with {@link #close()}).
 */
public final class SchwarzPreconditioner implements Preconditioner {

    /**
     * Whether RAS is set up without Z_ext (extended ids, FDM table, the mesh's gather) where the backend can, and ASM
     * with the FDM table: {@code -Dlobatto.schwarz.compact}, else true.
     */
    static final boolean COMPACT = Boolean.parseBoolean(System.getProperty("lobatto.schwarz.compact", "true"));

    /**
     * Whether the Schwarz setup takes the faster paths of issue 27's setup work (branch schwarz4):
     * {@code -Dlobatto.schwarz.fastSetup}, else true. False restores the setup of {@code 9c68c10} for an A/B in one
     * lease: the host Z built per level to read its local size, the FDM lines keyed by their exact lengths
     * ({@link FastDiagonalization#EXACT_LENGTH_BITS}) and diagonalised by Hipparchus, the face codes and mean lengths made
     * at every level.
     */
    static final boolean FAST_SETUP = Boolean.parseBoolean(System.getProperty("lobatto.schwarz.fastSetup", "true"));

    /** The FDM lines' key: {@link FastDiagonalization#DEFAULT_LENGTH_BITS}, or the exact lengths without {@link #FAST_SETUP}. */
    static final int LENGTH_BITS = FAST_SETUP ? FastDiagonalization.DEFAULT_LENGTH_BITS
            : FastDiagonalization.EXACT_LENGTH_BITS;

    /** The FDM's eigensolver: Jacobi, or Hipparchus without {@link #FAST_SETUP}. */
    static final FastDiagonalization.Eigensolver SOLVER = FAST_SETUP ? FastDiagonalization.Eigensolver.JACOBI
            : FastDiagonalization.Eigensolver.HIPPARCHUS;

    private final Backend backend;
    private final boolean restricted;
    private final int size;
    /** Z_ext, or null in the compact RAS setup. */
    private final DeviceScatter zExt;
    private final DeviceFdm fdm;
    /** The RAS weights on the extended points (full setup), else null. */
    private final DeviceVector weights;
    private final DeviceVector rExt;
    /** The local solves: on the extended points, or on the mesh's local nodes in the compact RAS setup. */
    private final DeviceVector uExt;
    /** Compact RAS: the extended points' assembled ids [E][(N+3)^3]; else null. */
    private final DeviceIntVector extIds;
    /** Compact RAS: the mesh's own Z (the operator's, not owned here); else null. */
    private final DeviceScatter zOwn;

    private SchwarzPreconditioner(Backend backend, boolean restricted, int size, DeviceScatter zExt, DeviceFdm fdm,
                                  DeviceVector weights, DeviceVector rExt, DeviceVector uExt, DeviceIntVector extIds,
                                  DeviceScatter zOwn) {
        this.backend = backend;
        this.restricted = restricted;
        this.size = size;
        this.zExt = zExt;
        this.fdm = fdm;
        this.weights = weights;
        this.rExt = rExt;
        this.uExt = uExt;
        this.extIds = extIds;
        this.zOwn = zOwn;
    }

    /**
     * The Schwarz method of {@code operator} (bound on {@code mesh} with the Dirichlet {@code mask}, length
     * {@code mesh.globalNodeCount()}, or null for none): additive, or restricted when {@code restricted}.
     *
     * @throws IllegalArgumentException if the operator's size is not the mesh's unmasked node count
     */
    public static SchwarzPreconditioner bind(AssembledOperator operator, SpectralElementMesh mesh, boolean[] mask,
                                             boolean restricted) {
        return bind(operator, mesh, mask, restricted, new SetupPhases());
    }

    /**
     * As {@link #bind(AssembledOperator, SpectralElementMesh, boolean[], boolean)}, recording the setup into
     * {@code phases}: "Schwarz topology" (the extended elements), "Schwarz Z" (the extended scatter operator),
     * "Schwarz FDM" (the 1D eigenproblems) and "Schwarz upload" (to the backend, and the RAS weights).
     */
    public static SchwarzPreconditioner bind(AssembledOperator operator, SpectralElementMesh mesh, boolean[] mask,
                                             boolean restricted, SetupPhases phases) {
        return bind(operator, mesh, mask, restricted, phases, COMPACT);
    }

    /**
     * As {@link #bind(AssembledOperator, SpectralElementMesh, boolean[], boolean, SetupPhases)}, with the setup chosen
     * here instead of by {@code -Dlobatto.schwarz.compact}: {@code compact} true sets RAS up without Z_ext where the
     * backend can, and the FDM as a table; false keeps the full setup (Z_ext, dense FDM, weights on the extended points).
     * Both give the same preconditioner.
     */
    public static SchwarzPreconditioner bind(AssembledOperator operator, SpectralElementMesh mesh, boolean[] mask,
                                             boolean restricted, SetupPhases phases, boolean compact) {
        return bind(operator, mesh, mask, restricted, phases, compact, null);
    }

    /**
     * Whether the compact RAS setup (no Z_ext) applies to a level of degree {@code degree} on {@code backend}: compact,
     * restricted and a backend with {@link Backend#applyRestrictedSchwarzLocal} for n = N + 3.
     */
    static boolean compactRas(Backend backend, int degree, boolean restricted, boolean compact) {
        return compact && restricted && backend.hasRestrictedSchwarzLocal(degree + 3);
    }

    /**
     * As {@link #bind(AssembledOperator, SpectralElementMesh, boolean[], boolean, SetupPhases, boolean)}, with the host
     * part of the setup (extended elements, mask, FDM table) from {@code host} where it was made for this mesh, mask,
     * lambda and choice of setup ({@link SchwarzHostSetup#ahead}, p-multigrid's levels), else made here. The phases
     * "Schwarz topology" and "Schwarz FDM" then time the wait for it: the part of that host work on this thread's path.
     */
    static SchwarzPreconditioner bind(AssembledOperator operator, SpectralElementMesh mesh, boolean[] mask,
                                      boolean restricted, SetupPhases phases, boolean compact, SchwarzHostSetup host) {
        Objects.requireNonNull(operator, "operator");
        Objects.requireNonNull(phases, "phases");
        Objects.requireNonNull(mesh, "mesh");
        int g = mesh.globalNodeCount();
        if (mask != null && mask.length != g) {
            throw new IllegalArgumentException("mask has length " + mask.length + " but the mesh has " + g + " global nodes");
        }
        // compact RAS: the extended elements from their faces only, their points walked to on the backend
        boolean compactRas = compactRas(operator.backend(), mesh.degree(), restricted, compact);
        double lambda = operator.elementOperator().lambda();
        SchwarzHostSetup h = host != null && host.isFor(mesh, mask, lambda, compactRas) ? host
                : SchwarzHostSetup.inline(mesh, mask, lambda, compactRas);
        SchwarzHostSetup.Parts parts = phases.time("Schwarz topology", h::parts);
        ExtendedElements ext = parts.extended();
        boolean[] extMask = parts.extendedMask();
        if (compactRas) {
            return bindRestricted(operator, ext, parts.unmasked(), h, phases);
        }
        int[] l2g = ext.sharedLocalToGlobal();
        ScatterOperator z = phases.time("Schwarz Z", () -> ScatterOperator.build(l2g, g + 1, extMask));
        if (z.globalSize() != operator.size()) {
            throw new IllegalArgumentException("operator has size " + operator.size() + " but the mesh and mask give "
                    + z.globalSize() + " unknowns");
        }
        FastDiagonalization f = compact ? null : phases.time("Schwarz FDM", () -> h.table().expand());
        FastDiagonalization.Table t = !compact ? null : phases.time("Schwarz FDM", h::table);
        Backend backend = operator.backend();
        DeviceScatter dz = null;
        DeviceFdm df = null;
        DeviceVector w = null;
        DeviceVector a = null;
        long tUpload = System.nanoTime();
        try {
            dz = z.upload(backend);
            df = f != null ? backend.uploadFdm(f.points(), f.elements(), f.eigenvectors(), f.eigenvalues())
                    : backend.uploadFdm(t.points(), t.elements(), t.vectors(), t.values(), t.lineOf());
            if (restricted) {
                w = backend.upload(restrictionWeights(ext, l2g, extMask, mesh));
            }
            a = backend.allocate(z.localSize());
            DeviceVector b = backend.allocate(z.localSize());
            backend.synchronize();
            phases.add("Schwarz upload", System.nanoTime() - tUpload);
            return new SchwarzPreconditioner(backend, restricted, operator.size(), dz, df, w, a, b, null, null);
        } catch (RuntimeException ex) {
            for (AutoCloseable c : new AutoCloseable[] {dz, df, w, a}) {
                try {
                    if (c != null) {
                        c.close();
                    }
                } catch (Exception suppressed) {
                    ex.addSuppressed(suppressed);
                }
            }
            throw ex;
        }
    }

    /**
     * RAS without Z_ext: the FDM table ("Schwarz FDM"), the extended points' assembled ids walked to on the backend
     * from the face neighbours and codes ({@link Backend#extendedIds}, "Schwarz Z"), and on the backend the table and
     * one vector of the mesh's local size ("Schwarz upload").
     */
    private static SchwarzPreconditioner bindRestricted(AssembledOperator operator, ExtendedElements ext, int unmasked,
                                                        SchwarzHostSetup host, SetupPhases phases) {
        // the device Z's sizes: asking the operator for its host Z would build that Z on the host (an E (N+1)^3 pass
        // per level, about 0.5 s over the levels of Kershaw 30^3 at N = 7), which the old path did
        int localSize = FAST_SETUP ? operator.deviceScatter().localSize() : operator.scatterOperator().localSize();
        int n = ext.points();
        if (localSize != (long) ext.elements() * (n - 2) * (n - 2) * (n - 2)) {
            throw new IllegalArgumentException("operator's Z has " + localSize + " local nodes but the mesh has E (N+1)^3 = "
                    + (long) ext.elements() * (n - 2) * (n - 2) * (n - 2));
        }
        if (unmasked != operator.size()) {
            throw new IllegalArgumentException("operator has size " + operator.size() + " but the mesh and mask give "
                    + unmasked + " unknowns");
        }
        FastDiagonalization.Table t = phases.time("Schwarz FDM", host::table);
        Backend backend = operator.backend();
        DeviceIntVector di = null;
        DeviceFdm df = null;
        try {
            di = phases.time("Schwarz Z", () -> backend.extendedIds(operator.deviceScatter(), ext.degree(),
                    ext.sharedFaceNeighbours(), ext.sharedFaceCodes()));
            long tUpload = System.nanoTime();
            df = backend.uploadFdm(t.points(), t.elements(), t.vectors(), t.values(), t.lineOf());
            DeviceVector u = backend.allocate(localSize);
            backend.synchronize();
            phases.add("Schwarz upload", System.nanoTime() - tUpload);
            return new SchwarzPreconditioner(backend, true, operator.size(), null, df, null, null, u, di,
                    operator.deviceScatter());
        } catch (RuntimeException ex) {
            for (AutoCloseable c : new AutoCloseable[] {di, df}) {
                try {
                    if (c != null) {
                        c.close();
                    }
                } catch (Exception suppressed) {
                    ex.addSuppressed(suppressed);
                }
            }
            throw ex;
        }
    }

    /** W_e on the extended points: 1/multiplicity on the element's own unmasked nodes, 0 elsewhere. */
    private static double[] restrictionWeights(ExtendedElements ext, int[] l2g, boolean[] extMask, SpectralElementMesh mesh) {
        int[] count = new int[mesh.globalNodeCount()];
        for (int g : mesh.localToGlobal()) {
            count[g]++;
        }
        int n = ext.points(), nDeg = ext.degree();
        double[] w = new double[l2g.length];
        java.util.stream.IntStream.range(0, ext.elements()).parallel().forEach(e -> {
            for (int k = 1; k <= nDeg + 1; k++) {
                for (int j = 1; j <= nDeg + 1; j++) {
                    for (int i = 1; i <= nDeg + 1; i++) {
                        int p = e * n * n * n + i + n * (j + n * k);
                        int g = l2g[p];
                        w[p] = extMask[g] ? 0 : 1.0 / count[g];
                    }
                }
            }
        });
        return w;
    }

    /** Whether this is the restricted method (RAS), which is not symmetric. */
    public boolean isRestricted() {
        return restricted;
    }

    /** RAS is not symmetric: flexible CG. */
    @Override
    public boolean isVariable() {
        return restricted;
    }

    /** z = sum_e R_e^T (W_e) A~_e^-1 R_e r. */
    @Override
    public void apply(DeviceVector r, DeviceVector z) {
        if (r.length() != size || z.length() != size) {
            throw new IllegalArgumentException("Schwarz acts on vectors of length " + size + ", got r of length " + r.length()
                    + " and z of length " + z.length());
        }
        if (extIds != null) {
            backend.applyRestrictedSchwarzLocal(extIds, fdm, zOwn, r, uExt);
            backend.gather(zOwn, uExt, z);
            return;
        }
        backend.applySchwarzLocal(zExt, fdm, restricted ? weights : null, r, rExt, uExt);
        backend.gather(zExt, uExt, z);
    }

    /**
     * The Chebyshev step with this relaxation, d = a d + b M^-1 r and x += beta d, as two backend passes: the local
     * solves ({@link Backend#applySchwarzLocal}) and their gather folded into the update
     * ({@link Backend#gatherChebyshevStep}). {@code scratch} has this operator's size (used by backends that do not
     * fold the update).
     */
    void chebyshevStep(double a, double b, double beta, DeviceVector r, DeviceVector d, DeviceVector x, DeviceVector scratch) {
        if (r.length() != size || d.length() != size || x.length() != size) {
            throw new IllegalArgumentException("Schwarz acts on vectors of length " + size + ", got r, d, x of lengths "
                    + r.length() + ", " + d.length() + ", " + x.length());
        }
        if (extIds != null) {
            backend.applyRestrictedSchwarzLocal(extIds, fdm, zOwn, r, uExt);
            backend.gatherChebyshevStep(zOwn, uExt, a, b, beta, d, x, scratch);
            return;
        }
        backend.applySchwarzLocal(zExt, fdm, restricted ? weights : null, r, rExt, uExt);
        backend.gatherChebyshevStep(zExt, uExt, a, b, beta, d, x, scratch);
    }

    @Override
    public void close() {
        for (AutoCloseable c : new AutoCloseable[] {zExt, fdm, weights, rExt, uExt, extIds}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    throw new IllegalStateException("closing the Schwarz method's device memory", e);
                }
            }
        }
    }
}
