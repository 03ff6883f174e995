package io.lobatto.parallel;

/**
 * The nodes of one rank's assembled vector that other ranks hold copies of: for neighbour rank
 * {@code neighbours[i]}, the assembled ids {@code ids[i]} in the order both ranks agree on, identified by
 * {@code keys[i]} (a position in the global GLL lattice, so the two sides can check that they match), and the owner
 * mask (1 where this rank owns the node, 0 where a neighbour does): dot products over assembled vectors weight by it
 * so that every shared node is counted once across ranks.
 */
public record SharedNodes(int[] neighbours, int[][] ids, long[][] keys, double[] ownerMask) {

    /** The number of shared (node, neighbour) pairs of this rank. */
    public int sharedCount() {
        int n = 0;
        for (int[] a : ids) {
            n += a.length;
        }
        return n;
    }

    /** The number of distinct shared nodes (a node shared with k neighbours counts once). */
    public int sharedNodeCount() {
        java.util.BitSet seen = new java.util.BitSet(ownerMask.length);
        for (int[] a : ids) {
            for (int i : a) {
                seen.set(i);
            }
        }
        return seen.cardinality();
    }

    /** The number of nodes this rank owns (its share of the global unknowns). */
    public int ownedCount() {
        int n = 0;
        for (double m : ownerMask) {
            n += m != 0 ? 1 : 0;
        }
        return n;
    }
}
