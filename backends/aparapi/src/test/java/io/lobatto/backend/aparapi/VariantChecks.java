package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lobatto.conformance.BackendFixture;
import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.ElementOperator;
import io.lobatto.solvers.ConjugateGradient;
import io.lobatto.solvers.JacobiPreconditioner;

import java.util.function.Consumer;

/**
 * What the tests of one element-kernel thread structure share (their backends: {@link VariantBackends}): the checks
 * against the host reference and the Java backend (element by element, the masked assembled operator with the shift W
 * and the p update folded in) to {@link #TOL}, and Jacobi PCG's iterations on two backends.
 */
final class VariantChecks {

    /** Agreement of the element kernels with the host reference and the Java backend. */
    static final double TOL = 1e-12;
    private VariantChecks() {
    }

    /** Asserts max |got - want| &lt;= rel max |want|, naming {@code what} and both numbers. */
    static void assertWithin(double[] got, double[] want, double rel, String what) {
        org.junit.jupiter.api.Assertions.assertEquals(want.length, got.length, what + ": lengths");
        double err = 0;
        double scale = 0;
        for (int i = 0; i < got.length; i++) {
            err = Math.max(err, Math.abs(got[i] - want[i]));
            scale = Math.max(scale, Math.abs(want[i]));
        }
        org.junit.jupiter.api.Assertions.assertTrue(err <= rel * scale, what + ": " + err + " of " + scale);
    }

    /** y_L = S_L x_L of {@code k} on {@code b}. */
    static double[] elements(Backend b, ElementKernel k, Basis1D basis, int e, double[] geo, double lambda, double[] x) {
        try (DeviceElementData d = b.uploadElementData(k, basis, e, geo); DeviceVector dx = b.upload(x);
             DeviceVector dy = b.allocate(x.length)) {
            b.applyElements(d, lambda, dx, dy);
            return b.download(dy);
        }
    }

    /** The plan string of {@code k} at degree {@code n} on {@code b}. */
    static String plan(AparapiBackend b, ElementKernel k, int n) {
        Basis1D basis = Basis1D.of(n);
        int p = k == ElementKernel.STIFFNESS_BP35 ? basis.nq() : basis.nqGauss();
        try (DeviceElementData d = b.uploadElementData(k, basis, 1, new double[p * p * p * k.factorsPerPoint()])) {
            return b.plan(d);
        }
    }

    /**
     * On 11 elements (the last group partly filled wherever a group holds several): {@code tested}'s element apply equals
     * the host reference, {@code other}'s and the Java backend's; {@code planCheck} gets the plan string first.
     */
    static void elementApplyAgrees(AparapiBackend tested, AparapiBackend other, String otherName, ElementKernel k, int n,
                                   double lambda, long seed, Consumer<String> planCheck) {
        Basis1D basis = Basis1D.of(n);
        int e = 11;
        double[] geo = HostReference.geometry(k, basis, e, seed);
        double[] x = HostReference.random(e * basis.np(), seed + 1);
        String plan = plan(tested, k, n);
        planCheck.accept(plan);
        double[] y = elements(tested, k, basis, e, geo, lambda, x);
        AparapiBackendTest.assertClose(HostReference.applyElements(k, basis, e, geo, lambda, x), y, TOL, plan + " vs host");
        AparapiBackendTest.assertClose(elements(other, k, basis, e, geo, lambda, x), y, TOL, plan + " vs " + otherName);
        AparapiBackendTest.assertClose(elements(BackendFixture.reference(), k, basis, e, geo, lambda, x), y, TOL,
                plan + " vs the Java backend");
    }

