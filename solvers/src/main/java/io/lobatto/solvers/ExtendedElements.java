package io.lobatto.solvers;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import io.lobatto.core.mesh.SpectralElementMesh;

/**
 * Each element of a conforming hexahedral spectral-element mesh extended by one GLL layer of its neighbours: the
 * subdomains of the minimal-overlap Schwarz method of Fischer (1997) and Lottes &amp; Fischer (2005). The extended
 * element has n = N + 3 points per direction, indices -1..N+1 in the element's own frame (stored as 0..N+2, r
 * fastest): -1 is the neighbour's node next to the shared face, one GLL step into the neighbour; edge and corner
 * points are reached by stepping face to face. {@link #localToGlobal()} gives each of the E n^3 extended points its
 * original global node id, or {@link #globalNodeCount()} (one past the mesh's nodes, a node that the caller masks)
 * where no neighbour is there (a physical boundary). A scatter operator built on this map (a second Z on
 * (N+3)^3-point blocks) moves residuals to the extended elements and sums their local solutions back: NekRS's
 * extended-element gather-scatter.
 *
 * <p>Also recorded per element and direction: the mean length (distance of the centroids of the two opposite faces)
 * and, per side, whether a neighbour is there and its mean length across the shared face: the 1D data of the fast
 * diagonalisation ({@link FastDiagonalization}). Immutable; built on the host from the topology alone (O(E n^3)).
 */
public final class ExtendedElements {

    private final int degree;
    private final int elements;
    private final int globalNodeCount;
    private final int[] localToGlobal;
    /** [E][6]: the neighbour's mean length across face f, or 0 where there is none. */
    private final double[] neighbourLength;
    /** [E][3]: the element's mean length in direction d. */
    private final double[] length;

    private ExtendedElements(int degree, int elements, int globalNodeCount, int[] localToGlobal, double[] neighbourLength,
                             double[] length) {
        this.degree = degree;
        this.elements = elements;
        this.globalNodeCount = globalNodeCount;
        this.localToGlobal = localToGlobal;
        this.neighbourLength = neighbourLength;
        this.length = length;
    }

    /** The extended elements of {@code mesh}. */
    public static ExtendedElements of(SpectralElementMesh mesh) {
        return new Builder(mesh).build();
    }

    /** N, the mesh's degree. */
    public int degree() {
        return degree;
    }

    /** n = N + 3, the points of an extended element per direction. */
    public int points() {
        return degree + 3;
    }

    /** E. */
    public int elements() {
        return elements;
    }

    /** The mesh's global node count; {@link #localToGlobal()} uses this value for points without a node. */
    public int globalNodeCount() {
        return globalNodeCount;
    }

    /** [E][n^3] original global ids, {@link #globalNodeCount()} where no node is there (a copy). */
    public int[] localToGlobal() {
        return localToGlobal.clone();
    }

    /** Element e's mean length in direction d (0 = r, 1 = s, 2 = t). */
    public double length(int e, int d) {
        return length[3 * e + d];
    }

    /** The mean length across face f (2d: the -1 side of direction d, 2d+1: the +1 side) of e's neighbour there, or 0. */
    public double neighbourLength(int e, int f) {
        return neighbourLength[6 * e + f];
    }

    /** Whether e has a neighbour across face f. */
    public boolean hasNeighbour(int e, int f) {
        return neighbourLength[6 * e + f] > 0;
    }

    /** The topology walk: face neighbours, face-node maps and the steps through them. */
    private static final class Builder {
        private final SpectralElementMesh mesh;
        private final int n;
        private final int nq;
        private final int np;
        private final int elements;
        private final int[] l2g;
        /** [E][6]: 6 e' + f' of the neighbour across face f, or -1. */
        private final int[] neighbour;
        /** Lazily: for (e, f), the neighbour's local index of each face node (in-face coordinates u + nq v). */
        private final int[][] faceMap;

        Builder(SpectralElementMesh mesh) {
            this.mesh = mesh;
            this.n = mesh.degree();
            this.nq = n + 1;
            this.np = nq * nq * nq;
            this.elements = mesh.elementCount();
            this.l2g = mesh.localToGlobal();
            this.neighbour = new int[6 * elements];
            this.faceMap = new int[6 * elements][];
        }

