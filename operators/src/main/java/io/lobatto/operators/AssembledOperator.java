package io.lobatto.operators;

import java.util.Objects;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceOperator;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.gs.ScatterOperator;

/**
 * The assembled operator A = Z^T (L + shift W) Z on assembled vectors x_G (masked Dirichlet nodes
 * excluded), applied with hipBone's fused kernel: y_L = (L + shift W) Z x_G reads x_G through the
 * scatter ids inside the element kernel, then y_G = Z^T y_L (hipBone, "Poisson Operator"). Since
 * Z^T W Z = I, {@code shift} adds shift * I: NekBone's A = Z^T S_L Z + lambda I is a stiffness with
 * lambda = 0 and shift = lambda; the screened Poisson operator Z^T (S + lambda M) Z has shift = 0.
 * Owns device memory (element data, Z, an N_L workspace); release it with {@link #close()}.
 */
public final class AssembledOperator implements DeviceOperator, AutoCloseable {

    private final ElementOperator operator;
    /** The host Z: given, or made from {@link #hostZSource} on the first {@link #scatterOperator()}. */
    private volatile ScatterOperator z;
    private final java.util.function.Supplier<ScatterOperator> hostZSource;
    private final io.lobatto.core.concurrent.Once<ScatterOperator> hostZ = new io.lobatto.core.concurrent.Once<>();
    private final double shift;
    private final Backend backend;
    private final BoundElementOperator bound;
    private final DeviceScatter deviceZ;
    private final DeviceVector workL;
    private boolean checkInputs;

    private AssembledOperator(ElementOperator operator, ScatterOperator z, Backend backend, double shift) {
        this.operator = Objects.requireNonNull(operator, "operator");
        this.z = Objects.requireNonNull(z, "scatter operator Z");
        this.hostZSource = null;
        this.backend = Objects.requireNonNull(backend, "backend");
        if (z.localSize() != operator.localSize()) {
            throw new IllegalArgumentException("Z has " + z.localSize() + " local nodes but the operator acts on "
                    + operator.localSize() + " (E = " + operator.elementCount() + ", N = " + operator.degree() + ")");
        }
        if (!Double.isFinite(shift)) {
            throw new IllegalArgumentException("shift must be finite, got " + shift);
        }
        this.shift = shift;
        BoundElementOperator b = operator.bind(backend);
        DeviceScatter dz = null;
        try {
            dz = z.upload(backend);
            this.workL = backend.allocate(z.localSize());
        } catch (RuntimeException ex) {
            b.close();
            if (dz != null) {
                dz.close();
            }
            throw ex;
        }
        this.bound = b;
        this.deviceZ = dz;
    }

    /** A = Z^T L Z with Z already on the device ({@code deviceZ}, owned from now on); the host Z comes from {@code hostZ} when asked for. */
    private AssembledOperator(ElementOperator operator, DeviceScatter deviceZ, java.util.function.Supplier<ScatterOperator> hostZ,
                              Backend backend) {
        this.operator = Objects.requireNonNull(operator, "operator");
        this.hostZSource = hostZ;
        this.backend = Objects.requireNonNull(backend, "backend");
        this.shift = 0.0;
        try {
            Objects.requireNonNull(deviceZ, "deviceZ");
            if (deviceZ.localSize() != operator.localSize()) {
                throw new IllegalArgumentException("Z has " + deviceZ.localSize() + " local nodes but the operator acts on "
                        + operator.localSize() + " (E = " + operator.elementCount() + ", N = " + operator.degree() + ")");
            }
            this.workL = backend.allocate(deviceZ.localSize());
        } catch (RuntimeException ex) {
            if (deviceZ != null) {
                deviceZ.close();
            }
            throw ex;
        }
        BoundElementOperator b;
        try {
            b = operator.bind(backend);
        } catch (RuntimeException ex) {
            workL.close();
            deviceZ.close();
            throw ex;
        }
        this.bound = b;
        this.deviceZ = deviceZ;
    }

    /**
     * A = Z^T L Z on {@code backend} with Z of {@code mesh}'s numbering and {@code masked} built where the backend runs
     * ({@link ScatterOperator#buildOn}): no host Z exists unless {@link #scatterOperator()} is called, which then builds
     * it from the same mesh and mask.
     *
     * @param masked length {@code mesh.globalNodeCount()}, true for Dirichlet nodes, or null; retained (for the host Z on
     *               demand), so it must not change afterwards
     * @throws IllegalArgumentException as {@link ScatterOperator#buildOn}, or if the operator acts on another N_L
     */
    public static AssembledOperator bind(ElementOperator operator, io.lobatto.core.mesh.SpectralElementMesh mesh,
                                         boolean[] masked, Backend backend) {
        return bind(operator, ScatterOperator.buildOn(backend, mesh, masked), mesh, masked, backend);
    }

