package io.lobatto.backend.cpu;

/**
 * Sum-factorisation contractions on a block of B elements stored interleaved: the value at node t of
 * element b of the block is at {@code [t*B + b]}, so one node of the block is B contiguous doubles and
 * every contraction is a loop over contiguous memory with a scalar coefficient (libCEED's "blocked"
 * layout). A 3D tensor of the block has three directions; a contraction either contracts the slowest one
 * ({@code out[c + P r] = sum_k A[r][k] in[c + P k]}, c over a whole plane of P doubles) or the middle one
 * (the same per slab of the slowest index, c over a fibre). The fastest direction is never contracted in
 * place: {@link #swap} exchanges the slowest and the fastest direction (a transposition of B-runs).
 *
 * <p>Subclasses {@code TensorBlockN1} .. {@code TensorBlockN}{@value #MAX_DEGREE} are generated per degree
 * with literal trip counts and offsets: JDK 17's C2 vectorises such loops (SuperWord, AVX2/AVX-512) but not
 * loops whose indices carry a runtime offset. The build writes them ({@code src/build/java/.../TensorBlockGenerator},
 * run in {@code generate-sources}) into {@code target/generated-sources/tensor-blocks}, with {@code TensorBlocks},
 * their table; the repository holds only the generator. Every contraction sums over k in ascending order.
 *
 * <p>Matrices are row-major: D and D~ are n x n and m x m (n = N+1 GLL, m = N+2 GL points), I is m x n,
 * and the transposes are passed as their own row-major arrays.
 */
abstract class TensorBlock {

    /** Largest degree with a generated block kernel (the generator's, see {@code TensorBlocks}). */
    static final int MAX_DEGREE = TensorBlocks.MAX_DEGREE;

    /** Degree N. */
    final int degree;
    /** GLL points per direction (N + 1). */
    final int n;
    /** GL points per direction (N + 2). */
    final int m;
    /** Elements per block. */
    final int b;

    /**
     * @param degree    N
     * @param blockSize B, the elements per block, chosen by the generator (whose literals assume it): 16 up
     *                  to N = 3 (fibres of at least 32 doubles for the vector loops), else 8 (one AVX-512
     *                  register per node; a block's tensor stays within L1/L2)
     */
    TensorBlock(int degree, int blockSize) {
        this.degree = degree;
        this.n = degree + 1;
        this.m = degree + 2;
        this.b = blockSize;
    }

    /** The generated contractions of degree {@code degree}, or null when none are generated. */
    static TensorBlock of(int degree) {
        return TensorBlocks.of(degree);
    }

    /** D (n x n) on the slowest index of an (n, n, n) tensor. */
    abstract void gradSlow(double[] a, double[] in, double[] out, boolean acc);

    /** D (n x n) on the middle index of an (n, n, n) tensor. */
    abstract void gradMid(double[] a, double[] in, double[] out, boolean acc);

    /** D~ (m x m) on the slowest index of an (m, m, m) tensor. */
    abstract void gaussSlow(double[] a, double[] in, double[] out, boolean acc);

    /** D~ (m x m) on the middle index of an (m, m, m) tensor. */
    abstract void gaussMid(double[] a, double[] in, double[] out, boolean acc);

    /** I (m x n): (n, n, n) to (m, n, n), slowest index. */
    abstract void interpSlowN(double[] a, double[] in, double[] out);

    /** I (m x n): (m, n, n) to (m, m, n), middle index. */
    abstract void interpMid(double[] a, double[] in, double[] out);

    /** I (m x n): (n, m, m) to (m, m, m), slowest index. */
    abstract void interpSlowM(double[] a, double[] in, double[] out);

    /** I^T (n x m): (m, m, m) to (n, m, m), slowest index. */
    abstract void projectSlowM(double[] a, double[] in, double[] out);

    /** I^T (n x m): (n, m, m) to (n, n, m), middle index. */
    abstract void projectMid(double[] a, double[] in, double[] out);

    /** I^T (n x m): (m, n, n) to (n, n, n), slowest index. */
    abstract void projectSlowN(double[] a, double[] in, double[] out);

    /**
     * Exchanges the slowest and the fastest direction of a block tensor: {@code in} has sizes
     * (slow, mid, fast), {@code out} gets (fast, mid, slow); with {@code add} the result is added to out.
     * The generated subclasses override it with B a literal; this is {@link #swapGeneric}.
     */
    void swap(double[] in, int slow, int mid, int fast, double[] out, boolean add) {
        swapGeneric(b, in, slow, mid, fast, out, add);
    }

    /** {@link #swap} for any block size {@code bb}: runs of bb doubles, copied by {@link System#arraycopy} or added. */
    static void swapGeneric(int bb, double[] in, int slow, int mid, int fast, double[] out, boolean add) {
        for (int s = 0; s < slow; s++) {
            for (int k = 0; k < mid; k++) {
                int src = (s * mid + k) * fast * bb;
                int dst = (k * slow + s) * bb;
                int step = mid * slow * bb;
                for (int f = 0; f < fast; f++, src += bb, dst += step) {
                    if (add) {
                        for (int e = 0; e < bb; e++) {
                            out[dst + e] += in[src + e];
                        }
                    } else {
                        System.arraycopy(in, src, out, dst, bb);
                    }
                }
            }
        }
    }
}
