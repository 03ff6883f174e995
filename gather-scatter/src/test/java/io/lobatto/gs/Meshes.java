package io.lobatto.gs;

import java.util.Random;

/** Test meshes: random surjective local-to-global maps with random masks, and structured 1D / 3D chains. */
final class Meshes {

    private Meshes() {
    }

    /** A local-to-global map with its global node count and mask (null = none). */
    record Mesh(String name, int[] localToGlobal, int globalNodeCount, boolean[] masked) {
        ScatterOperator build(int nodesPerBlock) {
            return ScatterOperator.build(localToGlobal, globalNodeCount, masked, nodesPerBlock);
        }

        ScatterOperator build() {
            return ScatterOperator.build(localToGlobal, globalNodeCount, masked);
        }

        boolean isMasked(int g) {
            return masked != null && masked[g];
        }

        @Override
        public String toString() {
            return name + "[N_L=" + localToGlobal.length + ", G=" + globalNodeCount + "]";
        }
    }

    /**
     * A random "mesh": every global node in [0, g) referenced at least once by the referenced ones, each global
     * node masked with probability maskProbability; some masked nodes are left unreferenced (allowed).
     */
    static Mesh random(long seed, int g, int extraLocal, double maskProbability, boolean maskNull) {
        Random rnd = new Random(seed);
        boolean[] mask = new boolean[g];
        for (int i = 0; i < g; i++) {
            mask[i] = rnd.nextDouble() < maskProbability;
        }
        // referenced: all unmasked, and masked ones with probability 1/2
        int[] referenced = new int[g];
        int nRef = 0;
        for (int i = 0; i < g; i++) {
            if (!mask[i] || rnd.nextBoolean()) {
                referenced[nRef++] = i;
            }
        }
        int nL = nRef == 0 ? 0 : nRef + extraLocal;
        int[] l2g = new int[nL];
        for (int n = 0; n < nL; n++) {
            // the first nRef hit every referenced node; the rest are skewed towards low ids (high multiplicities)
            l2g[n] = n < nRef ? referenced[n] : referenced[(int) (nRef * Math.pow(rnd.nextDouble(), 3))];
        }
        for (int n = nL - 1; n > 0; n--) { // shuffle
            int m = rnd.nextInt(n + 1);
            int t = l2g[n];
            l2g[n] = l2g[m];
            l2g[m] = t;
        }
        return new Mesh("random(seed=" + seed + ")", l2g, g, maskNull ? null : mask);
    }

    /** E elements of degree n on a line: local node (e, i) -> e*n + i; optionally both end points masked. */
    static Mesh chain1d(int elements, int n, boolean dirichlet) {
        int nq = n + 1;
        int g = elements * n + 1;
        int[] l2g = new int[elements * nq];
        for (int e = 0; e < elements; e++) {
            for (int i = 0; i < nq; i++) {
                l2g[e * nq + i] = e * n + i;
            }
        }
        boolean[] mask = null;
        if (dirichlet) {
            mask = new boolean[g];
            mask[0] = true;
            mask[g - 1] = true;
        }
        return new Mesh("chain1d(" + elements + ", N=" + n + ")", l2g, g, mask);
    }

    /**
     * An ex x ey x ez box of hexahedra of degree n, elements ordered x fastest, nodes i + Nq(j + Nq k);
     * global node (I, J, K) = I + nx (J + ny K) with nx = ex n + 1 etc.; optionally the boundary is masked.
     */
    static Mesh box3d(int ex, int ey, int ez, int n, boolean dirichlet) {
        int nq = n + 1;
        int np = nq * nq * nq;
        int nx = ex * n + 1, ny = ey * n + 1, nz = ez * n + 1;
        int g = nx * ny * nz;
        int[] l2g = new int[ex * ey * ez * np];
        for (int ez_ = 0; ez_ < ez; ez_++) {
            for (int ey_ = 0; ey_ < ey; ey_++) {
                for (int ex_ = 0; ex_ < ex; ex_++) {
                    int e = ex_ + ex * (ey_ + ey * ez_);
                    for (int k = 0; k < nq; k++) {
                        for (int j = 0; j < nq; j++) {
                            for (int i = 0; i < nq; i++) {
                                int gi = ex_ * n + i, gj = ey_ * n + j, gk = ez_ * n + k;
                                l2g[e * np + i + nq * (j + nq * k)] = gi + nx * (gj + ny * gk);
                            }
                        }
                    }
                }
            }
        }
        boolean[] mask = null;
        if (dirichlet) {
            mask = new boolean[g];
            for (int k = 0; k < nz; k++) {
                for (int j = 0; j < ny; j++) {
                    for (int i = 0; i < nx; i++) {
                        mask[i + nx * (j + ny * k)] = i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1;
                    }
                }
            }
        }
        return new Mesh("box3d(" + ex + "x" + ey + "x" + ez + ", N=" + n + (dirichlet ? ", Dirichlet" : "") + ")", l2g, g, mask);
    }
}
