package io.lobatto.core.mesh;

import io.lobatto.core.basis.Basis1D;

/**
 * What defines the shape of every element, and nothing pointwise (site/src/site/markdown/design.md, "Setup where the
 * operator runs"): each element's geometry nodes, a tensor-product Lagrange interpolant of order g, and an optional
 * {@link PointMap} applied to it. The position of a point r of the reference cube [-1, 1]^3 in element e is
 * <pre>
 *   x(r) = f( sum_c phi_c(r) X_{e,c} ),
 * </pre>
 * with, for g = 1, the 8 vertices X_{e,c} in {@link HexReference}'s corner order and the trilinear shape functions
 * phi_c, and for g = 2 the 27 nodes of a second-order hexahedron at r in {-1, 0, 1}^3, numbered a + 3 (b + 3 c), and
 * the triquadratic ones; f is the point map or the identity. A backend uploads this (24 or 81 doubles per element)
 * and computes the node positions and the geometric factors of any degree and quadrature itself.
 * Immutable; arrays are copied in and out.
 */
public final class ElementGeometry {

    private final int elements;
    private final int order;
    private final double[] nodes;
    private final PointMap map;
    /** The map's coefficients (a copy made once), or null. */
    private final double[] coefficients;

    private ElementGeometry(int elements, int order, double[] nodes, PointMap map) {
        this.elements = elements;
        this.order = order;
        this.nodes = nodes;
        this.map = map;
        this.coefficients = map == null ? null : map.coefficients();
    }

    /**
     * Trilinear elements from a mesh's vertices, then {@code map} (null for the identity).
     *
     * @throws IllegalArgumentException if {@code mesh} is null or 24 E doubles exceed the array limit
     */
    public static ElementGeometry trilinear(HexMesh mesh, PointMap map) {
        if (mesh == null) {
            throw new IllegalArgumentException("mesh must not be null");
        }
        int ne = mesh.elementCount();
        if (24L * ne > SpectralElementMesh.MAX_ARRAY) {
            throw new IllegalArgumentException("mesh too large: 24 * E = 24 * " + ne + " exceeds the array limit 2^31 - 8");
        }
        double[] v = mesh.vertices();
        int[] el = mesh.elements();
        double[] out = new double[24 * ne];
        for (int e = 0; e < ne; e++) {
            for (int c = 0; c < 8; c++) {
                System.arraycopy(v, 3 * el[8 * e + c], out, 24 * e + 3 * c, 3);
            }
        }
        return new ElementGeometry(ne, 1, out, map);
    }

    /**
     * Elements of order {@code order} (1: 8 vertices in {@link HexReference}'s corner order; 2: 27 nodes at
     * {-1, 0, 1}^3 numbered a + 3 (b + 3 c)) from their nodes {@code [E][(order+1)^3][3]}, then {@code map} (null for
     * the identity).
     *
     * @throws IllegalArgumentException naming the argument: an order other than 1 or 2, a length that is not a
     *                                  multiple of 3 (order+1)^3, or a non-finite coordinate
     */
    public static ElementGeometry of(int order, double[] nodes, PointMap map) {
        if (order != 1 && order != 2) {
            throw new IllegalArgumentException("order must be 1 (trilinear) or 2 (triquadratic), got " + order);
        }
        if (nodes == null) {
            throw new IllegalArgumentException("nodes must not be null");
        }
        int per = 3 * (order + 1) * (order + 1) * (order + 1);
        if (nodes.length % per != 0) {
            throw new IllegalArgumentException("nodes has length " + nodes.length + ", not a multiple of " + per
                    + " (3 coordinates of " + per / 3 + " nodes per element)");
        }
        for (int i = 0; i < nodes.length; i++) {
            if (!Double.isFinite(nodes[i])) {
                throw new IllegalArgumentException("nodes[" + i + "] must be finite, got " + nodes[i]);
            }
        }
        return new ElementGeometry(nodes.length / per, order, nodes.clone(), map);
    }

    /** E. */
    public int elementCount() {
        return elements;
    }

    /** g: 1 (trilinear) or 2 (triquadratic). */
    public int order() {
        return order;
    }

    /**
     * True for straight-sided trilinear elements: 8 vertices (g = 1) and no point map, so x(r) = sum_c phi_c(r) X_c
     * and the Jacobian at any point has a closed form in the vertices ({@link
     * io.lobatto.core.geometry.TrilinearFactors}): what lets a kernel compute the geometric factors on the fly.
     */
    public boolean isTrilinear() {
        return order == 1 && map == null;
    }

    /**
     * Why these elements are not trilinear, as the end of a message ("... but the mesh's geometry has order 2 (27 nodes
     * per element)"), or null when they are ({@link #isTrilinear()}).
     */
    public String notTrilinearReason() {
        if (order != 1) {
            return "the mesh's geometry has order " + order + " (" + nodesPerElement() + " nodes per element)";
        }
        if (map != null) {
            return "the mesh has the point map " + map + " applied to its trilinear positions";
        }
        return null;
    }

    /** Geometry nodes per element, (g+1)^3. */
    public int nodesPerElement() {
        return (order + 1) * (order + 1) * (order + 1);
    }

