package io.lobatto.conformance;

import static io.lobatto.conformance.TestProblems.random;
import static io.lobatto.conformance.TestProblems.relativeError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.BiFunction;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.ejml.data.DMatrixRMaj;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.geometry.GeometricFactors;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.BoundElementOperator;
import io.lobatto.operators.DenseReference;
import io.lobatto.operators.ElementOperator;
import io.lobatto.operators.MassOperator;
import io.lobatto.operators.StiffnessBp30;
import io.lobatto.operators.StiffnessBp35;

/**
 * Conformance of the element kernels BP1.0, BP3.5, BP3.0 and of the fused assembled operator:
 * each equals its EJML dense reference to 1e-12 (relative) on deformed meshes for N = 1..8, the
 * assembled operator equals Z^T L Z applied step by step, and the backend agrees with the Java reference.
 */
public abstract class ElementOperatorConformance {

    /** The backend under test (shared; do not close). */
    protected abstract Backend backend();

    /** Highest degree checked against the dense reference (the dense matrices grow as (N+1)^6). */
    protected int maxDenseDegree() {
        return 8;
    }

    /** Whether the parameterised checks run {@code kernel} (all kernels; a backend with one kernel's variant narrows it). */
    protected boolean covers(ElementKernel kernel) {
        return true;
    }

    static ElementOperator make(ElementKernel kernel, SpectralElementMesh mesh, double lambda) {
        return ElementOperator.of(kernel, mesh, lambda);
    }

    static Stream<Arguments> kernelsAndDegrees() {
        return Stream.of(ElementKernel.values()).flatMap(k -> IntStream.rangeClosed(1, 8).mapToObj(n -> Arguments.of(k, n)));
    }

    @ParameterizedTest(name = "{0} N={1}")
    @MethodSource("kernelsAndDegrees")
    void elementKernelEqualsDenseReference(ElementKernel kernel, int degree) {
        if (!covers(kernel)) {
            return;
        }
        if (degree > maxDenseDegree()) {
            return;
        }
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(degree <= 5 ? 2 : 1, 1, degree <= 3 ? 2 : 1, degree);
        ElementOperator op = make(kernel, mesh, 0.7);
        int np = op.basis().np();
        double[] x = random(op.localSize(), 17L * degree);
        double[] expect = new double[op.localSize()];
        for (int e = 0; e < op.elementCount(); e++) {
            DMatrixRMaj ae = DenseReference.elementMatrix(op, e);
            for (int r = 0; r < np; r++) {
                double s = 0;
                for (int c = 0; c < np; c++) {
                    s += ae.get(r, c) * x[e * np + c];
                }
                expect[e * np + r] = s;
            }
        }
        try (BoundElementOperator bound = op.bind(be); DeviceVector dx = be.upload(x);
             DeviceVector dy = be.allocate(op.localSize())) {
            bound.apply(dx, dy);
            double err = relativeError(be.download(dy), expect);
            assertTrue(err < 1e-12, kernel + " N=" + degree + ": relative error " + err);
        }
    }

    @ParameterizedTest(name = "{0} N={1}")
    @MethodSource("kernelsAndDegrees")
    void assembledOperatorEqualsDenseReference(ElementKernel kernel, int degree) {
        if (!covers(kernel)) {
            return;
        }
        if (degree > Math.min(6, maxDenseDegree())) {
            return;
        }
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(2, 1, degree <= 4 ? 2 : 1, degree);
        ScatterOperator z = TestProblems.partlyMasked(mesh);
        ElementOperator op = make(kernel, mesh, 0.3);
        double shift = 0.25;
        DMatrixRMaj a = DenseReference.assembledMatrix(op, z, shift);
        double[] x = random(z.globalSize(), 5L + degree);
        double[] expect = new double[z.globalSize()];
        for (int r = 0; r < expect.length; r++) {
            double s = 0;
            for (int c = 0; c < expect.length; c++) {
                s += a.get(r, c) * x[c];
            }
            expect[r] = s;
        }
        try (AssembledOperator aop = AssembledOperator.bind(op, z, be, shift); DeviceVector dx = be.upload(x);
             DeviceVector dy = be.allocate(z.globalSize())) {
            aop.apply(dx, dy);
            double err = relativeError(be.download(dy), expect);
            assertTrue(err < 1e-12, kernel + " N=" + degree + ": relative error " + err);
            // the matrix-free diagonal equals the dense diagonal
            double[] diag = aop.diagonal();
            double[] dense = new double[diag.length];
            for (int i = 0; i < diag.length; i++) {
                dense[i] = a.get(i, i);
            }
            double derr = relativeError(diag, dense);
            assertTrue(derr < 1e-12, kernel + " N=" + degree + ": diagonal relative error " + derr);
        }
    }

