package io.lobatto.backend.aparapi.runtime;

import java.nio.charset.StandardCharsets;

/**
 * A register cap for NVIDIA builds: the build-option token {@code -lobatto-maxnreg=N} makes {@link ProgramCache} compile
 * the source, add PTX's {@code .maxnreg N} directive to every entry of the PTX the driver returns, and build the program
 * again from that PTX. NVIDIA's own {@code -cl-nv-maxrregcount} does not cap kernels with
 * {@code reqd_work_group_size} (their PTX carries {@code .reqntid}, which ptxas lets override the cap; seen with the
 * driver 580 and ptxas 13.0), and every element kernel has one. Fewer registers per work-item let more work-groups share
 * an SM, at the price of spills to local memory. Other devices ignore the token.
 */
public final class PtxRegisterCap {

    /** The build-option token, followed by the register count. */
    public static final String OPTION = "-lobatto-maxnreg=";

    private PtxRegisterCap() {
    }

    /** The token as a word of the options, with its count. */
    private static final java.util.regex.Pattern TOKEN = java.util.regex.Pattern.compile("(?:^|\\s)" + OPTION + "(\\S*)");

    /** The cap in {@code options}, or 0 where there is none; a malformed count is named. */
    static int of(String options) {
        java.util.regex.Matcher m = TOKEN.matcher(options);
        if (!m.find()) {
            return 0;
        }
        int n = count(m.group(1));
        if (n < 0) {
            throw new IllegalArgumentException("build option " + OPTION + m.group(1) + ": expected a register count in 16..255");
        }
        return n;
    }

    /** {@code options} without the token (unchanged where it has none): what the OpenCL compiler is given. */
    static String strip(String options) {
        java.util.regex.Matcher m = TOKEN.matcher(options);
        return m.find() ? m.replaceAll("").strip() : options;
    }

    /** {@code v} as a register count in 16..255 (what a cap can ask of an NVIDIA GPU), or -1. */
    public static int count(String v) {
        try {
            int n = Integer.parseInt(v.trim());
            return n >= 16 && n <= 255 ? n : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * {@code ptx} with {@code .maxnreg n} after the launch-bound directives of every {@code .entry} (before its body's
     * opening brace); a trailing NUL, as NVIDIA's driver returns the binary, is kept.
     */
    static byte[] apply(byte[] ptx, int n) {
        int len = ptx.length;
        while (len > 0 && ptx[len - 1] == 0) {
            len--;
        }
        String text = new String(ptx, 0, len, StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(text.length() + 64);
        int from = 0;
        int entries = 0;
        for (int e = text.indexOf(".entry ", from); e >= 0; e = text.indexOf(".entry ", from)) {
            int open = text.indexOf('(', e);
            int brace = text.indexOf('{', e);
            if (open < 0 || brace >= 0 && brace < open) {
                throw new IllegalArgumentException("PTX entry at offset " + e + " has no parameter list");
            }
            int close = text.indexOf(')', open);
            int body = close < 0 ? -1 : text.indexOf('{', close);
            if (body < 0) {
                throw new IllegalArgumentException("PTX entry at offset " + e + " has no body");
            }
            if (text.substring(close, body).contains(".maxnreg")) {
                throw new IllegalArgumentException("PTX entry at offset " + e + " already has a .maxnreg directive");
            }
            out.append(text, from, body).append(".maxnreg ").append(n).append('\n');
            from = body;
            entries++;
        }
        if (entries == 0) {
            throw new IllegalArgumentException("no .entry in the PTX: not an NVIDIA program binary");
        }
        out.append(text.substring(from));
        byte[] patched = out.toString().getBytes(StandardCharsets.UTF_8);
        byte[] result = new byte[patched.length + (ptx.length - len)];
        System.arraycopy(patched, 0, result, 0, patched.length);
        return result;
    }
}
