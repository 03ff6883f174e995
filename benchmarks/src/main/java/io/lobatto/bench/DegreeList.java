package io.lobatto.bench;

import java.util.ArrayList;
import java.util.List;

/** A list of degrees N on the command line: one ("7"), a range ("1..15") or a list ("1,3,5"). */
final class DegreeList {

    private DegreeList() {
    }

    /** The degrees of {@code spec}, each in 1..{@code max}; the exception names {@code option}, the value and the range. */
    static List<Integer> parse(String spec, String option, int max) {
        List<Integer> out = new ArrayList<>();
        try {
            for (String part : spec.split(",")) {
                String p = part.strip();
                int dots = p.indexOf("..");
                int lo = Integer.parseInt(dots < 0 ? p : p.substring(0, dots).strip());
                int hi = dots < 0 ? lo : Integer.parseInt(p.substring(dots + 2).strip());
                if (lo < 1 || hi > max || lo > hi) {
                    throw new IllegalArgumentException(option + " " + spec + " is out of range: the aparapi kernels take N = 1.." + max);
                }
                for (int n = lo; n <= hi; n++) {
                    if (!out.contains(n)) {
                        out.add(n);
                    }
                }
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " " + spec + " is not a degree, a range (1..15) or a list (1,3,5)");
        }
        return out;
    }
}
