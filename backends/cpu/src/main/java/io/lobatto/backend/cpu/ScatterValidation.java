package io.lobatto.backend.cpu;

import java.util.Objects;

/**
 * Consistency checks of the arrays of a scatter operator Z before upload. Beyond ranges and CSR shape it
 * checks that the CSR rows of Z^T are exactly the transpose of {@code scatterIds}: row g lists the local
 * nodes whose scatter id is g, and every unmasked local node appears in exactly one row.
 */
final class ScatterValidation {

    private ScatterValidation() {
    }

    static void validate(int[] scatterIds, int[] gatherStarts, int[] gatherIds, int[] blockStarts,
                         double[] inverseDegree, int globalSize) {
        Objects.requireNonNull(scatterIds, "scatterIds must not be null");
        Objects.requireNonNull(gatherStarts, "gatherStarts must not be null");
        Objects.requireNonNull(gatherIds, "gatherIds must not be null");
        Objects.requireNonNull(blockStarts, "blockStarts must not be null");
        Objects.requireNonNull(inverseDegree, "inverseDegree must not be null");
        if (globalSize < 0 || globalSize == Integer.MAX_VALUE) {
            throw new IllegalArgumentException("globalSize must be in [0, 2^31 - 2], got " + globalSize);
        }
        int nl = scatterIds.length;
        if (inverseDegree.length != nl) {
            throw new IllegalArgumentException("inverseDegree has length " + inverseDegree.length
                    + " but scatterIds (N_L) has length " + nl);
        }
        int unmasked = 0;
        for (int n = 0; n < nl; n++) {
            int id = scatterIds[n];
            if (id < -1 || id >= globalSize) {
                throw new IllegalArgumentException("scatterIds[" + n + "] = " + id + " is out of range: must be -1 (masked) or in [0, "
                        + globalSize + ")");
            }
            if (id >= 0) {
                unmasked++;
            }
        }
        if (gatherStarts.length != globalSize + 1) {
            throw new IllegalArgumentException("gatherStarts has length " + gatherStarts.length + " but must have length N_G + 1 = "
                    + (globalSize + 1));
        }
        if (gatherStarts[0] != 0) {
            throw new IllegalArgumentException("gatherStarts[0] = " + gatherStarts[0] + " but must be 0");
        }
        for (int g = 0; g < globalSize; g++) {
            if (gatherStarts[g + 1] < gatherStarts[g]) {
                throw new IllegalArgumentException("gatherStarts is not monotone: gatherStarts[" + (g + 1) + "] = "
                        + gatherStarts[g + 1] + " < gatherStarts[" + g + "] = " + gatherStarts[g]);
            }
        }
        if (gatherStarts[globalSize] != gatherIds.length) {
            throw new IllegalArgumentException("gatherStarts[N_G] = " + gatherStarts[globalSize]
                    + " but gatherIds has length " + gatherIds.length);
        }
        if (gatherIds.length != unmasked) {
            throw new IllegalArgumentException("gatherIds has length " + gatherIds.length + " but scatterIds has "
                    + unmasked + " unmasked entries (Z^T must list every unmasked local node once)");
        }
        for (int g = 0; g < globalSize; g++) {
            for (int k = gatherStarts[g]; k < gatherStarts[g + 1]; k++) {
                int n = gatherIds[k];
                if (n < 0 || n >= nl) {
                    throw new IllegalArgumentException("gatherIds[" + k + "] = " + n + " is out of range [0, " + nl + ")");
                }
                if (scatterIds[n] != g) {
                    throw new IllegalArgumentException("gatherIds[" + k + "] = " + n + " lies in row " + g
                            + " of Z^T but scatterIds[" + n + "] = " + scatterIds[n] + " (Z^T is not the transpose of Z)");
                }
            }
        }
        // each unmasked node appears in its own row (checked above) and the counts agree, so no row lists a
        // node twice unless another is missing; rule out duplicates explicitly
        boolean[] seen = new boolean[nl];
        for (int k = 0; k < gatherIds.length; k++) {
            if (seen[gatherIds[k]]) {
                throw new IllegalArgumentException("gatherIds lists local node " + gatherIds[k] + " twice (at index " + k + ")");
            }
            seen[gatherIds[k]] = true;
        }
        if (blockStarts.length < 1) {
            throw new IllegalArgumentException("blockStarts is empty; it must start at 0 and end at N_G = " + globalSize);
        }
        if (blockStarts[0] != 0 || blockStarts[blockStarts.length - 1] != globalSize) {
            throw new IllegalArgumentException("blockStarts must cover [0, N_G]: it starts at " + blockStarts[0]
                    + " and ends at " + blockStarts[blockStarts.length - 1] + ", N_G = " + globalSize);
        }
        for (int b = 0; b + 1 < blockStarts.length; b++) {
            if (blockStarts[b + 1] < blockStarts[b]) {
                throw new IllegalArgumentException("blockStarts is not monotone: blockStarts[" + (b + 1) + "] = "
                        + blockStarts[b + 1] + " < blockStarts[" + b + "] = " + blockStarts[b]);
            }
        }
    }
}