    /**
     * On a 2 x 1 x 2 box with a Dirichlet mask: y_G = Z^T (S_L + shift W) Z x_G on {@code b} equals the host reference and
     * the Java backend, and p = z + beta p folded into the operator equals the update then the apply (p, A p, p . Ap).
     */
    static void maskedAssembledAgrees(AparapiBackend b, ElementKernel k, int n, double lambda, long seed,
                                      Consumer<String> planCheck) {
        Backend java = BackendFixture.reference();
        Basis1D basis = Basis1D.of(n);
        HostReference.Mesh m = HostReference.boxMesh(n, 2, 1, 2, true);
        int e = m.elements();
        double shift = 1.4;
        double beta = 0.37;
        double[] geo = HostReference.geometry(k, basis, e, seed);
        double[] xg = HostReference.random(m.globalSize(), seed + 1);
        double[] zg = HostReference.random(m.globalSize(), seed + 2);
        double[] xl = HostReference.scatter(m.scatterIds(), xg);
        double[] yl = HostReference.applyElements(k, basis, e, geo, lambda, xl);
        for (int i = 0; i < yl.length; i++) {
            yl[i] += shift * m.inverseDegree()[i] * xl[i];
        }
        double[] yg = HostReference.gather(m.scatterIds(), yl, m.globalSize());
        double[] javaYg;
        try (DeviceElementData d = java.uploadElementData(k, basis, e, geo);
             DeviceScatter z = java.uploadScatter(m.scatterIds(), m.gatherStarts(), m.gatherIds(),
                     new int[] {0, m.globalSize()}, m.inverseDegree(), m.globalSize());
             DeviceVector dx = java.upload(xg); DeviceVector dyl = java.allocate(yl.length);
             DeviceVector dyg = java.allocate(m.globalSize())) {
            java.applyAssembled(d, z, lambda, shift, dx, dyl, dyg);
            javaYg = java.download(dyg);
        }
        try (DeviceElementData d = b.uploadElementData(k, basis, e, geo);
             DeviceScatter z = b.uploadScatter(m.scatterIds(), m.gatherStarts(), m.gatherIds(), null, m.inverseDegree(),
                     m.globalSize());
             DeviceVector dx = b.upload(xg); DeviceVector dz = b.upload(zg); DeviceVector dyl = b.allocate(yl.length);
             DeviceVector dyg = b.allocate(m.globalSize()); DeviceVector ep = b.upload(xg);
             DeviceVector eyg = b.allocate(m.globalSize())) {
            String plan = b.plan(d);
            planCheck.accept(plan);
            b.applyAssembled(d, z, lambda, shift, dx, dyl, dyg);
            AparapiBackendTest.assertClose(yg, b.download(dyg), TOL, plan + ": y_G vs host");
            AparapiBackendTest.assertClose(javaYg, b.download(dyg), TOL, plan + ": y_G vs the Java backend");
            // p = z + beta p folded into the operator (input mode 2) against the update then the apply
            double fused = b.applyAssembledDotUpdate(d, z, lambda, shift, dz, beta, dx, dyl, dyg);
            b.axpby(1, dz, beta, ep);
            double expected = b.applyAssembledDot(d, z, lambda, shift, ep, dyl, eyg);
            AparapiBackendTest.assertClose(b.download(ep), b.download(dx), TOL, "p = z + beta p");
            AparapiBackendTest.assertClose(b.download(eyg), b.download(dyg), TOL, plan + ": A p");
            assertEquals(expected, fused, TOL * Math.max(1, Math.abs(expected)), plan + ": p . Ap");
        }
    }