    /**
     * As {@link #bind(ElementOperator, io.lobatto.core.mesh.SpectralElementMesh, boolean[], Backend)} with Z built
     * already ({@link ScatterOperator#buildOn} of the same mesh and mask, so that its build can be timed apart); this
     * operator owns {@code deviceZ} from now on and closes it, also when this method throws.
     */
    public static AssembledOperator bind(ElementOperator operator, DeviceScatter deviceZ,
                                         io.lobatto.core.mesh.SpectralElementMesh mesh, boolean[] masked, Backend backend) {
        Objects.requireNonNull(mesh, "mesh");
        return new AssembledOperator(operator, deviceZ, () -> ScatterOperator.of(mesh, masked), backend);
    }

    /** A = Z^T L Z on {@code backend}. */
    public static AssembledOperator bind(ElementOperator operator, ScatterOperator z, Backend backend) {
        return new AssembledOperator(operator, z, backend, 0.0);
    }

    /** A = Z^T (L + shift W) Z = Z^T L Z + shift I on {@code backend}. */
    public static AssembledOperator bind(ElementOperator operator, ScatterOperator z, Backend backend, double shift) {
        return new AssembledOperator(operator, z, backend, shift);
    }

    /** When on, every {@link #apply} first downloads x_G and rejects NaN or infinite entries (slow; for debugging). */
    public AssembledOperator checkInputs(boolean on) {
        this.checkInputs = on;
        return this;
    }

    @Override
    public Backend backend() {
        return backend;
    }

    @Override
    public int size() {
        return deviceZ.globalSize();
    }

    /** The element operator L. */
    public ElementOperator elementOperator() {
        return operator;
    }

    /** The scatter operator Z on the host: the one bound, or (Z built on the device) built now from the mesh, once. */
    public ScatterOperator scatterOperator() {
        ScatterOperator h = z;
        if (h == null) {
            // built by parallel loops: no lock held while they run (see io.lobatto.core.concurrent.Once)
            h = hostZ.get(hostZSource);
            z = h;
        }
        return h;
    }

    /** The identity shift. */
    public double shift() {
        return shift;
    }

    /** The element operator on the device (for element-local applies on the same data). */
    public BoundElementOperator boundElementOperator() {
        return bound;
    }

    /** Z on the device. */
    public DeviceScatter deviceScatter() {
        return deviceZ;
    }

    /** y_G = A x_G. */
    @Override
    public void apply(DeviceVector x, DeviceVector y) {
        if (checkInputs) {
            VectorChecks.requireFinite(backend, x, "x_G");
        }
        backend.applyAssembled(bound.data(), deviceZ, operator.lambda(), shift, x, workL, y);
    }

    /** r = c1 A x + r (and s = c2 A x + s), folded into the gather where the backend can ({@link Backend#applyAssembledResidual}). */
    @Override
    public void applyResidual(DeviceVector x, DeviceVector y, double c1, DeviceVector r, double c2, DeviceVector s) {
        if (checkInputs) {
            VectorChecks.requireFinite(backend, x, "x_G");
        }
        backend.applyAssembledResidual(bound.data(), deviceZ, operator.lambda(), shift, x, workL, y, c1, r, c2, s);
    }

    /** A Chebyshev-Jacobi step after r -= A d, folded into the gather where the backend can ({@link Backend#applyAssembledResidualChebyshev}). */
    @Override
    public void applyResidualChebyshevStep(DeviceVector d, DeviceVector y, DeviceVector r, double a, double b,
                                           DeviceVector inverseDiagonal, DeviceVector x) {
        if (checkInputs) {
            VectorChecks.requireFinite(backend, d, "d_G");
        }
        backend.applyAssembledResidualChebyshev(bound.data(), deviceZ, operator.lambda(), shift, d, workL, y, r, a, b,
                inverseDiagonal, x);
    }

    /**
     * y_G = A x_G and returns x_G . y_G, with the dot product fused into the gather
     * ({@link Backend#applyAssembledDot}).
     */
    @Override
    public double applyDot(DeviceVector x, DeviceVector y) {
        if (checkInputs) {
            VectorChecks.requireFinite(backend, x, "x_G");
        }
        return backend.applyAssembledDot(bound.data(), deviceZ, operator.lambda(), shift, x, workL, y);
    }

    /**
     * p = z + beta p, y = A p and returns p . y in the operator's two launches
     * ({@link Backend#applyAssembledDotUpdate}).
     */
    @Override
    public double updateApplyDot(DeviceVector z, double beta, DeviceVector p, DeviceVector y) {
        if (checkInputs) {
            VectorChecks.requireFinite(backend, z, "z");
            VectorChecks.requireFinite(backend, p, "p");
        }
        return backend.applyAssembledDotUpdate(bound.data(), deviceZ, operator.lambda(), shift, z, beta, p, workL, y);
    }

    /** Whether the backend sums p . A p in this operator's element kernel ({@link Backend#foldsAssembledDirectionDot}). */
    @Override
    public boolean foldsDirectionDot() {
        return backend.foldsAssembledDirectionDot(bound.data(), shift);
    }

