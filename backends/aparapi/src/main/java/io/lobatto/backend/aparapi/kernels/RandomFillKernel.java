package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;

/**
 * x_i = the reproducible random entry of {@code io.lobatto.core.backend.RandomFill}: SplitMix64 of
 * {@code seed + (i + 1) * 0x9e3779b97f4a7c15}, its top 53 bits times 2^-53, minus 1/2; one work-item per entry, the
 * host's bits (the seed arrives as two ints).
 */
public final class RandomFillKernel extends Kernel {

    double[] x = new double[1];
    /** The seed's high and low 32 bits. */
    int seedHi;
    int seedLo;
    int n;

    @Override
    public void run() {
        int i = getGlobalId();
        if (i < n) {
            long seed = ((long) seedHi << 32) | (seedLo & 0xffffffffL);
            long z = seed + (i + 1L) * 0x9e3779b97f4a7c15L;
            z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
            z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
            z = z ^ (z >>> 31);
            x[i] = (z >>> 11) * 0x1.0p-53 - 0.5;
        }
    }
}
