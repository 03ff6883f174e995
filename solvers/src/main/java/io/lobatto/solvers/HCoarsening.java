package io.lobatto.solvers;

import java.util.Optional;

import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.SpectralElementMesh;

/**
 * Geometric h-coarsening of a structured box below the p = 1 level of {@link PMultigrid}: the fine box of
 * nx x ny x nz trilinear (N = 1) elements and the coarse box of nx/2 x ny/2 x nz/2 elements over the same bounds, boundary
 * tags and node map (the maps of the unit box, smooth deformation and Kershaw's, apply to either).
 *
 * <p>The fine box's Q1 nodes (its vertices) are exactly the coarse box's GLL nodes of degree 2 (-1, 0, 1 per direction),
 * so the interpolation of a coarse Q1 function to the fine nodes is the p-prolongation 1 -> 2 on the coarse elements,
 * read in the fine level's numbering:
 * <pre>
 *   P_h = Z_h^T W_h J_{1->2} Z_c,   R_h = P_h^T,
 * </pre>
 * with Z_h the scatter from the fine level's assembled nodes to the coarse elements' 27 degree-2 points
 * ({@link #fineIdsOfCoarsePoints}) and W_h its inverse multiplicity: the same kernels as the p-transfers
 * ({@link io.lobatto.core.backend.Backend#prolongate}, {@link io.lobatto.core.backend.Backend#restrict}) with Z_h in place
 * of the fine level's Z. On an affine box P_h reproduces every coarse trilinear function at the fine nodes; on a deformed
 * box the levels are not nested, but P_h still interpolates and R_h = P_h^T keeps the V-cycle symmetric.
 */
public final class HCoarsening {

    /** The default smallest element count per side of the coarsest box: 32 -> 16 -> 8 -> 4, 24 -> 12 -> 6 -> 3. */
    public static final int DEFAULT_MIN_SIDE = 3;

    /**
     * The smallest element count per side of the N = 1 box from which p-multigrid's default ({@code auto}) adds h-levels.
     * On the H100 (f6ce231, the main job at N = 7) h-levels left the solve time within the runs' spread at 32^3 and cut
     * an iteration at 48^3 (3 % less solve time), but each h-level is launch-bound (0.7-0.8 ms per V-cycle), so below
     * this size they cost more than the N = 1 Chebyshev solve they replace, and at 32^3 they add setup for nothing.
     */
    public static final int AUTO_START_SIDE = 48;

    private HCoarsening() {
    }

    /**
     * Whether p-multigrid's default ({@code auto}) adds h-levels below {@code coarsest}, the N = 1 level of the p-schedule:
     * its mesh is a structured box with at least {@link #AUTO_START_SIDE} elements on every side.
     */
    public static boolean autoApplies(SpectralElementMesh coarsest) {
        return coarsest.hexMesh().structuredBox()
                .map(b -> Math.min(b.nx(), Math.min(b.ny(), b.nz())) >= AUTO_START_SIDE).orElse(false);
    }

    /**
     * The next coarser level of {@code fine}: its box halved in every direction, at N = 1, with the same node map; empty
     * unless {@code fine} is at N = 1 on a {@link HexMesh#structuredBox() structured box} whose sides are all even and
     * whose halves all have at least {@code minSide} elements.
     *
     * @throws IllegalArgumentException if {@code minSide < 1}
     */
    public static Optional<SpectralElementMesh> coarsen(SpectralElementMesh fine, int minSide) {
        if (minSide < 1) {
            throw new IllegalArgumentException("minSide must be >= 1, got " + minSide);
        }
        if (fine.degree() != 1) {
            return Optional.empty();
        }
        Optional<HexMesh.Box> box = fine.hexMesh().structuredBox();
        if (box.isEmpty() || !box.get().evenSides()) {
            return Optional.empty();
        }
        HexMesh.Box c = box.get().coarsened();
        if (c.nx() < minSide || c.ny() < minSide || c.nz() < minSide) {
            return Optional.empty();
        }
        return Optional.of(SpectralElementMesh.of(c.mesh(), 1, fine.nodeMap()));
    }

    /**
     * Where the elements of a structured part of a box lie: element {@link #element(int, int, int)} sits at lattice
     * position (a, b, c), 0 &lt;= a &lt; nx, 0 &lt;= b &lt; ny, 0 &lt;= c &lt; nz, of the part, with its reference frame along x, y,
     * z (a whole {@link HexMesh#box}: {@link #box}; one rank's z-slab of it, its layers in the rank's order).
     */
    public interface ElementLattice {
        /** Elements along x. */
        int nx();

        /** Elements along y. */
        int ny();

        /** Elements along z. */
        int nz();

        /** The element at position (a, b, c). */
        int element(int a, int b, int c);

        /** The lattice of {@link HexMesh#box}: element (a, b, c) is a + nx (b + ny c). */
        static ElementLattice box(int nx, int ny, int nz) {
            int[] layer = new int[nz];
            for (int c = 0; c < nz; c++) {
                layer[c] = c;
            }
            return ofLayers(nx, ny, layer);
        }

