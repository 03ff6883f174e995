package io.lobatto.conformance;

import static io.lobatto.conformance.TestProblems.maxAbs;
import static io.lobatto.conformance.TestProblems.random;
import static io.lobatto.conformance.TestProblems.relativeError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.function.Supplier;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.ejml.data.DMatrixRMaj;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.PointwiseSetup;
import io.lobatto.core.pointwise.Quadrature;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.AssembledPointwiseOperator;
import io.lobatto.operators.BoundElementOperator;
import io.lobatto.operators.BoundPointwiseOperator;
import io.lobatto.operators.DensePointwiseReference;
import io.lobatto.operators.ElementOperator;
import io.lobatto.operators.PointwiseOperator;
import io.lobatto.operators.physics.Coefficient;
import io.lobatto.operators.physics.Diffusion;
import io.lobatto.operators.physics.IsotropicElasticity;
import io.lobatto.operators.physics.Mass;
import io.lobatto.operators.physics.ScreenedDiffusion;
import io.lobatto.operators.physics.VectorDiffusion;
import io.lobatto.operators.physics.VectorMass;

/**
 * Conformance of a backend's user operators (the {@link PointwiseFunction} path, component-blocked vectors
 * {@code [ncomp][E][Np]} and {@code [ncomp][N_G]}) on deformed (curved) meshes, for both quadratures:
 * <ul>
 *   <li>the built-ins through the general path (ScreenedDiffusion on GLL and GAUSS, Mass on GAUSS) equal the
 *       backend's own BP3.5, BP3.0 and BP1.0 kernels, element-local and assembled, to 1e-12 relative;</li>
 *   <li>every built-in physics function equals the EJML reference L^e = B^T Q B ({@link DensePointwiseReference}),
 *       element-local and assembled A = Z^T L Z, to 1e-12 relative, and the matrix-free
 *       {@link AssembledPointwiseOperator#diagonal()} equals the dense diagonal;</li>
 *   <li>properties: symmetry x.Ay = y.Ax, positivity where the form is definite, constants in the null space of
 *       pure diffusion, the six rigid-body modes in the null space of unconstrained elasticity (and a non-rigid
 *       field not).</li>
 * </ul>
 */
public abstract class PointwiseOperatorConformance {

    /** The backend under test (shared; do not close). */
    protected abstract Backend backend();

    /** Highest degree checked against the dense reference (the element matrices grow as (ncomp (N+1)^3)^2). */
    protected int maxDenseDegree() {
        return 4;
    }

    /** kappa(x) = 1 + 0.5 sin(pi x) sin(pi y) sin(pi z), the variable conductivity of the diffusion checks. */
    public static double kappa(double x, double y, double z) {
        return 1 + 0.5 * Math.sin(Math.PI * x) * Math.sin(Math.PI * y) * Math.sin(Math.PI * z);
    }

    /** The built-in physics functions with the setups the suite uses. */
    public enum Physics {
        /** (u, v). */
        MASS(Mass::new, Mass.setup(), true),
        /** (u_i, v_i), 3 components. */
        VECTOR_MASS(VectorMass::new, Mass.setup(), true),
        /** (kappa(x) grad u, grad v). */
        DIFFUSION(Diffusion::new, Diffusion.setup(PointwiseOperatorConformance::kappa), false),
        /** (grad u_i, grad v_i), 3 components. */
        VECTOR_DIFFUSION(VectorDiffusion::new, Diffusion.setup(), false),
        /** (kappa(x) grad u, grad v) + 0.6 (u, v). */
        SCREENED_DIFFUSION(ScreenedDiffusion::new,
                ScreenedDiffusion.setup(PointwiseOperatorConformance::kappa, Coefficient.constant(0.6)), true),
        /** (sigma(u), eps(v)) with lambda = 2, mu = 1. */
        ELASTICITY(IsotropicElasticity::new, IsotropicElasticity.setup(2, 1), false);

        private final Supplier<PointwiseFunction> function;
        private final PointwiseSetup setup;
        private final boolean definiteWithoutMask;

        Physics(Supplier<PointwiseFunction> function, PointwiseSetup setup, boolean definiteWithoutMask) {
            this.function = function;
            this.setup = setup;
            this.definiteWithoutMask = definiteWithoutMask;
        }

        /** The operator on {@code mesh} at the points of {@code quadrature}. */
        public PointwiseOperator on(SpectralElementMesh mesh, Quadrature quadrature) {
            return PointwiseOperator.of(mesh, function.get(), quadrature, setup);
        }

        /** True when the form is positive definite without a Dirichlet mask (it has a mass term). */
        public boolean definiteWithoutMask() {
            return definiteWithoutMask;
        }
    }

