package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceGeometry;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.backend.ElementMatrixDiagonal;
import io.lobatto.core.backend.HostSetup;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.mesh.ElementGeometry;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.PointMap;
import io.lobatto.core.pointwise.PointFunction;
import io.lobatto.core.pointwise.Quadrature;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Random;

/**
 * The setup kernels on the Aparapi backend (real OpenCL, PoCL in CI) against the host reference ({@link HostSetup},
 * {@link ElementMatrixDiagonal}): geometric factors of trilinear, mapped (sinusoidal, Kershaw, affine) and hex27
 * elements at both quadratures, functions of position, element diagonals, reciprocals, and element data made from
 * device factors. Degrees are sampled (each N and quadrature is a kernel build; PoCL builds cost CI time).
 */
class SetupKernelsTest {

    /** Largest accepted max |device - host| / max |host|. */
    private static final double TOLERANCE = 1e-13;

    private static AparapiBackend backend() {
        return OpenClAvailability.backend();
    }

    static double relativeDifference(double[] host, double[] dev) {
        assertEquals(host.length, dev.length, "lengths");
        double scale = 0;
        double worst = 0;
        for (int i = 0; i < host.length; i++) {
            scale = Math.max(scale, Math.abs(host[i]));
            double d = Math.abs(host[i] - dev[i]);
            worst = Double.isNaN(d) ? Double.POSITIVE_INFINITY : Math.max(worst, d);
        }
        return scale == 0 ? worst : worst / scale;
    }

    /** A 2 x 3 x 2 box of [x0, x0 + 1] x [y0, y0 + 1.5] x [z0, z0 + 0.7], with vertex noise {@code jitter}. */
    static ElementGeometry box(double x0, double y0, double z0, double jitter, PointMap map) {
        HexMesh mesh = HexMesh.box(2, 3, 2, x0, x0 + 1, y0, y0 + 1.5, z0, z0 + 0.7);
        if (jitter == 0) {
            return ElementGeometry.trilinear(mesh, map);
        }
        double[] nodes = ElementGeometry.trilinear(mesh, null).nodes();
        Random r = new Random(42);
        for (int i = 0; i < nodes.length; i++) {
            nodes[i] += jitter * (r.nextDouble() - 0.5);
        }
        return ElementGeometry.of(1, nodes, map);
    }

    /** hex27 elements of a 2 x 2 x 1 box whose 27 nodes are moved by a smooth curved perturbation. */
    static ElementGeometry hex27() {
        int ne = 4;
        double[] nodes = new double[ne * 81];
        for (int e = 0; e < ne; e++) {
            double ox = e % 2;
            double oy = e / 2;
            for (int c = 0; c < 27; c++) {
                double x = ox + 0.5 * (c % 3);
                double y = oy + 0.5 * ((c / 3) % 3);
                double z = 0.5 * (c / 9);
                nodes[e * 81 + 3 * c] = x + 0.08 * Math.sin(Math.PI * y) * z;
                nodes[e * 81 + 3 * c + 1] = y + 0.06 * Math.cos(Math.PI * x) * (1 + z);
                nodes[e * 81 + 3 * c + 2] = z + 0.05 * Math.sin(Math.PI * x * y);
            }
        }
        return ElementGeometry.of(2, nodes, null);
    }

    private static double deviceFactors(ElementGeometry g, int n, Quadrature q, int fpp) {
        AparapiBackend b = backend();
        Basis1D basis = Basis1D.of(n);
        double[] host = HostSetup.factors(g, basis, q, fpp);
        try (DeviceGeometry dg = b.uploadGeometry(g); DeviceVector v = b.geometricFactors(dg, basis, q, fpp)) {
            double d = relativeDifference(host, b.download(v));
            System.out.printf("factors N=%d %s fpp=%d %s: max relative difference %.3g%n", n, q, fpp, g, d);
            assertTrue(d <= TOLERANCE, g + " N = " + n + " " + q + " fpp " + fpp + ": relative difference " + d);
            return d;
        }
    }

