package io.lobatto.operators;

import java.util.Objects;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DevicePointwiseData;
import io.lobatto.core.backend.DeviceVector;

/**
 * A {@link PointwiseOperator} uploaded to a {@link Backend}: y_L = B^T f(B x_L) on element-local vectors
 * {@code [ncomp][E][Np]}. Owns the device data; release it with {@link #close()}.
 */
public final class BoundPointwiseOperator implements AutoCloseable {

    private final PointwiseOperator operator;
    private final Backend backend;
    private final DevicePointwiseData data;

    BoundPointwiseOperator(PointwiseOperator operator, Backend backend) {
        this.operator = operator;
        this.backend = Objects.requireNonNull(backend, "backend");
        this.data = backend.uploadPointwise(operator.function(), operator.basis(), operator.quadrature(),
                operator.elementCount(), operator.pointDataView());
    }

    /** The host-side operator. */
    public PointwiseOperator operator() {
        return operator;
    }

    /** The backend that holds the data. */
    public Backend backend() {
        return backend;
    }

    /** The device data (for {@link AssembledPointwiseOperator} and benchmarks). */
    public DevicePointwiseData data() {
        return data;
    }

    /** y_L = L x_L; both of length ncomp E (N+1)^3 and distinct. */
    public void apply(DeviceVector xL, DeviceVector yL) {
        backend.applyPointwise(data, xL, yL);
    }

    @Override
    public void close() {
        data.close();
    }
}
