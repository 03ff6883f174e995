package io.lobatto.backend.aparapi;

import com.aparapi.Kernel;
import com.aparapi.internal.model.ClassModel;
import com.aparapi.internal.writer.KernelWriter;
import io.lobatto.core.backend.BackendException;
import io.lobatto.core.pointwise.PointFunction;
import io.lobatto.core.pointwise.PointwiseFunction;
import org.apache.bcel.Const;
import org.apache.bcel.classfile.Attribute;
import org.apache.bcel.classfile.BootstrapMethods;
import org.apache.bcel.classfile.ClassParser;
import org.apache.bcel.classfile.Code;
import org.apache.bcel.classfile.JavaClass;
import org.apache.bcel.classfile.Method;
import org.apache.bcel.generic.ArrayType;
import org.apache.bcel.generic.ClassGen;
import org.apache.bcel.generic.ConstantPoolGen;
import org.apache.bcel.generic.CPInstruction;
import org.apache.bcel.generic.FieldInstruction;
import org.apache.bcel.generic.INVOKEDYNAMIC;
import org.apache.bcel.generic.Instruction;
import org.apache.bcel.generic.InstructionConst;
import org.apache.bcel.generic.InstructionFactory;
import org.apache.bcel.generic.InstructionHandle;
import org.apache.bcel.generic.InstructionList;
import org.apache.bcel.generic.InvokeInstruction;
import org.apache.bcel.generic.LDC;
import org.apache.bcel.generic.LDC2_W;
import org.apache.bcel.generic.LocalVariableInstruction;
import org.apache.bcel.generic.MethodGen;
import org.apache.bcel.generic.ObjectType;
import org.apache.bcel.generic.Type;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a user's {@link PointwiseFunction#apply} (the pointwise map f of y^e = B^T f(B x^e)) into OpenCL C that the
 * element kernel calls at each quadrature point. Two steps:
 * <ol>
 *   <li><b>Validation</b> ({@link #validate}): the bytecode of {@code apply} and of every private method it calls is
 *       scanned for constructs outside the translatable subset of {@link PointwiseFunction}; they are rejected
 *       (up to 8 of them, in bytecode order) with an {@link IllegalArgumentException} naming the class, and for each
 *       the construct, its bytecode and where (method + offset) (e.g. {@code "NEW java/util/ArrayList at apply+12"}, {@code "GETFIELD ...kappa"}, {@code "LADD (long
 *       arithmetic)"}).</li>
 *   <li><b>Translation</b> ({@link #translate}): the methods are copied with BCEL into a synthetic {@link Kernel}
 *       subclass of the same name (its own class loader), whose {@code run} calls {@code apply} on global arrays;
 *       Aparapi's {@link KernelWriter} then writes the class, and the functions of the user's class are cut out of
 *       that text, their {@code __global double*} parameters made plain (private) pointers.</li>
 * </ol>
 * Classes compiled without a LocalVariableTable get one synthesised (Aparapi needs names for locals).
 * Results are cached per class.
 *
 * <p>The same two steps translate a {@link PointFunction}'s {@code evaluate(x, c, out)} (node maps, right-hand sides,
 * exact solutions: {@link #translatePoint}), whose subset is the same; its messages say "point function" and point
 * to {@link PointFunction}.
 */
public final class PointwiseTranslator {

    /**
     * The OpenCL C of a translated function.
     *
     * @param functions the function definitions (apply and the helpers it calls), each {@code static inline}
     * @param entry     the name of apply's function; it takes {@code (This *this, double *u, double *du,
     *                  double *data, double *v, double *dv)}
     */
    public record Translation(String functions, String entry) {
    }

    /** The java.lang.Math functions OpenCL C has (Aparapi maps them to its built-ins). */
    static final Set<String> MATH = Set.of("abs", "sqrt", "cbrt", "exp", "log", "log10", "sin", "cos", "tan", "asin",
            "acos", "atan", "atan2", "sinh", "cosh", "tanh", "pow", "min", "max", "floor", "ceil", "rint", "hypot",
            "expm1", "log1p", "signum", "copySign", "fma", "toRadians", "toDegrees");

    /** The prefix of the names given to locals of a class compiled without a LocalVariableTable. */
    private static final String SYNTHETIC = "lbv";
    private static final Pattern SYNTHETIC_DECL = Pattern.compile("\\b(double|int) (" + SYNTHETIC + "\\d+)\\b");
    /**
     * What is translated: the entry method (name, descriptor and the names its parameters get when the class has no
     * LocalVariableTable), how messages name such a class, the class documenting the subset, and the hint for a
     * field access.
     */
    private record Entry(String method, String desc, String[] params, String noun, String doc, String declaration,
                         String fieldHint) {
        String key() {
            return method + desc;
        }
    }

    /** {@link PointwiseFunction#apply}. */
    private static final Entry APPLY = new Entry("apply", "([D[D[D[D[D)V", new String[] {"u", "du", "data", "v", "dv"},
            "pointwise function", "PointwiseFunction", "apply(double[], double[], double[], double[], double[])",
            "put coefficients in the point data");
    /** {@link PointFunction#evaluate(double[], double[], double[])}. */
    private static final Entry EVALUATE = new Entry("evaluate", "([D[D[D)V", new String[] {"x", "c", "out"},
            "point function", "PointFunction", "evaluate(double[], double[], double[])",
            "put constants in the coefficients");
    private static final Logger APARAPI_LOG = Logger.getLogger("com.aparapi");
    /** Per class, held no longer than the class (a ClassValue does not keep a user's class loader alive). */
    private static final ClassValue<Translation> CACHE = new ClassValue<>() {
        @Override
        @SuppressWarnings("unchecked")
        protected Translation computeValue(Class<?> type) {
            return doTranslate(type, APPLY);
        }
    };
    private static final ClassValue<Translation> POINT_CACHE = new ClassValue<>() {
        @Override
        protected Translation computeValue(Class<?> type) {
            return doTranslate(type, EVALUATE);
        }
    };

    private PointwiseTranslator() {
    }

    /** The OpenCL C of {@code function}'s class (validated first; cached). */
    public static Translation translate(Class<? extends PointwiseFunction> function) {
        return CACHE.get(function);
    }

    /**
     * Checks that {@code function}'s {@code apply} and the private methods it calls stay inside the translatable
     * subset; throws {@link IllegalArgumentException} naming the class, method, construct and bytecode otherwise.
     */
    public static void validate(Class<? extends PointwiseFunction> function) {
        Parsed p = parse(function, APPLY);
        check(p);
    }

    /**
     * The OpenCL C of {@code function}'s {@code evaluate(x, c, out)} (validated first; cached); the entry takes
     * {@code (This *this, double *x, double *c, double *out)}.
     *
     * @throws IllegalArgumentException naming the class, construct, bytecode and where for a function outside the subset
     */
    public static Translation translatePoint(Class<? extends PointFunction> function) {
        return POINT_CACHE.get(function);
    }

    /** {@link #validate} for a {@link PointFunction}'s {@code evaluate}. */
    public static void validatePoint(Class<? extends PointFunction> function) {
        Parsed p = parse(function, EVALUATE);
        check(p);
    }

    // ------------------------------------------------------------------ validation

    /** The class file of a function class and its methods in call order (apply first). */
    private record Parsed(Class<?> cls, JavaClass jc, ConstantPoolGen cp, Map<String, Method> methods, Entry entry) {
    }

    private static Parsed parse(Class<?> cls, Entry entry) {
        if (cls.isHidden() || cls.isSynthetic()) {
            throw new IllegalArgumentException(entry.noun + " " + cls.getName()
                    + ": a hidden or synthetic class has no class file to translate");
        }
        String res = cls.getName().replace('.', '/') + ".class";
        ClassLoader loader = cls.getClassLoader() != null ? cls.getClassLoader() : ClassLoader.getSystemClassLoader();
        try (InputStream in = loader.getResourceAsStream(res)) {
            if (in == null) {
                throw new IllegalArgumentException(entry.noun + " " + cls.getName() + ": its class file " + res
                        + " is not readable from its class loader, so it cannot be translated");
            }
            JavaClass jc = new ClassParser(in, res).parse();
            Map<String, Method> methods = new LinkedHashMap<>();
            for (Method m : jc.getMethods()) {
                methods.put(m.getName() + m.getSignature(), m);
            }
            if (!methods.containsKey(entry.key())) {
                throw new IllegalArgumentException(entry.noun + " " + cls.getName()
                        + " does not declare " + entry.declaration + " itself");
            }
            return new Parsed(cls, jc, new ConstantPoolGen(jc.getConstantPool()), methods, entry);
        } catch (IOException e) {
            throw new IllegalArgumentException(entry.noun + " " + cls.getName() + ": reading " + res + " failed: " + e, e);
        }
    }

    /** Validates and returns the reachable methods (apply first, then the helpers in first-call order). */
    private static List<Method> check(Parsed p) {
        String owner = p.jc.getClassName().replace('.', '/');
        List<Method> order = new ArrayList<>();
        Set<String> done = new LinkedHashSet<>();
        List<String> problems = new ArrayList<>();
        visit(p, owner, p.entry.key(), new ArrayList<>(), done, order, problems);
        if (!problems.isEmpty()) {
            int shown = Math.min(problems.size(), MAX_REPORTED);
            throw new IllegalArgumentException(p.entry.noun + " " + p.cls.getName()
                    + " is outside the translatable subset (see " + p.entry.doc + "): "
                    + String.join("; ", problems.subList(0, shown))
                    + (problems.size() > shown ? "; and " + (problems.size() - shown) + " more" : ""));
        }
        return order;
    }

    /** Constructs named in one rejection message at most. */
    private static final int MAX_REPORTED = 8;

    /**
     * Scans method {@code key} and, depth first, the private methods it calls: every instruction outside the subset
     * goes to {@code problems} ("NEW java/util/ArrayList at apply+12 (allocation)"); recursion and methods that
     * cannot be scanned at all are thrown at once.
     */
    private static void visit(Parsed p, String owner, String key, List<String> stack, Set<String> done, List<Method> order,
                              List<String> problems) {
        if (stack.contains(key)) {
            List<String> path = new ArrayList<>();
            for (String s : stack) {
                path.add(s.substring(0, s.indexOf('(')));
            }
            path.add(key.substring(0, key.indexOf('(')));
            throw reject(p, stack.get(stack.size() - 1), "recursion " + String.join(" -> ", path)
                    + " (OpenCL has no recursion)");
        }
        if (!done.add(key)) {
            return;
        }
        Method m = p.methods.get(key);
        String name = m.getName();
        if (m.isNative() || m.isAbstract() || m.getCode() == null) {
            throw reject(p, key, "a method without bytecode");
        }
        if (m.isSynchronized()) {
            throw reject(p, key, "a synchronized method");
        }
        Code code = m.getCode();
        if (code.getExceptionTable() != null && code.getExceptionTable().length > 0) {
            throw reject(p, key, "try/catch (exception table of " + code.getExceptionTable().length + " entries)");
        }
        order.add(m);
        stack.add(key);
        InstructionList il = new InstructionList(code.getCode());
        for (InstructionHandle ih : il.getInstructionHandles()) {
            Instruction in = ih.getInstruction();
            String at = " at " + name + "+" + ih.getPosition();
            String op = Const.getOpcodeName(in.getOpcode()).toUpperCase(java.util.Locale.ROOT);
            String bad = forbidden(p, owner, in, op);
            if (bad != null) {
                // "NEW java/util/ArrayList at apply+12 (allocation)": the construct, where, then why
                int why = bad.indexOf(" (");
                problems.add(why < 0 ? bad + at : bad.substring(0, why) + at + bad.substring(why));
            } else if (in instanceof InvokeInstruction inv) {
                String cls = inv.getReferenceType(p.cp).getSignature();
                cls = cls.substring(1, cls.length() - 1);
                if (cls.equals(owner)) {
                    visit(p, owner, inv.getMethodName(p.cp) + inv.getSignature(p.cp), stack, done, order, problems);
                }
            }
        }
        stack.remove(stack.size() - 1);
    }

    /** Why {@code in} is outside the subset, or null. */
    private static String forbidden(Parsed p, String owner, Instruction in, String op) {
        int o = in.getOpcode();
        switch (o) {
            case Const.NEW:
                return "NEW " + internal(((CPInstruction) in).getType(p.cp)) + " (allocation)";
            case Const.NEWARRAY:
            case Const.ANEWARRAY:
            case Const.MULTIANEWARRAY:
                return op + " (array allocation)";
            case Const.GETFIELD:
            case Const.PUTFIELD:
            case Const.GETSTATIC:
            case Const.PUTSTATIC: {
                FieldInstruction f = (FieldInstruction) in;
                return op + " " + internal(f.getReferenceType(p.cp)) + "." + f.getFieldName(p.cp)
                        + " (field access: " + p.entry.fieldHint + ")";
            }
            case Const.ATHROW:
                return "ATHROW (exceptions)";
            case Const.MONITORENTER:
            case Const.MONITOREXIT:
                return op + " (synchronization)";
            case Const.CHECKCAST:
            case Const.INSTANCEOF:
                return op + " (object types)";
            case Const.ARRAYLENGTH:
                return "ARRAYLENGTH (use the component count, a constant, instead of .length)";
            case Const.AALOAD:
            case Const.AASTORE:
            case Const.ARETURN:
            case Const.ACONST_NULL:
            case Const.IFNULL:
            case Const.IFNONNULL:
            case Const.IF_ACMPEQ:
            case Const.IF_ACMPNE:
                return op + " (object values)";
            case Const.ASTORE:
            case Const.ASTORE_0:
            case Const.ASTORE_1:
            case Const.ASTORE_2:
            case Const.ASTORE_3:
                return op + " (a local array variable: index the parameter arrays directly)";
            case Const.JSR:
            case Const.JSR_W:
            case Const.RET:
            case Const.LOOKUPSWITCH:
            case Const.TABLESWITCH:
                return op + " (switch/subroutine: use if/else)";
            case Const.INVOKEDYNAMIC:
                return "INVOKEDYNAMIC " + ((INVOKEDYNAMIC) in).getMethodName(p.cp) + " (lambdas, string concatenation)";
            default:
                break;
        }
        if (in instanceof LDC ldc) {
            Object v = ldc.getValue(p.cp);
            if (!(v instanceof Integer || v instanceof Double)) {
                return op + " " + v + (v instanceof Float ? " (float arithmetic)" : " (object constant)");
            }
            return null;
        }
        if (in instanceof LDC2_W ldc) {
            Object v = ldc.getValue(p.cp);
            return v instanceof Long ? op + " " + v + "L (long arithmetic)" : null;
        }
        if (in instanceof InvokeInstruction inv) {
            String cls = internal(inv.getReferenceType(p.cp));
            String name = inv.getMethodName(p.cp);
            String call = op + " " + cls + "." + name + inv.getSignature(p.cp);
            if (cls.equals("java/lang/Math") || cls.equals("java/lang/StrictMath")) {
                if (!MATH.contains(name) || inv.getSignature(p.cp).contains("J") || inv.getSignature(p.cp).contains("F")) {
                    return call + " (a Math function OpenCL has not, or on long/float)";
                }
                return null;
            }
            if (cls.equals(owner)) {
                Method target = p.methods.get(name + inv.getSignature(p.cp));
                if (target == null || !target.isPrivate() || name.equals("<init>")) {
                    return call + " (only private methods of the function's own class may be called)";
                }
                for (Type t : target.getArgumentTypes()) {
                    if (!allowed(t)) {
                        return call + " (parameter type " + t + ": only double, int and double[])";
                    }
                }
                Type r = target.getReturnType();
                if (r != Type.VOID && r != Type.DOUBLE && r != Type.INT && r != Type.BOOLEAN) {
                    return call + " (return type " + r + ": only void, double, int)";
                }
                return null;
            }
            return call + " (only java.lang.Math and private methods of the function's class may be called)";
        }
        // the opcode's first letter says the type it works on: L... long, F... float
        if (op.startsWith("L") && !op.startsWith("LDC") && !op.equals("LOOKUPSWITCH")) {
            return op + " (long arithmetic)";
        }
        if (op.startsWith("F") || op.endsWith("2F") || op.endsWith("2L") || op.startsWith("L2")
                || op.equals("LCMP") || op.startsWith("FCMP")) {
            return op + (op.contains("L") ? " (long arithmetic)" : " (float arithmetic)");
        }
        if (o == Const.BALOAD || o == Const.BASTORE || o == Const.CALOAD || o == Const.CASTORE || o == Const.SALOAD
                || o == Const.SASTORE || o == Const.IALOAD || o == Const.IASTORE) {
            return op + " (arrays other than the double[] parameters)";
        }
        return null;
    }

    private static boolean allowed(Type t) {
        return t == Type.DOUBLE || t == Type.INT || (t instanceof ArrayType a && a.getDimensions() == 1
                && a.getElementType() == Type.DOUBLE);
    }

    private static String internal(Type t) {
        if (t instanceof ObjectType ot) {
            return ot.getClassName().replace('.', '/');
        }
        return String.valueOf(t);
    }

    private static IllegalArgumentException reject(Parsed p, String methodKey, String what) {
        String m = methodKey.substring(0, methodKey.indexOf('('));
        return new IllegalArgumentException(p.entry.noun + " " + p.cls.getName() + "." + m
                + " is outside the translatable subset (see " + p.entry.doc + "): " + what);
    }

    // ------------------------------------------------------------------ translation

    private static final Pattern FUNCTION = Pattern.compile(
            "(?m)^(void|double|int|char|float|long|short) ([A-Za-z_0-9$]+)\\(");

    private static synchronized Translation doTranslate(Class<?> function, Entry kind) {
        Parsed p = parse(function, kind);
        List<Method> methods = check(p);
        byte[] bytes = synthesise(p, methods);
        boolean namesSynthesised = methods.stream().anyMatch(m -> m.getLocalVariableTable() == null
                || m.getLocalVariableTable().getLocalVariableTable().length == 0);
        String name = p.jc.getClassName();
        Level before = APARAPI_LOG.getLevel();
        APARAPI_LOG.setLevel(Level.OFF);
        String text;
        try {
            Class<?> k = new Loader(Kernel.class.getClassLoader(), name, bytes).loadClass(name);
            Object instance = k.getDeclaredConstructor().newInstance();
            ClassModel model = ClassModel.createClassModel(k);
            text = KernelWriter.writeToString(model.getEntrypoint("run", instance));
        } catch (Exception | LinkageError e) {
            throw new BackendException("aparapi: translating " + kind.noun + " " + name + " to OpenCL failed: " + e, e);
        } finally {
            APARAPI_LOG.setLevel(before);
        }
        // the functions of the class: everything from the first of its methods to the kernel entry
        String prefix = name.replace('.', '_') + "__";
        String clean = name.replace('.', '_').replace('$', '_') + "__";
        int kernel = text.indexOf("__kernel ");
        StringBuilder out = new StringBuilder();
        Matcher m = FUNCTION.matcher(text);
        List<int[]> spans = new ArrayList<>();
        while (m.find() && m.start() < kernel) {
            spans.add(new int[] {m.start(), m.end()});
        }
        String entry = null;
        for (int i = 0; i < spans.size(); i++) {
            int start = spans.get(i)[0];
            int end = i + 1 < spans.size() ? spans.get(i + 1)[0] : kernel;
            String f = text.substring(start, end);
            Matcher fm = FUNCTION.matcher(f);
            fm.find();
            String fname = fm.group(2);
            if (!fname.startsWith(prefix)) {
                continue;
            }
            if (fname.equals(prefix + kind.method)) {
                entry = clean + kind.method;
            }
            f = f.replaceAll("__global\\s+double\\s*\\*\\s*", "double *").replace(prefix, clean);
            if (namesSynthesised) {
                f = hoistLocals(f);
            }
            out.append(scalarTranscendental(f) ? "static __attribute__((noinline)) " : "static inline __attribute__((always_inline)) ")
                    .append(f.strip()).append('\n');
        }
        if (entry == null) {
            throw new BackendException("aparapi: no function " + prefix + kind.method + " in Aparapi's translation of " + name
                    + ":\n" + text);
        }
        return new Translation(out.toString(), entry);
    }

    /** A call of an OpenCL built-in whose double-precision body is long (argument reduction, polynomials, slow paths). */
    private static final Pattern TRANSCENDENTAL = Pattern.compile(
            "\\b(sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|exp|exp2|expm1|log|log2|log10|log1p|pow|cbrt|erf|erfc)\\s*\\(");

    /**
     * Whether translated function {@code f} takes only scalars and calls a transcendental built-in: such a helper (e.g. a
     * map's sin(pi t)) is called at several points of a kernel, and inlining it there copies the built-in's long body
     * each time, which made the map's geometry kernels the slowest builds of the main job on NVIDIA (0.5-0.7 s each). It
     * is kept out of line (a call costs little beside the built-in); every other helper is inlined.
     */
    static boolean scalarTranscendental(String f) {
        int open = f.indexOf('(');
        int close = f.indexOf(')', open);
        int body = f.indexOf('{');
        if (open < 0 || close < 0 || body < close) {
            return false;
        }
        String params = f.substring(open + 1, close);
        return !params.contains("*") && !params.contains("This") && TRANSCENDENTAL.matcher(f.substring(body)).find();
    }

    /**
     * Moves the declarations of synthetic locals ({@code double lbv6 = ...}, {@code for (int lbv8 = 0; ...)}) to the
     * top of function {@code f}, initialised to 0, and leaves assignments where they were.
     */
    static String hoistLocals(String f) {
        Matcher m = SYNTHETIC_DECL.matcher(f);
        Map<String, String> decl = new LinkedHashMap<>();
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            decl.putIfAbsent(m.group(2), m.group(1));
            m.appendReplacement(out, m.group(2));
        }
        m.appendTail(out);
        if (decl.isEmpty()) {
            return f;
        }
        StringBuilder top = new StringBuilder();
        decl.forEach((name, type) -> top.append("   ").append(type).append(' ').append(name).append(" = 0;\n"));
        int body = out.indexOf("{\n") + 2;
        return out.substring(0, body) + top + out.substring(body);
    }

    /**
     * The synthetic kernel: the user's class file with superclass {@link Kernel}, no fields but {@code lbArr},
     * the validated methods as they are, a constructor and {@code run() { apply(lbArr, lbArr, lbArr, lbArr, lbArr); }}.
     */
    private static byte[] synthesise(Parsed p, List<Method> methods) {
        ClassGen cg = new ClassGen(p.jc);
        String name = p.jc.getClassName();
        cg.setSuperclassName(Kernel.class.getName());
        cg.setAccessFlags(Const.ACC_PUBLIC | Const.ACC_SUPER);
        for (String i : cg.getInterfaceNames()) {
            cg.removeInterface(i);
        }
        for (var f : cg.getFields()) {
            cg.removeField(f);
        }
        for (Method m : cg.getMethods()) {
            cg.removeMethod(m);
        }
        // the copied constant pool keeps the class's invokedynamic entries (a static setup returning a lambda has
        // them), and the JVM refuses such a class without its BootstrapMethods attribute: keep that one
        for (Attribute a : cg.getAttributes()) {
            if (!(a instanceof BootstrapMethods)) {
                cg.removeAttribute(a);
            }
        }
        ConstantPoolGen cp = cg.getConstantPool();
        for (Method m : methods) {
            cg.addMethod(withLocalNames(m, name, cp, p.entry));
        }
        InstructionFactory f = new InstructionFactory(cg, cp);
        Type arr = new ArrayType(Type.DOUBLE, 1);
        cg.addField(new org.apache.bcel.generic.FieldGen(Const.ACC_PUBLIC, arr, "lbArr", cp).getField());
        // constructor
        InstructionList il = new InstructionList();
        il.append(InstructionConst.ALOAD_0);
        il.append(f.createInvoke(Kernel.class.getName(), "<init>", Type.VOID, Type.NO_ARGS, Const.INVOKESPECIAL));
        il.append(InstructionConst.ALOAD_0);
        il.append(InstructionConst.ICONST_1);
        il.append(f.createNewArray(Type.DOUBLE, (short) 1));
        il.append(f.createPutField(name, "lbArr", arr));
        il.append(InstructionConst.RETURN);
        MethodGen init = new MethodGen(Const.ACC_PUBLIC, Type.VOID, Type.NO_ARGS, new String[0], "<init>", name, il, cp);
        init.setMaxStack();
        init.setMaxLocals();
        cg.addMethod(init.getMethod());
        // run
        il = new InstructionList();
        il.append(InstructionConst.ALOAD_0);
        int arity = p.entry.params.length;
        Type[] argTypes = new Type[arity];
        for (int i = 0; i < arity; i++) {
            il.append(InstructionConst.ALOAD_0);
            il.append(f.createGetField(name, "lbArr", arr));
            argTypes[i] = arr;
        }
        il.append(f.createInvoke(name, p.entry.method, Type.VOID, argTypes, Const.INVOKEVIRTUAL));
        il.append(InstructionConst.RETURN);
        MethodGen run = new MethodGen(Const.ACC_PUBLIC, Type.VOID, Type.NO_ARGS, new String[0], "run", name, il, cp);
        run.setMaxStack();
        run.setMaxLocals();
        cg.addMethod(run.getMethod());
        return cg.getJavaClass().getBytes();
    }

    /**
     * {@code m} as it is when it has a LocalVariableTable; else with one synthesised: the parameters of apply
     * named u, du, data, v, dv (others p1, p2, ...), each other local slot named v&lt;slot&gt; with the one type its
     * loads and stores use over the whole method (a slot used with two types is an error asking for {@code -g}).
     */
    private static Method withLocalNames(Method m, String className, ConstantPoolGen cp, Entry entry) {
        if (m.getLocalVariableTable() != null && m.getLocalVariableTable().getLocalVariableTable().length > 0) {
            return m;
        }
        MethodGen mg = new MethodGen(m, className, cp);
        mg.removeLocalVariables();
        InstructionList il = mg.getInstructionList();
        InstructionHandle first = il.getStart();
        InstructionHandle last = il.getEnd();
        int slot = 0;
        if (!m.isStatic()) {
            mg.addLocalVariable("this", new ObjectType(className), 0, first, last);
            slot = 1;
        }
        Type[] args = m.getArgumentTypes();
        boolean apply = (m.getName() + m.getSignature()).equals(entry.key());
        for (int i = 0; i < args.length; i++) {
            mg.addLocalVariable(apply ? entry.params[i] : "p" + i, args[i], slot, first, last);
            slot += args[i].getSize();
        }
        Map<Integer, Type> types = new HashMap<>();
        Map<Integer, InstructionHandle> firstStore = new HashMap<>();
        for (InstructionHandle ih : il.getInstructionHandles()) {
            if (ih.getInstruction() instanceof LocalVariableInstruction lv) {
                int s = lv.getIndex();
                if (s < slot) {
                    continue;
                }
                Type t = lv.getType(cp);
                if (t == Type.BOOLEAN || t == Type.BYTE || t == Type.SHORT || t == Type.CHAR) {
                    t = Type.INT;
                }
                Type old = types.putIfAbsent(s, t);
                if (old != null && !old.equals(t)) {
                    throw new IllegalArgumentException(entry.noun + " " + className + "." + m.getName()
                            + ": local slot " + s + " holds both " + old + " and " + t
                            + "; compile the class with -g (a LocalVariableTable) so the translator can tell them apart");
                }
                if (lv instanceof org.apache.bcel.generic.StoreInstruction && !firstStore.containsKey(s)) {
                    firstStore.put(s, ih);
                }
            }
        }
        // Aparapi declares a local at the store just before its range starts; the declarations are hoisted to the
        // top of the function afterwards (hoistLocals), so a slot reused in two scopes stays one C variable
        for (Map.Entry<Integer, Type> e : types.entrySet()) {
            InstructionHandle store = firstStore.get(e.getKey());
            if (store != null && store.getNext() != null) {
                mg.addLocalVariable(SYNTHETIC + e.getKey(), e.getValue(), e.getKey(), store.getNext(), last);
            }
        }
        mg.setMaxLocals();
        return mg.getMethod();
    }

    /** Serves the synthetic class (and its bytes, which Aparapi reads back) and delegates everything else. */
    private static final class Loader extends ClassLoader {
        private final String name;
        private final byte[] bytes;
        private Class<?> defined;

        Loader(ClassLoader parent, String name, byte[] bytes) {
            super(parent);
            this.name = name;
            this.bytes = bytes;
        }

        @Override
        protected synchronized Class<?> loadClass(String n, boolean resolve) throws ClassNotFoundException {
            if (n.equals(name)) {
                if (defined == null) {
                    defined = defineClass(n, bytes, 0, bytes.length);
                }
                return defined;
            }
            return super.loadClass(n, resolve);
        }

        @Override
        public InputStream getResourceAsStream(String res) {
            if (res.equals(name.replace('.', '/') + ".class")) {
                return new ByteArrayInputStream(bytes);
            }
            return super.getResourceAsStream(res);
        }
    }
}
