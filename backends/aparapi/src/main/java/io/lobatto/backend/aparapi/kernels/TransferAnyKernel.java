package io.lobatto.backend.aparapi.kernels;

/**
 * The p-multigrid transfer's element part, J (x) J (x) J and its transpose by sum factorisation, as {@link TransferKernel}
 * computes it, with the pass and both degrees as arguments instead of build constants: one program
 * serves every pass of every level pair, so a small problem, whose kernels are built quickly first and whose transfers
 * are launch-bound, compiles one transfer kernel instead of six per level pair. Entry for entry the same sums as
 * {@link TransferKernel} ({@link TransferPasses#pass}).
 */
public final class TransferAnyKernel extends TransferPasses {

    /** The pass, {@link TransferKernel#PROLONG_I} ... {@link TransferKernel#RESTRICT_I}. */
    int op;
    /** Nc + 1. */
    int nc;
    /** Nf + 1. */
    int nf;

    @Override
    public void run() {
        int t = getGlobalId();
        if (t < n) {
            tb[t] = pass(t, op, nc, nf);
        }
    }
}
