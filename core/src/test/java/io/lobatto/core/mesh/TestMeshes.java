package io.lobatto.core.mesh;

import java.util.Random;

/** Mesh builders shared by the mesh and geometry tests. */
public final class TestMeshes {

    private TestMeshes() {
    }

    /**
     * The box mesh with every element's local frame replaced by a random rotation of the cube and the vertex ids
     * randomly relabelled: geometrically the same mesh, topologically "unstructured".
     */
    public static HexMesh scrambled(HexMesh box, long seed) {
        Random rnd = new Random(seed);
        int[][] rot = HexReference.cubeRotations();
        HexMesh m = box;
        for (int e = 0; e < m.elementCount(); e++) {
            m = m.rotateElementVertices(e, rot[rnd.nextInt(rot.length)]);
        }
        return relabelVertices(m, rnd);
    }

    /** A non-conforming mesh: three elements stacked on the same face (vertices 0..3 shared by all three). */
    public static HexMesh faceSharedByThree() {
        double[] v = new double[3 * 16];
        for (int i = 0; i < 16; i++) {
            v[3 * i] = i % 2;
            v[3 * i + 1] = (i / 2) % 2;
            v[3 * i + 2] = i / 4;
        }
        int[] el = {0, 1, 3, 2, 4, 5, 7, 6, 0, 1, 3, 2, 8, 9, 11, 10, 0, 1, 3, 2, 12, 13, 15, 14};
        return new HexMesh(v, el, new int[18]);
    }

    /** Randomly renumbers the vertices (positions follow their ids). */
    public static HexMesh relabelVertices(HexMesh m, Random rnd) {
        int nv = m.vertexCount();
        int[] newId = shuffled(nv, rnd);
        double[] v = m.vertices();
        double[] nvtx = new double[v.length];
        for (int i = 0; i < nv; i++) {
            System.arraycopy(v, 3 * i, nvtx, 3 * newId[i], 3);
        }
        int[] el = m.elements();
        for (int k = 0; k < el.length; k++) {
            el[k] = newId[el[k]];
        }
        return new HexMesh(nvtx, el, m.faceTags());
    }

    /** A random permutation of 0..n-1. */
    public static int[] shuffled(int n, Random rnd) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }
}
