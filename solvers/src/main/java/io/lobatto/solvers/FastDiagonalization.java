package io.lobatto.solvers;

import org.hipparchus.linear.Array2DRowRealMatrix;
import org.hipparchus.linear.EigenDecompositionSymmetric;
import org.hipparchus.linear.RealMatrix;

import io.lobatto.core.basis.Basis1D;

/**
 * The separable approximations of the extended elements' local problems and their fast diagonalisation (Lynch, Rice
 * &amp; Thomas 1964; Fischer 1997, Lottes &amp; Fischer 2005 for the spectral element method). For each element e and
 * direction d, on the n = N + 3 points of the extended 1D grid (indices -1..N+1):
 * <pre>
 *   S_d = (2/l) Sh  on the element's N+1 nodes,  M_d = (l/2) W
 *       + (2/l_left) Sh[N-1..N, N-1..N] on points -1, 0   (the left neighbour's last interval, Dirichlet beyond)
 *       + (2/l_right) Sh[0..1, 0..1] on points N, N+1       (the right neighbour's first interval)
 * </pre>
 * with Sh = D^T W D the reference 1D GLL stiffness, W the GLL weights and l the mean lengths of
 * {@link ExtendedElements}. A point without a node (a physical boundary) is left out; an element node on a
 * Dirichlet face is left out too. The generalised eigenproblem S_d v = lambda M_d v on the points kept gives V_d
 * (V_d^T M_d V_d = I) and lambda_d, so that the local operator
 * M_t (x) M_s (x) S_r + M_t (x) S_s (x) M_r + S_t (x) M_s (x) M_r + lambda_h M_t (x) M_s (x) M_r has the inverse of
 * {@link io.lobatto.core.backend.DeviceFdm} with eigenvalues lambda_d + lambda_h / 3. Points left out have zero rows
 * in V_d (the local solution is 0 there) and unused columns are zero with eigenvalue 1.
 *
 * @param points       n = N + 3
 * @param elements     E
 * @param eigenvectors [E][3][n][n], V_d row-major
 * @param eigenvalues  [E][3][n]
 */
public record FastDiagonalization(int points, int elements, double[] eigenvectors, double[] eigenvalues) {

    /**
     * How the 1D eigenproblems are solved: {@code JacobiEigen} (cyclic Jacobi rotations on plain arrays, the default) or
     * Hipparchus' {@code EigenDecompositionSymmetric} (Householder tridiagonalisation and QL, the setup of
     * {@code 9c68c10}). Both give the eigenpairs to rounding; the bits differ.
     */
    public enum Eigensolver {
        /** Cyclic Jacobi rotations ({@code JacobiEigen}, this package). */
        JACOBI,
        /** Hipparchus' {@code EigenDecompositionSymmetric}. */
        HIPPARCHUS
    }

    /** The 1D matrices of one element and direction on the extended grid: stiffness, mass, points kept. */
    public record Line(double[][] stiffness, double[] mass, boolean[] kept) {
    }

    /**
     * The mask of the extended elements' numbering: {@code mask} (the Dirichlet nodes of {@code globalNodeCount} global
     * nodes; null: none) and the point-without-node id {@code globalNodeCount}, masked too. Length globalNodeCount + 1.
     */
    public static boolean[] extendedMask(boolean[] mask, int globalNodeCount) {
        if (mask != null && mask.length != globalNodeCount) {
            throw new IllegalArgumentException("mask has length " + mask.length + " but there are " + globalNodeCount
                    + " global nodes");
        }
        boolean[] m = new boolean[globalNodeCount + 1];
        if (mask != null) {
            System.arraycopy(mask, 0, m, 0, globalNodeCount);
        }
        m[globalNodeCount] = true;
        return m;
    }

    /**
     * The fast diagonalisation of the extended elements {@code ext}; {@code masked} (length
     * {@code ext.globalNodeCount() + 1}) marks Dirichlet nodes and the point-without-node id; {@code lambda} the
     * screening of the Helmholtz operator (0 for Poisson). The dense arrays of {@link #table(ExtendedElements, boolean[],
     * double)} (lines keyed by {@link #DEFAULT_LENGTH_BITS} of their lengths, solved by Jacobi rotations).
     */
    public static FastDiagonalization of(ExtendedElements ext, boolean[] masked, double lambda) {
        return table(ext, masked, lambda).expand();
    }