    // ------------------------------------------------------------------ helpers

    private double[] applyLocal(PointwiseOperator op, double[] x) {
        Backend be = backend();
        try (BoundPointwiseOperator b = op.bind(be); DeviceVector dx = be.upload(x);
             DeviceVector dy = be.allocate(op.localSize())) {
            b.apply(dx, dy);
            return be.download(dy);
        }
    }

    private double[] applyAssembled(AssembledPointwiseOperator a, double[] x) {
        Backend be = backend();
        try (DeviceVector dx = be.upload(x); DeviceVector dy = be.allocate(a.size())) {
            a.apply(dx, dy);
            return be.download(dy);
        }
    }

    private double quadratic(AssembledPointwiseOperator a, double[] x, double[] y) {
        return TestProblems.dot(x, applyAssembled(a, y));
    }

    static SpectralElementMesh denseMesh(int degree) {
        return TestProblems.deformedBox(2, 1, degree <= 3 ? 2 : 1, degree);
    }

    static Stream<Arguments> kernelsAndDegrees() {
        return Stream.of(ElementKernel.values()).flatMap(k -> IntStream.of(1, 2, 4, 6).mapToObj(n -> Arguments.of(k, n)));
    }

    static Stream<Arguments> physicsQuadraturesAndDegrees() {
        return Stream.of(Physics.values()).flatMap(p -> Stream.of(Quadrature.values())
                .flatMap(q -> IntStream.of(1, 2, 4).mapToObj(n -> Arguments.of(p, q, n))));
    }

    /** The general-path equivalent of a built-in element kernel with screening {@code lambda}. */
    static PointwiseOperator generalPath(ElementKernel kernel, SpectralElementMesh mesh, double lambda) {
        switch (kernel) {
            case MASS_BP10:
                return PointwiseOperator.of(mesh, new Mass(), Quadrature.GAUSS, Mass.setup());
            case STIFFNESS_BP35:
                return PointwiseOperator.of(mesh, new ScreenedDiffusion(), Quadrature.GLL, ScreenedDiffusion.setup(lambda));
            case STIFFNESS_BP30:
                return PointwiseOperator.of(mesh, new ScreenedDiffusion(), Quadrature.GAUSS, ScreenedDiffusion.setup(lambda));
            default:
                throw new IllegalArgumentException("no general-path equivalent of kernel " + kernel);
        }
    }

    // ------------------------------------------------------------------ the general path equals the built-in kernels

    @ParameterizedTest(name = "{0} N={1}")
    @MethodSource("kernelsAndDegrees")
    void builtInsThroughTheGeneralPathEqualTheElementKernels(ElementKernel kernel, int degree) {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
        double lambda = 0.8;
        ElementOperator builtIn = ElementOperatorConformance.make(kernel, mesh, lambda);
        PointwiseOperator general = generalPath(kernel, mesh, lambda);
        double[] xl = random(general.localSize(), 7L * degree);
        double[] expectLocal;
        try (BoundElementOperator b = builtIn.bind(be); DeviceVector dx = be.upload(xl);
             DeviceVector dy = be.allocate(builtIn.localSize())) {
            b.apply(dx, dy);
            expectLocal = be.download(dy);
        }
        double err = relativeError(applyLocal(general, xl), expectLocal);
        assertTrue(err < 1e-12, kernel + " N=" + degree + ": element-local general path vs kernel, relative error " + err);

        ScatterOperator z = TestProblems.partlyMasked(mesh);
        double[] xg = random(z.globalSize(), 11L * degree);
        try (AssembledOperator a = AssembledOperator.bind(builtIn, z, be);
             AssembledPointwiseOperator p = AssembledPointwiseOperator.bind(general, z, be);
             DeviceVector dx = be.upload(xg); DeviceVector dy = be.allocate(z.globalSize())) {
            a.apply(dx, dy);
            double[] expect = be.download(dy);
            double aerr = relativeError(applyAssembled(p, xg), expect);
            assertTrue(aerr < 1e-12, kernel + " N=" + degree + ": assembled general path vs kernel, relative error " + aerr);
        }
    }

    // ------------------------------------------------------------------ every physics function vs the dense reference

