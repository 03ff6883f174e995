package io.lobatto.core.backend;

import java.util.stream.IntStream;

/**
 * The weights W of the scatter operator Z (hipBone's inverse degree): W_n = 1 / degree(a) at a local node n whose
 * assembled id is a = scatterIds[n], 0 where masked (a = -1), so that Z^T W Z = I on the unmasked nodes.
 */
public final class ScatterWeights {

    private static final int CHUNK = 1 << 16;

    private ScatterWeights() {
    }

    /**
     * W of every local node, in parallel.
     *
     * @throws IllegalArgumentException naming the first local node whose assembled id is out of [-1, degree.length),
     *                                  or whose assembled node has a degree below 1
     */
    public static double[] inverseDegree(int[] scatterIds, int[] degree) {
        if (scatterIds == null || degree == null) {
            throw new IllegalArgumentException("scatterIds and degree must not be null");
        }
        int nl = scatterIds.length;
        int ng = degree.length;
        double[] w = new double[nl];
        long bad = IntStream.range(0, (nl + CHUNK - 1) / CHUNK).parallel().mapToLong(c -> {
            for (int n = c * CHUNK, end = Math.min(nl, (c + 1) * CHUNK); n < end; n++) {
                int a = scatterIds[n];
                if (a >= 0) {
                    if (a >= ng || degree[a] < 1) {
                        return n;
                    }
                    w[n] = 1.0 / degree[a];
                } else if (a != -1) {
                    return n;
                }
            }
            return Long.MAX_VALUE;
        }).min().orElse(Long.MAX_VALUE);
        if (bad != Long.MAX_VALUE) {
            int n = (int) bad;
            int a = scatterIds[n];
            throw new IllegalArgumentException(a < -1 || a >= ng
                    ? "scatterIds[" + n + "] = " + a + " is not in [-1, " + ng + ")"
                    : "degree[" + a + "] = " + degree[a] + " must be >= 1 (assembled node of local node " + n + ")");
        }
        return w;
    }
}
