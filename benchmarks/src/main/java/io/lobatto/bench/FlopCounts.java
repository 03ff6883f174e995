package io.lobatto.bench;

import io.lobatto.core.backend.ElementKernel;

/**
 * FLOP and minimum-byte counts per element of the bake-off kernels, with Nq = N+1 GLL points and
 * M = N+2 GL points per direction, Np = Nq^3, NpGL = M^3.
 *
 * <p>FLOPs of the sum-factorised algorithms (tensor-product paper, Algorithms 1-5; a contraction of
 * length k over an a x b x c block costs 2k FLOPs per output):
 * BP1.0: 4(M Nq^3 + M^2 Nq^2 + M^3 Nq) + M^3 (interpolate, scale by wJ, project);
 * BP3.5: 12 Nq^4 + 18 Nq^3 (hipBone: 12E(N+1)^4 + 15E(N+1)^3 for S and 3E(N+1)^3 for the lambda term);
 * BP3.0: 4(M Nq^3 + M^2 Nq^2 + M^3 Nq) + 12 M^4 + 20 M^3.
 *
 * <p>Minimum doubles moved per element (tensor-product paper, Table 2): BP1.0 2Np + NpGL;
 * BP3.5 9Np; BP3.0 2Np + 7NpGL.
 */
public final class FlopCounts {

    private FlopCounts() {
    }

    /** FLOPs per element of one apply of {@code kernel} at degree {@code n}. */
    public static double flopsPerElement(ElementKernel kernel, int n) {
        double q = n + 1, m = n + 2;
        double interp = 2 * (m * q * q * q + m * m * q * q + m * m * m * q);
        return switch (kernel) {
            case MASS_BP10 -> 2 * interp + m * m * m;
            case STIFFNESS_BP35 -> 12 * q * q * q * q + 18 * q * q * q;
            case STIFFNESS_BP30 -> 2 * interp + 12 * m * m * m * m + 20 * m * m * m;
        };
    }

    /** Minimum bytes read and written per element (Table 2 x 8). */
    public static double bytesPerElement(ElementKernel kernel, int n) {
        double np = Math.pow(n + 1, 3), npGl = Math.pow(n + 2, 3);
        return 8 * switch (kernel) {
            case MASS_BP10 -> 2 * np + npGl;
            case STIFFNESS_BP35 -> 9 * np;
            case STIFFNESS_BP30 -> 2 * np + 7 * npGl;
        };
    }

    /** NekBone's FLOP count per CG iteration: 12E(N+1)^4 + 34E(N+1)^3. */
    public static double nekboneFlopsPerIteration(long elements, int n) {
        double q = n + 1;
        return elements * (12 * q * q * q * q + 34 * q * q * q);
    }

    /** Empirical roofline R = B F / bytes (FLOP/s) for bandwidth B in bytes/s. */
    public static double roofline(double bandwidth, double flops, double bytes) {
        return bandwidth * flops / bytes;
    }

    /** The CEED benchmark name of a kernel: BK1, BK3, BK5. */
    public static String benchmarkName(ElementKernel kernel) {
        return switch (kernel) {
            case MASS_BP10 -> "BK1";
            case STIFFNESS_BP30 -> "BK3";
            case STIFFNESS_BP35 -> "BK5";
        };
    }
}