    @ParameterizedTest(name = "{0} {1} N={2}")
    @MethodSource("physicsQuadraturesAndDegrees")
    void physicsEqualsDenseReference(Physics physics, Quadrature quadrature, int degree) {
        if (degree > maxDenseDegree()) {
            return;
        }
        SpectralElementMesh mesh = denseMesh(degree);
        PointwiseOperator op = physics.on(mesh, quadrature);
        String what = physics + " " + quadrature + " N=" + degree;

        double[] xl = random(op.localSize(), 31L * degree + physics.ordinal());
        double err = relativeError(applyLocal(op, xl), DensePointwiseReference.applyLocal(op, xl));
        assertTrue(err < 1e-12, what + ": element-local vs dense reference, relative error " + err);

        ScatterOperator z = TestProblems.partlyMasked(mesh);
        DMatrixRMaj dense = DensePointwiseReference.assembledMatrix(op, z);
        try (AssembledPointwiseOperator a = AssembledPointwiseOperator.bind(op, z, backend())) {
            double[] xg = random(a.size(), 5L * degree + physics.ordinal());
            double aerr = relativeError(applyAssembled(a, xg), DensePointwiseReference.multiply(dense, xg));
            assertTrue(aerr < 1e-12, what + ": assembled vs dense Z^T L Z, relative error " + aerr);
            double derr = relativeError(a.diagonal(), DensePointwiseReference.diagonal(dense));
            assertTrue(derr < 1e-12, what + ": matrix-free diagonal vs dense diagonal, relative error " + derr);
        }
    }

    // ------------------------------------------------------------------ properties

    @Test
    void symmetric() {
        qt().withExamples(20).forAll(arbitrary().enumValues(Physics.class).zip(arbitrary().enumValues(Quadrature.class), Discretisation::new),
                integers().between(1, 5), integers().between(0, 2), longs().all()).checkAssert((d, degree, maskKind, seed) -> {
            Physics physics = d.physics();
            Quadrature quadrature = d.quadrature();
            SpectralElementMesh mesh = TestProblems.deformedBox(2, 2, 1, degree);
            ScatterOperator z = maskKind == 0 ? TestProblems.unmasked(mesh)
                    : maskKind == 1 ? TestProblems.partlyMasked(mesh) : TestProblems.dirichlet(mesh);
            if (z.globalSize() == 0) {
                return;
            }
            try (AssembledPointwiseOperator a = AssembledPointwiseOperator.bind(physics.on(mesh, quadrature), z, backend())) {
                double[] x = random(a.size(), seed), y = random(a.size(), seed ^ 0x5DEECE66DL);
                double xay = quadratic(a, x, y), yax = quadratic(a, y, x);
                double scale = Math.sqrt(Math.abs(quadratic(a, x, x) * quadratic(a, y, y)));
                assertEquals(xay, yax, 1e-12 * scale, physics + " " + quadrature + " N=" + degree + " mask " + maskKind);
            }
        });
    }

    @Test
    void positiveWhereDefinite() {
        qt().withExamples(20)
                .forAll(arbitrary().enumValues(Physics.class), arbitrary().enumValues(Quadrature.class), integers().between(1, 5), longs().all())
                .checkAssert((physics, quadrature, degree, seed) -> {
            SpectralElementMesh mesh = TestProblems.deformedBox(2, 1, 2, degree);
            // mass and screened diffusion are definite on any Z; pure diffusion and elasticity need the Dirichlet mask
            ScatterOperator z = physics.definiteWithoutMask() ? TestProblems.unmasked(mesh) : TestProblems.dirichlet(mesh);
            if (z.globalSize() == 0) {
                return;
            }
            try (AssembledPointwiseOperator a = AssembledPointwiseOperator.bind(physics.on(mesh, quadrature), z, backend())) {
                double[] x = random(a.size(), seed);
                double xax = quadratic(a, x, x);
                assertTrue(xax > 0, physics + " " + quadrature + " N=" + degree + ": x.Ax = " + xax);
            }
        });
    }

    @Test
    void constantsAreInTheNullSpaceOfPureDiffusion() {
        qt().withExamples(15)
                .forAll(arbitrary().enumValues(Quadrature.class), integers().between(1, 6), integers().between(-1, 2))
                .checkAssert((quadrature, degree, component) -> {
            // component -1: the scalar Diffusion with kappa(x); 0..2: the constant in that component of VectorDiffusion
            SpectralElementMesh mesh = TestProblems.deformedBox(2, 2, 2, degree);
            ScatterOperator z = TestProblems.unmasked(mesh);
            Physics physics = component < 0 ? Physics.DIFFUSION : Physics.VECTOR_DIFFUSION;
            try (AssembledPointwiseOperator a = AssembledPointwiseOperator.bind(physics.on(mesh, quadrature), z, backend())) {
                int ng = z.globalSize();
                double[] ones = new double[a.size()];
                int c = Math.max(component, 0);
                java.util.Arrays.fill(ones, c * ng, (c + 1) * ng, 1);
                double scale = maxAbs(a.diagonal());
                double residual = maxAbs(applyAssembled(a, ones));
                assertTrue(residual < 1e-11 * scale, physics + " " + quadrature + " N=" + degree + " component " + c
                        + ": |A 1| = " + residual + " vs max diag " + scale);
            }
        });
    }

