package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.core.pointwise.FieldEvaluation;
import io.lobatto.core.pointwise.PointwiseFunction;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

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
        assertTrue(m.contains("Allocates.apply") && m.matches("(?s).*NEW java/util/ArrayList at apply\\+\\d+.*"), m);
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
        assertTrue(m.contains("long arithmetic") && m.matches("(?s).*(D2L|LADD|LDC2_W \\d+L) at apply\\+\\d+.*"), m);
    }

    @Test
    void rejectsAThrow() {
        String m = rejection(Throws.class);
        // the allocation of the exception comes first in the bytecode; either names the throw's construct
        assertTrue(m.contains("java/lang/IllegalStateException") || m.contains("ATHROW"), m);
    }

    @Test
    void rejectsRecursion() {
        String m = rejection(Recursive.class);
        assertTrue(m.contains("recursion") && m.contains("fact -> fact"), m);
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
}
