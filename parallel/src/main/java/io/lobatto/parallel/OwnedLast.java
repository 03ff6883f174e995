package io.lobatto.parallel;

import java.util.Objects;
import java.util.function.Function;

import io.lobatto.gs.ScatterOperator;

/**
 * A rank's assembled numbering (Z) with the rows it shares but does not own numbered last: the original global ids are
 * renumbered, stably, so that the nodes a neighbour owns come after all others, and Z is built on that numbering. The
 * rows a distributed reduction leaves out ({@link DistributedBackend}) are then one range [owned, size), which the
 * backend's reduction skips in its own pass: no second launch over the excluded rows per reduction.
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
        boolean[] last = new boolean[count];
        int notOwned = 0;
        for (int a = 0; a < mask0.length; a++) {
            if (mask0[a] == 0) {
                last[z0.originalId(a)] = true;
                notOwned++;
            }
        }
        int[] perm = new int[count];
        if (notOwned == 0) {
            for (int o = 0; o < count; o++) {
                perm[o] = o;
            }
            return new OwnedLast(z0, s0, perm);
        }
        int next = 0;
        for (int o = 0; o < count; o++) {
            if (!last[o]) {
                perm[o] = next++;
            }
        }
        for (int o = 0; o < count; o++) {
            if (last[o]) {
                perm[o] = next++;
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
