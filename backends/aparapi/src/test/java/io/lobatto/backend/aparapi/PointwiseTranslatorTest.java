package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.core.pointwise.FieldEvaluation;
import io.lobatto.core.pointwise.PointwiseFunction;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.bcel.classfile.Attribute;
import org.apache.bcel.classfile.ClassParser;
import org.apache.bcel.classfile.Code;
import org.apache.bcel.classfile.JavaClass;
import org.apache.bcel.classfile.LocalVariableTable;
import org.apache.bcel.classfile.LocalVariableTypeTable;

/** The bind-time validation and the translation of user pointwise functions (no OpenCL device needed). */
class PointwiseTranslatorTest {

    /** A nonlinear-looking but valid function: sqrt, exp and a private helper with a loop. */
    static final class Fancy extends PointwiseFunction {
        Fancy() {
            super(1, 2, FieldEvaluation.VALUES_AND_GRADIENTS);
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            double s = Math.sqrt(data[0] * data[0]) * Math.exp(-data[1]);
            // two loops and two block-local w that javac puts in the same slots (the no -g path must keep them apart)
            for (int k = 0; k < 2; k++) {
                double w = data[k];
                s += w * w;
            }
            for (int k = 0; k < 2; k++) {
                double w = data[1 - k];
                s += 0.5 * w;
            }
            v[0] = s * u[0];
            for (int d = 0; d < 3; d++) {
                dv[d] = scale(du[d], data[0], d);
            }
        }

        private double scale(double x, double k, int d) {
            double r = x;
            if (d == 2) {
                r = Math.max(k, 0.0) * x;
            }
            return r;
        }
    }

    /**
     * {@link Fancy} under another name, for the test that strips its LocalVariableTable: Aparapi resolves a class's
     * methods by class name, so a stripped copy of a class translated before would see that class's models.
     */
    static final class FancyStripped extends PointwiseFunction {
        FancyStripped() {
            super(1, 2, FieldEvaluation.VALUES_AND_GRADIENTS);
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            double s = Math.sqrt(data[0] * data[0]) * Math.exp(-data[1]);
            // two loops and two block-local w that javac puts in the same slots (the no -g path must keep them apart)
            for (int k = 0; k < 2; k++) {
                double w = data[k];
                s += w * w;
            }
            for (int k = 0; k < 2; k++) {
                double w = data[1 - k];
                s += 0.5 * w;
            }
            v[0] = s * u[0];
            for (int d = 0; d < 3; d++) {
                dv[d] = scale(du[d], data[0], d);
            }
        }

        private double scale(double x, double k, int d) {
            double r = x;
            if (d == 2) {
                r = Math.max(k, 0.0) * x;
            }
            return r;
        }
    }

    static final class Allocates extends PointwiseFunction {
        Allocates() {
            super(1, 0, FieldEvaluation.VALUES);
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            List<Double> l = new ArrayList<>();
            v[0] = u[0] + l.size();
        }
    }

    static final class ReadsField extends PointwiseFunction {
        private final double kappa;

        ReadsField() {
            super(1, 0, FieldEvaluation.VALUES);
            kappa = 2;
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            v[0] = kappa * u[0];
        }
    }

    static final class CallsString extends PointwiseFunction {
        CallsString() {
            super(1, 0, FieldEvaluation.VALUES);
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            v[0] = Double.isNaN(u[0]) ? 0 : u[0];
        }
    }

    static final class LongMath extends PointwiseFunction {
        LongMath() {
            super(1, 0, FieldEvaluation.VALUES);
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            long n = (long) u[0];
            n = n + 3L;
            v[0] = n;
        }
    }

    static final class Throws extends PointwiseFunction {
        Throws() {
            super(1, 0, FieldEvaluation.VALUES);
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            if (u[0] > 1e300) {
                throw new IllegalStateException("too big");
            }
            v[0] = u[0];
        }
    }

    static final class Recursive extends PointwiseFunction {
        Recursive() {
            super(1, 0, FieldEvaluation.VALUES);
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            v[0] = fact(u[0], 3);
        }

        private double fact(double x, int n) {
            return n == 0 ? x : n * fact(x, n - 1);
        }
    }

    private static String rejection(Class<? extends PointwiseFunction> c) {
        return assertThrows(IllegalArgumentException.class, () -> PointwiseTranslator.validate(c)).getMessage();
    }

    @Test
    void rejectsAllocationNamingTheClassAndBytecode() {
        String m = rejection(Allocates.class);
        assertTrue(m.contains("PointwiseTranslatorTest$Allocates") && m.matches("(?s).*NEW java/util/ArrayList at apply\\+\\d+ \\(allocation\\).*"), m);
        // every offence is named, not just the first
        assertTrue(m.matches("(?s).*INVOKEINTERFACE java/util/List.size\\(\\)I at apply\\+\\d+.*"), m);
    }

    @Test
    void rejectsAFieldRead() {
        String m = rejection(ReadsField.class);
        assertTrue(m.matches("(?s).*GETFIELD \\S*ReadsField.kappa at apply\\+\\d+.*"), m);
    }

    @Test
    void rejectsACallToANonMathMethod() {
        String m = rejection(CallsString.class);
        assertTrue(m.matches("(?s).*INVOKESTATIC java/lang/Double.isNaN\\(D\\)Z at apply\\+\\d+.*"), m);
    }

