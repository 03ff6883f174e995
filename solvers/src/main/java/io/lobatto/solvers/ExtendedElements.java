package io.lobatto.solvers;

import java.util.stream.IntStream;

import io.lobatto.core.mesh.ElementGeometry;
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
 * diagonalisation ({@link FastDiagonalization}). Immutable; built on the host from the topology (elements in parallel,
 * O(E n^3): an element's own nodes and the points across its faces by face maps, only its edge and corner points by a
 * walk from face to face) and the face centroids (from the element geometry at the face nodes). {@link #faces} makes
 * the O(E) part only (face neighbours, face codes, lengths): a backend walks to the points itself
 * ({@link io.lobatto.core.backend.Backend#extendedIds}).
 */
public final class ExtendedElements {

    /**
     * The face codes of each hexahedral mesh the faces-only build has seen ({@link #faces}): they depend on the corners
     * only, so the p-multigrid levels (one {@link io.lobatto.core.mesh.HexMesh} at several degrees) share them.
     */
    private static final java.util.Map<io.lobatto.core.mesh.HexMesh, int[]> FACE_CODES =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    private final int degree;
    private final int elements;
    private final int globalNodeCount;
    /** The map, or null for extended elements made from their faces only ({@link #faces}). */
    private final int[] localToGlobal;
    private final SpectralElementMesh mesh;
    /** [E][6]: 6 e' + f' of the neighbour across face f, or -1. */
    private final int[] faceNeighbour;
    /** [E][6]: the face code of {@link io.lobatto.core.backend.ExtendedElementWalk} (0 where no neighbour). */
    private final int[] faceCode;
    /** [E][6]: the neighbour's mean length across face f, or 0 where there is none. */
    private final double[] neighbourLength;
    /** [E][3]: the element's mean length in direction d. */
    private final double[] length;

    private ExtendedElements(SpectralElementMesh mesh, int[] localToGlobal, int[] faceNeighbour, int[] faceCode,
                             double[] neighbourLength, double[] length) {
        this.mesh = mesh;
        this.degree = mesh.degree();
        this.elements = mesh.elementCount();
        this.globalNodeCount = mesh.globalNodeCount();
        this.localToGlobal = localToGlobal;
        this.faceNeighbour = faceNeighbour;
        this.faceCode = faceCode;
        this.neighbourLength = neighbourLength;
        this.length = length;
    }

    /** The extended elements of {@code mesh}. */
    public static ExtendedElements of(SpectralElementMesh mesh) {
        return new Builder(mesh).build(true, SchwarzPreconditioner.FAST_SETUP);
    }

    /**
     * The extended elements of {@code mesh} without their map: the face neighbours, the face codes and the lengths,
     * O(E) numbers. A backend walks to the extended points from these ({@link io.lobatto.core.backend.Backend#extendedIds});
     * {@link #localToGlobal()} throws {@link IllegalStateException}.
     */
    public static ExtendedElements faces(SpectralElementMesh mesh) {
        return new Builder(mesh).build(false, SchwarzPreconditioner.FAST_SETUP);
    }

    /**
     * {@link #faces(SpectralElementMesh)} with the setup chosen here: {@code shared} true reads the face codes of an
     * earlier build on the same hexahedral mesh and computes each shared face's centroid once; false makes the codes
     * afresh and the mean lengths element by element (the setup of {@code 9c68c10}).
     */
    static ExtendedElements faces(SpectralElementMesh mesh, boolean shared) {
        return new Builder(mesh).build(false, shared);
    }

    /** Whether the map of the E (N+3)^3 points is here ({@link #of}) or not ({@link #faces}). */
    public boolean hasMap() {
        return localToGlobal != null;
    }

    /** [E][6] face neighbours, 6 e' + f' or -1 (a copy). */
    public int[] faceNeighbours() {
        return faceNeighbour.clone();
    }

    /** [E][6] face codes of {@link io.lobatto.core.backend.ExtendedElementWalk} (a copy). */
    public int[] faceCodes() {
        return faceCode.clone();
    }

    int[] sharedFaceNeighbours() {
        return faceNeighbour;
    }

    int[] sharedFaceCodes() {
        return faceCode;
    }

    /** The global id of element e's own node (index in 0..(N+1)^3), as the map holds it at e's inner points. */
    int ownGlobalId(int e, int node) {
        return mesh.globalId(e, node);
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
        return sharedLocalToGlobal().clone();
    }

    /** The map itself, not a copy, for this package's setup code, which does not modify it. */
    int[] sharedLocalToGlobal() {
        if (localToGlobal == null) {
            throw new IllegalStateException("the extended elements were made from their faces only (ExtendedElements.faces)");
        }
        return localToGlobal;
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
        /** Elements per parallel chunk. */
        private static final int CHUNK = 64;
        private final SpectralElementMesh mesh;
        private final int n;
        private final int nq;
        private final int np;
        private final int elements;
        /** [E][6]: 6 e' + f' of the neighbour across face f, or -1. */
        private final int[] neighbour;
        /** For (e, f) with a neighbour, the neighbour's local index of each face node (in-face coordinates u + nq v). */
        private final int[][] faceMap;
        /** [E][6] the face codes of {@link io.lobatto.core.backend.ExtendedElementWalk}. */
        private final int[] code;
        /**
         * For (e, f) with a neighbour, where each of e's axes x goes in the neighbour: {@code frame[6e+f][x] = 2 x' + s}
         * with x' the neighbour's axis and s = 1 for the same sense, 0 for the opposite (for the face's normal axis: a
         * step out of e is a step into the neighbour).
         */
        private final int[][] frame;

        Builder(SpectralElementMesh mesh) {
            this.mesh = mesh;
            this.n = mesh.degree();
            this.nq = n + 1;
            this.np = nq * nq * nq;
            this.elements = mesh.elementCount();
            this.neighbour = new int[6 * elements];
            this.faceMap = new int[6 * elements][];
            this.frame = new int[6 * elements][];
            this.code = new int[6 * elements];
        }

        /**
         * With the map of all points ({@code withMap}), or the faces only (no face-node maps, no E (N+3)^3 array); with
         * {@code shared}, the face codes of an earlier build on the same hexahedral mesh and the face centroids once per
         * face ({@link #sharedFaceLengths}).
         */
        ExtendedElements build(boolean withMap, boolean shared) {
            findNeighbours();
            int chunks = (elements + CHUNK - 1) / CHUNK;
            int[] known = withMap || !shared ? null : FACE_CODES.get(mesh.hexMesh());
            if (known != null) {
                // the face codes come from the corners alone, so every degree of this hexahedral mesh has the same
                System.arraycopy(known, 0, code, 0, code.length);
            } else {
                // face maps first (read-only afterwards, so the walks below may run in parallel)
                IntStream.range(0, chunks).parallel().forEach(c -> {
                    for (int e = c * CHUNK, end = Math.min(elements, (c + 1) * CHUNK); e < end; e++) {
                        for (int f = 0; f < 6; f++) {
                            if (neighbour[6 * e + f] >= 0) {
                                faceMap[6 * e + f] = buildFaceMap(e, f, withMap); // and frame[6 e + f], code[6 e + f]
                            }
                        }
                    }
                });
                FACE_CODES.put(mesh.hexMesh(), code.clone());
            }
            double[] length = shared ? sharedFaceLengths(chunks) : meanLengths(chunks);
            double[] nbLength = new double[6 * elements];
            for (int e = 0; e < elements; e++) {
                for (int f = 0; f < 6; f++) {
                    int nb = neighbour[6 * e + f];
                    nbLength[6 * e + f] = nb < 0 ? 0 : length[3 * (nb / 6) + (nb % 6) / 2];
                }
            }
            if (!withMap) {
                return new ExtendedElements(mesh, null, neighbour, code, nbLength, length);
            }
            int ne = n + 3;
            int ne3 = ne * ne * ne;
            int missing = mesh.globalNodeCount();
            int[] ext = new int[Math.multiplyExact(elements, ne3)];
            IntStream.range(0, chunks).parallel().forEach(c -> {
                int[] p = new int[3];
                int[] w = new int[9];
                for (int e = c * CHUNK, end = Math.min(elements, (c + 1) * CHUNK); e < end; e++) {
                    fillElement(e, ext, e * ne3, missing, p, w);
                }
            });
            return new ExtendedElements(mesh, ext, neighbour, code, nbLength, length);
        }

        /**
         * The extended points of element e into {@code ext[off..off+n^3)}: its own nodes directly, the points one
         * step beyond a face through that face's map, and only the edge and corner points (12 (N+1) + 8 of them) by
         * the general walk.
         */
        private void fillElement(int e, int[] ext, int off, int missing, int[] p, int[] w) {
            int ne = n + 3;
            for (int k = -1; k <= n + 1; k++) {
                int ok = k < 0 || k > n ? 1 : 0;
                for (int j = -1; j <= n + 1; j++) {
                    int oj = j < 0 || j > n ? 1 : 0;
                    int row = off + ne * ((j + 1) + ne * (k + 1));
                    for (int i = -1; i <= n + 1; i++) {
                        int outside = ok + oj + (i < 0 || i > n ? 1 : 0);
                        int local;
                        if (outside == 0) {
                            local = e * np + i + nq * (j + nq * k);
                        } else {
                            p[0] = i;
                            p[1] = j;
                            p[2] = k;
                            local = outside == 1 ? acrossFace(e, p) : walk(e, p, w);
                        }
                        ext[row + i + 1] = local < 0 ? missing : mesh.globalId(local / np, local % np);
                    }
                }
            }
        }

        /** The local index of the extended point {@code p} with exactly one coordinate outside 0..N, or -1. */
        private int acrossFace(int e, int[] p) {
            int d = p[0] < 0 || p[0] > n ? 0 : p[1] < 0 || p[1] > n ? 1 : 2;
            int f = 2 * d + (p[d] > n ? 1 : 0);
            int nb = neighbour[6 * e + f];
            if (nb < 0) {
                return -1;
            }
            int e2 = nb / 6, f2 = nb % 6;
            int l2 = faceMap[6 * e + f][p[otherAxis(d, 0)] + nq * p[otherAxis(d, 1)]];
            int stride = f2 / 2 == 0 ? 1 : f2 / 2 == 1 ? nq : nq * nq;
            return e2 * np + l2 + (f2 % 2 == 0 ? stride : -stride);
        }

        /**
         * Mean lengths [E][3], elements in parallel: the face centroids from the element geometry at the face nodes
         * only where the mesh describes one (no E Np array of node positions is made), else from the mesh's nodes.
         */
        private double[] meanLengths(int chunks) {
            double[] length = new double[3 * elements];
            int[] faceNodes = new int[6 * nq * nq];
            for (int f = 0; f < 6; f++) {
                int base = f * nq * nq;
                forFaceNodes(f, (u, v, l) -> faceNodes[base + u + nq * v] = l);
            }
            java.util.Optional<ElementGeometry> geometry = mesh.elementGeometry();
            double[] phi;
            int nc;
            if (geometry.isPresent()) {
                nc = geometry.get().nodesPerElement();
                double[] all = geometry.get().shapes(mesh.basis());
                phi = new double[nc * faceNodes.length];
                for (int q = 0; q < faceNodes.length; q++) {
                    System.arraycopy(all, nc * faceNodes[q], phi, nc * q, nc);
                }
            } else {
                phi = null;
                nc = 0;
            }
            IntStream.range(0, chunks).parallel().forEach(c -> {
                double[] x = new double[3 * faceNodes.length];
                for (int e = c * CHUNK, end = Math.min(elements, (c + 1) * CHUNK); e < end; e++) {
                    if (phi != null) {
                        geometry.get().positions(e, phi, x);
                    } else {
                        for (int q = 0; q < faceNodes.length; q++) {
                            for (int a = 0; a < 3; a++) {
                                x[3 * q + a] = mesh.x(e, faceNodes[q], a);
                            }
                        }
                    }
                    for (int d = 0; d < 3; d++) {
                        length[3 * e + d] = centroidDistance(x, 2 * d, 2 * d + 1);
                    }
                }
            });
            return length;
        }

        /**
         * The mean lengths of {@link #meanLengths} with each face centroid computed once: a face shared by two elements
         * by the one whose (6 e + f) is smaller (the other copies it), so the element geometry is evaluated at about
         * half the face nodes. The centroid is the plain mean of the face's nodes in its owner's order, so a length can
         * differ from {@link #meanLengths}' in its last bits (there the difference of the two face sums is divided once).
         */
        private double[] sharedFaceLengths(int chunks) {
            int m = nq * nq;
            int[][] faceNodes = new int[6][m];
            for (int f = 0; f < 6; f++) {
                int[] nodes = faceNodes[f];
                forFaceNodes(f, (u, v, l) -> nodes[u + nq * v] = l);
            }
            java.util.Optional<ElementGeometry> geometry = mesh.elementGeometry();
            double[][] phi = new double[6][];
            if (geometry.isPresent()) {
                int nc = geometry.get().nodesPerElement();
                double[] all = geometry.get().shapes(mesh.basis());
                for (int f = 0; f < 6; f++) {
                    phi[f] = new double[nc * m];
                    for (int q = 0; q < m; q++) {
                        System.arraycopy(all, nc * faceNodes[f][q], phi[f], nc * q, nc);
                    }
                }
            }
            double[] centroid = new double[18 * elements];
            IntStream.range(0, chunks).parallel().forEach(c -> {
                double[] x = new double[3 * m];
                for (int e = c * CHUNK, end = Math.min(elements, (c + 1) * CHUNK); e < end; e++) {
                    for (int f = 0; f < 6; f++) {
                        int nb = neighbour[6 * e + f];
                        if (nb >= 0 && nb < 6 * e + f) {
                            continue; // the neighbour's
                        }
                        if (geometry.isPresent()) {
                            geometry.get().positions(e, phi[f], x);
                        } else {
                            for (int q = 0; q < m; q++) {
                                for (int a = 0; a < 3; a++) {
                                    x[3 * q + a] = mesh.x(e, faceNodes[f][q], a);
                                }
                            }
                        }
                        for (int a = 0; a < 3; a++) {
                            double sum = 0;
                            for (int q = 0; q < m; q++) {
                                sum += x[3 * q + a];
                            }
                            centroid[3 * (6 * e + f) + a] = sum / m;
                        }
                    }
                }
            });
            double[] length = new double[3 * elements];
            IntStream.range(0, chunks).parallel().forEach(c -> {
                for (int e = c * CHUNK, end = Math.min(elements, (c + 1) * CHUNK); e < end; e++) {
                    for (int d = 0; d < 3; d++) {
                        int lo = face(centroid, 6 * e + 2 * d), hi = face(centroid, 6 * e + 2 * d + 1);
                        double s = 0;
                        for (int a = 0; a < 3; a++) {
                            double dx = centroid[hi + a] - centroid[lo + a];
                            s += dx * dx;
                        }
                        length[3 * e + d] = Math.sqrt(s);
                    }
                }
            });
            return length;
        }

        /** Where face {@code ef} = 6 e + f's centroid is in {@code centroid}: its own slot, or its owner's. */
        private int face(double[] centroid, int ef) {
            int nb = neighbour[ef];
            return 3 * (nb >= 0 && nb < ef ? nb : ef);
        }

        /** The distance between the centroids (plain means of the nodes) of faces f and g in {@code x} ([6][nq^2][3]). */
        private double centroidDistance(double[] x, int f, int g) {
            int m = nq * nq;
            double s = 0;
            for (int a = 0; a < 3; a++) {
                double lo = 0, hi = 0;
                for (int q = 0; q < m; q++) {
                    lo += x[3 * (f * m + q) + a];
                    hi += x[3 * (g * m + q) + a];
                }
                double dx = (hi - lo) / m;
                s += dx * dx;
            }
            return Math.sqrt(s);
        }

        private int corner(int e, int f, int u, int v) {
            int d = f / 2;
            int fixed = (f % 2) * n;
            int[] c = new int[3];
            c[d] = fixed;
            c[otherAxis(d, 0)] = u * n;
            c[otherAxis(d, 1)] = v * n;
            return mesh.globalId(e, c[0] + nq * (c[1] + nq * c[2]));
        }

        /** The {@code which}-th (0 or 1) axis other than d, in increasing order. */
        private static int otherAxis(int d, int which) {
            return switch (d) {
                case 0 -> which == 0 ? 1 : 2;
                case 1 -> which == 0 ? 0 : 2;
                default -> which == 0 ? 0 : 1;
            };
        }

        /**
         * The face neighbours from the mesh's degree-independent numbering ({@link SpectralElementMesh#faceNeighbours},
         * made once per mesh), checked against this degree's corner ids: the walk's face maps need them to agree.
         */
        private void findNeighbours() {
            int[] nb = mesh.faceNeighbours();
            System.arraycopy(nb, 0, neighbour, 0, nb.length);
        }

        /** The global node id of corner c = u + 2 v (u, v in {0, 1}, in-face coordinates) of face f of element e. */
        private int cornerId(int e, int f, int c) {
            return corner(e, f, c & 1, c >> 1);
        }

        /**
         * For face f of e (with a neighbour), the neighbour's local index of each face node, indexed u + nq v: the
         * orientation from the shared corners, then every node checked against the neighbour's; with {@code nodes}
         * false only the orientation (frame and code), and null.
         */
        private int[] buildFaceMap(int e, int f, boolean nodes) {
            int nb = neighbour[6 * e + f];
            int e2 = nb / 6, f2 = nb % 6;
            // where e's face corners (0,0), (1,0), (0,1) sit on the neighbour's face, as bits u2 + 2 v2
            int[] at = new int[3];
            for (int c = 0; c < 3; c++) {
                int id = cornerId(e, f, c);
                at[c] = -1;
                for (int c2 = 0; c2 < 4; c2++) {
                    if (cornerId(e2, f2, c2) == id) {
                        at[c] = c2;
                    }
                }
                if (at[c] < 0) {
                    throw new IllegalArgumentException("mesh is not conforming: element " + e + " face " + f
                            + " shares its corners with element " + e2 + " face " + f2 + " but not its corner node " + id);
                }
            }
            int u0 = at[0] & 1, v0 = at[0] >> 1;
            int du1 = (at[1] & 1) - u0, dv1 = (at[1] >> 1) - v0;
            int du2 = (at[2] & 1) - u0, dv2 = (at[2] >> 1) - v0;
            int d2 = f2 / 2, a2 = otherAxis(d2, 0), b2 = otherAxis(d2, 1);
            int d = f / 2;
            int[] t = new int[3];
            int normalSign = (f % 2 == 1 ? 1 : -1) * (f2 % 2 == 0 ? 1 : -1);
            t[d] = 2 * d2 + (normalSign > 0 ? 1 : 0);
            t[otherAxis(d, 0)] = du1 != 0 ? 2 * a2 + (du1 > 0 ? 1 : 0) : 2 * b2 + (dv1 > 0 ? 1 : 0);
            t[otherAxis(d, 1)] = du2 != 0 ? 2 * a2 + (du2 > 0 ? 1 : 0) : 2 * b2 + (dv2 > 0 ? 1 : 0);
            frame[6 * e + f] = t;
            code[6 * e + f] = io.lobatto.core.backend.ExtendedElementWalk.code(u0, v0, du1, dv1, du2, dv2, t[0], t[1], t[2]);
            if (!nodes) {
                return null;
            }
            int[] c2 = new int[3];
            c2[d2] = (f2 % 2) * n;
            int[] out = new int[nq * nq];
            forFaceNodes(f, (u, v, l) -> {
                c2[a2] = n * u0 + du1 * u + du2 * v;
                c2[b2] = n * v0 + dv1 * u + dv2 * v;
                int l2 = c2[0] + nq * (c2[1] + nq * c2[2]);
                if (mesh.globalId(e, l) != mesh.globalId(e2, l2)) {
                    throw new IllegalArgumentException("mesh is not conforming: element " + e + " face " + f
                            + " shares its corners with element " + e2 + " face " + f2 + " but not its node " + l);
                }
                out[u + nq * v] = l2;
            });
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

        /**
         * The local index (e' np + node) of the extended point {@code ext} (coordinates -1..N+1 in e's frame), or -1
         * where the walk leaves the mesh: one face crossing per coordinate outside 0..N, each through the face's node
         * map and frame ({@link #frame}). {@code w} is scratch of 9 ints.
         */
        private int walk(int e, int[] ext, int[] w) {
            int elem = e;
            // w[0..2]: the point in elem's frame; w[3..5]: e's direction d is elem's axis w[3+d] with sign w[6+d]
            for (int d = 0; d < 3; d++) {
                w[d] = clamp(ext[d]);
                w[3 + d] = d;
                w[6 + d] = 1;
            }
            for (int d = 0; d < 3; d++) {
                int s = ext[d] < 0 ? -1 : ext[d] > n ? 1 : 0;
                if (s == 0) {
                    continue;
                }
                int a = w[3 + d];
                int out = w[6 + d] * s; // the step in elem's frame: axis a, sign out
                int to = w[a] + out;
                if (to >= 0 && to <= n) {
                    w[a] = to;
                    continue;
                }
                int f = 2 * a + (out > 0 ? 1 : 0);
                int nb = neighbour[6 * elem + f];
                if (nb < 0) {
                    return -1;
                }
                int e2 = nb / 6, f2 = nb % 6;
                int l2 = faceMap[6 * elem + f][w[otherAxis(a, 0)] + nq * w[otherAxis(a, 1)]];
                int[] t = frame[6 * elem + f];
                w[0] = l2 % nq;
                w[1] = (l2 / nq) % nq;
                w[2] = l2 / (nq * nq);
                w[f2 / 2] += f2 % 2 == 0 ? 1 : -1;
                for (int u = 0; u < 3; u++) {
                    int x = w[3 + u];
                    w[3 + u] = t[x] >> 1;
                    w[6 + u] *= (t[x] & 1) == 1 ? 1 : -1;
                }
                elem = e2;
            }
            return elem * np + w[0] + nq * (w[1] + nq * w[2]);
        }

        private int clamp(int v) {
            return Math.max(0, Math.min(n, v));
        }
    }
}
