package io.lobatto.operators;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;

/** Debug checks on device vectors (they download the vector: not for hot paths). */
public final class VectorChecks {

    private VectorChecks() {
    }

    /** Throws {@link IllegalArgumentException} naming {@code name} and the first index holding NaN or Inf. */
    public static void requireFinite(Backend backend, DeviceVector v, String name) {
        double[] h = backend.download(v);
        for (int i = 0; i < h.length; i++) {
            if (!Double.isFinite(h[i])) {
                throw new IllegalArgumentException(name + "[" + i + "] = " + h[i] + " (vector of length " + h.length + ")");
            }
        }
    }
}
