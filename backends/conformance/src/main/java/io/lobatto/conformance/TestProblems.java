package io.lobatto.conformance;

import java.util.Random;

import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;

/** Small meshes and vectors shared by the conformance suites. */
public final class TestProblems {

    private TestProblems() {
    }

    /** An nx*ny*nz box over [0,1]x[0,2]x[0,1.5] deformed by a smooth perturbation of relative size 0.08. */
    public static SpectralElementMesh deformedBox(int nx, int ny, int nz, int degree) {
        HexMesh box = HexMesh.box(nx, ny, nz, 0, 1, 0, 2, 0, 1.5);
        return SpectralElementMesh.of(box, degree, NodeMap.sinusoidal(0.08, 0, 1, 0, 2, 0, 1.5));
    }

    /** An undeformed (affine) nx*ny*nz box over [x0,x1]x[y0,y1]x[z0,z1]. */
    public static SpectralElementMesh box(int nx, int ny, int nz, int degree, double[] bounds) {
        return SpectralElementMesh.of(HexMesh.box(nx, ny, nz, bounds[0], bounds[1], bounds[2], bounds[3], bounds[4], bounds[5]), degree);
    }

    /**
     * A trilinear, non-affine nx*ny*nz box over [0,1]x[0,2]x[0,1.5]: every vertex moved by a uniform random offset of up
     * to {@code amplitude} element widths per coordinate, boundary vertices too (the elements stay straight-sided: no
     * node map).
     */
    public static SpectralElementMesh perturbedBox(int nx, int ny, int nz, int degree, double amplitude, long seed) {
        HexMesh box = HexMesh.box(nx, ny, nz, 0, 1, 0, 2, 0, 1.5);
        double[] v = box.vertices();
        double[] h = {1.0 / nx, 2.0 / ny, 1.5 / nz};
        Random rnd = new Random(seed);
        for (int i = 0; i < v.length; i++) {
            v[i] += amplitude * h[i % 3] * (2 * rnd.nextDouble() - 1);
        }
        return SpectralElementMesh.of(new HexMesh(v, box.elements(), box.faceTags()), degree);
    }

    /**
     * An affine nx*ny*nz mesh: the box [0,1]x[0,2]x[0,1.5] under a fixed sheared, stretched and translated linear map of
     * its vertices (every element a parallelepiped, J constant per element).
     */
    public static SpectralElementMesh affineBox(int nx, int ny, int nz, int degree) {
        HexMesh box = HexMesh.box(nx, ny, nz, 0, 1, 0, 2, 0, 1.5);
        double[] v = box.vertices();
        double[][] a = {{1.3, 0.2, -0.1}, {0.1, 0.9, 0.25}, {-0.2, 0.15, 1.1}};
        double[] shift = {3.0, -1.0, 0.5};
        for (int i = 0; i < v.length; i += 3) {
            double x = v[i], y = v[i + 1], z = v[i + 2];
            for (int d = 0; d < 3; d++) {
                v[i + d] = shift[d] + a[d][0] * x + a[d][1] * y + a[d][2] * z;
            }
        }
        return SpectralElementMesh.of(new HexMesh(v, box.elements(), box.faceTags()), degree);
    }

    /** Z without a mask. */
    public static ScatterOperator unmasked(SpectralElementMesh mesh) {
        return ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), null);
    }

    /** Z with every tagged boundary face masked (homogeneous Dirichlet). */
    public static ScatterOperator dirichlet(SpectralElementMesh mesh) {
        return ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), mesh.boundaryMaskAllTagged());
    }

    /** Z with only the faces x = xmin and z = zmax masked. */
    public static ScatterOperator partlyMasked(SpectralElementMesh mesh) {
        return ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(),
                mesh.boundaryMask(HexMesh.TAG_XMIN, HexMesh.TAG_ZMAX));
    }

    /** Uniform random entries in [-1, 1). */
    public static double[] random(int n, long seed) {
        Random rnd = new Random(seed);
        double[] x = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = 2 * rnd.nextDouble() - 1;
        }
        return x;
    }

    public static double dot(double[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    public static double maxAbs(double[] a) {
        double m = 0;
        for (double v : a) {
            m = Math.max(m, Math.abs(v));
        }
        return m;
    }

    /** max_i |a_i - b_i| / max(max_i |b_i|, tiny). */
    public static double relativeError(double[] a, double[] b) {
        if (a.length != b.length) {
            throw new IllegalArgumentException("lengths " + a.length + " and " + b.length);
        }
        double diff = 0;
        for (int i = 0; i < a.length; i++) {
            diff = Math.max(diff, Math.abs(a[i] - b[i]));
        }
        return diff / Math.max(maxAbs(b), 1e-300);
    }
}