        ExtendedElements build() {
            findNeighbours();
            double[] length = new double[3 * elements];
            for (int e = 0; e < elements; e++) {
                for (int d = 0; d < 3; d++) {
                    length[3 * e + d] = meanLength(e, d);
                }
            }
            double[] nbLength = new double[6 * elements];
            for (int e = 0; e < elements; e++) {
                for (int f = 0; f < 6; f++) {
                    int nb = neighbour[6 * e + f];
                    nbLength[6 * e + f] = nb < 0 ? 0 : length[3 * (nb / 6) + (nb % 6) / 2];
                }
            }
            int ne = n + 3;
            int ne3 = ne * ne * ne;
            int missing = mesh.globalNodeCount();
            int[] ext = new int[Math.multiplyExact(elements, ne3)];
            int[] c = new int[3];
            for (int e = 0; e < elements; e++) {
                for (int k = -1; k <= n + 1; k++) {
                    for (int j = -1; j <= n + 1; j++) {
                        for (int i = -1; i <= n + 1; i++) {
                            c[0] = i;
                            c[1] = j;
                            c[2] = k;
                            int local = walk(e, c);
                            ext[e * ne3 + (i + 1) + ne * ((j + 1) + ne * (k + 1))] = local < 0 ? missing : l2g[local];
                        }
                    }
                }
            }
            return new ExtendedElements(n, elements, missing, ext, nbLength, length);
        }

        private int corner(int e, int f, int u, int v) {
            int d = f / 2;
            int fixed = (f % 2) * n;
            int[] c = new int[3];
            c[d] = fixed;
            c[otherAxis(d, 0)] = u * n;
            c[otherAxis(d, 1)] = v * n;
            return l2g[e * np + c[0] + nq * (c[1] + nq * c[2])];
        }

        /** The {@code which}-th (0 or 1) axis other than d, in increasing order. */
        private static int otherAxis(int d, int which) {
            return switch (d) {
                case 0 -> which == 0 ? 1 : 2;
                case 1 -> which == 0 ? 0 : 2;
                default -> which == 0 ? 0 : 1;
            };
        }

        private record FaceKey(int a, int b, int c, int d) {
        }

        private void findNeighbours() {
            Arrays.fill(neighbour, -1);
            Map<FaceKey, Integer> open = new HashMap<>();
            for (int e = 0; e < elements; e++) {
                for (int f = 0; f < 6; f++) {
                    int[] v = {corner(e, f, 0, 0), corner(e, f, 1, 0), corner(e, f, 0, 1), corner(e, f, 1, 1)};
                    Arrays.sort(v);
                    FaceKey key = new FaceKey(v[0], v[1], v[2], v[3]);
                    Integer other = open.remove(key);
                    if (other == null) {
                        open.put(key, 6 * e + f);
                    } else {
                        neighbour[6 * e + f] = other;
                        neighbour[other] = 6 * e + f;
                    }
                }
            }
        }

        /** Distance between the centroids of the faces 2d and 2d+1 of element e. */
        private double meanLength(int e, int d) {
            double[] lo = new double[3];
            double[] hi = new double[3];
            int a = otherAxis(d, 0), b = otherAxis(d, 1);
            int[] c = new int[3];
            for (int v = 0; v < nq; v++) {
                for (int u = 0; u < nq; u++) {
                    c[a] = u;
                    c[b] = v;
                    c[d] = 0;
                    int l0 = c[0] + nq * (c[1] + nq * c[2]);
                    c[d] = n;
                    int l1 = c[0] + nq * (c[1] + nq * c[2]);
                    for (int x = 0; x < 3; x++) {
                        lo[x] += mesh.x(e, l0, x);
                        hi[x] += mesh.x(e, l1, x);
                    }
                }
            }
            double s = 0;
            for (int x = 0; x < 3; x++) {
                double dx = (hi[x] - lo[x]) / (nq * nq);
                s += dx * dx;
            }
            return Math.sqrt(s);
        }