        /**
         * Layers of nx x ny elements stored in any layer order: element (a, b, c) is a + nx (b + ny layer[c]), with
         * {@code layer[c]} where layer c of the lattice is stored (a permutation of 0 .. layer.length - 1, not checked).
         */
        static ElementLattice ofLayers(int nx, int ny, int[] layer) {
            int[] at = layer.clone();
            return new ElementLattice() {
                @Override
                public int nx() {
                    return nx;
                }

                @Override
                public int ny() {
                    return ny;
                }

                @Override
                public int nz() {
                    return at.length;
                }

                @Override
                public int element(int a, int b, int c) {
                    return a + nx * (b + ny * at[c]);
                }
            };
        }
    }

    /**
     * One step of h-coarsening: the coarse level's mesh (at N = 1; across ranks, this rank's part of it) and the map of
     * Z_h ({@link #fineIdsOfCoarsePoints}) from the fine level's global ids to the coarse elements' 27 degree-2 points.
     */
    public record Step(SpectralElementMesh coarse, int[] fineIds) {
        public Step {
            java.util.Objects.requireNonNull(coarse, "coarse");
            java.util.Objects.requireNonNull(fineIds, "fineIds");
            if (fineIds.length != 27L * coarse.elementCount()) {
                throw new IllegalArgumentException("fineIds has " + fineIds.length + " entries, expected 27 per coarse element ("
                        + 27L * coarse.elementCount() + ")");
            }
        }
    }

    /**
     * The map of Z_h: for coarse element (cx, cy, cz) and its degree-2 point (i, j, k) in {0,1,2}^3 (entry
     * 27 e_c + i + 3 (j + 3 k), e_c = cx + nx/2 (cy + ny/2 cz)), the global id of {@code fine}'s node there: fine element
     * (2cx + min(i,1), 2cy + min(j,1), 2cz + min(k,1)) at its vertex (i - min(i,1), j - min(j,1), k - min(k,1)).
     *
     * @throws IllegalArgumentException unless {@code fine} is at N = 1 on a structured box with even sides
     */
    public static int[] fineIdsOfCoarsePoints(SpectralElementMesh fine) {
        HexMesh.Box box = fine.hexMesh().structuredBox().orElseThrow(() -> new IllegalArgumentException(
                "h-coarsening needs a structured box (HexMesh.box), got " + fine.hexMesh()));
        HexMesh.Box coarse = box.coarsened();
        return fineIdsOfCoarsePoints(fine, ElementLattice.box(box.nx(), box.ny(), box.nz()),
                ElementLattice.box(coarse.nx(), coarse.ny(), coarse.nz()));
    }

    /**
     * The map of Z_h between two structured parts, the coarse one's lattice half the fine one's in every direction (the
     * same region): for coarse element e_c at position (a, b, c) and its degree-2 point (i, j, k), the global id of
     * {@code fine}'s node at vertex (i - min(i,1), j - min(j,1), k - min(k,1)) of the fine element at
     * (2a + min(i,1), 2b + min(j,1), 2c + min(k,1)); entry 27 e_c + i + 3 (j + 3 k).
     *
     * @throws IllegalArgumentException unless {@code fine} is at N = 1 with the fine lattice's element count and the
     *                                  fine lattice is twice the coarse one in every direction
     */
    public static int[] fineIdsOfCoarsePoints(SpectralElementMesh fine, ElementLattice fineLattice, ElementLattice coarseLattice) {
        if (fine.degree() != 1) {
            throw new IllegalArgumentException("h-coarsening starts from N = 1, got N = " + fine.degree());
        }
        int cx = coarseLattice.nx(), cy = coarseLattice.ny(), cz = coarseLattice.nz();
        if (fineLattice.nx() != 2 * cx || fineLattice.ny() != 2 * cy || fineLattice.nz() != 2 * cz) {
            throw new IllegalArgumentException("h-coarsening: the fine lattice " + fineLattice.nx() + " x " + fineLattice.ny() + " x "
                    + fineLattice.nz() + " is not twice the coarse one " + cx + " x " + cy + " x " + cz);
        }
        if ((long) fineLattice.nx() * fineLattice.ny() * fineLattice.nz() != fine.elementCount()) {
            throw new IllegalArgumentException("h-coarsening: the fine lattice has " + (long) fineLattice.nx() * fineLattice.ny()
                    * fineLattice.nz() + " elements but the fine mesh " + fine.elementCount());
        }
        int[] l2g = fine.localToGlobal();
        int[] out = new int[27 * cx * cy * cz];
        for (int c = 0; c < cz; c++) {
            for (int b = 0; b < cy; b++) {
                for (int a = 0; a < cx; a++) {
                    int ec = coarseLattice.element(a, b, c);
                    for (int k = 0; k < 3; k++) {
                        int fk = Math.min(k, 1);
                        for (int j = 0; j < 3; j++) {
                            int fj = Math.min(j, 1);
                            for (int i = 0; i < 3; i++) {
                                int fi = Math.min(i, 1);
                                int ef = fineLattice.element(2 * a + fi, 2 * b + fj, 2 * c + fk);
                                int vertex = (i - fi) + 2 * ((j - fj) + 2 * (k - fk));
                                out[27 * ec + i + 3 * (j + 3 * k)] = l2g[8 * ef + vertex];
                            }
                        }
                    }
                }
            }
        }
        return out;
    }
}
