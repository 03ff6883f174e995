package io.lobatto.parallel;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.HexReference;

/**
 * Recursive coordinate bisection of any {@link HexMesh} (boxes, Gmsh meshes) by element centroids (the mean of the
 * 8 corner vertices): the elements of a part are sorted along the axis where their centroids spread most and cut at
 * the fraction of the parts that go to each side, recursively, so any part count works and parts differ by at most one
 * element. Deterministic: ties are broken by element index. {@link #stats} reports the balance and the
 * surface-to-volume ratio (faces shared with other parts per element), which sets the halo exchange's size.
 *
 * <p>{@link BisectionPartition} gives a rank its part for the distributed solve ({@code DistributedPoisson
 * --partition rcb}).
 */
public final class RecursiveBisection {

    private RecursiveBisection() {
    }

    /**
     * The part of every element of {@code mesh} among {@code parts}.
     *
     * @throws IllegalArgumentException if {@code parts < 1} or the mesh has fewer elements than parts
     */
    public static int[] partition(HexMesh mesh, int parts) {
        int e = mesh.elementCount();
        if (parts < 1) {
            throw new IllegalArgumentException("parts = " + parts + " must be >= 1");
        }
        if (e < parts) {
            throw new IllegalArgumentException("a mesh of " + e + " elements cannot be cut into " + parts
                    + " parts: every part needs an element");
        }
        double[] c = centroids(mesh);
        Integer[] order = new Integer[e];
        for (int i = 0; i < e; i++) {
            order[i] = i;
        }
        int[] part = new int[e];
        bisect(c, order, 0, e, 0, parts, part);
        return part;
    }

    private static void bisect(double[] c, Integer[] order, int from, int to, int firstPart, int parts, int[] part) {
        if (parts == 1) {
            for (int i = from; i < to; i++) {
                part[order[i]] = firstPart;
            }
            return;
        }
        double[] lo = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
        double[] hi = {-Double.MAX_VALUE, -Double.MAX_VALUE, -Double.MAX_VALUE};
        for (int i = from; i < to; i++) {
            for (int d = 0; d < 3; d++) {
                lo[d] = Math.min(lo[d], c[3 * order[i] + d]);
                hi[d] = Math.max(hi[d], c[3 * order[i] + d]);
            }
        }
        int axis = 0;
        for (int d = 1; d < 3; d++) {
            if (hi[d] - lo[d] > hi[axis] - lo[axis]) {
                axis = d;
            }
        }
        final int ax = axis;
        Arrays.sort(order, from, to, (a, b) -> {
            int k = Double.compare(c[3 * a + ax], c[3 * b + ax]);
            return k != 0 ? k : Integer.compare(a, b);
        });
        int left = parts / 2;
        int cut = from + (int) ((long) (to - from) * left / parts);
        bisect(c, order, from, cut, firstPart, left, part);
        bisect(c, order, cut, to, firstPart + left, parts - left, part);
    }

    /** The centroid (mean of the corners) of every element, [E][3]. */
    static double[] centroids(HexMesh mesh) {
        int e = mesh.elementCount();
        double[] c = new double[3 * e];
        for (int i = 0; i < e; i++) {
            for (int k = 0; k < HexReference.CORNERS; k++) {
                int v = mesh.elementVertex(i, k);
                for (int d = 0; d < 3; d++) {
                    c[3 * i + d] += mesh.vertex(v, d) / HexReference.CORNERS;
                }
            }
        }
        return c;
    }

    /**
     * Per part: elements, faces shared with another part, and their ratio (surface to volume), plus the totals.
     *
     * @param parts the number of parts
     */
    public record Stats(int[] elements, int[] sharedFaces, int parts) {

        /** The largest part over the mean part (1 is perfect balance). */
        public double imbalance() {
            int max = Arrays.stream(elements).max().orElse(0);
            double mean = Arrays.stream(elements).sum() / (double) parts;
            return max / mean;
        }

        /** The largest shared-faces-per-element ratio of a part. */
        public double maxSurfaceToVolume() {
            double m = 0;
            for (int p = 0; p < parts; p++) {
                m = Math.max(m, sharedFaces[p] / (double) Math.max(1, elements[p]));
            }
            return m;
        }

        /** A table, one line per part and a total line. */
        public String table() {
            StringBuilder b = new StringBuilder("part  elements  shared_faces  shared_faces/element\n");
            for (int p = 0; p < parts; p++) {
                b.append(String.format(Locale.ROOT, "%4d  %8d  %12d  %20.4f%n", p, elements[p], sharedFaces[p],
                        sharedFaces[p] / (double) Math.max(1, elements[p])));
            }
            b.append(String.format(Locale.ROOT, "imbalance %.4f, max surface/volume %.4f%n", imbalance(), maxSurfaceToVolume()));
            return b.toString();
        }
    }

    /** The balance and shared faces of {@code part} (from {@link #partition}) on {@code mesh}. */
    public static Stats stats(HexMesh mesh, int[] part, int parts) {
        int[] elements = new int[parts];
        int[] shared = new int[parts];
        Map<FaceKey, Integer> first = new HashMap<>();
        for (int e = 0; e < mesh.elementCount(); e++) {
            elements[part[e]]++;
            for (int f = 0; f < HexReference.FACES; f++) {
                int[] v = new int[4];
                for (int m = 0; m < 4; m++) {
                    v[m] = mesh.elementVertex(e, HexReference.faceCorner(f, m));
                }
                Arrays.sort(v);
                FaceKey key = new FaceKey(v[0], v[1], v[2], v[3]);
                Integer other = first.remove(key);
                if (other == null) {
                    first.put(key, e);
                } else if (part[other] != part[e]) {
                    shared[part[other]]++;
                    shared[part[e]]++;
                }
            }
        }
        return new Stats(elements, shared, parts);
    }

    private record FaceKey(int a, int b, int c, int d) {
    }
}
