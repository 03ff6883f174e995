package io.lobatto.operators;

import java.util.Objects;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceGeometry;
import io.lobatto.core.backend.DeviceVector;

/**
 * An {@link ElementOperator} uploaded to a {@link Backend}: y_L = L x_L on element-local vectors
 * {@code [E][Np]}, element by element. Owns the device copy of the basis and geometric factors (computed on the
 * backend from the element geometry where the operator has one, see {@link ElementOperator#deviceGeometry()}, else
 * uploaded from the host; or, for {@link FactorStorage#ON_THE_FLY}, only the element vertices, from which the kernel
 * computes them at every apply); release it with {@link #close()}.
 */
public final class BoundElementOperator implements AutoCloseable {

    private final ElementOperator operator;
    private final Backend backend;
    private final DeviceElementData data;

    BoundElementOperator(ElementOperator operator, Backend backend) {
        this.operator = operator;
        this.backend = Objects.requireNonNull(backend, "backend");
        java.util.Optional<io.lobatto.core.mesh.ElementGeometry> geometry = operator.deviceGeometry();
        if (operator.factorStorage() == FactorStorage.ON_THE_FLY) {
            try (DeviceGeometry g = backend.uploadGeometry(geometry.orElseThrow())) {
                this.data = backend.elementDataOnTheFly(operator.kernel(), operator.basis(), g);
            }
        } else {
            this.data = geometry.isPresent() ? computed(operator, backend, geometry.get())
                    : backend.uploadElementData(operator.kernel(), operator.basis(), operator.elementCount(), operator.geometricData());
        }
    }

    /** The element data with the geometric factors computed by the backend from the element geometry. */
    private static DeviceElementData computed(ElementOperator operator, Backend backend,
                                              io.lobatto.core.mesh.ElementGeometry geometry) {
        try (DeviceGeometry g = backend.uploadGeometry(geometry)) {
            DeviceVector factors = backend.geometricFactors(g, operator.basis(), operator.quadrature(),
                    operator.kernel().factorsPerPoint());
            try {
                return backend.uploadElementData(operator.kernel(), operator.basis(), operator.elementCount(), factors);
            } catch (RuntimeException e) {
                factors.close();
                throw e;
            }
        }
    }

    /** The host-side operator. */
    public ElementOperator operator() {
        return operator;
    }

    /** The backend that holds the data. */
    public Backend backend() {
        return backend;
    }

    /** The device data (for {@link AssembledOperator} and benchmarks). */
    public DeviceElementData data() {
        return data;
    }

    /** y_L = L x_L; both of length E (N+1)^3 and distinct. */
    public void apply(DeviceVector xL, DeviceVector yL) {
        backend.applyElements(data, operator.lambda(), xL, yL);
    }

    @Override
    public void close() {
        data.close();
    }
}