    /**
     * The fast diagonalisation as a table of its distinct 1D problems: {@code vectors} [L][n][n] and {@code values}
     * [L][n] as in {@link FastDiagonalization}, and {@code lineOf} [E][3], the line of element e in direction d. A line
     * is determined by the element's mean length, its neighbours' and the points kept, so equal lines share one entry
     * (Kershaw's mesh at 12^3: 1566 distinct of 5184). The lines are numbered in the order of their first (e, d), so
     * the table does not depend on the threads.
     */
    public record Table(int points, int elements, double[] vectors, double[] values, int[] lineOf) {

        /** L, the distinct lines. */
        public int lines() {
            return values.length / points;
        }

        /** The dense arrays of element e and direction d: the same numbers as {@link FastDiagonalization#of}. */
        public FastDiagonalization expand() {
            int n = points, n2 = n * n;
            double[] v = new double[Math.multiplyExact(3 * n2, elements)];
            double[] l = new double[3 * n * elements];
            for (int q = 0; q < lineOf.length; q++) {
                System.arraycopy(vectors, lineOf[q] * n2, v, q * n2, n2);
                System.arraycopy(values, lineOf[q] * n, l, q * n, n);
            }
            return new FastDiagonalization(n, elements, v, l);
        }
    }

    /**
     * Mantissa bits of the lengths that key a line in {@link #table(ExtendedElements, boolean[], double)}: 36 of 52, so
     * lengths that agree to 2^-36 (1.5e-11) relative share a line. The mean lengths are differences of face centroids,
     * sums over the face nodes whose rounding depends on where the element sits: on Kershaw's mesh at 30^3 elements,
     * N = 7, 20 484 lines of 81 000 have distinct lengths bit for bit, and 1 079 when the last 16 bits are rounded off
     * (1 073 at 20 or 24 bits: the lines equal in exact arithmetic). A line then uses the eigenpairs of its class's first
     * line (in (e, d) order), whose lengths differ from its own by less than 2^-36 relative: the local solves change by
     * about that much, far below what the separable approximation of the local problem already neglects.
     */
    public static final int DEFAULT_LENGTH_BITS = 36;

    /** All 52 mantissa bits: lines share only when their lengths are equal bit for bit (the setup of {@code 9c68c10}). */
    public static final int EXACT_LENGTH_BITS = 52;

    /**
     * The fast diagonalisation of {@code ext} as a {@link Table}: each distinct line is built and diagonalised once and
     * only L (n^2 + n) + 3 E numbers are stored (no [E][3][n][n] array); lines are keyed by
     * {@link #DEFAULT_LENGTH_BITS} of their lengths.
     */
    public static Table table(ExtendedElements ext, boolean[] masked, double lambda) {
        return table(ext, masked, lambda, DEFAULT_LENGTH_BITS);
    }

    /**
     * As {@link #table(ExtendedElements, boolean[], double)}, with lines keyed by the leading {@code lengthBits} bits
     * (rounded) of their lengths' 52-bit mantissas: {@link #EXACT_LENGTH_BITS} keys by the exact lengths.
     *
     * @throws IllegalArgumentException unless 20 &lt;= lengthBits &lt;= 52
     */
    public static Table table(ExtendedElements ext, boolean[] masked, double lambda, int lengthBits) {
        return table(ext, masked, lambda, lengthBits, Eigensolver.JACOBI);
    }

