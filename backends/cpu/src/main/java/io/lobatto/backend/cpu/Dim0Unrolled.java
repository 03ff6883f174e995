package io.lobatto.backend.cpu;

/**
 * Generated specialisations of {@link Contractions#dim0} for 2 to 10 columns: the contracted fibre of the
 * input is loaded into locals once and every output entry is a straight-line dot product (the generic loop
 * is a short reduction the JIT can neither vectorise nor unroll well). Summation order is the same as the
 * generic loop's (m ascending), so results are bitwise identical.
 */
final class Dim0Unrolled {

    private Dim0Unrolled() {
    }

    /** Returns false when {@code cols} has no specialisation. */
    static boolean apply(double[] a, int rows, int cols, int planes, double[] in, int inOff, double[] out, int outOff,
                         boolean acc) {
        switch (cols) {
            case 2 -> dim0c2(a, rows, planes, in, inOff, out, outOff, acc);
            case 3 -> dim0c3(a, rows, planes, in, inOff, out, outOff, acc);
            case 4 -> dim0c4(a, rows, planes, in, inOff, out, outOff, acc);
            case 5 -> dim0c5(a, rows, planes, in, inOff, out, outOff, acc);
            case 6 -> dim0c6(a, rows, planes, in, inOff, out, outOff, acc);
            case 7 -> dim0c7(a, rows, planes, in, inOff, out, outOff, acc);
            case 8 -> dim0c8(a, rows, planes, in, inOff, out, outOff, acc);
            case 9 -> dim0c9(a, rows, planes, in, inOff, out, outOff, acc);
            case 10 -> dim0c10(a, rows, planes, in, inOff, out, outOff, acc);
            default -> {
                return false;
            }
        }
        return true;
    }

    private static void dim0c2(double[] a, int rows, int planes, double[] in, int inOff, double[] out, int outOff,
                                 boolean acc) {
        for (int q = 0; q < planes; q++) {
            final int ib = inOff + q * 2;
            final int ob = outOff + q * rows;
            final double x0 = in[ib + 0];
            final double x1 = in[ib + 1];
            for (int r = 0, ab = 0; r < rows; r++, ab += 2) {
                double s = a[ab + 0] * x0 + a[ab + 1] * x1;
                out[ob + r] = acc ? out[ob + r] + s : s;
            }
        }
    }

    private static void dim0c3(double[] a, int rows, int planes, double[] in, int inOff, double[] out, int outOff,
                                 boolean acc) {
        for (int q = 0; q < planes; q++) {
            final int ib = inOff + q * 3;
            final int ob = outOff + q * rows;
            final double x0 = in[ib + 0];
            final double x1 = in[ib + 1];
            final double x2 = in[ib + 2];
            for (int r = 0, ab = 0; r < rows; r++, ab += 3) {
                double s = a[ab + 0] * x0 + a[ab + 1] * x1 + a[ab + 2] * x2;
                out[ob + r] = acc ? out[ob + r] + s : s;
            }
        }
    }

    private static void dim0c4(double[] a, int rows, int planes, double[] in, int inOff, double[] out, int outOff,
                                 boolean acc) {
        for (int q = 0; q < planes; q++) {
            final int ib = inOff + q * 4;
            final int ob = outOff + q * rows;
            final double x0 = in[ib + 0];
            final double x1 = in[ib + 1];
            final double x2 = in[ib + 2];
            final double x3 = in[ib + 3];
            for (int r = 0, ab = 0; r < rows; r++, ab += 4) {
                double s = a[ab + 0] * x0 + a[ab + 1] * x1 + a[ab + 2] * x2 + a[ab + 3] * x3;
                out[ob + r] = acc ? out[ob + r] + s : s;
            }
        }
    }

    private static void dim0c5(double[] a, int rows, int planes, double[] in, int inOff, double[] out, int outOff,
                                 boolean acc) {
        for (int q = 0; q < planes; q++) {
            final int ib = inOff + q * 5;
            final int ob = outOff + q * rows;
            final double x0 = in[ib + 0];
            final double x1 = in[ib + 1];
            final double x2 = in[ib + 2];
            final double x3 = in[ib + 3];
            final double x4 = in[ib + 4];
            for (int r = 0, ab = 0; r < rows; r++, ab += 5) {
                double s = a[ab + 0] * x0 + a[ab + 1] * x1 + a[ab + 2] * x2 + a[ab + 3] * x3 + a[ab + 4] * x4;
                out[ob + r] = acc ? out[ob + r] + s : s;
            }
        }
    }

