package io.lobatto.core.pointwise;

/**
 * The geometric pieces a {@link PointwiseSetup} usually needs, from the Jacobian {@code dxdr[3 i + j] = d x_i / d r_j}
 * of the element map at a point: |J|, J^-1, and the diffusion factors G = w |J| kappa J^-1 J^-T that the
 * CEED stiffness operators store (hipBone's packing G00, G01, G02, G11, G12, G22). Stateless.
 */
public final class PointGeometry {

    /** Number of doubles of the packed symmetric G. */
    public static final int DIFFUSION_FACTORS = 6;

    private PointGeometry() {
    }

    /** |J|, the determinant of {@code dxdr}. */
    public static double determinant(double[] dxdr) {
        return dxdr[0] * (dxdr[4] * dxdr[8] - dxdr[5] * dxdr[7])
                - dxdr[1] * (dxdr[3] * dxdr[8] - dxdr[5] * dxdr[6])
                + dxdr[2] * (dxdr[3] * dxdr[7] - dxdr[4] * dxdr[6]);
    }

    /**
     * J^-1 into {@code drdx}: {@code drdx[3 d + j] = d r_d / d x_j}; returns |J|.
     *
     * @throws IllegalArgumentException if |J| is not positive (an inverted or degenerate element)
     */
    public static double inverse(double[] dxdr, double[] drdx) {
        double det = determinant(dxdr);
        if (!(det > 0)) {
            throw new IllegalArgumentException("the Jacobian determinant |J| = " + det + " is not positive");
        }
        double inv = 1 / det;
        double j00 = dxdr[0], j01 = dxdr[1], j02 = dxdr[2];
        double j10 = dxdr[3], j11 = dxdr[4], j12 = dxdr[5];
        double j20 = dxdr[6], j21 = dxdr[7], j22 = dxdr[8];
        drdx[0] = (j11 * j22 - j12 * j21) * inv;
        drdx[1] = (j02 * j21 - j01 * j22) * inv;
        drdx[2] = (j01 * j12 - j02 * j11) * inv;
        drdx[3] = (j12 * j20 - j10 * j22) * inv;
        drdx[4] = (j00 * j22 - j02 * j20) * inv;
        drdx[5] = (j02 * j10 - j00 * j12) * inv;
        drdx[6] = (j10 * j21 - j11 * j20) * inv;
        drdx[7] = (j01 * j20 - j00 * j21) * inv;
        drdx[8] = (j00 * j11 - j01 * j10) * inv;
        return det;
    }

    /**
     * Writes the 6 entries of G = kappa w |J| J^-1 J^-T (G_ab = kappa w |J| sum_j dr_a/dx_j dr_b/dx_j) at
     * {@code out[offset..offset+5]} in the order G00, G01, G02, G11, G12, G22, and returns w |J|. With kappa = 1
     * these are the packed geometric factors of BP3.5 and BP3.0.
     */
    public static double diffusion(double[] dxdr, double weight, double kappa, double[] out, int offset) {
        double[] r = new double[9];
        double wj = weight * inverse(dxdr, r);
        double s = kappa * wj;
        out[offset] = s * (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
        out[offset + 1] = s * (r[0] * r[3] + r[1] * r[4] + r[2] * r[5]);
        out[offset + 2] = s * (r[0] * r[6] + r[1] * r[7] + r[2] * r[8]);
        out[offset + 3] = s * (r[3] * r[3] + r[4] * r[4] + r[5] * r[5]);
        out[offset + 4] = s * (r[3] * r[6] + r[4] * r[7] + r[5] * r[8]);
        out[offset + 5] = s * (r[6] * r[6] + r[7] * r[7] + r[8] * r[8]);
        return wj;
    }
}
