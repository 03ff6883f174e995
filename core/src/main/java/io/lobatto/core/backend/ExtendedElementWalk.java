package io.lobatto.core.backend;

/**
 * The points of an element extended by one GLL layer of its neighbours (the subdomains of the minimal-overlap Schwarz
 * method, Fischer 1997; Lottes &amp; Fischer 2005) from the face neighbours and the orientation of each shared face
 * alone: the point (i, j, k), each in -1..N+1 in element e's frame, is reached by one face crossing per coordinate
 * outside 0..N, each crossing through the face's map (where e's in-face coordinates (u, v) land on the neighbour's
 * face) and its frame (where e's axes go in the neighbour). No array of the E (N+3)^3 points is needed: a backend
 * computes them where they are used ({@link Backend#extendedIds}).
 *
 * <p>The face code of face f of e with a neighbour (e2, f2), d2 = f2 / 2 and a2 &lt; b2 its other axes:
 * <pre>
 *   bit 0: u0, bit 1: v0, bits 2-3: du1 + 1, 4-5: dv1 + 1, 6-7: du2 + 1, 8-9: dv2 + 1,
 *   bits 10 + 3x .. 12 + 3x (x = 0, 1, 2): t_x = 2 x' + s
 * </pre>
 * so that e's face node (u, v) is e2's node with coordinate (f2 % 2) N along d2, N u0 + du1 u + du2 v along a2 and
 * N v0 + dv1 u + dv2 v along b2, and e's axis x is e2's axis x' in the same (s = 1) or the opposite (s = 0) sense (for
 * the face's normal axis: a step out of e is a step into e2).
 */
public final class ExtendedElementWalk {

    private ExtendedElementWalk() {
    }

    /**
     * Checks the walk's arrays for E elements: lengths 6 E, neighbours -1 or in [0, 6 E) and symmetric.
     *
     * @throws IllegalArgumentException naming the array, the entry and its value
     */
    public static void check(int elements, int[] neighbour, int[] code) {
        if (neighbour == null || neighbour.length != 6L * elements) {
            throw new IllegalArgumentException("faceNeighbour must have length 6 E = " + 6L * elements + ", got "
                    + (neighbour == null ? "null" : neighbour.length));
        }
        if (code == null || code.length != 6L * elements) {
            throw new IllegalArgumentException("faceCode must have length 6 E = " + 6L * elements + ", got "
                    + (code == null ? "null" : code.length));
        }
        for (int q = 0; q < neighbour.length; q++) {
            int nb = neighbour[q];
            if (nb < -1 || nb >= neighbour.length || (nb >= 0 && neighbour[nb] != q)) {
                throw new IllegalArgumentException("faceNeighbour[" + q + "] = " + nb + " is not -1 or a face in [0, "
                        + neighbour.length + ") that names face " + q + " back");
            }
        }
    }

    /** The face code of the orientation above. */
    public static int code(int u0, int v0, int du1, int dv1, int du2, int dv2, int t0, int t1, int t2) {
        return u0 | v0 << 1 | (du1 + 1) << 2 | (dv1 + 1) << 4 | (du2 + 1) << 6 | (dv2 + 1) << 8 | t0 << 10 | t1 << 13
                | t2 << 16;
    }

    /**
     * The local index e' (N+1)^3 + node of the extended point (i, j, k) of element e (coordinates -1..N+1 in e's
     * frame), or -1 where the walk leaves the mesh. {@code neighbour} is [E][6] (6 e' + f', -1 on the boundary) and
     * {@code code} [E][6] the face codes.
     */
    public static int local(int e, int i, int j, int k, int degree, int[] neighbour, int[] code) {
        int n = degree;
        int nq = n + 1;
        int elem = e;
        int p0 = Math.max(0, Math.min(n, i));
        int p1 = Math.max(0, Math.min(n, j));
        int p2 = Math.max(0, Math.min(n, k));
        // e's direction d is elem's axis ax_d with sign sg_d
        int ax0 = 0, ax1 = 1, ax2 = 2;
        int sg0 = 1, sg1 = 1, sg2 = 1;
        for (int d = 0; d < 3; d++) {
            int c = d == 0 ? i : d == 1 ? j : k;
            int s = c < 0 ? -1 : c > n ? 1 : 0;
            if (s == 0) {
                continue;
            }
            int a = d == 0 ? ax0 : d == 1 ? ax1 : ax2;
            int out = (d == 0 ? sg0 : d == 1 ? sg1 : sg2) * s;
            int pa = a == 0 ? p0 : a == 1 ? p1 : p2;
            int to = pa + out;
            if (to >= 0 && to <= n) {
                if (a == 0) {
                    p0 = to;
                } else if (a == 1) {
                    p1 = to;
                } else {
                    p2 = to;
                }
                continue;
            }
            int f = 2 * a + (out > 0 ? 1 : 0);
            int nb = neighbour[6 * elem + f];
            if (nb < 0) {
                return -1;
            }
            int cd = code[6 * elem + f];
            int e2 = nb / 6, f2 = nb % 6;
            // e's in-face coordinates on face f: its other axes in increasing order
            int u = a == 0 ? p1 : p0;
            int v = a == 2 ? p1 : p2;
            int u0 = cd & 1, v0 = (cd >> 1) & 1;
            int du1 = ((cd >> 2) & 3) - 1, dv1 = ((cd >> 4) & 3) - 1, du2 = ((cd >> 6) & 3) - 1, dv2 = ((cd >> 8) & 3) - 1;
            int d2 = f2 / 2;
            int qd = (f2 % 2) * n + (f2 % 2 == 0 ? 1 : -1);  // on the face, then one step into e2
            int qa = n * u0 + du1 * u + du2 * v;
            int qb = n * v0 + dv1 * u + dv2 * v;
            if (d2 == 0) {
                p0 = qd;
                p1 = qa;
                p2 = qb;
            } else if (d2 == 1) {
                p0 = qa;
                p1 = qd;
                p2 = qb;
            } else {
                p0 = qa;
                p1 = qb;
                p2 = qd;
            }
            int t0 = (cd >> 10) & 7, t1 = (cd >> 13) & 7, t2 = (cd >> 16) & 7;
            int ta = ax0 == 0 ? t0 : ax0 == 1 ? t1 : t2;
            ax0 = ta >> 1;
            sg0 = (ta & 1) == 1 ? sg0 : -sg0;
            int tb = ax1 == 0 ? t0 : ax1 == 1 ? t1 : t2;
            ax1 = tb >> 1;
            sg1 = (tb & 1) == 1 ? sg1 : -sg1;
            int tc = ax2 == 0 ? t0 : ax2 == 1 ? t1 : t2;
            ax2 = tc >> 1;
            sg2 = (tc & 1) == 1 ? sg2 : -sg2;
            elem = e2;
        }
        return elem * nq * nq * nq + p0 + nq * (p1 + nq * p2);
    }
}
