package io.lobatto.core.backend;

/**
 * The reproducible pseudo-random vectors of {@link Backend#fillRandom}: entry i of the vector of {@code seed} is
 * SplitMix64 (Steele, Lea and Flood 2014) of {@code seed + (i + 1) * 0x9e3779b97f4a7c15}, its top 53 bits scaled to
 * [0, 1), minus 1/2. Integer arithmetic and one exact conversion: every backend gives the same bits.
 */
public final class RandomFill {

    private RandomFill() {
    }

    /** Entry {@code i} of the vector of {@code seed}, in [-1/2, 1/2). */
    public static double value(long seed, long i) {
        long z = seed + (i + 1L) * 0x9e3779b97f4a7c15L;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        z = z ^ (z >>> 31);
        return (z >>> 11) * 0x1.0p-53 - 0.5;
    }

    /** Entries {@code from .. to} of the vector of {@code seed} into {@code x[from .. to)}. */
    public static void fill(double[] x, int from, int to, long seed) {
        for (int i = from; i < to; i++) {
            x[i] = value(seed, i);
        }
    }

    /** The first {@code n} entries of the vector of {@code seed} (made in parallel chunks). */
    public static double[] of(int n, long seed) {
        if (n < 0) {
            throw new IllegalArgumentException("n = " + n + " must be >= 0");
        }
        double[] x = new double[n];
        int chunk = 1 << 16;
        java.util.stream.IntStream.range(0, (n + chunk - 1) / chunk).parallel()
                .forEach(c -> fill(x, c * chunk, Math.min(n, (c + 1) * chunk), seed));
        return x;
    }
}
