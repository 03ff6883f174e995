package io.lobatto.core.backend;

import io.lobatto.core.mesh.ElementGeometry;

/**
 * An {@link ElementGeometry} uploaded to a {@link Backend} ({@link Backend#uploadGeometry}): each element's geometry
 * nodes and its point map, from which the backend computes node positions, geometric factors and functions of
 * position at any degree. Close it when the operators built from it are set up.
 */
public interface DeviceGeometry extends AutoCloseable {

    /** The host description it was made from (geometry nodes and map; no per-point data). */
    ElementGeometry geometry();

    /** Releases the backend's copy. */
    @Override
    void close();
}
