package io.lobatto.backend.aparapi;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How far the OpenCL compiler unrolls an element kernel's loops {@code for (int m = 0; m < P; m++)}: in BP3.5's kernels
 * the sum-factorisation contractions y_i = sum_m D_im u_m of the gradients and divergences (the tensor paper's
 * contractions), in the 2D stiffness also the loop over m that holds the last sum over c, in the register kernels the
 * loops over a column's m. {@code #pragma unroll U} goes before each such loop of Aparapi's translation: Java has no loop
 * pragma. Loops over m &lt; Q (BP1.0's and BP3.0's GL stages) are not marked. With P a build constant the compilers pick
 * their own unrolling (NVIDIA's by 2 at P = 8), and that choice sets how many registers the loop's loads and addresses
 * take; U = 1 keeps the loop rolled.
 */
final class ContractionUnroll {

    /** A contraction loop as Aparapi's KernelWriter writes it, with its indentation. */
    private static final Pattern LOOP = Pattern.compile("(?m)^([ \\t]*)(for \\(int m = 0; m<P; m\\+\\+\\)\\{)");

    /** The largest unroll count accepted: more than any P of a supported degree. */
    static final int MAX = 32;

    private ContractionUnroll() {
    }

    /**
     * {@code source} with {@code #pragma unroll unroll} before each contraction loop; {@code unroll} 0 leaves the
     * compiler's choice (the source unchanged).
     *
     * @throws IllegalArgumentException if {@code unroll} is outside 0..{@link #MAX}
     */
    static String apply(String source, int unroll) {
        if (unroll < 0 || unroll > MAX) {
            throw new IllegalArgumentException("unroll " + unroll + " is out of range 0.." + MAX);
        }
        if (unroll == 0) {
            return source;
        }
        return LOOP.matcher(source).replaceAll("$1#pragma unroll " + unroll + "\n$1$2");
    }

    /** The number of contraction loops in {@code source}, the places {@link #apply} marks. */
    static int loops(String source) {
        Matcher m = LOOP.matcher(source);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }
}
