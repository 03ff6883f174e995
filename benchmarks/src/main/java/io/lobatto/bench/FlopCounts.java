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
 *
 * <p>The general (pointwise-function) path: BK1/BK3/BK5-general do the math of BP1.0, BP3.0 and BP3.5 and are counted
 * as those. The 3-component BK2, BK4 and BK6 count 3 times the scalar work without a mass term: BK2 = 3 BP1.0,
 * BK4 = 3 (4(M Nq^3 + M^2 Nq^2 + M^3 Nq) + 12 M^4 + 15 M^3), BK6 = 3 (12 Nq^4 + 15 Nq^3) (15 FLOPs per point for
 * dv = G du). Bytes of every general row: read ncomp Np + data P, write ncomp Np per element (data = doubles
 * stored per point, P the points per element), which for the scalar rows is Table 2's count.
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

    /** FLOPs per element of one apply of the general-path operator {@code k} at degree {@code n}. */
    public static double flopsPerElement(PointwiseKernel k, int n) {
        if (k.specialised() != null) {
            return flopsPerElement(k.specialised(), n);
        }
        double q = n + 1, m = n + 2;
        double interp = 2 * (m * q * q * q + m * m * q * q + m * m * m * q);
        return k.components() * switch (k) {
            case BK2 -> 2 * interp + m * m * m;
            case BK4 -> 2 * interp + 12 * m * m * m * m + 15 * m * m * m;
            case BK6 -> 12 * q * q * q * q + 15 * q * q * q;
            default -> throw new IllegalStateException(k.toString());
        };
    }

    /** Minimum bytes per element of the general-path operator: 8 (2 ncomp Np + data P). */
    public static double bytesPerElement(PointwiseKernel k, int n) {
        double np = Math.pow(n + 1, 3);
        return 8 * (2.0 * k.components() * np + (double) k.dataPerPoint() * k.pointsPerElement(n));
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
