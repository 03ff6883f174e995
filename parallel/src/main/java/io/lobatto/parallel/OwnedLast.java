package io.lobatto.parallel;

import java.util.Objects;
import java.util.function.Function;

import io.lobatto.gs.ScatterOperator;

/**
 * A rank's assembled numbering (Z) with its shared rows numbered last, and of those the rows a neighbour owns last of
 * all: the original global ids are renumbered, stably, into the classes not shared, shared and owned, owned by a
 * neighbour, and Z is built on that numbering. Then the rows a distributed reduction leaves out
 * ({@link DistributedBackend}) are one range, which the backend's reduction skips in its own pass, and the halo's rows
 * ({@link HaloExchange#sharedRows()}, ascending) are the last rows, whose halo sums the backend folds into the gather
 * ({@link io.lobatto.core.backend.Backend#gatherDotHalo}): two launches fewer per iteration.
 *
 * @param z                  Z on the renumbered original ids
 * @param shared             the shared nodes in z's assembled ids (the same nodes, keys and order per neighbour)
 * @param originalToNumbered the renumbering of the mesh's original global ids
 */
public record OwnedLast(ScatterOperator z, SharedNodes shared, int[] originalToNumbered) {

    /**
     * Z of {@code localToGlobal} (original ids in [0, {@code count}), {@code masked} as in {@link ScatterOperator#build})
     * renumbered so that the rows {@code sharedOf} marks as owned by a neighbour come last. {@code sharedOf} is called
     * once, on Z in the mesh's own numbering.
     */
    public static OwnedLast of(int[] localToGlobal, int count, boolean[] masked,
                               Function<ScatterOperator, SharedNodes> sharedOf) {
        Objects.requireNonNull(sharedOf, "sharedOf");
        ScatterOperator z0 = ScatterOperator.build(localToGlobal, count, masked);
        SharedNodes s0 = sharedOf.apply(z0);
        double[] mask0 = s0.ownerMask();
        // 0: not shared, 1: shared and owned, 2: owned by a neighbour; numbered in that order, stably
        byte[] rank = new byte[count];
        int shared = 0;
        for (int[] ids : s0.ids()) {
            for (int a : ids) {
                if (rank[z0.originalId(a)] == 0) {
                    rank[z0.originalId(a)] = 1;
                    shared++;
                }
            }
        }
        for (int a = 0; a < mask0.length; a++) {
            if (mask0[a] == 0) {
                rank[z0.originalId(a)] = 2;
            }
        }
        int[] perm = new int[count];
        if (shared == 0) {
            for (int o = 0; o < count; o++) {
                perm[o] = o;
            }
            return new OwnedLast(z0, s0, perm);
        }
        int next = 0;
        for (byte c = 0; c < 3; c++) {
            for (int o = 0; o < count; o++) {
                if (rank[o] == c) {
                    perm[o] = next++;
                }
            }
        }
        int[] l2g = new int[localToGlobal.length];
        for (int n = 0; n < l2g.length; n++) {
            l2g[n] = perm[localToGlobal[n]];
        }
        boolean[] mask = null;
        if (masked != null) {
            mask = new boolean[count];
            for (int o = 0; o < count; o++) {
                mask[perm[o]] = masked[o];
            }
        }
        ScatterOperator z = ScatterOperator.build(l2g, count, mask);
        int[] assembled = new int[z0.globalSize()];
        double[] ownerMask = new double[z.globalSize()];
        for (int a = 0; a < assembled.length; a++) {
            assembled[a] = z.assembledId(perm[z0.originalId(a)]);
            ownerMask[assembled[a]] = mask0[a];
        }
        int[][] ids = new int[s0.ids().length][];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = new int[s0.ids()[i].length];
            for (int k = 0; k < ids[i].length; k++) {
                ids[i][k] = assembled[s0.ids()[i][k]];
            }
        }
        return new OwnedLast(z, new SharedNodes(s0.neighbours(), ids, s0.keys(), ownerMask), perm);
    }

    /** Values indexed by the renumbered original ids (as {@code z.fromAssembled} gives them) in the mesh's own order. */
    public double[] toOriginal(double[] numbered) {
        if (numbered.length != originalToNumbered.length) {
            throw new IllegalArgumentException("toOriginal: values have length " + numbered.length + " but the numbering has "
                    + originalToNumbered.length + " nodes");
        }
        double[] out = new double[numbered.length];
        for (int o = 0; o < out.length; o++) {
            out[o] = numbered[originalToNumbered[o]];
        }
        return out;
    }
}