    // ------------------------------------------------------------------ elasticity's rigid-body modes

    /** The six rigid-body modes (3 translations e_k, 3 rotations e_k x X) at the assembled nodes, [3][N_G] each. */
    static double[][] rigidBodyModes(SpectralElementMesh mesh, ScatterOperator z) {
        double[] coords = mesh.globalCoordinates();
        int n = mesh.globalNodeCount();
        double[][] modes = new double[6][];
        for (int k = 0; k < 6; k++) {
            double[][] u = new double[3][n];
            for (int g = 0; g < n; g++) {
                double[] x = {coords[3 * g], coords[3 * g + 1], coords[3 * g + 2]};
                if (k < 3) {
                    u[k][g] = 1;
                } else {
                    // w = e_(k-3): (w x X)_i = eps_ijl w_j X_l
                    int j = k - 3;
                    double[] w = new double[3];
                    w[j] = 1;
                    u[0][g] = w[1] * x[2] - w[2] * x[1];
                    u[1][g] = w[2] * x[0] - w[0] * x[2];
                    u[2][g] = w[0] * x[1] - w[1] * x[0];
                }
            }
            modes[k] = blocked(z, u);
        }
        return modes;
    }

    /** The component-blocked assembled vector of a field given per component at the original global nodes. */
    static double[] blocked(ScatterOperator z, double[][] u) {
        int ng = z.globalSize();
        double[] out = new double[u.length * ng];
        for (int c = 0; c < u.length; c++) {
            System.arraycopy(z.toAssembled(u[c]), 0, out, c * ng, ng);
        }
        return out;
    }

    static Stream<Arguments> quadraturesAndDegrees() {
        return Stream.of(Quadrature.values()).flatMap(q -> IntStream.of(1, 3, 5).mapToObj(n -> Arguments.of(q, n)));
    }

    @ParameterizedTest(name = "{0} N={1}")
    @MethodSource("quadraturesAndDegrees")
    void rigidBodyModesAreInTheNullSpaceOfElasticity(Quadrature quadrature, int degree) {
        SpectralElementMesh mesh = TestProblems.deformedBox(2, 2, 1, degree);
        ScatterOperator z = TestProblems.unmasked(mesh);
        try (AssembledPointwiseOperator a = AssembledPointwiseOperator.bind(Physics.ELASTICITY.on(mesh, quadrature), z,
                backend())) {
            double norm = maxAbs(a.diagonal());
            double[][] modes = rigidBodyModes(mesh, z);
            for (int k = 0; k < 6; k++) {
                double residual = maxAbs(applyAssembled(a, modes[k]));
                double bound = 1e-10 * norm * maxAbs(modes[k]);
                assertTrue(residual <= bound, quadrature + " N=" + degree + ": rigid-body mode " + k + " gives |A r| = "
                        + residual + " > 1e-10 ||A|| |r| = " + bound);
            }
            // a non-rigid field, u = (x^2, 0, 0), is strained: A u is of the size of the operator
            double[] coords = mesh.globalCoordinates();
            double[][] u = new double[3][mesh.globalNodeCount()];
            for (int g = 0; g < u[0].length; g++) {
                u[0][g] = coords[3 * g] * coords[3 * g];
            }
            double[] x = blocked(z, u);
            double response = maxAbs(applyAssembled(a, x));
            assertTrue(response > 1e-3 * norm * maxAbs(x), quadrature + " N=" + degree + ": u = (x^2, 0, 0) gives only |A u| = "
                    + response + " (max diag " + norm + ")");
        }
    }

    // ------------------------------------------------------------------ contracts

    @Test
    void wrongLengthsAreErrors() {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(2, 1, 1, 2);
        PointwiseOperator op = Physics.VECTOR_MASS.on(mesh, Quadrature.GAUSS);
        try (BoundPointwiseOperator b = op.bind(be); DeviceVector scalar = be.allocate(op.localSize() / 3);
             DeviceVector y = be.allocate(op.localSize())) {
            // a scalar-sized vector for a 3-component operator
            assertThrows(IllegalArgumentException.class, () -> b.apply(scalar, y));
        }
        ScatterOperator other = TestProblems.unmasked(TestProblems.deformedBox(1, 1, 1, 2));
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> AssembledPointwiseOperator.bind(op, other, be));
        assertTrue(ex.getMessage().contains(String.valueOf(other.localSize())), ex.getMessage());
    }

    /** Physics and quadrature of one case (one generator: QuickTheories takes at most four). */
    private record Discretisation(Physics physics, Quadrature quadrature) {
    }
}
