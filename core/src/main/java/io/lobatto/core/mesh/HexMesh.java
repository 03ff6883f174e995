package io.lobatto.core.mesh;

import java.util.Arrays;
import java.util.Collections;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * An unstructured, conforming mesh of 8-node (trilinear) hexahedra: vertex coordinates, per element its 8
 * vertex ids in Gmsh order (see {@link HexReference}) and per element and face a boundary tag (0 = untagged;
 * faces ordered r=-1, r=+1, s=-1, s=+1, t=-1, t=+1). Immutable: arrays are copied in and out.
 *
 * <p>Layouts: {@code vertices} is [nv][3] flattened, {@code elements} [E][8], {@code faceTags} [E][6].
 */
public final class HexMesh {

    /** Tag of the faces at x = x0 in {@link #box}. */
    public static final int TAG_XMIN = 1;
    /** Tag of the faces at x = x1 in {@link #box}. */
    public static final int TAG_XMAX = 2;
    /** Tag of the faces at y = y0 in {@link #box}. */
    public static final int TAG_YMIN = 3;
    /** Tag of the faces at y = y1 in {@link #box}. */
    public static final int TAG_YMAX = 4;
    /** Tag of the faces at z = z0 in {@link #box}. */
    public static final int TAG_ZMIN = 5;
    /** Tag of the faces at z = z1 in {@link #box}. */
    public static final int TAG_ZMAX = 6;

    /**
     * The shape of a structured box made by {@link HexMesh#box}: nx x ny x nz elements over [x0,x1] x [y0,y1] x [z0,z1],
     * element (a,b,c) numbered a + nx(b + ny c) with its reference frame along x, y, z. What geometric h-coarsening needs
     * to build the next coarser box ({@link #coarsened()}) and to relate the two numberings.
     */
    public record Box(int nx, int ny, int nz, double x0, double x1, double y0, double y1, double z0, double z1) {
        /** True when every side has an even element count (the box can be coarsened by 2 in each direction). */
        public boolean evenSides() {
            return nx % 2 == 0 && ny % 2 == 0 && nz % 2 == 0;
        }

        /** The box of nx/2 x ny/2 x nz/2 elements over the same bounds. */
        public Box coarsened() {
            if (!evenSides()) {
                throw new IllegalArgumentException("box " + nx + " x " + ny + " x " + nz + ": every side must have an even element"
                    + " count to coarsen by 2");
            }
            return new Box(nx / 2, ny / 2, nz / 2, x0, x1, y0, y1, z0, z1);
        }

        /** The mesh of this box ({@link HexMesh#box}), which remembers it. */
        public HexMesh mesh() {
            return HexMesh.box(nx, ny, nz, x0, x1, y0, y1, z0, z1);
        }
    }

    private final double[] vertices;
    private final int[] elements;
    private final int[] faceTags;
    /** The structured box this mesh was made as by {@link #box}, else null (read, permuted or rotated meshes). */
    private final Box box;

