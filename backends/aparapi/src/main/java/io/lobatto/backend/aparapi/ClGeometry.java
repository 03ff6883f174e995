package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.runtime.ClBuffer;
import io.lobatto.core.backend.DeviceGeometry;
import io.lobatto.core.mesh.ElementGeometry;

import java.util.HashMap;
import java.util.Map;

/**
 * An {@link ElementGeometry} on the Aparapi backend: its geometry nodes ([E][(g+1)^3][3]) and the map's coefficients
 * in device buffers (the map itself is validated and translated at upload), and the shape functions at the GLL nodes
 * of each degree used so far. Closing releases all of them; idempotent.
 */
final class ClGeometry implements DeviceGeometry, ClHandle {

    /** The area that made it (handles are checked against it). */
    final SetupKernels owner;

    private final ElementGeometry geometry;
    final ClBuffer nodes;
    /** The map's coefficients (one unused entry without a map). */
    final ClBuffer coefficients;
    /** phi [Nq^3][(g+1)^3] by degree. */
    private final Map<Integer, ClBuffer> shapes = new HashMap<>();
    private boolean closed;

    ClGeometry(SetupKernels owner, ElementGeometry geometry, ClBuffer nodes, ClBuffer coefficients) {
        this.owner = owner;
        this.geometry = geometry;
        this.nodes = nodes;
        this.coefficients = coefficients;
    }

    @Override
    public ElementGeometry geometry() {
        return geometry;
    }

    /** The shape buffer of {@code degree}, or null. */
    ClBuffer shapes(int degree) {
        return shapes.get(degree);
    }

    void shapes(int degree, ClBuffer b) {
        shapes.put(degree, b);
    }

    @Override
    public boolean isClosed() {
        return closed || nodes.isClosed();
    }

    @Override
    public Object owner() {
        return owner;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            nodes.close();
            coefficients.close();
            shapes.values().forEach(ClBuffer::close);
            shapes.clear();
        }
    }

    @Override
    public String toString() {
        return "ClGeometry[" + geometry + (closed ? ", closed" : "") + "]";
    }
}
