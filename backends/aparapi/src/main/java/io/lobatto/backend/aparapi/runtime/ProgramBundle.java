package io.lobatto.backend.aparapi.runtime;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Several {@link KernelSource}s as the source of one OpenCL program, so that one {@code clBuildProgram} compiles them
 * all. Each part keeps its text; only its global names change: its kernel {@code run} becomes {@link #entry}{@code (i)},
 * and its this-struct ({@code This_s}, {@code This}) and every function it defines at file scope (Aparapi's helpers,
 * {@code get_pass_id}) get the suffix {@code _b<i>}. The macros a part defines (its build constants) are undefined after
 * it, so the next part's constants of the same name take their own values. Pure text; immutable.
 *
 * @param source  the OpenCL C of the whole program
 * @param entries the kernel names, one per part, in the parts' order
 */
public record ProgramBundle(String source, List<String> entries) {

    /** A function defined at file scope: a return type (words and stars) then the name and its parenthesis. */
    private static final Pattern FUNCTION = Pattern.compile("^(?:[A-Za-z_][A-Za-z_0-9]*[\\s*]+)+?([A-Za-z_][A-Za-z_0-9]*)\\s*\\(");
    /** Storage classes and attributes in front of a function's return type. */
    private static final Pattern QUALIFIERS = Pattern.compile("^(?:(?:static|inline)\\s+|__attribute__\\(\\((?:[^()]|\\([^()]*\\))*\\)\\)\\s*)+");
    private static final Pattern DEFINE = Pattern.compile("(?m)^\\s*#\\s*define\\s+([A-Za-z_][A-Za-z_0-9]*)");
    private static final Pattern KERNEL = Pattern.compile("(__kernel\\s+(?:__attribute__\\(\\([^)]*\\)\\)\\)\\s+)?void\\s+)"
            + KernelSource.ENTRY + "\\s*\\(");

    public ProgramBundle {
        entries = List.copyOf(entries);
    }

    /** The kernel name of part {@code i}. */
    public static String entry(int i) {
        return KernelSource.ENTRY + "_b" + i;
    }

    /** The bundle of {@code parts}, in order; at least one. */
    public static ProgramBundle of(List<KernelSource> parts) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("parts: a bundle needs at least one kernel source, given none");
        }
        StringBuilder out = new StringBuilder();
        List<String> entries = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            String text = parts.get(i).source();
            String suffix = "_b" + i;
            Set<String> functions = fileScopeFunctions(text);
            for (String f : functions) {
                text = text.replaceAll("\\b" + Pattern.quote(f) + "(\\s*\\()", Matcher.quoteReplacement(f + suffix) + "$1");
            }
            text = text.replaceAll("\\bThis_s\\b", "This_s" + suffix).replaceAll("\\bThis\\b", "This" + suffix);
            Matcher k = KERNEL.matcher(text);
            if (!k.find()) {
                throw new IllegalArgumentException("parts[" + i + "] ('" + parts.get(i).label()
                        + "'): no '__kernel void " + KernelSource.ENTRY + "(' in its source");
            }
            text = k.replaceFirst(Matcher.quoteReplacement(k.group(1) + entry(i) + "("));
            out.append("// part ").append(i).append(": ").append(parts.get(i).label()).append('\n').append(text);
            if (!text.endsWith("\n")) {
                out.append('\n');
            }
            Set<String> macros = new LinkedHashSet<>();
            Matcher d = DEFINE.matcher(text);
            while (d.find()) {
                macros.add(d.group(1));
            }
            for (String m : macros) {
                out.append("#undef ").append(m).append('\n');
            }
            entries.add(entry(i));
        }
        return new ProgramBundle(out.toString(), entries);
    }

    /** Names of the functions {@code text} defines at brace depth 0, except the kernel. */
    static Set<String> fileScopeFunctions(String text) {
        Set<String> names = new LinkedHashSet<>();
        int depth = 0;
        for (String line : text.split("\n", -1)) {
            String t = line.strip();
            if (depth == 0 && !t.startsWith("#") && !t.startsWith("//") && !t.startsWith("__kernel")) {
                String head = QUALIFIERS.matcher(t).replaceFirst("");
                Matcher m = FUNCTION.matcher(head);
                if (m.find() && !head.startsWith("typedef") && !head.startsWith("return")) {
                    names.add(m.group(1));
                }
            }
            for (int c = 0; c < line.length(); c++) {
                char ch = line.charAt(c);
                if (ch == '{') {
                    depth++;
                } else if (ch == '}') {
                    depth--;
                }
            }
        }
        return names;
    }
}