    /**
     * @param vertices [nv][3] coordinates, flattened
     * @param elements [E][8] vertex ids in Gmsh order, flattened
     * @param faceTags [E][6] face tags (>= 0; 0 = untagged), flattened
     * @throws IllegalArgumentException on a length that is not a multiple of 3 / 8, {@code faceTags.length != 6E},
     *     a non-finite coordinate, a vertex id out of range, a repeated vertex within an element or a negative tag
     */
    public HexMesh(double[] vertices, int[] elements, int[] faceTags) {
        if (vertices == null || elements == null || faceTags == null) {
            throw new IllegalArgumentException("vertices, elements and faceTags must not be null");
        }
        if (vertices.length % 3 != 0) {
            throw new IllegalArgumentException("vertices.length = " + vertices.length + " is not a multiple of 3 ([nv][3] flattened)");
        }
        if (elements.length % HexReference.CORNERS != 0) {
            throw new IllegalArgumentException("elements.length = " + elements.length + " is not a multiple of 8 ([E][8] flattened)");
        }
        int ne = elements.length / HexReference.CORNERS;
        if ((long) faceTags.length != (long) ne * HexReference.FACES) {
            throw new IllegalArgumentException("faceTags.length = " + faceTags.length + " but " + ne + " elements need 6 * " + ne + " = "
                + (long) ne * HexReference.FACES + " ([E][6] flattened)");
        }
        int nv = vertices.length / 3;
        for (int v = 0; v < nv; v++) {
            for (int d = 0; d < 3; d++) {
                if (!Double.isFinite(vertices[3 * v + d])) {
                    throw new IllegalArgumentException("vertex " + v + " has a non-finite coordinate " + d + ": " + vertices[3 * v + d]);
                }
            }
        }
        for (int e = 0; e < ne; e++) {
            for (int k = 0; k < HexReference.CORNERS; k++) {
                int id = elements[8 * e + k];
                if (id < 0 || id >= nv) {
                    throw new IllegalArgumentException("element " + e + ": vertex id " + id + " (corner " + k + ") is out of range [0, " + nv + ")");
                }
                for (int m = 0; m < k; m++) {
                    if (elements[8 * e + m] == id) {
                        throw new IllegalArgumentException("element " + e + ": vertex " + id + " appears twice (corners " + m + " and " + k
                            + "); the 8 vertices of a hexahedron must be distinct");
                    }
                }
            }
            for (int f = 0; f < HexReference.FACES; f++) {
                if (faceTags[6 * e + f] < 0) {
                    throw new IllegalArgumentException("element " + e + ": face " + f + " has negative tag " + faceTags[6 * e + f] + " (0 = untagged)");
                }
            }
        }
        this.vertices = vertices.clone();
        this.elements = elements.clone();
        this.faceTags = faceTags.clone();
        this.box = null;
    }

    /**
     * A structured nx x ny x nz box [x0,x1] x [y0,y1] x [z0,z1] with boundary tags {@link #TAG_XMIN}..{@link #TAG_ZMAX}.
     * Vertex (a,b,c) has id a + (nx+1)(b + (ny+1)c); element (a,b,c) has id a + nx(b + ny c); every element has the
     * reference frame aligned with x, y, z. The mesh remembers the box ({@link #structuredBox()}).
     */
    public static HexMesh box(int nx, int ny, int nz, double x0, double x1, double y0, double y1, double z0, double z1) {
        if (nx < 1 || ny < 1 || nz < 1) {
            throw new IllegalArgumentException("box needs nx, ny, nz >= 1, got " + nx + ", " + ny + ", " + nz);
        }
        if (!(x1 > x0) || !(y1 > y0) || !(z1 > z0)) {
            throw new IllegalArgumentException("box needs x0 < x1, y0 < y1, z0 < z1, got [" + x0 + ", " + x1 + "] x [" + y0 + ", " + y1
                + "] x [" + z0 + ", " + z1 + "]");
        }
        long nvLong = (long) (nx + 1) * (ny + 1) * (nz + 1);
        long neLong = (long) nx * ny * nz;
        if (3 * nvLong > Integer.MAX_VALUE - 8 || 8 * neLong > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("box " + nx + " x " + ny + " x " + nz + " exceeds the int (2^31) array limits");
        }
        int vx = nx + 1, vy = ny + 1;
        double[] vert = new double[(int) (3 * nvLong)];
        for (int c = 0; c <= nz; c++) {
            for (int b = 0; b <= ny; b++) {
                for (int a = 0; a <= nx; a++) {
                    int v = a + vx * (b + vy * c);
                    // endpoints exact, interior points by linear interpolation
                    vert[3 * v] = a == nx ? x1 : x0 + (x1 - x0) * a / nx;
                    vert[3 * v + 1] = b == ny ? y1 : y0 + (y1 - y0) * b / ny;
                    vert[3 * v + 2] = c == nz ? z1 : z0 + (z1 - z0) * c / nz;
                }
            }
        }
        int ne = (int) neLong;
        int[] elem = new int[8 * ne];
        int[] tags = new int[6 * ne];
        for (int c = 0; c < nz; c++) {
            for (int b = 0; b < ny; b++) {
                for (int a = 0; a < nx; a++) {
                    int e = a + nx * (b + ny * c);
                    for (int k = 0; k < 8; k++) {
                        int aa = a + HexReference.cornerBit(k, 0);
                        int bb = b + HexReference.cornerBit(k, 1);
                        int cc = c + HexReference.cornerBit(k, 2);
                        elem[8 * e + k] = aa + vx * (bb + vy * cc);
                    }
                    tags[6 * e] = a == 0 ? TAG_XMIN : 0;
                    tags[6 * e + 1] = a == nx - 1 ? TAG_XMAX : 0;
                    tags[6 * e + 2] = b == 0 ? TAG_YMIN : 0;
                    tags[6 * e + 3] = b == ny - 1 ? TAG_YMAX : 0;
                    tags[6 * e + 4] = c == 0 ? TAG_ZMIN : 0;
                    tags[6 * e + 5] = c == nz - 1 ? TAG_ZMAX : 0;
                }
            }
        }
        return new HexMesh(vert, elem, tags, new Box(nx, ny, nz, x0, x1, y0, y1, z0, z1));
    }

