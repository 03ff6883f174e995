package io.lobatto.backend.aparapi.runtime;

import com.aparapi.Kernel;
import com.aparapi.internal.model.ClassModel;
import com.aparapi.internal.writer.KernelWriter;
import io.lobatto.core.backend.BackendException;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The OpenCL C of one build of a Java kernel class: Aparapi's code generator ({@link KernelWriter} on the
 * class's {@code run} entry point) translates the class once; each build then fixes the class's
 * {@link BuildConstant} fields to values given as {@code #define}s (so the source itself holds N and the
 * variant), and the kernel's arguments are the remaining fields in Aparapi's order (first use), bound by
 * name. Translation needs no OpenCL device and no Aparapi native library. Immutable.
 *
 * @param label   a name for messages and profiles, e.g. "axpby" or "BP3.5 N=7"
 * @param source  the complete OpenCL C source (one kernel, {@code run})
 * @param args    the kernel's arguments in order
 * @param options OpenCL build options of this source ({@code ""}: the compiler's defaults), e.g.
 *                {@code -cl-opt-disable} for a setup kernel that runs once over a small problem
 */
public record KernelSource(String label, String source, List<Arg> args, String options) {

    /** What a kernel argument is, from its OpenCL declaration. */
    public enum Kind { GLOBAL_BUFFER, LOCAL_BUFFER, INT, LONG, DOUBLE, FLOAT }

    /**
     * One argument of the generated kernel.
     *
     * @param name the Java field's name
     * @param kind its kind
     */
    public record Arg(String name, Kind kind) {
    }

    /** The entry point every generated kernel has. */
    public static final String ENTRY = "run";

    private static final Logger APARAPI_LOG = Logger.getLogger("com.aparapi");
    private static final Map<Class<?>, String> TRANSLATED = new ConcurrentHashMap<>();
    /** A helper function Aparapi writes for a method of the kernel class: return type, name and its this-pointer. */
    private static final Pattern INLINE = Pattern.compile("(?m)^(void|int|long|float|double|short|char) ([A-Za-z_0-9]+\\(This \\*this)");
    private static final Pattern SIGNATURE = Pattern.compile("__kernel (?:__attribute__\\(\\(reqd_work_group_size\\([^)]*\\)\\)\\) )?void run\\((.*?)\\)\\s*\\{", Pattern.DOTALL);

    public KernelSource {
        args = List.copyOf(args);
        options = options == null ? "" : options.strip();
    }

    /** A source built with the compiler's default options. */
    public KernelSource(String label, String source, List<Arg> args) {
        this(label, source, args, "");
    }

    /** This source, built with {@code options} instead of its own. */
    public KernelSource withOptions(String options) {
        return new KernelSource(label, source, args, options);
    }

    /**
     * Translates {@code kernelClass} (cached per class) and fixes its {@link BuildConstant} fields to
     * {@code constants}; every constant field must be given, and only those.
     */
    public static KernelSource of(Class<? extends Kernel> kernelClass, Map<String, Integer> constants, String label) {
        return of(kernelClass, constants, label, 0);
    }

    /**
     * {@link #of(Class, Map, String)} for launches of exactly {@code groupSize} work-items per group
     * ({@code reqd_work_group_size}; 0: any): the compiler then budgets registers for that group, and
     * drivers that report a smaller {@code CL_KERNEL_WORK_GROUP_SIZE} by default (NVIDIA reports 256)
     * allow it.
     */
    public static KernelSource of(Class<? extends Kernel> kernelClass, Map<String, Integer> constants, String label,
                                  int groupSize) {
        return of(kernelClass, constants, label, groupSize, UnaryOperator.identity());
    }

    /**
     * {@link #of(Class, Map, String, int)} with {@code edit} applied to Aparapi's translation before the constants
     * are fixed: the user-operator kernel replaces its placeholder function by the user's translated one.
     */
    public static KernelSource of(Class<? extends Kernel> kernelClass, Map<String, Integer> constants, String label,
                                  int groupSize, UnaryOperator<String> edit) {
        String generic = edit.apply(TRANSLATED.computeIfAbsent(kernelClass, KernelSource::translate));
        Map<String, Integer> given = new LinkedHashMap<>(constants);
        for (Field f : constantFields(kernelClass)) {
            if (!given.containsKey(f.getName())) {
                throw new IllegalArgumentException(kernelClass.getSimpleName() + ": build constant '" + f.getName()
                        + "' has no value; given " + constants.keySet());
            }
        }
        StringBuilder defines = new StringBuilder("// ").append(label).append(" (translated from ")
                .append(kernelClass.getName()).append(" by Aparapi's KernelWriter)\n");
        for (Map.Entry<String, Integer> c : given.entrySet()) {
            String name = c.getKey();
            if (constantFields(kernelClass).stream().noneMatch(f -> f.getName().equals(name))) {
                throw new IllegalArgumentException(kernelClass.getSimpleName() + ": '" + name
                        + "' is not a @BuildConstant field");
            }
            defines.append("#define ").append(macro(name)).append(" (").append(c.getValue()).append(")\n");
        }
        Stripped stripped = STRIPPED.computeIfAbsent(new StripKey(generic, List.copyOf(given.keySet()), groupSize),
                k -> strip(k, kernelClass));
        String body = stripped.body();
        int pragma = body.indexOf('\n') + 1;
        String source = body.substring(0, pragma) + defines + body.substring(pragma);
        return new KernelSource(label, source, stripped.args());
    }

    /** A translation with its constants' names and the group size: what {@link #strip} depends on (not the values). */
    private record StripKey(String generic, List<String> constants, int groupSize) {
    }

    /** A translation with its build constants made macros, its helpers inlined, and the arguments of its kernel. */
    private record Stripped(String body, List<Arg> args) {
    }

    /**
     * The stripped translations made so far: the regular expressions of {@link #strip} over a whole translation cost
     * tens of milliseconds a kernel on a cold JVM, and an operation asks for the source of a kernel that
     * {@code prepare} built moments before.
     */
    private static final Map<StripKey, Stripped> STRIPPED = new ConcurrentHashMap<>();

    private static Stripped strip(StripKey key, Class<? extends Kernel> kernelClass) {
        String body = key.generic();
        for (String name : key.constants()) {
            String macro = macro(name);
            // the struct member, the argument and its copy into the struct disappear; reads become the macro
            body = body.replaceAll("(?m)^\\s*(int|long) " + name + ";\\n", "")
                    .replaceAll("(?m)^\\s*(int|long) " + name + ",\\s*\\n", "")
                    .replaceAll("(?m)^\\s*this->" + name + " = " + name + ";\\n", "")
                    .replaceAll("this->" + name + "\\b", macro);
        }
        // every helper method inlined: otherwise a compiler may keep a large one (with barriers) out of line and
        // pass the this-struct by pointer, and then the struct with its @PrivateMemorySpace arrays lives in
        // stack memory instead of registers (clang for nvptx did so for the register kernels' column stiffness)
        body = INLINE.matcher(body).replaceAll("static inline __attribute__((always_inline)) $1 $2");
        if (key.groupSize() > 0) {
            body = body.replace("__kernel void run(", "__kernel __attribute__((reqd_work_group_size(" + key.groupSize()
                    + ", 1, 1))) void run(");
        }
        return new Stripped(body, parseArgs(body, kernelClass));
    }

    /** The macro that stands for build constant {@code field}. */
    static String macro(String field) {
        return "LB_" + field.replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
    }

    private static List<Field> constantFields(Class<?> c) {
        List<Field> out = new ArrayList<>();
        for (Class<?> k = c; k != null && k != Kernel.class; k = k.getSuperclass()) {
            for (Field f : k.getDeclaredFields()) {
                if (f.isAnnotationPresent(BuildConstant.class)) {
                    if (f.getType() != int.class) {
                        throw new IllegalStateException(c.getName() + "." + f.getName() + ": @BuildConstant fields must be int");
                    }
                    out.add(f);
                }
            }
        }
        return out;
    }

    /**
     * Aparapi's code generator, with Aparapi's java.util.logging output silenced while it runs (its
     * messages, e.g. about class attributes it does not know, are not the user's concern; a failure
     * surfaces as the exception).
     */
    private static synchronized String translate(Class<?> kernelClass) {
        Level before = APARAPI_LOG.getLevel();
        APARAPI_LOG.setLevel(Level.OFF);
        try {
            Kernel instance = (Kernel) kernelClass.getDeclaredConstructor().newInstance();
            ClassModel model = ClassModel.createClassModel(kernelClass);
            return KernelWriter.writeToString(model.getEntrypoint(ENTRY, instance));
        } catch (Exception | LinkageError e) {
            throw new BackendException("aparapi: translating " + kernelClass.getName() + " to OpenCL failed: " + e, e);
        } finally {
            APARAPI_LOG.setLevel(before);
        }
    }

    private static List<Arg> parseArgs(String source, Class<?> kernelClass) {
        Matcher m = SIGNATURE.matcher(source);
        if (!m.find()) {
            throw new BackendException("aparapi: no '__kernel void run(' in the OpenCL of " + kernelClass.getName());
        }
        List<Arg> args = new ArrayList<>();
        for (String raw : m.group(1).split(",")) {
            String a = raw.trim();
            if (a.isEmpty()) {
                continue;
            }
            String name = a.substring(a.lastIndexOf(a.contains("*") ? '*' : ' ') + 1).trim();
            Kind kind;
            if (a.startsWith("__global") || a.startsWith("__constant")) {
                kind = Kind.GLOBAL_BUFFER;
            } else if (a.startsWith("__local")) {
                kind = Kind.LOCAL_BUFFER;
            } else if (a.startsWith("int ")) {
                kind = Kind.INT;
            } else if (a.startsWith("long ")) {
                kind = Kind.LONG;
            } else if (a.startsWith("double ")) {
                kind = Kind.DOUBLE;
            } else if (a.startsWith("float ")) {
                kind = Kind.FLOAT;
            } else {
                throw new BackendException("aparapi: unsupported kernel argument '" + a + "' in " + kernelClass.getName());
            }
            args.add(new Arg(name, kind));
        }
        return args;
    }
}