    @Test
    void rejectsLongArithmetic() {
        String m = rejection(LongMath.class);
        assertTrue(m.matches("(?s).*D2L at apply\\+\\d+ \\(long arithmetic\\).*") && m.matches("(?s).*LADD at apply\\+\\d+ \\(long arithmetic\\).*"), m);
    }

    @Test
    void rejectsAThrow() {
        String m = rejection(Throws.class);
        assertTrue(m.matches("(?s).*ATHROW at apply\\+\\d+ \\(exceptions\\).*"), m);
        assertTrue(m.matches("(?s).*NEW java/lang/IllegalStateException at apply\\+\\d+.*"), m);
    }

    @Test
    void rejectsAnAnonymousClassThatCapturesState() {
        double k = 1 + Math.random();
        PointwiseFunction f = new PointwiseFunction(1, 0, FieldEvaluation.VALUES) {
            @Override
            public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
                v[0] = k * u[0];
            }
        };
        String m = rejection(f.getClass());
        assertTrue(m.matches("(?s).*GETFIELD \\S*val\\$k at apply\\+\\d+.*"), m);
    }

    @Test
    void rejectsRecursion() {
        String m = rejection(Recursive.class);
        assertTrue(m.contains("recursion") && m.contains("fact -> fact"), m);
    }

    /** A function class whose static setup returns a lambda: its constant pool has invokedynamic entries. */
    static final class WithLambdaSetup extends PointwiseFunction {
        WithLambdaSetup() {
            super(1, 1, FieldEvaluation.VALUES);
        }

        @Override
        public void apply(double[] u, double[] du, double[] data, double[] v, double[] dv) {
            v[0] = data[0] * u[0];
        }

        static io.lobatto.core.pointwise.PointwiseSetup setup(double c) {
            return (x, dxdr, w, q) -> q[0] = c * w;
        }
    }

    @Test
    void translatesAClassWhoseSetupIsALambda() {
        // the synthetic kernel keeps the BootstrapMethods attribute its copied constant pool needs (the built-in
        // physics classes failed with "ClassFormatError: Missing BootstrapMethods attribute" on the H100 before)
        String s = PointwiseTranslator.translate(WithLambdaSetup.class).functions();
        assertTrue(s.contains("data[0]") && s.contains("u[0]"), s);
    }

    @Test
    void translatesMathCallsAndPrivateHelpers() {
        PointwiseTranslator.Translation t = PointwiseTranslator.translate(Fancy.class);
        String s = t.functions();
        assertTrue(s.contains("sqrt(") && s.contains("exp(") && s.contains("fmax("), s);
        assertTrue(s.contains("__scale(") && !s.contains("__global"), s);
        assertTrue(t.entry().endsWith("__apply"), t.entry());
        System.out.println(s);
    }

    /**
     * {@code c} as if compiled without {@code -g}: its class file with every LocalVariableTable removed, defined
     * by a class loader of its own that also serves the bytes (as a user's jar would).
     */
    @SuppressWarnings("unchecked")
    static Class<? extends PointwiseFunction> withoutLocalVariableTables(Class<? extends PointwiseFunction> c) throws Exception {
        String res = c.getName().replace('.', '/') + ".class";
        JavaClass jc;
        try (InputStream in = c.getClassLoader().getResourceAsStream(res)) {
            jc = new ClassParser(in, res).parse();
        }
        for (org.apache.bcel.classfile.Method m : jc.getMethods()) {
            Code code = m.getCode();
            if (code != null) {
                code.setAttributes(Arrays.stream(code.getAttributes())
                        .filter(a -> !(a instanceof LocalVariableTable) && !(a instanceof LocalVariableTypeTable))
                        .toArray(Attribute[]::new));
            }
        }
        // a top-level class of its own loader: no nest or inner-class links back to this test class
        jc.setAttributes(Arrays.stream(jc.getAttributes())
                .filter(a -> !(a instanceof org.apache.bcel.classfile.NestHost) && !(a instanceof org.apache.bcel.classfile.InnerClasses))
                .toArray(Attribute[]::new));
        byte[] bytes = jc.getBytes();
        ClassLoader loader = new ClassLoader(c.getClassLoader()) {
            @Override
            protected synchronized Class<?> loadClass(String n, boolean resolve) throws ClassNotFoundException {
                if (n.equals(c.getName())) {
                    Class<?> k = findLoadedClass(n);
                    return k != null ? k : defineClass(n, bytes, 0, bytes.length);
                }
                return super.loadClass(n, resolve);
            }

            @Override
            public InputStream getResourceAsStream(String name) {
                return name.equals(res) ? new ByteArrayInputStream(bytes) : super.getResourceAsStream(name);
            }
        };
        return (Class<? extends PointwiseFunction>) loader.loadClass(c.getName());
    }

    @Test
    void translatesAClassCompiledWithoutLocalVariableNames() throws Exception {
        Class<? extends PointwiseFunction> stripped = withoutLocalVariableTables(FancyStripped.class);
        PointwiseTranslator.Translation t = PointwiseTranslator.translate(stripped);
        String s = t.functions();
        assertTrue(s.contains("double *u,  double *du,  double *data,  double *v,  double *dv") || s.contains("double *u"), s);
        assertTrue(s.contains("sqrt(") && s.contains("__scale(") && s.contains("double lbv"), s);
    }
}