    /** Trusted constructor: takes ownership of the arrays (already validated); {@code box} as {@link #box} made it, or null. */
    private HexMesh(double[] vertices, int[] elements, int[] faceTags, Box box) {
        this.vertices = vertices;
        this.elements = elements;
        this.faceTags = faceTags;
        this.box = box;
    }

    /**
     * The structured box this mesh is, when {@link #box} made it (its element numbering and frames as {@link Box} says);
     * empty for any other mesh, a permuted or rotated box included.
     */
    public java.util.Optional<Box> structuredBox() {
        return java.util.Optional.ofNullable(box);
    }

    /** E, the number of hexahedra. */
    public int elementCount() {
        return elements.length / HexReference.CORNERS;
    }

    /** Number of vertices (including any not referenced by an element). */
    public int vertexCount() {
        return vertices.length / 3;
    }

    /** Copy of the coordinates, [nv][3] flattened. */
    public double[] vertices() {
        return vertices.clone();
    }

    /** Copy of the element-to-vertex table, [E][8] flattened, Gmsh corner order. */
    public int[] elements() {
        return elements.clone();
    }

    /** Copy of the face tags, [E][6] flattened. */
    public int[] faceTags() {
        return faceTags.clone();
    }

    /** Coordinate {@code d} (0..2) of vertex {@code v}. */
    public double vertex(int v, int d) {
        if (d < 0 || d > 2) {
            throw new IndexOutOfBoundsException("coordinate " + d + " is not in [0, 3)");
        }
        return vertices[3 * checkIndex(v, vertexCount(), "vertex") + d];
    }

    /** The vertex id at corner {@code k} (0..7, Gmsh order) of element {@code e}. */
    public int elementVertex(int e, int k) {
        if (k < 0 || k >= 8) {
            throw new IndexOutOfBoundsException("corner " + k + " is not in [0, 8)");
        }
        return elements[8 * checkIndex(e, elementCount(), "element") + k];
    }

    /** The tag of face {@code f} (0..5) of element {@code e}; 0 = untagged. */
    public int faceTag(int e, int f) {
        if (f < 0 || f >= 6) {
            throw new IndexOutOfBoundsException("face " + f + " is not in [0, 6)");
        }
        return faceTags[6 * checkIndex(e, elementCount(), "element") + f];
    }

    /** The distinct non-zero face tags, ascending (unmodifiable). */
    public SortedSet<Integer> tags() {
        TreeSet<Integer> s = new TreeSet<>();
        for (int t : faceTags) {
            if (t != 0) {
                s.add(t);
            }
        }
        return Collections.unmodifiableSortedSet(s);
    }

