package io.lobatto.operators;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.lobatto.backend.cpu.CpuBackend;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.SpectralElementMesh;

/**
 * Precision must not depend on where a mesh sits in space: moving a deformed trilinear mesh by (100, -50, 25)
 * changes every element operator (BP1.0, BP3.5, BP3.0 applied through the CPU backend) by at most 1e-12
 * relative for N <= 10 and 5e-12 above. The only honest difference between the two meshes is
 * the rounding of the moved vertex coordinates (about 1e-14 at 100), which is independent of N; anything that
 * grows with N is lost digits (absolute coordinates through the derivative matrices).
 */
class TranslationInvarianceTest {

    /** A 3x2x2 box of [0,1]^3 with every interior vertex moved randomly by up to 0.15 of the element size. */
    static HexMesh deformedBox(long seed) {
        HexMesh box = HexMesh.box(3, 2, 2, 0, 1, 0, 1, 0, 1);
        double[] v = box.vertices();
        Random rnd = new Random(seed);
        double[] h = {1.0 / 3, 0.5, 0.5};
        for (int i = 0; i < v.length / 3; i++) {
            for (int d = 0; d < 3; d++) {
                double x = v[3 * i + d];
                if (x > 0 && x < 1) {
                    v[3 * i + d] = x + 0.15 * h[d] * (2 * rnd.nextDouble() - 1);
                }
            }
        }
        return new HexMesh(v, box.elements(), box.faceTags());
    }

    static HexMesh translated(HexMesh m, double dx, double dy, double dz) {
        double[] v = m.vertices();
        for (int i = 0; i < v.length / 3; i++) {
            v[3 * i] += dx;
            v[3 * i + 1] += dy;
            v[3 * i + 2] += dz;
        }
        return new HexMesh(v, m.elements(), m.faceTags());
    }

    /** max_i |a_i - b_i| / max_i |a_i|. */
    static double relativeChange(double[] a, double[] b) {
        double diff = 0, scale = 0;
        for (int i = 0; i < a.length; i++) {
            diff = Math.max(diff, Math.abs(a[i] - b[i]));
            scale = Math.max(scale, Math.abs(a[i]));
        }
        return diff / scale;
    }

    static double[] apply(ElementOperator op, Backend backend, double[] x) {
        try (BoundElementOperator bound = op.bind(backend); DeviceVector dx = backend.upload(x);
             DeviceVector dy = backend.allocate(x.length)) {
            bound.apply(dx, dy);
            return backend.download(dy);
        }
    }

    @ParameterizedTest(name = "N = {0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
    void translatingTheMeshKeepsEveryOperator(int n) {
        HexMesh mesh = deformedBox(13);
        SpectralElementMesh here = SpectralElementMesh.of(mesh, n);
        SpectralElementMesh there = SpectralElementMesh.of(translated(mesh, 100, -50, 25), n);
        double tolerance = n <= 10 ? 1e-12 : 5e-12;
        Random rnd = new Random(n);
        double[] x = new double[here.localSize()];
        for (int i = 0; i < x.length; i++) {
            x[i] = 2 * rnd.nextDouble() - 1;
        }
        StringBuilder report = new StringBuilder();
        boolean ok = true;
        try (Backend backend = new CpuBackend(2)) {
            for (ElementKernel kernel : ElementKernel.values()) {
                for (double lambda : new double[] {0, 1}) {
                    if (kernel == ElementKernel.MASS_BP10 && lambda != 0) {
                        continue;
                    }
                    double[] y0 = apply(ElementOperator.of(kernel, here, lambda), backend, x);
                    double[] y1 = apply(ElementOperator.of(kernel, there, lambda), backend, x);
                    double change = relativeChange(y0, y1);
                    ok &= change <= tolerance;
                    report.append(String.format(" %s(lambda=%g): %.2e", kernel, lambda, change));
                }
            }
        }
        assertTrue(ok, "N = " + n + ": relative change above " + tolerance + ":" + report);
    }
}