    /**
     * Jacobi PCG to 1e-10 on a deformed 3 x 3 x 2 box with a Dirichlet mask at degree n, on {@code first} and on
     * {@code second}: more than 10 iterations, the same count, and the same solution to 1e-9.
     */
    static void jacobiPcgAgrees(AparapiBackend first, AparapiBackend second, ElementKernel k, int n, String what) {
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 3, 2, n);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        AparapiBackend[] backends = {first, second};
        double[][] x = new double[2][];
        int[] iterations = new int[2];
        for (int v = 0; v < 2; v++) {
            AparapiBackend be = backends[v];
            try (AssembledOperator a = AssembledOperator.bind(ElementOperator.of(k, mesh, 0.3), z, be, 0);
                 JacobiPreconditioner jacobi = JacobiPreconditioner.of(a);
                 DeviceVector b = be.upload(TestProblems.random(z.globalSize(), 9)); DeviceVector xv = be.allocate(z.globalSize());
                 ConjugateGradient cg = new ConjugateGradient(a, jacobi).relativeTolerance(1e-10).maxIterations(2000)) {
                iterations[v] = cg.solve(b, xv).iterations();
                x[v] = be.download(xv);
            }
        }
        org.junit.jupiter.api.Assertions.assertTrue(iterations[0] > 10, "iterations " + iterations[0]);
        assertEquals(iterations[0], iterations[1], "iterations, " + what);
        AparapiBackendTest.assertClose(x[0], x[1], 1e-9, "solution, " + what);
    }

    /**
     * {@code -Dlobatto.aparapi.factorBlocks} false, then true, for kernel {@code k} at degree {@code n} on {@code p} (where
     * {@code blocked}, the plan ends with the blocks of {@code perGroup} elements; else it names none), on E = 61 (the last
     * block partly filled): the element apply and the element diagonal give the same bits, by the host upload and by the
     * device split of packed factors; the masked assembled operator (p = z + beta p folded in) agrees with the host and the
     * Java backend; and the one-kernel atomic operator agrees with the two kernels.
     */
    static void blockedFactorsKeepTheBits(AparapiBackend p, ElementKernel k, int n, int perGroup, boolean blocked) {
        Basis1D basis = Basis1D.of(n);
        int e = 61;
        double lambda = 0.6;
        int np = (k == ElementKernel.STIFFNESS_BP35 ? basis.np() : basis.np());
        double[] geo = HostReference.geometry(k, basis, e, 71 + n);
        double[] x = HostReference.random(e * np, 72 + n);
        PropertyGuard.keeping(() -> {
            System.setProperty(ElementPlan.FACTOR_BLOCKS_PROPERTY, "false");
            double[] plain = elements(p, k, basis, e, geo, lambda, x);
            double[] plainDiagonal = diagonal(p, k, basis, e, geo, lambda, false);
            org.junit.jupiter.api.Assertions.assertFalse(plan(p, k, n).contains("factors in blocks"));
            System.setProperty(ElementPlan.FACTOR_BLOCKS_PROPERTY, "true");
            String plan = plan(p, k, n);
            assertEquals(blocked, plan.endsWith(", factors in blocks of " + perGroup + " elements"), plan);
            assertEquals(blocked, plan.contains("factors in blocks"), plan);
            assertSameBits(plain, elements(p, k, basis, e, geo, lambda, x), plan + ", host upload");
            try (DeviceVector packed = p.upload(geo); DeviceElementData d = p.uploadElementData(k, basis, e, packed);
                 DeviceVector dx = p.upload(x); DeviceVector dy = p.allocate(x.length)) {
                assertEquals(plan, p.plan(d));
                p.applyElements(d, lambda, dx, dy);
                assertSameBits(plain, p.download(dy), plan + ", device split");
            }
            assertSameBits(plainDiagonal, diagonal(p, k, basis, e, geo, lambda, false), plan + ": diagonal, host upload");
            assertSameBits(plainDiagonal, diagonal(p, k, basis, e, geo, lambda, true), plan + ": diagonal, device split");
            maskedAssembledAgrees(p, k, n, lambda, 81 + n, s -> assertEquals(blocked, s.contains("factors in blocks"), s));
            SpectralElementMesh mesh = TestProblems.deformedBox(5, 4, 3, n);
            ScatterOperator z = TestProblems.partlyMasked(mesh);
            try (AssembledOperator a = AssembledOperator.bind(ElementOperator.of(k, mesh, lambda), z, p, 0.6);
                 DeviceVector dx = p.upload(TestProblems.random(z.globalSize(), 91L + n));
                 DeviceVector two = p.allocate(z.globalSize()); DeviceVector one = p.allocate(z.globalSize())) {
                a.apply(dx, two);
                System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, "cas");
                a.apply(dx, one);
                System.clearProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY);
                AparapiBackendTest.assertClose(p.download(two), p.download(one), TOL, plan + ": atomic vs two kernels");
            }
        }, ElementPlan.FACTOR_BLOCKS_PROPERTY, AparapiBackend.ATOMIC_OPERATOR_PROPERTY);
    }

    /** The element diagonal of {@code k} on {@code b}, its factors uploaded from the host or split on the device. */
    private static double[] diagonal(AparapiBackend b, ElementKernel k, Basis1D basis, int e, double[] geo, double lambda,
                                     boolean device) {
        try (DeviceVector packed = b.upload(geo);
             DeviceElementData d = device ? b.uploadElementData(k, basis, e, packed) : b.uploadElementData(k, basis, e, geo);
             DeviceVector diag = b.allocate(e * basis.np())) {
            b.elementDiagonal(d, lambda, diag);
            return b.download(diag);
        }
    }

    static void assertSameBits(double[] want, double[] got, String what) {
        assertEquals(want.length, got.length, what);
        for (int i = 0; i < want.length; i++) {
            assertEquals(Double.doubleToLongBits(want[i]), Double.doubleToLongBits(got[i]), what + " entry " + i);
        }
    }
}
