package io.lobatto.examples;

import java.util.stream.IntStream;

import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.basis.TensorInterpolation;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;

/**
 * Error norms of a nodal solution against a closed-form one, shared by the examples: the max over the nodes and
 * the L2 norm by Gauss-Legendre quadrature (u_h interpolated from the GLL to the GL points element by element).
 */
final class QuadratureErrors {

    /** A scalar field u(x, y, z) in closed form. */
    @FunctionalInterface
    interface Field {
        double at(double x, double y, double z);
    }

    private QuadratureErrors() {
    }

    /** max |a_i - b_i|. */
    static double maxDifference(double[] a, double[] b) {
        double m = 0;
        for (int i = 0; i < a.length; i++) {
            m = Math.max(m, Math.abs(a[i] - b[i]));
        }
        return m;
    }

    /**
     * u at every original global node, taken at the position of its first local copy (deterministic), element by
     * element from the element geometry, with no array of E P entries.
     */
    static double[] exactAtNodes(io.lobatto.core.mesh.ElementGeometry geometry, Basis1D basis, int[] l2g, int nodes,
                                 Field exact) {
        int np = basis.np();
        int elements = geometry.elementCount();
        // the first local copy of each global node (atomic min over the local ids)
        int[] first = new int[nodes];
        java.util.Arrays.fill(first, Integer.MAX_VALUE);
        java.lang.invoke.VarHandle h = java.lang.invoke.MethodHandles.arrayElementVarHandle(int[].class);
        IntStream.range(0, l2g.length).parallel().forEach(l -> {
            int g = l2g[l];
            int cur = (int) h.getVolatile(first, g);
            while (l < cur && !h.compareAndSet(first, g, cur, l)) {
                cur = (int) h.getVolatile(first, g);
            }
        });
        double[] phi = geometry.shapes(basis);
        double[] out = new double[nodes];
        int chunk = 32;
        IntStream.range(0, (elements + chunk - 1) / chunk).parallel().forEach(c -> {
            double[] abs = new double[3 * np];
            for (int e = c * chunk; e < Math.min(elements, (c + 1) * chunk); e++) {
                geometry.positions(e, phi, abs);
                for (int n = 0; n < np; n++) {
                    int g = l2g[e * np + n];
                    if (first[g] == e * np + n) {
                        out[g] = exact.at(abs[3 * n], abs[3 * n + 1], abs[3 * n + 2]);
                    }
                }
            }
        });
        return out;
    }

    /**
     * sum over GL points of wJ (u_h - u)^2 (the squared L2 error), with u_h given per original global node
     * ({@code uOrig}) and spread to the elements by {@code zFull} (Z without a mask); {@code jacobianWeights} are
     * wJ at the GL points, {@code [E][(N+2)^3]}. Elements run in parallel, the sum afterwards in point order
     * (deterministic).
     */
    static double l2Squared(SpectralElementMesh mesh, double[] uOrig, ScatterOperator zFull, double[] jacobianWeights, Field exact) {
        Basis1D basis = mesh.basis();
        int nq = basis.nq(), mq = basis.nqGauss(), np = basis.np(), mp = basis.npGauss();
        double[] interp = basis.interpolation();
        double[] terms = jacobianWeights.clone(); // wJ, overwritten with wJ (u_h - u)^2
        double[] uL = new double[zFull.localSize()];
        zFull.scatter(zFull.toAssembled(uOrig), uL);
        double[] xyz = mesh.coordinates();
        int elements = mesh.elementCount();
        int chunk = 32;
        IntStream.range(0, (elements + chunk - 1) / chunk).parallel().forEach(c -> {
            double[] in = new double[np], out = new double[mp];
            double[] cx = new double[np], cy = new double[np], cz = new double[np];
            double[] gx = new double[mp], gy = new double[mp], gz = new double[mp];
            double[] w1 = new double[mq * nq * nq], w2 = new double[mq * mq * nq];
            for (int e = c * chunk; e < Math.min(elements, (c + 1) * chunk); e++) {
                for (int n = 0; n < np; n++) {
                    in[n] = uL[e * np + n];
                    cx[n] = xyz[3 * (e * np + n)];
                    cy[n] = xyz[3 * (e * np + n) + 1];
                    cz[n] = xyz[3 * (e * np + n) + 2];
                }
                TensorInterpolation.interpolate(interp, mq, nq, in, out, w1, w2);
                TensorInterpolation.interpolate(interp, mq, nq, cx, gx, w1, w2);
                TensorInterpolation.interpolate(interp, mq, nq, cy, gy, w1, w2);
                TensorInterpolation.interpolate(interp, mq, nq, cz, gz, w1, w2);
                for (int q = 0; q < mp; q++) {
                    double d = out[q] - exact.at(gx[q], gy[q], gz[q]);
                    terms[e * mp + q] = terms[e * mp + q] * d * d;
                }
            }
        });
        double sum = 0;
        for (double t : terms) {
            sum += t;
        }
        return sum;
    }
}
