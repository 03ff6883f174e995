package io.lobatto.operators;

import java.util.Objects;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceOperator;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.gs.ScatterOperator;

/**
 * The assembled user operator A = Z^T L Z on assembled vectors {@code [ncomp][N_G]} (component-blocked:
 * the scalar Z applies to each component block, with the same Dirichlet mask for every component), L a
 * {@link PointwiseOperator}. Owns device memory (point data, Z, an ncomp N_L workspace); release it with
 * {@link #close()}.
 */
public final class AssembledPointwiseOperator implements DeviceOperator, AutoCloseable {

    private final PointwiseOperator operator;
    private final ScatterOperator z;
    private final Backend backend;
    private final BoundPointwiseOperator bound;
    private final DeviceScatter deviceZ;
    private final DeviceVector workL;

    private AssembledPointwiseOperator(PointwiseOperator operator, ScatterOperator z, Backend backend) {
        this.operator = Objects.requireNonNull(operator, "operator");
        this.z = Objects.requireNonNull(z, "scatter operator Z");
        this.backend = Objects.requireNonNull(backend, "backend");
        int perComponent = operator.elementCount() * operator.basis().np();
        if (z.localSize() != perComponent) {
            throw new IllegalArgumentException("Z has " + z.localSize() + " local nodes but each component of the operator"
                    + " has E (N+1)^3 = " + perComponent + " (E = " + operator.elementCount() + ", N = "
                    + operator.degree() + ")");
        }
        long global = (long) operator.components() * z.globalSize();
        if (global > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("ncomp * N_G = " + global + " exceeds the vector limit 2^31 - 8");
        }
        BoundPointwiseOperator b = operator.bind(backend);
        DeviceScatter dz = null;
        try {
            dz = z.upload(backend);
            this.workL = backend.allocate(operator.localSize());
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

    /** A = Z^T L Z on {@code backend}, Z applied per component. */
    public static AssembledPointwiseOperator bind(PointwiseOperator operator, ScatterOperator z, Backend backend) {
        return new AssembledPointwiseOperator(operator, z, backend);
    }

    @Override
    public Backend backend() {
        return backend;
    }

    /** ncomp N_G. */
    @Override
    public int size() {
        return operator.components() * z.globalSize();
    }

    /** The element operator L. */
    public PointwiseOperator elementOperator() {
        return operator;
    }

    /** The scalar scatter operator Z (applied to each component). */
    public ScatterOperator scatterOperator() {
        return z;
    }

    /** The element operator on the device. */
    public BoundPointwiseOperator boundElementOperator() {
        return bound;
    }

    /** Z on the device. */
    public DeviceScatter deviceScatter() {
        return deviceZ;
    }

    /** y_G = A x_G. */
    @Override
    public void apply(DeviceVector x, DeviceVector y) {
        backend.applyPointwiseAssembled(bound.data(), deviceZ, x, workL, y);
    }

    /** y_G = A x_G and returns x_G . y_G. */
    @Override
    public double applyDot(DeviceVector x, DeviceVector y) {
        return backend.applyPointwiseAssembledDot(bound.data(), deviceZ, x, workL, y);
    }

    /**
     * The diagonal of A on the host, {@code [ncomp][N_G]}: Z^T diag(L) per component, with diag(L) computed
     * matrix-free ({@link PointwiseDiagonal}).
     */
    public double[] diagonal() {
        double[] local = PointwiseDiagonal.compute(operator);
        int nl = z.localSize();
        int ng = z.globalSize();
        double[] diag = new double[size()];
        double[] block = new double[nl];
        double[] out = new double[ng];
        for (int c = 0; c < operator.components(); c++) {
            System.arraycopy(local, c * nl, block, 0, nl);
            z.gather(block, out);
            System.arraycopy(out, 0, diag, c * ng, ng);
        }
        return diag;
    }

    @Override
    public void close() {
        workL.close();
        deviceZ.close();
        bound.close();
    }

    @Override
    public String toString() {
        return "AssembledPointwiseOperator[" + operator + ", size=" + size() + ", " + backend.name() + "]";
    }
}
