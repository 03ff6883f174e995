package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;

/**
 * The local-to-global map l2g of Z made where Z is built, from a mesh's numbering by entities
 * ({@code io.lobatto.core.mesh.ElementNumbering}): one work-item per local node i = e Np + l,
 * <pre>
 *   l2g[i] = bases[ordinals[27 e + slot(l)]] + offset(l, orientations[e])
 * </pre>
 * with the node's class (its entity slot and its position (b, c) in the entity) from {@link #classes} and the offset of
 * an edge node m - 1 (N - 1 - m where the edge is reversed), of a face node (p - 1) + (N - 1)(q - 1) in the face's
 * canonical frame, of an interior node its offset. The same arithmetic, in the same order, as
 * {@code ElementNumbering.globalId} on the host.
 */
public final class ElementNumberingKernel extends Kernel {

    /** [27 E] the ordinal of each element's entities (8 corners, 12 edges, 6 faces, interior). */
    int[] ordinals = new int[1];
    /** [E] per element: bit k, edge k reversed; bits 12 + 3 f .. 14 + 3 f, face f's frame. */
    int[] orientations = new int[1];
    /** [entities] the first global id of each entity. */
    int[] bases = new int[1];
    /** [2 Np] per local node: kind | slot << 2, then b | c << 16. */
    int[] classes = new int[1];
    /** [N_L] the map, written. */
    int[] l2g = new int[1];
    /** N_L, the work-items. */
    int n;
    /** The degree N. */
    int degree;
    /** Np = (N + 1)^3. */
    int np;

    @Override
    public void run() {
        int i = getGlobalId();
        if (i < n) {
            int e = i / np;
            int l = i - e * np;
            int cls = classes[2 * l];
            int kind = cls & 3;
            int slot = cls >> 2;
            int bc = classes[2 * l + 1];
            int b = bc & 0xffff;
            int g = bases[ordinals[27 * e + slot]];
            if (kind == 1) {
                if (((orientations[e] >> (slot - 8)) & 1) != 0) {
                    g += degree - 1 - b;
                } else {
                    g += b - 1;
                }
            } else if (kind == 2) {
                int c = (bc >> 16) & 0xffff;
                int frame = (orientations[e] >> (12 + 3 * (slot - 20))) & 7;
                int du = b;
                if ((frame & 1) != 0) {
                    du = degree - b;
                }
                int dv = c;
                if ((frame & 2) != 0) {
                    dv = degree - c;
                }
                int p = dv;
                int q = du;
                if ((frame & 4) != 0) {
                    p = du;
                    q = dv;
                }
                g += (p - 1) + (degree - 1) * (q - 1);
            } else if (kind == 3) {
                g += b;
            }
            l2g[i] = g;
        }
    }
}