    @ParameterizedTest(name = "{0} N={1}")
    @MethodSource("kernelsAndDegrees")
    void fusedAssembledEqualsStepByStep(ElementKernel kernel, int degree) {
        if (!covers(kernel)) {
            return;
        }
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        ElementOperator op = make(kernel, mesh, 1.3);
        double shift = 0.5;
        double[] x = random(z.globalSize(), 99L + degree);
        double[] w = z.inverseDegree();
        try (AssembledOperator aop = AssembledOperator.bind(op, z, be, shift); DeviceVector dx = be.upload(x);
             DeviceVector fused = be.allocate(z.globalSize()); DeviceVector xl = be.allocate(z.localSize());
             DeviceVector yl = be.allocate(z.localSize()); DeviceVector wl = be.upload(w);
             DeviceVector tmp = be.allocate(z.localSize()); DeviceVector steps = be.allocate(z.globalSize())) {
            aop.apply(dx, fused);
            DeviceScatter dz = aop.deviceScatter();
            be.scatter(dz, dx, xl);                       // x_L = Z x_G
            aop.boundElementOperator().apply(xl, yl);     // y_L = L x_L
            be.pointwiseMultiply(wl, xl, tmp);            // W x_L
            be.axpby(shift, tmp, 1, yl);                  // y_L += shift W x_L
            be.gather(dz, yl, steps);                     // y_G = Z^T y_L
            double err = relativeError(be.download(fused), be.download(steps));
            assertTrue(err < 1e-13, kernel + " N=" + degree + ": fused vs step by step " + err);
        }
    }

    @ParameterizedTest(name = "{0} N={1}")
    @MethodSource("kernelsAndDegrees")
    void agreesWithReferenceBackend(ElementKernel kernel, int degree) {
        if (!covers(kernel)) {
            return;
        }
        Backend be = backend(), ref = BackendFixture.reference();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 3, 2, degree);
        ScatterOperator z = TestProblems.partlyMasked(mesh);
        ElementOperator op = make(kernel, mesh, 2.0);
        double[] x = random(z.globalSize(), 3L * degree);
        BiFunction<Backend, double[], double[]> run = (b, in) -> {
            try (AssembledOperator aop = AssembledOperator.bind(op, z, b, 0.1); DeviceVector dx = b.upload(in);
                 DeviceVector dy = b.allocate(z.globalSize())) {
                aop.apply(dx, dy);
                return b.download(dy);
            }
        };
        double err = relativeError(run.apply(be, x), run.apply(ref, x));
        assertTrue(err < 1e-12, kernel + " N=" + degree + ": backend vs reference " + err);
    }

    @Test
    void wrongLengthsAndMismatchedDataAreErrors() {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(2, 1, 1, 3);
        ElementOperator op = StiffnessBp35.on(mesh, 1);
        try (BoundElementOperator b = op.bind(be); DeviceVector x = be.allocate(op.localSize() + 1);
             DeviceVector y = be.allocate(op.localSize())) {
            assertThrows(IllegalArgumentException.class, () -> b.apply(x, y));
        }
        // geometric data of the wrong length for the declared degree
        Basis1D other = Basis1D.of(4);
        double[] data = op.geometricData();
        assertThrows(IllegalArgumentException.class,
                () -> be.uploadElementData(ElementKernel.STIFFNESS_BP35, other, op.elementCount(), data).close());
        // a basis of a different degree than the geometric factors
        GeometricFactors g3 = GeometricFactors.atGll(mesh);
        assertThrows(IllegalArgumentException.class, () -> new StiffnessBp35(other, g3, 1));
        assertThrows(IllegalArgumentException.class, () -> new StiffnessBp30(mesh.basis(), g3, 1));
        ScatterOperator z = TestProblems.unmasked(TestProblems.deformedBox(1, 1, 1, 3));
        assertThrows(IllegalArgumentException.class, () -> AssembledOperator.bind(op, z, be));
    }

    @Test
    void nanInputIsReportedWhenChecksAreOn() {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(1, 1, 1, 2);
        ScatterOperator z = TestProblems.unmasked(mesh);
        double[] x = new double[z.globalSize()];
        x[5] = Double.NaN;
        try (AssembledOperator aop = AssembledOperator.bind(StiffnessBp35.on(mesh, 1), z, be).checkInputs(true);
             DeviceVector dx = be.upload(x); DeviceVector dy = be.allocate(z.globalSize())) {
            IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> aop.apply(dx, dy));
            assertTrue(ex.getMessage().contains("[5]"), ex.getMessage());
        }
    }

    @Test
    void applyOnTheSameVectorIsRejectedOrCorrect() {
        // documented contract: inputs and outputs must be distinct; a backend must not silently corrupt
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(1, 1, 1, 2);
        ElementOperator op = MassOperator.on(mesh);
        try (BoundElementOperator b = op.bind(be); DeviceVector x = be.upload(random(op.localSize(), 1))) {
            assertThrows(IllegalArgumentException.class, () -> b.apply(x, x));
        }
    }
}