    /** A copy of the geometry nodes, {@code [E][(g+1)^3][3]}. */
    public double[] nodes() {
        return nodes.clone();
    }

    /** The point map applied after the interpolation, or null for the identity. */
    public PointMap map() {
        return map;
    }

    /**
     * The shape functions at the GLL nodes of {@code basis}: {@code phi[(g+1)^3 n + c]} for GLL node n (order
     * i + Nq (j + Nq k)) and geometry node c; exact (0 or 1) at the element's corners.
     */
    public double[] shapes(Basis1D basis) {
        return shapes(order, basis);
    }

    /** {@link #shapes(Basis1D)} of geometry order {@code order} (1 or 2). */
    static double[] shapes(int order, Basis1D basis) {
        int nq = basis.nq();
        int m = order + 1;
        int nc = m * m * m;
        double[] r = basis.gll().nodes();
        double[][] l = new double[nq][m];
        for (int i = 0; i < nq; i++) {
            double t = r[i];
            if (order == 1) {
                l[i][0] = 0.5 * (1 - t);
                l[i][1] = 0.5 * (1 + t);
            } else {
                l[i][0] = 0.5 * t * (t - 1);
                l[i][1] = (1 - t) * (1 + t);
                l[i][2] = 0.5 * t * (t + 1);
            }
        }
        // exact values at the ends
        java.util.Arrays.fill(l[0], 0);
        java.util.Arrays.fill(l[nq - 1], 0);
        l[0][0] = 1;
        l[nq - 1][m - 1] = 1;
        double[] phi = new double[nc * basis.np()];
        for (int k = 0; k < nq; k++) {
            for (int j = 0; j < nq; j++) {
                for (int i = 0; i < nq; i++) {
                    int n = i + nq * (j + nq * k);
                    for (int c = 0; c < nc; c++) {
                        int a, b, d;
                        if (order == 1) {
                            a = HexReference.cornerBit(c, 0);
                            b = HexReference.cornerBit(c, 1);
                            d = HexReference.cornerBit(c, 2);
                        } else {
                            a = c % 3;
                            b = (c / 3) % 3;
                            d = c / 9;
                        }
                        phi[nc * n + c] = l[i][a] * l[j][b] * l[k][d];
                    }
                }
            }
        }
        return phi;
    }

    /**
     * The node positions of element {@code e} at the GLL nodes whose {@link #shapes} are {@code phi}, relative to its
     * first node, {@code [Np][3]} into {@code dst}: with the identity map, the interpolant of the node differences
     * X_c - X_0 (no absolute position is formed, so a translated mesh gives the same values up to the rounding of
     * its nodes); with a map, differences of the mapped positions. {@code work} has at least 3 (g+1)^3 doubles.
     */
    public void relativePositions(int e, double[] phi, double[] work, double[] dst) {
        int nc = nodesPerElement();
        int np = phi.length / nc;
        int base = 3 * nc * e;
        if (map == null) {
            for (int c = 0; c < nc; c++) {
                for (int d = 0; d < 3; d++) {
                    work[3 * c + d] = nodes[base + 3 * c + d] - nodes[base + d];
                }
            }
            for (int n = 0; n < np; n++) {
                double x = 0, y = 0, z = 0;
                for (int c = 1; c < nc; c++) {
                    double f = phi[nc * n + c];
                    if (f != 0) {
                        x += f * work[3 * c];
                        y += f * work[3 * c + 1];
                        z += f * work[3 * c + 2];
                    }
                }
                dst[3 * n] = x;
                dst[3 * n + 1] = y;
                dst[3 * n + 2] = z;
            }
            return;
        }
        positions(e, phi, dst);
        double x0 = dst[0], y0 = dst[1], z0 = dst[2];
        for (int n = 0; n < np; n++) {
            dst[3 * n] -= x0;
            dst[3 * n + 1] -= y0;
            dst[3 * n + 2] -= z0;
        }
    }

    /**
     * The absolute node positions of element {@code e} at the GLL nodes whose {@link #shapes} are {@code phi},
     * {@code [Np][3]} into {@code dst}.
     */
    public void positions(int e, double[] phi, double[] dst) {
        int nc = nodesPerElement();
        int np = phi.length / nc;
        int base = 3 * nc * e;
        double[] c0 = coefficients;
        double[] in = new double[3];
        double[] out = new double[3];
        for (int n = 0; n < np; n++) {
            double a = 0, b = 0, d = 0;
            for (int c = 0; c < nc; c++) {
                double f = phi[nc * n + c];
                if (f != 0) {
                    a += f * nodes[base + 3 * c];
                    b += f * nodes[base + 3 * c + 1];
                    d += f * nodes[base + 3 * c + 2];
                }
            }
            if (map == null) {
                dst[3 * n] = a;
                dst[3 * n + 1] = b;
                dst[3 * n + 2] = d;
            } else {
                in[0] = a;
                in[1] = b;
                in[2] = d;
                map.evaluate(in, c0, out);
                dst[3 * n] = out[0];
                dst[3 * n + 1] = out[1];
                dst[3 * n + 2] = out[2];
            }
        }
    }

    @Override
    public String toString() {
        return "ElementGeometry[E=" + elements + ", order " + order + ", map " + (map == null ? "identity" : map) + "]";
    }
}