    /**
     * As {@link #table(ExtendedElements, boolean[], double, int)}, with the symmetric eigenproblems solved by
     * {@code solver}.
     *
     * @throws IllegalArgumentException unless 20 &lt;= lengthBits &lt;= 52
     */
    public static Table table(ExtendedElements ext, boolean[] masked, double lambda, int lengthBits, Eigensolver solver) {
        java.util.Objects.requireNonNull(solver, "solver");
        if (lengthBits < 20 || lengthBits > EXACT_LENGTH_BITS) {
            throw new IllegalArgumentException("lengthBits = " + lengthBits + " must be in 20.." + EXACT_LENGTH_BITS);
        }
        int drop = EXACT_LENGTH_BITS - lengthBits;
        int n = ext.points();
        int e3 = ext.elements();
        // the points kept per (e, d), elements in parallel (only a face without neighbour reads the mask)
        long[] kept = new long[3 * e3];
        java.util.stream.IntStream.range(0, (e3 + 255) / 256).parallel().forEach(c -> {
            for (int e = 256 * c, end = Math.min(e3, 256 * (c + 1)); e < end; e++) {
                for (int d = 0; d < 3; d++) {
                    kept[3 * e + d] = keptBits(ext, masked, e, d);
                }
            }
        });
        // number the distinct lines in (e, d) order
        java.util.HashMap<LineKey, Integer> index = new java.util.HashMap<>();
        int[] lineOf = new int[3 * e3];
        int[] first = new int[Math.max(16, 3 * e3 / 8)];
        for (int q = 0; q < 3 * e3; q++) {
            int e = q / 3, d = q % 3;
            LineKey key = new LineKey(lengthKey(ext.length(e, d), drop), lengthKey(ext.neighbourLength(e, 2 * d), drop),
                    lengthKey(ext.neighbourLength(e, 2 * d + 1), drop), kept[q]);
            int next = index.size();
            Integer at = index.putIfAbsent(key, next);
            if (at == null) {
                if (next == first.length) {
                    first = java.util.Arrays.copyOf(first, 2 * next);
                }
                first[next] = q;
                lineOf[q] = next;
            } else {
                lineOf[q] = at;
            }
        }
        int lines = index.size();
        int[] firstOf = first;
        double[] vectors = new double[Math.multiplyExact(lines, n * n)];
        double[] values = new double[lines * n];
        Basis1D basis = Basis1D.of(ext.degree());
        double[][] sh = referenceStiffness(basis);
        double[] w = basis.gll().weights();
        java.util.stream.IntStream.range(0, lines).parallel().forEach(l -> {
            Line line = line(ext, masked, sh, w, firstOf[l] / 3, firstOf[l] % 3);
            diagonalise(line, n, vectors, l * n * n, values, l * n, lambda / 3, solver);
        });
        return new Table(n, e3, vectors, values, lineOf);
    }

    /** The points {@link #line} keeps for element e and direction d, as bits (point i: bit i). */
    private static long keptBits(ExtendedElements ext, boolean[] masked, int e, int d) {
        int n = ext.points(), nDeg = ext.degree();
        long bits = ((1L << (nDeg + 1)) - 1) << 1;
        if (ext.hasNeighbour(e, 2 * d)) {
            bits |= 1;
        } else if (faceMasked(ext, masked, e, d, 0)) {
            bits &= ~2L;
        }
        if (ext.hasNeighbour(e, 2 * d + 1)) {
            bits |= 1L << (n - 1);
        } else if (faceMasked(ext, masked, e, d, nDeg)) {
            bits &= ~(1L << (n - 2));
        }
        return bits;
    }

    /**
     * What determines a {@link Line}: the element's length, its neighbours' (0: none), each as {@link #lengthKey}, and
     * the points kept (bits).
     */
    private record LineKey(long length, long left, long right, long kept) {
    }

    /**
     * A non-negative length's bits with the last {@code drop} mantissa bits rounded off (half up; a carry into the
     * exponent is still one class): equal for lengths within 2^(drop-52) relative of each other unless a class boundary
     * falls between them. With {@code drop} 0, the bits themselves.
     */
    static long lengthKey(double length, int drop) {
        long bits = Double.doubleToLongBits(length);
        return drop == 0 ? bits : (bits + (1L << (drop - 1))) >>> drop;
    }

    /** Sh = D^T W D on the reference element [-1, 1]. */
    static double[][] referenceStiffness(Basis1D basis) {
        int nq = basis.nq();
        double[] w = basis.gll().weights();
        double[][] s = new double[nq][nq];
        for (int i = 0; i < nq; i++) {
            for (int j = 0; j < nq; j++) {
                double v = 0;
                for (int q = 0; q < nq; q++) {
                    v += basis.d(q, i) * w[q] * basis.d(q, j);
                }
                s[i][j] = v;
            }
        }
        return s;
    }

    /** The 1D matrices of element e in direction d, as {@link #of} builds them (for tests and reports). */
    public static Line line(ExtendedElements ext, boolean[] masked, int e, int d) {
        Basis1D basis = Basis1D.of(ext.degree());
        return line(ext, masked, referenceStiffness(basis), basis.gll().weights(), e, d);
    }

