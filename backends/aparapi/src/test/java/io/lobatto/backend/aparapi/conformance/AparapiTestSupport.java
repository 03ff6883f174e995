package io.lobatto.backend.aparapi.conformance;

import io.lobatto.core.backend.Backend;

/** Public access to the shared Aparapi test backend for tests outside this package. */
public final class AparapiTestSupport {

    private AparapiTestSupport() {
    }

    /** The shared backend, or an aborted test without OpenCL (a failure when OpenCL is required). */
    public static Backend backend() {
        return AparapiFixture.backend();
    }
}