    /**
     * Each degree gets a few geometries, so that every geometry is checked at both quadratures and small and large N
     * (and the packed and the wJ-only output) without building every combination.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4, 7, 10, 15})
    void factorsEqualTheHostFactors(int n) {
        ElementGeometry trilinear = box(0, 0, 0, 0.08, null);
        ElementGeometry sinusoidal = ElementGeometry.trilinear(HexMesh.box(2, 2, 2, 0, 1, 0, 1, 0, 1),
                NodeMap.sinusoidal(0.05, 0, 1, 0, 1, 0, 1));
        ElementGeometry kershaw = ElementGeometry.trilinear(HexMesh.box(6, 2, 2, 0, 1, 0, 1, 0, 1), NodeMap.kershaw(0.3));
        ElementGeometry affine = box(1000, -3, 7, 0, NodeMap.affine(new double[] {1, 0.2, 0, 0, 1.5, 0.1, 0, 0, 0.8},
                new double[] {3, -2, 1}));
        ElementGeometry hex27 = hex27();
        // 12 builds: every geometry at both quadratures, the packed and the wJ-only output, small and large N
        switch (n) {
            case 1 -> {
                deviceFactors(kershaw, n, Quadrature.GAUSS, 7);
                deviceFactors(hex27, n, Quadrature.GLL, 1);
            }
            case 2 -> {
                deviceFactors(sinusoidal, n, Quadrature.GLL, 7);
                deviceFactors(sinusoidal, n, Quadrature.GAUSS, 1);
                deviceFactors(affine, n, Quadrature.GAUSS, 7);
            }
            case 4 -> {
                deviceFactors(trilinear, n, Quadrature.GAUSS, 7);
                deviceFactors(kershaw, n, Quadrature.GLL, 7);
            }
            case 7 -> {
                deviceFactors(sinusoidal, n, Quadrature.GAUSS, 7);
                deviceFactors(hex27, n, Quadrature.GLL, 7);
            }
            case 10 -> {
                deviceFactors(kershaw, n, Quadrature.GAUSS, 1);
                deviceFactors(affine, n, Quadrature.GLL, 7);
            }
            default -> deviceFactors(hex27, n, Quadrature.GAUSS, 7);
        }
    }

    /** The element regions in global scratch (the large-N plan of GPUs) give the same factors. */
    @Test
    void factorsWithGlobalGridsEqualTheHostFactors() {
        AparapiBackend b = backend();
        b.geometryGlobalGrids(true);
        try {
            deviceFactors(ElementGeometry.trilinear(HexMesh.box(6, 2, 2, 0, 1, 0, 1, 0, 1), NodeMap.kershaw(0.3)), 3,
                    Quadrature.GAUSS, 7);
        } finally {
            b.geometryGlobalGrids(false);
        }
    }

    @Test
    void anInvertedElementIsNamedAsTheHostNamesIt() {
        AparapiBackend b = backend();
        Basis1D basis = Basis1D.of(4);
        // element 5 of 12 mirrored in x
        ElementGeometry ok = box(0, 0, 0, 0, null);
        double[] nodes = ok.nodes();
        for (int c = 0; c < 8; c++) {
            nodes[5 * 24 + 3 * c] = -nodes[5 * 24 + 3 * c];
        }
        ElementGeometry g = ElementGeometry.of(1, nodes, null);
        for (Quadrature q : Quadrature.values()) {
            String want = assertThrows(IllegalArgumentException.class, () -> HostSetup.factors(g, basis, q, 7)).getMessage();
            try (DeviceGeometry dg = b.uploadGeometry(g)) {
                String got = assertThrows(IllegalArgumentException.class, () -> b.geometricFactors(dg, basis, q, 7)).getMessage();
                assertEquals(want, got, q.toString());
                assertTrue(got.startsWith("element 5: Jacobian determinant |J| = "), got);
            }
        }
    }

    /** A user map that reads a field: outside the subset, rejected when the geometry is uploaded. */
    static final class FieldMap extends PointMap {
        private final double scale;

        FieldMap() {
            super(1.0);
            scale = 2;
        }

        @Override
        public void evaluate(double[] x, double[] c, double[] out) {
            out[0] = scale * x[0];
            out[1] = x[1];
            out[2] = x[2];
        }
    }

