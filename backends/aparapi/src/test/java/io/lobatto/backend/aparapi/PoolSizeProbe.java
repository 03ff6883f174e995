package io.lobatto.backend.aparapi;

import io.lobatto.core.backend.DeviceVector;

/**
 * Hand-run probe (not a test): allocates one vector of each size given in millions of doubles on the
 * Aparapi backend, fills it and checks norm2, to find the largest pool Aparapi can hold on a device.
 */
public final class PoolSizeProbe {

    private PoolSizeProbe() {
    }

    public static void main(String[] args) {
        for (String a : args) {
            int n = (int) (Double.parseDouble(a) * 1e6);
            try (AparapiBackend b = new AparapiBackend(); DeviceVector v = b.allocate(n)) {
                b.fill(v, 1.5);
                double got = b.norm2(v);
                System.out.printf("%d doubles (%.2f GB): norm2 %s%n", n, n * 8e-9, got == 2.25 * n ? "OK" : "WRONG " + got);
            } catch (RuntimeException e) {
                System.out.printf("%d doubles (%.2f GB): %s%n", n, n * 8e-9, e);
            }
        }
    }
}