    /**
     * y = A (z + beta p) and returns (z + beta p) . y with p unchanged, p . A p summed in the element kernel
     * ({@link Backend#applyAssembledDirectionDot}).
     */
    @Override
    public double applyDirectionDot(DeviceVector z, double beta, DeviceVector p, DeviceVector y) {
        if (checkInputs) {
            VectorChecks.requireFinite(backend, z, "z");
            VectorChecks.requireFinite(backend, p, "p");
        }
        return backend.applyAssembledDirectionDot(bound.data(), deviceZ, operator.lambda(), shift, z, beta, p, workL, y);
    }

    /** Plain CG's iteration after the first on the backend ({@link Backend#assembledCgIteration}). */
    @Override
    public void cgIteration(double beta, double rz, double pending, boolean deferX, DeviceVector p, DeviceVector y,
                            DeviceVector x, DeviceVector r, double[] out) {
        if (checkInputs) {
            VectorChecks.requireFinite(backend, r, "r");
            VectorChecks.requireFinite(backend, p, "p");
        }
        backend.assembledCgIteration(bound.data(), deviceZ, operator.lambda(), shift, beta, rz, pending, deferX, p, workL, y,
                x, r, out);
    }

    /** Whether the backend queues CG's iterations with their scalars on the device ({@link Backend#queuesAssembledCg}). */
    @Override
    public boolean queuesCgIterations() {
        return backend.queuesAssembledCg(bound.data(), shift);
    }

    /**
     * Plain CG's iteration k queued on the backend ({@link Backend#queueAssembledCgIteration}); with input checks on, r
     * and p are checked at the first (later ones are the device's own results).
     */
    @Override
    public void queueCgIteration(int k, boolean first, double beta, double rz, double pending, boolean deferX,
                                 DeviceVector p, DeviceVector y, DeviceVector x, DeviceVector r) {
        if (checkInputs && first) {
            VectorChecks.requireFinite(backend, r, "r");
            VectorChecks.requireFinite(backend, p, "p");
        }
        backend.queueAssembledCgIteration(bound.data(), deviceZ, operator.lambda(), shift, k, first, beta, rz, pending,
                deferX, p, workL, y, x, r);
    }

    /** {@link Backend#awaitCgIteration}. */
    @Override
    public void awaitCgIteration(int k, double[] out) {
        backend.awaitCgIteration(k, out);
    }

    /**
     * The diagonal of A on the host, matrix-free: diag(A) = Z^T diag(L) + shift (the Jacobi
     * preconditioner's inverse is its reciprocal).
     */
    public double[] diagonal() {
        double[] local = operator.elementDiagonal();
        ScatterOperator hostZ = scatterOperator();
        double[] diag = new double[hostZ.globalSize()];
        hostZ.gather(local, diag);
        if (shift != 0) {
            for (int g = 0; g < diag.length; g++) {
                diag[g] += shift;
            }
        }
        return diag;
    }

    /**
     * diag(A)^-1 on the device, for Jacobi and the smoothers: diag(A) = Z^T diag(L) + shift from the backend's
     * element-diagonal kernel and a gather (no host array), or, on a backend without that kernel, from
     * {@link #diagonal()} on the host. The caller owns (closes) the vector.
     *
     * @param user names the caller in the error ("Jacobi", "p-multigrid level N = 3")
     * @throws IllegalArgumentException "{@code user} needs a positive diagonal, but diag(A)[i] = v" for the first
     *                                  entry that is not positive and finite
     */
    public DeviceVector inverseDiagonal(String user) {
        return inverseDiagonal(user, d -> { });
    }

    /**
     * {@link #inverseDiagonal(String)} with {@code complete} applied to diag(A) on the device before the reciprocal: a
     * rank of a distributed operator sums the diagonal across ranks at its shared nodes there.
     */
    public DeviceVector inverseDiagonal(String user, java.util.function.Consumer<DeviceVector> complete) {
        DeviceVector diag = backend.allocate(size());
        DeviceVector inv = backend.allocate(size());
        try {
            try {
                backend.elementDiagonal(bound.data(), operator.lambda(), workL);
                backend.gather(deviceZ, workL, diag);
                if (shift != 0) {
                    backend.fill(inv, shift);
                    backend.axpby(1, inv, 1, diag);
                }
            } catch (UnsupportedOperationException noKernel) {
                backend.write(diagonal(), diag);
            }
            complete.accept(diag);
            if (backend.reciprocal(diag, inv) != 0) {
                double[] d = backend.download(diag);
                for (int i = 0; i < d.length; i++) {
                    if (!(d[i] > 0) || !Double.isFinite(d[i])) {
                        throw new IllegalArgumentException(user + " needs a positive diagonal, but diag(A)[" + i + "] = " + d[i]);
                    }
                }
            }
            return inv;
        } catch (RuntimeException e) {
            inv.close();
            throw e;
        } finally {
            diag.close();
        }
    }

    @Override
    public void close() {
        workL.close();
        deviceZ.close();
        bound.close();
    }

    @Override
    public String toString() {
        return "AssembledOperator[" + operator + ", N_G=" + size() + ", shift=" + shift + ", " + backend.name() + "]";
    }
}
