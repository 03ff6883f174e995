package io.lobatto.core.backend;

/**
 * The fast diagonalisation method (Lynch, Rice &amp; Thomas 1964; Fischer &amp; Lottes for the spectral element
 * method) of E separable local problems in a backend's memory: per element e and direction d = r, s, t an n x n
 * matrix V_d of generalised eigenvectors (S_d V_d = M_d V_d Lambda_d, V_d^T M_d V_d = I, zero rows and columns where
 * a 1D point is not part of the local problem) and the n eigenvalues lambda_d. The local inverse on an n^3 block is
 * <pre>
 *   (M_t (x) M_s (x) S_r + M_t (x) S_s (x) M_r + S_t (x) M_s (x) M_r)^-1
 *       = (V_t (x) V_s (x) V_r) (I (x) I (x) Lambda_r + I (x) Lambda_s (x) I + Lambda_t (x) I (x) I)^-1 (V_t (x) V_s (x) V_r)^T
 * </pre>
 * three tensor contractions, a pointwise scaling and three contractions back ({@link Backend#applyFdm}). Created by
 * {@link Backend#uploadFdm}, either dense (V_d and lambda_d per element and direction) or as a table of the L distinct
 * 1D problems with the index of each element's line per direction (most elements share their lines); released by
 * {@link #close()}.
 */
public interface DeviceFdm extends AutoCloseable {

    /** n, the 1D points of each local problem (N + 3 for an element extended by one GLL layer). */
    int points();

    /** E, the number of local problems. */
    int elements();

    /** True once {@link #close()} has been called. */
    boolean isClosed();

    /**
     * The argument checks of {@link Backend#uploadFdm}: {@code points} in [1, 64], {@code elements} &gt;= 0, lengths
     * E 3 n^2 and E 3 n (in {@code long}, below 2^31 - 8), finite entries.
     *
     * @throws IllegalArgumentException naming the argument, its value and the limit
     */
    static void checkUpload(int points, int elements, double[] eigenvectors, double[] eigenvalues) {
        if (points < 1 || points > 64) {
            throw new IllegalArgumentException("fdm: points must be in [1, 64], got " + points);
        }
        if (elements < 0) {
            throw new IllegalArgumentException("fdm: elements must be >= 0, got " + elements);
        }
        long nv = 3L * elements * points * points;
        long ne = 3L * elements * points;
        if (nv > Integer.MAX_VALUE - 8 || (long) elements * points * points * points > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("fdm: E n^3 = " + (long) elements * points * points * points
                    + " and 3 E n^2 = " + nv + " must stay below 2^31 - 8");
        }
        if (eigenvectors == null || eigenvectors.length != nv) {
            throw new IllegalArgumentException("fdm: eigenvectors must have length 3 E n^2 = " + nv + ", got "
                    + (eigenvectors == null ? "null" : eigenvectors.length));
        }
        if (eigenvalues == null || eigenvalues.length != ne) {
            throw new IllegalArgumentException("fdm: eigenvalues must have length 3 E n = " + ne + ", got "
                    + (eigenvalues == null ? "null" : eigenvalues.length));
        }
        for (int i = 0; i < eigenvalues.length; i++) {
            if (!Double.isFinite(eigenvalues[i])) {
                throw new IllegalArgumentException("fdm: eigenvalues[" + i + "] = " + eigenvalues[i] + " is not finite");
            }
        }
    }

    /**
     * The argument checks of {@link Backend#uploadFdm(int, int, double[], double[], int[])}, the table form: L = the
     * length of {@code lineValues} / n distinct 1D problems, {@code lineVectors} of length L n^2, {@code lineOf} of
     * length 3 E with entries in [0, L), finite eigenvalues.
     *
     * @return L
     * @throws IllegalArgumentException naming the argument, its value and the limit
     */
    static int checkTable(int points, int elements, double[] lineVectors, double[] lineValues, int[] lineOf) {
        if (points < 1 || points > 64) {
            throw new IllegalArgumentException("fdm: points must be in [1, 64], got " + points);
        }
        if (elements < 0) {
            throw new IllegalArgumentException("fdm: elements must be >= 0, got " + elements);
        }
        if ((long) elements * points * points * points > Integer.MAX_VALUE - 8 || 3L * elements > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("fdm: E n^3 = " + (long) elements * points * points * points
                    + " must stay below 2^31 - 8");
        }
        if (lineValues == null || lineValues.length % points != 0) {
            throw new IllegalArgumentException("fdm: lineValues must have a length L n (n = " + points + "), got "
                    + (lineValues == null ? "null" : lineValues.length));
        }
        int lines = lineValues.length / points;
        if (lineVectors == null || lineVectors.length != (long) lines * points * points) {
            throw new IllegalArgumentException("fdm: lineVectors must have length L n^2 = " + (long) lines * points * points
                    + ", got " + (lineVectors == null ? "null" : lineVectors.length));
        }
        if (lineOf == null || lineOf.length != 3 * elements) {
            throw new IllegalArgumentException("fdm: lineOf must have length 3 E = " + 3L * elements + ", got "
                    + (lineOf == null ? "null" : lineOf.length));
        }
        for (int i = 0; i < lineOf.length; i++) {
            if (lineOf[i] < 0 || lineOf[i] >= lines) {
                throw new IllegalArgumentException("fdm: lineOf[" + i + "] = " + lineOf[i] + " is out of range [0, " + lines + ")");
            }
        }
        for (int i = 0; i < lineValues.length; i++) {
            if (!Double.isFinite(lineValues[i])) {
                throw new IllegalArgumentException("fdm: lineValues[" + i + "] = " + lineValues[i] + " is not finite");
            }
        }
        return lines;
    }

    /** Releases the memory; idempotent. */
    @Override
    void close();
}
