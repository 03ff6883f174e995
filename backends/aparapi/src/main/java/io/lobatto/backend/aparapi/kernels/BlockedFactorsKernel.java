package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;

/**
 * A kernel that reads or writes the stored geometric factors point by point in either layout of
 * {@code io.lobatto.backend.aparapi.FactorLayout}: element-major, or blocked by B elements, layer-major inside a block.
 * The pipelined element kernels step through the layers and compute the same index incrementally.
 */
public abstract class BlockedFactorsKernel extends Kernel {

    /**
     * Where the factor of point q = a + P b + P^2 c of element e lies, with P points per direction, blocked by
     * {@code block} elements: e P^3 + q when {@code block} is 0, else ((e / B) P + c) B P^2 + (e mod B) P^2 + a + P b.
     */
    protected final int blockedIndex(int e, int q, int p, int block) {
        int p2 = p * p;
        int at = e * p2 * p + q;
        if (block > 0) {
            int c = q / p2;
            int blk = e / block;
            at = ((blk * p + c) * block + e - blk * block) * p2 + q - c * p2;
        }
        return at;
    }
}