    static Line line(ExtendedElements ext, boolean[] masked, double[][] sh, double[] w, int e, int d) {
        int nDeg = ext.degree();
        int n = nDeg + 3;
        double[][] a = new double[n][n];
        double[] b = new double[n];
        boolean[] kept = new boolean[n];
        double l = ext.length(e, d);
        for (int i = 0; i <= nDeg; i++) {
            for (int j = 0; j <= nDeg; j++) {
                a[i + 1][j + 1] += 2 / l * sh[i][j];
            }
            b[i + 1] += l / 2 * w[i];
            kept[i + 1] = true;
        }
        if (ext.hasNeighbour(e, 2 * d)) {
            double ll = ext.neighbourLength(e, 2 * d);
            a[0][0] += 2 / ll * sh[nDeg - 1][nDeg - 1];
            a[0][1] += 2 / ll * sh[nDeg - 1][nDeg];
            a[1][0] += 2 / ll * sh[nDeg][nDeg - 1];
            a[1][1] += 2 / ll * sh[nDeg][nDeg];
            b[0] += ll / 2 * w[nDeg - 1];
            b[1] += ll / 2 * w[nDeg];
            kept[0] = true;
        } else if (faceMasked(ext, masked, e, d, 0)) {
            kept[1] = false;
        }
        if (ext.hasNeighbour(e, 2 * d + 1)) {
            double lr = ext.neighbourLength(e, 2 * d + 1);
            a[n - 1][n - 1] += 2 / lr * sh[1][1];
            a[n - 1][n - 2] += 2 / lr * sh[1][0];
            a[n - 2][n - 1] += 2 / lr * sh[0][1];
            a[n - 2][n - 2] += 2 / lr * sh[0][0];
            b[n - 1] += lr / 2 * w[1];
            b[n - 2] += lr / 2 * w[0];
            kept[n - 1] = true;
        } else if (faceMasked(ext, masked, e, d, nDeg)) {
            kept[n - 2] = false;
        }
        return new Line(a, b, kept);
    }

    /** Whether every node of e's face at coordinate {@code at} (0 or N) in direction d is masked. */
    private static boolean faceMasked(ExtendedElements ext, boolean[] masked, int e, int d, int at) {
        int nDeg = ext.degree();
        int[] c = new int[3];
        c[d] = at + 1;
        int a = d == 0 ? 1 : 0, b = d == 2 ? 1 : 2;
        for (int v = 1; v <= nDeg + 1; v++) {
            for (int u = 1; u <= nDeg + 1; u++) {
                c[a] = u;
                c[b] = v;
                if (!masked[ext.ownGlobalId(e, (c[0] - 1) + (nDeg + 1) * ((c[1] - 1) + (nDeg + 1) * (c[2] - 1)))]) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * V (n x n at {@code vOff}) and lambda + shift (n at {@code lOff}) of S v = lambda M v on the kept points: the
     * symmetric C = M^-1/2 S M^-1/2 (M is diagonal) diagonalised by {@code solver}, V = M^-1/2 Q, eigenvalues descending.
     */
    private static void diagonalise(Line line, int n, double[] vectors, int vOff, double[] values, int lOff, double shift,
                                    Eigensolver solver) {
        int m = 0;
        int[] index = new int[n];
        for (int i = 0; i < n; i++) {
            if (line.kept()[i]) {
                index[m++] = i;
            }
        }
        double[][] c = new double[m][m];
        double[] s = new double[m];
        for (int p = 0; p < m; p++) {
            s[p] = 1 / Math.sqrt(line.mass()[index[p]]);
        }
        for (int p = 0; p < m; p++) {
            for (int q = 0; q < m; q++) {
                c[p][q] = s[p] * line.stiffness()[index[p]][index[q]] * s[q];
            }
        }
        for (int p = 0; p < m; p++) {
            for (int q = p + 1; q < m; q++) {
                double v = 0.5 * (c[p][q] + c[q][p]);
                c[p][q] = v;
                c[q][p] = v;
            }
        }
        if (solver == Eigensolver.JACOBI) {
            double[] a = new double[m * m];
            for (int p = 0; p < m; p++) {
                System.arraycopy(c[p], 0, a, p * m, m);
            }
            double[] lambda = new double[m];
            double[] q = new double[m * m];
            JacobiEigen.decompose(a, m, lambda, q, new double[2 * m]);
            for (int i = 0; i < n; i++) {
                values[lOff + i] = i < m ? lambda[i] + shift : 1;
            }
            for (int p = 0; p < m; p++) {
                for (int i = 0; i < m; i++) {
                    vectors[vOff + index[p] * n + i] = s[p] * q[p * m + i];
                }
            }
            return;
        }
        EigenDecompositionSymmetric eig = new EigenDecompositionSymmetric(new Array2DRowRealMatrix(c, false));
        double[] lambda = eig.getEigenvalues();
        RealMatrix q = eig.getV();
        for (int i = 0; i < n; i++) {
            values[lOff + i] = i < m ? lambda[i] + shift : 1;
        }
        for (int p = 0; p < m; p++) {
            for (int i = 0; i < m; i++) {
                vectors[vOff + index[p] * n + i] = s[p] * q.getEntry(p, i);
            }
        }
    }
}