    @Test
    void aMapOutsideTheSubsetIsRejectedAtUploadNamingTheConstruct() {
        ElementGeometry g = box(0, 0, 0, 0, new FieldMap());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> backend().uploadGeometry(g));
        assertTrue(e.getMessage().contains("GETFIELD"), e.getMessage());
        assertTrue(e.getMessage().contains(FieldMap.class.getName()), e.getMessage());
        assertTrue(e.getMessage().contains("point function"), e.getMessage());
    }

    /** A right-hand side with two outputs, a loop and Math functions. */
    static final class Source extends PointFunction {
        Source() {
            super(2, 1.5, 2.0, -0.25);
        }

        @Override
        public void evaluate(double[] x, double[] c, double[] out) {
            double s = 0;
            for (int d = 0; d < 3; d++) {
                s += Math.sin(c[0] * x[d]);
            }
            out[0] = c[1] * s + Math.exp(c[2] * x[0] * x[1]);
            out[1] = Math.sqrt(1 + x[2] * x[2]);
        }
    }

    @Test
    void functionsOfPositionEqualTheHostValues() {
        AparapiBackend b = backend();
        ElementGeometry[] geometries = {box(0.5, 0, 0, 0.05, null),
            ElementGeometry.trilinear(HexMesh.box(6, 2, 2, 0, 1, 0, 1, 0, 1), NodeMap.kershaw(0.3)), hex27()};
        int[] degrees = {3, 3, 2};
        for (int i = 0; i < geometries.length; i++) {
            ElementGeometry g = geometries[i];
            Basis1D basis = Basis1D.of(degrees[i]);
            PointFunction f = new Source();
            double[] host = HostSetup.evaluate(g, basis, f);
            try (DeviceGeometry dg = b.uploadGeometry(g); DeviceVector out = b.allocate(host.length)) {
                b.evaluate(dg, basis, f, out);
                double d = relativeDifference(host, b.download(out));
                System.out.printf("evaluate N=%d %s: max relative difference %.3g%n", degrees[i], g, d);
                assertTrue(d <= TOLERANCE, g + ": relative difference " + d);
            }
        }
        // the map itself as the function: positions through the map twice; the map's functions are in the kernel once
        ElementGeometry k = geometries[1];
        PointMap m = k.map();
        double[] host = HostSetup.evaluate(k, Basis1D.of(3), m);
        try (DeviceGeometry dg = b.uploadGeometry(k); DeviceVector out = b.allocate(host.length)) {
            b.evaluate(dg, Basis1D.of(3), m, out);
            assertTrue(relativeDifference(host, b.download(out)) <= TOLERANCE);
        }
    }

    /**
     * The errors of a field against a function on trilinear (jittered), mapped (Kershaw) and hex27 elements equal the
     * host's ({@link HostSetup#errorNorms}) to the rounding of |u|; the Kershaw case runs in launches of 5 element slots.
     */
    @Test
    void errorNormsEqualTheHostNorms() {
        AparapiBackend b = backend();
        ElementGeometry[] geometries = {box(0.5, 0, 0, 0.05, null),
            ElementGeometry.trilinear(HexMesh.box(6, 2, 2, 0, 1, 0, 1, 0, 1), NodeMap.kershaw(0.3)), hex27()};
        int[] degrees = {4, 3, 2};
        for (int i = 0; i < geometries.length; i++) {
            ElementGeometry g = geometries[i];
            Basis1D basis = Basis1D.of(degrees[i]);
            PointFunction f = new Source();
            double[] uh = HostSetup.evaluate(g, basis, new Source());
            double[] field = new double[uh.length / 2];
            Random r = new Random(7);
            for (int n = 0; n < field.length; n++) {
                field[n] = uh[2 * n] + 1e-3 * (r.nextDouble() - 0.5);    // the first output, perturbed
            }
            io.lobatto.core.backend.ErrorNorms host = HostSetup.errorNorms(g, basis, field, f);
            b.errorSlotCap(i == 1 ? 5 : Integer.MAX_VALUE);
            try (DeviceGeometry dg = b.uploadGeometry(g); DeviceVector u = b.upload(field)) {
                io.lobatto.core.backend.ErrorNorms dev = b.errorNorms(dg, basis, u, f);
                System.out.printf("errors N=%d %s: host %s, device %s%n", degrees[i], g, host, dev);
                // the errors are differences of O(|u|) values: their rounding scales with |u|, not with the error
                double scale = java.util.Arrays.stream(field).map(Math::abs).max().orElse(0);
                assertEquals(host.max(), dev.max(), TOLERANCE * scale, g + ": max");
                assertEquals(host.l2(), dev.l2(), TOLERANCE * scale, g + ": L2");
                assertTrue(host.max() > 1e-4 && host.l2Squared() > 1e-9, "a field with an error: " + host);
            } finally {
                b.errorSlotCap(Integer.MAX_VALUE);
            }
        }
    }

    /** The element diagonals of {@code kernel} at degree n, device against {@link ElementMatrixDiagonal}. */
    private static void diagonal(ElementKernel kernel, int n) {
        AparapiBackend b = backend();
        Basis1D basis = Basis1D.of(n);
        ElementGeometry g = ElementGeometry.trilinear(HexMesh.box(2, 2, 2, 0, 1, 0, 1, 0, 1),
                NodeMap.sinusoidal(0.05, 0, 1, 0, 1, 0, 1));
        int fpp = kernel.factorsPerPoint();
        double[] factors = HostSetup.factors(g, basis, kernel.usesGaussQuadrature() ? Quadrature.GAUSS : Quadrature.GLL, fpp);
        int ne = g.elementCount();
        int np = basis.np();
        int p = factors.length / (fpp * ne);
        for (double lambda : kernel == ElementKernel.MASS_BP10 ? new double[] {0} : new double[] {0, 0.75}) {
            double[] host = new double[ne * np];
            ElementMatrixDiagonal emd = new ElementMatrixDiagonal(kernel, basis);
            for (int e = 0; e < ne; e++) {
                emd.element(factors, fpp * p * e, fpp, lambda, host, np * e);
            }
            try (DeviceElementData data = b.uploadElementData(kernel, basis, ne, factors);
                 DeviceVector diag = b.allocate(ne * np)) {
                b.elementDiagonal(data, lambda, diag);
                double d = relativeDifference(host, b.download(diag));
                System.out.printf("%s diagonal N=%d lambda=%s: max relative difference %.3g%n", kernel, n, lambda, d);
                assertTrue(d <= TOLERANCE, kernel + " lambda " + lambda + ": relative difference " + d);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 7})
    void elementDiagonalsEqualTheHostDiagonals(int n) {
        for (ElementKernel k : ElementKernel.values()) {
            diagonal(k, n);
        }
    }

    /** BP3.0's diagonal with its stage grids in global scratch (the plan of large N on GPUs). */
    @Test
    void bp30DiagonalWithGlobalGridsEqualsTheHostDiagonal() {
        AparapiBackend b = backend();
        b.diagonalGlobalGrids(true);
        try {
            diagonal(ElementKernel.STIFFNESS_BP30, 3);
        } finally {
            b.diagonalGlobalGrids(false);
        }
    }

    @Test
    void reciprocalInvertsAndCountsTheBadEntries() {
        AparapiBackend b = backend();
        double[] x = new double[5000];
        for (int i = 0; i < x.length; i++) {
            x[i] = 0.5 + i;
        }
        try (DeviceVector xv = b.upload(x); DeviceVector y = b.allocate(x.length)) {
            assertEquals(0, b.reciprocal(xv, y));
            double[] got = b.download(y);
            for (int i = 0; i < x.length; i++) {
                assertEquals(1 / x[i], got[i], "entry " + i);
            }
        }
        x[17] = 0;
        x[100] = -2;
        x[4000] = Double.NaN;
        x[4999] = Double.POSITIVE_INFINITY;
        try (DeviceVector xv = b.upload(x); DeviceVector y = b.allocate(x.length)) {
            assertEquals(4, b.reciprocal(xv, y));
            assertEquals(1 / x[18], b.download(y)[18]);
        }
    }

    /** Element data made from device factors applies as the host-uploaded data of the same factors. */
    @Test
    void elementDataFromDeviceFactorsAppliesAsTheHostUpload() {
        AparapiBackend b = backend();
        int n = 2;
        Basis1D basis = Basis1D.of(n);
        ElementGeometry g = ElementGeometry.trilinear(HexMesh.box(2, 2, 2, 0, 1, 0, 1, 0, 1),
                NodeMap.sinusoidal(0.05, 0, 1, 0, 1, 0, 1));
        int ne = g.elementCount();
        double[] x = new double[ne * basis.np()];
        Random r = new Random(7);
        for (int i = 0; i < x.length; i++) {
            x[i] = r.nextDouble() - 0.5;
        }
        try (DeviceGeometry dg = b.uploadGeometry(g); DeviceVector xv = b.upload(x); DeviceVector y1 = b.allocate(x.length);
             DeviceVector y2 = b.allocate(x.length)) {
            for (ElementKernel k : ElementKernel.values()) {
                Quadrature q = k.usesGaussQuadrature() ? Quadrature.GAUSS : Quadrature.GLL;
                int fpp = k.factorsPerPoint();
                DeviceVector factors = b.geometricFactors(dg, basis, q, fpp);
                try (DeviceElementData host = b.uploadElementData(k, basis, ne, HostSetup.factors(g, basis, q, fpp));
                     DeviceElementData dev = b.uploadElementData(k, basis, ne, factors)) {
                    b.applyElements(host, 0.5, xv, y1);
                    b.applyElements(dev, 0.5, xv, y2);
                    double d = relativeDifference(b.download(y1), b.download(y2));
                    System.out.printf("applyElements %s from device factors: max relative difference %.3g%n", k, d);
                    assertTrue(d <= TOLERANCE, k + ": relative difference " + d);
                }
                assertTrue(factors.isClosed(), k + ": the element data took the vector over and closed it");
            }
        }
    }

    /**
     * A setup kernel built quickly ({@link KernelBuilds#QUICK_OPTIONS}, below {@link KernelBuilds#QUICK_SETUP_POINTS})
     * and optimised gives the same bits: the factors at both quadratures, a function's values and the BP3.5 diagonal
     * on sinusoidally mapped elements at N = 3, each from both builds (different programs: their options are part of
     * the cache key, and the quick build's source is the same text); the error norms (always optimised) from them.
     */
    @Test
    void quickAndOptimisedSetupBuildsGiveTheSameBits() {
        AparapiBackend b = backend();
        Basis1D basis = Basis1D.of(3);
        ElementGeometry g = ElementGeometry.trilinear(HexMesh.box(2, 2, 2, 0, 1, 0, 1, 0, 1),
                NodeMap.sinusoidal(0.05, 0, 1, 0, 1, 0, 1));
        assertEquals(KernelBuilds.QUICK_OPTIONS, KernelBuilds.setupOptions(g.elementCount(), 3), "auto is quick here");
        assertEquals("", KernelBuilds.setupOptions(KernelBuilds.QUICK_SETUP_POINTS), "auto optimises at the threshold");
        double[][] quick = setupResults(b, g, basis, "true");
        double[][] optimised = setupResults(b, g, basis, "false");
        String[] what = {"GLL factors", "Gauss wJ", "f at the nodes", "error norms", "BP3.5 diagonal"};
        for (int i = 0; i < what.length; i++) {
            assertTrue(quick[i].length > 0, what[i]);
            assertTrue(java.util.Arrays.equals(quick[i], optimised[i]), what[i] + ": the quick and the optimised build differ");
        }
        assertThrows(IllegalArgumentException.class, () -> KernelBuilds.quickSetup("fast"));
    }

    private static double[][] setupResults(AparapiBackend b, ElementGeometry g, Basis1D basis, String quickSetup) {
        String old = KernelBuilds.quickSetup(quickSetup);
        int built = b.runtime().programs().builds();
        try (DeviceGeometry dg = b.uploadGeometry(g);
             DeviceVector packed = b.geometricFactors(dg, basis, Quadrature.GLL, 7);
             DeviceVector wj = b.geometricFactors(dg, basis, Quadrature.GAUSS, 1);
             DeviceVector f = b.allocate(g.elementCount() * basis.np() * 2)) {
            b.evaluate(dg, basis, new Source(), f);
            double[] values = b.download(f);
            double[] field = new double[values.length / 2];
            for (int n = 0; n < field.length; n++) {
                field[n] = values[2 * n] * 0.999;
            }
            io.lobatto.core.backend.ErrorNorms errors;
            try (DeviceVector u = b.upload(field)) {
                errors = b.errorNorms(dg, basis, u, new Source());
            }
            double[] diagonal;
            try (DeviceElementData data = b.uploadElementData(ElementKernel.STIFFNESS_BP35, basis, g.elementCount(),
                    HostSetup.factors(g, basis, Quadrature.GLL, 7));
                 DeviceVector d = b.allocate(g.elementCount() * basis.np())) {
                b.elementDiagonal(data, 0.5, d);
                diagonal = b.download(d);
            }
            assertTrue(b.runtime().programs().builds() > built, quickSetup + ": these builds are new, not the other mode's");
            return new double[][] {b.download(packed), b.download(wj), values, {errors.max(), errors.l2()}, diagonal};
        } finally {
            KernelBuilds.quickSetup(old);
        }
    }
}
