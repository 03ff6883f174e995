package io.lobatto.backend.cpu;

/**
 * Sum-factorisation building blocks: apply a dense row-major 1D matrix A ({@code rows x cols}) along one
 * direction of a 3D tensor stored with the first index fastest. Every contraction sums over the
 * contracted index m in ascending order. With {@code acc} the result is added to {@code out}, else it
 * overwrites it. The loops of {@link #dim1} and {@link #dim2} run innermost over contiguous memory
 * (a row or a plane of the tensor) with a scalar coefficient, which is the shape the JIT vectorises.
 */
final class Contractions {

    private Contractions() {
    }

    /** Direction 0 (fastest): out[r + rows*q] (+)= sum_m A[r][m] in[m + cols*q], q < planes. */
    static void dim0(double[] a, int rows, int cols, int planes, double[] in, int inOff, double[] out, int outOff,
                     boolean acc) {
        if (Dim0Unrolled.apply(a, rows, cols, planes, in, inOff, out, outOff, acc)) {
            return;
        }
        for (int q = 0; q < planes; q++) {
            int ib = inOff + q * cols;
            int ob = outOff + q * rows;
            for (int r = 0; r < rows; r++) {
                int ab = r * cols;
                double s = 0;
                for (int m = 0; m < cols; m++) {
                    s += a[ab + m] * in[ib + m];
                }
                out[ob + r] = acc ? out[ob + r] + s : s;
            }
        }
    }

    /**
     * Direction 1: out[i + fast*(r + rows*k)] (+)= sum_m A[r][m] in[i + fast*(m + cols*k)],
     * i < fast, k < slow.
     */
    static void dim1(double[] a, int rows, int cols, int fast, int slow, double[] in, int inOff, double[] out,
                     int outOff, boolean acc) {
        for (int k = 0; k < slow; k++) {
            for (int r = 0; r < rows; r++) {
                int ob = outOff + fast * (r + rows * k);
                if (!acc) {
                    for (int i = 0; i < fast; i++) {
                        out[ob + i] = 0;
                    }
                }
                int ab = r * cols;
                for (int m = 0; m < cols; m++) {
                    double c = a[ab + m];
                    int ib = inOff + fast * (m + cols * k);
                    for (int i = 0; i < fast; i++) {
                        out[ob + i] += c * in[ib + i];
                    }
                }
            }
        }
    }

    /** Direction 2 (slowest): out[i + plane*r] (+)= sum_m A[r][m] in[i + plane*m], i < plane. */
    static void dim2(double[] a, int rows, int cols, int plane, double[] in, int inOff, double[] out, int outOff,
                     boolean acc) {
        for (int r = 0; r < rows; r++) {
            int ob = outOff + plane * r;
            if (!acc) {
                for (int i = 0; i < plane; i++) {
                    out[ob + i] = 0;
                }
            }
            int ab = r * cols;
            for (int m = 0; m < cols; m++) {
                double c = a[ab + m];
                int ib = inOff + plane * m;
                for (int i = 0; i < plane; i++) {
                    out[ob + i] += c * in[ib + i];
                }
            }
        }
    }

    /** The transpose of a row-major {@code rows x cols} matrix, row-major {@code cols x rows}. */
    static double[] transpose(double[] a, int rows, int cols) {
        double[] t = new double[a.length];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                t[c * rows + r] = a[r * cols + c];
            }
        }
        return t;
    }
}
