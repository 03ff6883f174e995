package io.lobatto.backend.aparapi.conformance;

import io.lobatto.conformance.SchwarzConformance;
import io.lobatto.core.backend.Backend;

/** Runs {@link SchwarzConformance} on the Aparapi (OpenCL) backend; Schwarz is compared with the Java reference. */
class AparapiSchwarzTest extends SchwarzConformance {

    @Override
    protected Backend backend() {
        return AparapiFixture.backend();
    }
}