        /** For face f of e (with a neighbour), the neighbour's local index of each face node, indexed u + nq v. */
        private int[] faceMap(int e, int f) {
            int[] m = faceMap[6 * e + f];
            if (m != null) {
                return m;
            }
            int nb = neighbour[6 * e + f];
            int e2 = nb / 6, f2 = nb % 6;
            Map<Integer, Integer> local = new HashMap<>();
            forFaceNodes(f2, (u, v, l) -> local.put(l2g[e2 * np + l], l));
            int[] out = new int[nq * nq];
            forFaceNodes(f, (u, v, l) -> {
                Integer l2 = local.get(l2g[e * np + l]);
                if (l2 == null) {
                    throw new IllegalArgumentException("mesh is not conforming: element " + e + " face " + f
                            + " shares its corners with element " + e2 + " face " + f2 + " but not its node " + l);
                }
                out[u + nq * v] = l2;
            });
            faceMap[6 * e + f] = out;
            return out;
        }

        private interface FaceNode {
            void accept(int u, int v, int local);
        }

        private void forFaceNodes(int f, FaceNode body) {
            int d = f / 2, a = otherAxis(d, 0), b = otherAxis(d, 1);
            int[] c = new int[3];
            c[d] = (f % 2) * n;
            for (int v = 0; v < nq; v++) {
                for (int u = 0; u < nq; u++) {
                    c[a] = u;
                    c[b] = v;
                    body.accept(u, v, c[0] + nq * (c[1] + nq * c[2]));
                }
            }
        }

        private int faceIndex(int f, int[] c) {
            int d = f / 2;
            return c[otherAxis(d, 0)] + nq * c[otherAxis(d, 1)];
        }

        /**
         * The local index (e' np + node) of the extended point {@code ext} (coordinates -1..N+1 in e's frame), or -1
         * where the walk leaves the mesh.
         */
        private int walk(int e, int[] ext) {
            int elem = e;
            int[] c = {clamp(ext[0]), clamp(ext[1]), clamp(ext[2])};
            // frame: e's direction d is elem's axis ax[d] with sign sg[d]
            int[] ax = {0, 1, 2};
            int[] sg = {1, 1, 1};
            for (int d = 0; d < 3; d++) {
                int s = ext[d] < 0 ? -1 : ext[d] > n ? 1 : 0;
                if (s == 0) {
                    continue;
                }
                int a = ax[d];
                int out = sg[d] * s; // the step in elem's frame: axis a, sign out
                int to = c[a] + out;
                if (to >= 0 && to <= n) {
                    c[a] = to;
                    continue;
                }
                int f = 2 * a + (out > 0 ? 1 : 0);
                int nb = neighbour[6 * elem + f];
                if (nb < 0) {
                    return -1;
                }
                int e2 = nb / 6, f2 = nb % 6;
                int[] map = faceMap(elem, f);
                int l2 = map[faceIndex(f, c)];
                int a2 = f2 / 2;
                int in2 = f2 % 2 == 0 ? 1 : -1;
                int[] c2 = {l2 % nq, (l2 / nq) % nq, l2 / (nq * nq)};
                // the new frame
                int[] ax2 = new int[3];
                int[] sg2 = new int[3];
                for (int u = 0; u < 3; u++) {
                    if (ax[u] == a) {
                        ax2[u] = a2;
                        sg2[u] = sg[u] == out ? in2 : -in2;
                        continue;
                    }
                    int[] cc = c.clone();
                    int flip = 1;
                    cc[ax[u]] += sg[u];
                    if (cc[ax[u]] < 0 || cc[ax[u]] > n) {
                        cc[ax[u]] -= 2 * sg[u];
                        flip = -1;
                    }
                    int m = map[faceIndex(f, cc)];
                    int[] cm = {m % nq, (m / nq) % nq, m / (nq * nq)};
                    int axis = -1, sign = 0;
                    for (int x = 0; x < 3; x++) {
                        int delta = cm[x] - c2[x];
                        if (delta != 0) {
                            axis = x;
                            sign = Integer.signum(delta) * flip;
                        }
                    }
                    ax2[u] = axis;
                    sg2[u] = sign;
                }
                c2[a2] += in2;
                elem = e2;
                c = c2;
                ax = ax2;
                sg = sg2;
            }
            return elem * np + c[0] + nq * (c[1] + nq * c[2]);
        }

        private int clamp(int v) {
            return Math.max(0, Math.min(n, v));
        }
    }
}
