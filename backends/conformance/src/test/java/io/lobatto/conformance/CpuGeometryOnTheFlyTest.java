package io.lobatto.conformance;

import io.lobatto.core.backend.Backend;

/** Runs {@link GeometryOnTheFlyConformance} on the Java reference backend (closed-form factors, stored). */
class CpuGeometryOnTheFlyTest extends GeometryOnTheFlyConformance {

    @Override
    protected Backend backend() {
        return BackendFixture.reference();
    }

    @Override
    protected boolean computesOnTheFly() {
        return false;
    }
}
