package io.lobatto.core.mesh;

/**
 * Topology of the reference hexahedron [-1,1]^3 with coordinates (r, s, t), shared by {@link HexMesh},
 * {@link SpectralElementMesh} and readers.
 *
 * <p>Corners are in Gmsh order for the 8-node hexahedron: 0(-,-,-) 1(+,-,-) 2(+,+,-) 3(-,+,-)
 * 4(-,-,+) 5(+,-,+) 6(+,+,+) 7(-,+,+). Faces: 0: r=-1, 1: r=+1, 2: s=-1, 3: s=+1, 4: t=-1, 5: t=+1,
 * i.e. face {@code 2*axis + side}. Each face has in-face coordinates (u, v), the two remaining reference
 * axes in increasing order (face 0/1: (s,t); 2/3: (r,t); 4/5: (r,s)); {@link #faceCorner(int, int)}
 * lists its corners in the order (u,v) = (0,0), (1,0), (1,1), (0,1), a cycle around the face.
 */
public final class HexReference {

    /** Corners of a hexahedron. */
    public static final int CORNERS = 8;
    /** Faces of a hexahedron. */
    public static final int FACES = 6;
    /** Edges of a hexahedron. */
    public static final int EDGES = 12;

    /** CORNER_BITS[k][axis] = 0 for the -1 side, 1 for the +1 side. */
    private static final int[][] CORNER_BITS = {
        {0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    /** BITS_TO_CORNER[br + 2 bs + 4 bt] = Gmsh corner index. */
    private static final int[] BITS_TO_CORNER = {0, 1, 3, 2, 4, 5, 7, 6};
    private static final int[][] FACE_CORNERS = {
        {0, 3, 7, 4}, {1, 2, 6, 5}, {0, 1, 5, 4}, {3, 2, 6, 7}, {0, 1, 2, 3}, {4, 5, 6, 7}};

    private HexReference() {
    }

    /** 0 if corner {@code k} lies on the -1 side of reference axis {@code axis} (0=r, 1=s, 2=t), 1 if on +1. */
    public static int cornerBit(int k, int axis) {
        return CORNER_BITS[k][axis];
    }

    /** The corner with the given side bits (0 = -1, 1 = +1) per axis. */
    public static int cornerOf(int br, int bs, int bt) {
        return BITS_TO_CORNER[br + 2 * bs + 4 * bt];
    }

    /** The m-th corner (m = 0..3, cyclic order (u,v) = (0,0),(1,0),(1,1),(0,1)) of face f. */
    public static int faceCorner(int f, int m) {
        return FACE_CORNERS[f][m];
    }

    /** The reference axis (0=r, 1=s, 2=t) normal to face f. */
    public static int faceAxis(int f) {
        return f / 2;
    }

    /** 0 if face f lies at -1 of its axis, 1 if at +1. */
    public static int faceSide(int f) {
        return f % 2;
    }

    /** The reference axis of the in-face coordinate u (c = 0) or v (c = 1) of face f. */
    public static int faceTangentAxis(int f, int c) {
        int a = faceAxis(f);
        int first = a == 0 ? 1 : 0;
        int second = a == 2 ? 1 : 2;
        return c == 0 ? first : second;
    }

    /**
     * Edge index for the edge along reference axis {@code axis} whose other two axes (in increasing order)
     * sit at sides {@code b1}, {@code b2}: {@code 4*axis + b1 + 2*b2}.
     */
    public static int edgeIndex(int axis, int b1, int b2) {
        return 4 * axis + b1 + 2 * b2;
    }

    /** The corner at the start (c = 0, reference coordinate -1) or end (c = 1) of edge {@code edge}. */
    public static int edgeCorner(int edge, int c) {
        int axis = edge / 4;
        int b1 = edge % 2;
        int b2 = (edge / 2) % 2;
        int[] bits = new int[3];
        bits[axis] = c;
        bits[axis == 0 ? 1 : 0] = b1;
        bits[axis == 2 ? 1 : 2] = b2;
        return cornerOf(bits[0], bits[1], bits[2]);
    }

    /**
     * Local node indices {@code i + Nq*(j + Nq*k)} of the (N+1)^2 GLL nodes on face f of an element of degree
     * N, in the face's (u, v) order with u fastest.
     */
    public static int[] faceNodes(int degree, int f) {
        int nq = degree + 1;
        int[] out = new int[nq * nq];
        int a = faceAxis(f);
        int fixed = faceSide(f) * degree;
        int au = faceTangentAxis(f, 0);
        int av = faceTangentAxis(f, 1);
        int[] ijk = new int[3];
        for (int v = 0; v < nq; v++) {
            for (int u = 0; u < nq; u++) {
                ijk[a] = fixed;
                ijk[au] = u;
                ijk[av] = v;
                out[u + nq * v] = ijk[0] + nq * (ijk[1] + nq * ijk[2]);
            }
        }
        return out;
    }

    /**
     * The 24 rotations of the cube as corner permutations {@code p}: renumbering an element's vertices by
     * {@code new[k] = old[p[k]]} describes the same element with a rotated (still right-handed) local frame.
     * The first entry is the identity.
     */
    public static int[][] cubeRotations() {
        int[][] out = new int[24][];
        int n = 0;
        int[][] axisPerms = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
        for (int[] ap : axisPerms) {
            for (int signs = 0; signs < 8; signs++) {
                // A maps e_a to sign_a * e_{ap[a]}
                int[][] a = new int[3][3];
                for (int c = 0; c < 3; c++) {
                    a[ap[c]][c] = ((signs >> c) & 1) == 0 ? 1 : -1;
                }
                if (det(a) != 1) {
                    continue;
                }
                int[] p = new int[CORNERS];
                for (int k = 0; k < CORNERS; k++) {
                    int[] s = new int[3];
                    for (int c = 0; c < 3; c++) {
                        s[c] = 2 * CORNER_BITS[k][c] - 1;
                    }
                    int[] bits = new int[3];
                    for (int row = 0; row < 3; row++) {
                        int v = a[row][0] * s[0] + a[row][1] * s[1] + a[row][2] * s[2];
                        bits[row] = (v + 1) / 2;
                    }
                    p[k] = cornerOf(bits[0], bits[1], bits[2]);
                }
                out[n++] = p;
            }
        }
        return out;
    }

    static int det(int[][] a) {
        return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
             - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
             + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    }
}