    /**
     * The same mesh with its elements reordered: element i of the result is element {@code perm[i]} of this one.
     *
     * @throws IllegalArgumentException unless {@code perm} is a permutation of 0..E-1
     */
    public HexMesh permuteElements(int[] perm) {
        int ne = elementCount();
        if (perm == null || perm.length != ne) {
            throw new IllegalArgumentException("perm has length " + (perm == null ? "null" : perm.length) + ", expected " + ne);
        }
        boolean[] seen = new boolean[ne];
        int[] elem = new int[elements.length];
        int[] tags = new int[faceTags.length];
        for (int i = 0; i < ne; i++) {
            int p = perm[i];
            if (p < 0 || p >= ne || seen[p]) {
                throw new IllegalArgumentException("perm is not a permutation of 0.." + (ne - 1) + ": perm[" + i + "] = " + p
                    + (p >= 0 && p < ne ? " repeats" : " is out of range"));
            }
            seen[p] = true;
            System.arraycopy(elements, 8 * p, elem, 8 * i, 8);
            System.arraycopy(faceTags, 6 * p, tags, 6 * i, 6);
        }
        return new HexMesh(vertices, elem, tags, null);
    }

    /**
     * The same mesh with element {@code e} described in a rotated local frame: its new corner k is its old corner
     * {@code corners[k]}; face tags follow their faces. The geometry is unchanged.
     *
     * @param corners a rotation of the cube as a corner permutation (e.g. from {@link HexReference#cubeRotations()})
     * @throws IllegalArgumentException if {@code corners} is not a symmetry of the cube, or is a reflection (which
     *     would turn the element inside out)
     */
    public HexMesh rotateElementVertices(int e, int[] corners) {
        checkIndex(e, elementCount(), "element");
        if (corners == null || corners.length != 8) {
            throw new IllegalArgumentException("corners must have length 8");
        }
        int seen = 0;
        for (int c : corners) {
            if (c < 0 || c >= 8 || (seen & (1 << c)) != 0) {
                throw new IllegalArgumentException("corners " + Arrays.toString(corners) + " is not a permutation of 0..7");
            }
            seen |= 1 << c;
        }
        int[] newTags = new int[6];
        for (int f = 0; f < 6; f++) {
            int mask = 0;
            for (int m = 0; m < 4; m++) {
                mask |= 1 << corners[HexReference.faceCorner(f, m)];
            }
            int old = -1;
            for (int g = 0; g < 6; g++) {
                int gm = 0;
                for (int m = 0; m < 4; m++) {
                    gm |= 1 << HexReference.faceCorner(g, m);
                }
                if (gm == mask) {
                    old = g;
                }
            }
            if (old < 0) {
                throw new IllegalArgumentException("corners " + Arrays.toString(corners) + " is not a symmetry of the cube (face " + f
                    + " is not mapped to a face)");
            }
            newTags[f] = faceTags[6 * e + old];
        }
        int[][] a = new int[3][3];
        for (int axis = 0; axis < 3; axis++) {
            int unit = HexReference.cornerOf(axis == 0 ? 1 : 0, axis == 1 ? 1 : 0, axis == 2 ? 1 : 0);
            for (int row = 0; row < 3; row++) {
                a[row][axis] = HexReference.cornerBit(corners[unit], row) - HexReference.cornerBit(corners[0], row);
            }
        }
        if (HexReference.det(a) != 1) {
            throw new IllegalArgumentException("corners " + Arrays.toString(corners) + " is a reflection of the cube; it would invert element " + e);
        }
        int[] elem = elements.clone();
        int[] tags = faceTags.clone();
        for (int k = 0; k < 8; k++) {
            elem[8 * e + k] = elements[8 * e + corners[k]];
        }
        System.arraycopy(newTags, 0, tags, 6 * e, 6);
        return new HexMesh(vertices, elem, tags, null);
    }

    @Override
    public String toString() {
        return "HexMesh[" + elementCount() + " elements, " + vertexCount() + " vertices, tags " + tags() + "]";
    }

    private static int checkIndex(int i, int n, String what) {
        if (i < 0 || i >= n) {
            throw new IndexOutOfBoundsException(what + " " + i + " is not in [0, " + n + ")");
        }
        return i;
    }
}