    private static void dim0c6(double[] a, int rows, int planes, double[] in, int inOff, double[] out, int outOff,
                                 boolean acc) {
        for (int q = 0; q < planes; q++) {
            final int ib = inOff + q * 6;
            final int ob = outOff + q * rows;
            final double x0 = in[ib + 0];
            final double x1 = in[ib + 1];
            final double x2 = in[ib + 2];
            final double x3 = in[ib + 3];
            final double x4 = in[ib + 4];
            final double x5 = in[ib + 5];
            for (int r = 0, ab = 0; r < rows; r++, ab += 6) {
                double s = a[ab + 0] * x0 + a[ab + 1] * x1 + a[ab + 2] * x2 + a[ab + 3] * x3 + a[ab + 4] * x4 + a[ab + 5] * x5;
                out[ob + r] = acc ? out[ob + r] + s : s;
            }
        }
    }

    private static void dim0c7(double[] a, int rows, int planes, double[] in, int inOff, double[] out, int outOff,
                                 boolean acc) {
        for (int q = 0; q < planes; q++) {
            final int ib = inOff + q * 7;
            final int ob = outOff + q * rows;
            final double x0 = in[ib + 0];
            final double x1 = in[ib + 1];
            final double x2 = in[ib + 2];
            final double x3 = in[ib + 3];
            final double x4 = in[ib + 4];
            final double x5 = in[ib + 5];
            final double x6 = in[ib + 6];
            for (int r = 0, ab = 0; r < rows; r++, ab += 7) {
                double s = a[ab + 0] * x0 + a[ab + 1] * x1 + a[ab + 2] * x2 + a[ab + 3] * x3 + a[ab + 4] * x4 + a[ab + 5] * x5 + a[ab + 6] * x6;
                out[ob + r] = acc ? out[ob + r] + s : s;
            }
        }
    }

    private static void dim0c8(double[] a, int rows, int planes, double[] in, int inOff, double[] out, int outOff,
                                 boolean acc) {
        for (int q = 0; q < planes; q++) {
            final int ib = inOff + q * 8;
            final int ob = outOff + q * rows;
            final double x0 = in[ib + 0];
            final double x1 = in[ib + 1];
            final double x2 = in[ib + 2];
            final double x3 = in[ib + 3];
            final double x4 = in[ib + 4];
            final double x5 = in[ib + 5];
            final double x6 = in[ib + 6];
            final double x7 = in[ib + 7];
            for (int r = 0, ab = 0; r < rows; r++, ab += 8) {
                double s = a[ab + 0] * x0 + a[ab + 1] * x1 + a[ab + 2] * x2 + a[ab + 3] * x3 + a[ab + 4] * x4 + a[ab + 5] * x5 + a[ab + 6] * x6 + a[ab + 7] * x7;
                out[ob + r] = acc ? out[ob + r] + s : s;
            }
        }
    }

    private static void dim0c9(double[] a, int rows, int planes, double[] in, int inOff, double[] out, int outOff,
                                 boolean acc) {
        for (int q = 0; q < planes; q++) {
            final int ib = inOff + q * 9;
            final int ob = outOff + q * rows;
            final double x0 = in[ib + 0];
            final double x1 = in[ib + 1];
            final double x2 = in[ib + 2];
            final double x3 = in[ib + 3];
            final double x4 = in[ib + 4];
            final double x5 = in[ib + 5];
            final double x6 = in[ib + 6];
            final double x7 = in[ib + 7];
            final double x8 = in[ib + 8];
            for (int r = 0, ab = 0; r < rows; r++, ab += 9) {
                double s = a[ab + 0] * x0 + a[ab + 1] * x1 + a[ab + 2] * x2 + a[ab + 3] * x3 + a[ab + 4] * x4 + a[ab + 5] * x5 + a[ab + 6] * x6 + a[ab + 7] * x7 + a[ab + 8] * x8;
                out[ob + r] = acc ? out[ob + r] + s : s;
            }
        }
    }

    private static void dim0c10(double[] a, int rows, int planes, double[] in, int inOff, double[] out, int outOff,
                                 boolean acc) {
        for (int q = 0; q < planes; q++) {
            final int ib = inOff + q * 10;
            final int ob = outOff + q * rows;
            final double x0 = in[ib + 0];
            final double x1 = in[ib + 1];
            final double x2 = in[ib + 2];
            final double x3 = in[ib + 3];
            final double x4 = in[ib + 4];
            final double x5 = in[ib + 5];
            final double x6 = in[ib + 6];
            final double x7 = in[ib + 7];
            final double x8 = in[ib + 8];
            final double x9 = in[ib + 9];
            for (int r = 0, ab = 0; r < rows; r++, ab += 10) {
                double s = a[ab + 0] * x0 + a[ab + 1] * x1 + a[ab + 2] * x2 + a[ab + 3] * x3 + a[ab + 4] * x4 + a[ab + 5] * x5 + a[ab + 6] * x6 + a[ab + 7] * x7 + a[ab + 8] * x8 + a[ab + 9] * x9;
                out[ob + r] = acc ? out[ob + r] + s : s;
            }
        }
    }
}
