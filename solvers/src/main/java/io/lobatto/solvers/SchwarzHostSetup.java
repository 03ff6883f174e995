package io.lobatto.solvers;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import io.lobatto.core.concurrent.Once;
import io.lobatto.core.mesh.SpectralElementMesh;

/**
 * The host part of one level's Schwarz setup ({@link SchwarzPreconditioner}): the extended elements
 * ({@link ExtendedElements}, faces only or with their map), the extended mask ({@link FastDiagonalization#extendedMask}),
 * the unmasked node count it gives and the fast diagonalisation table ({@link FastDiagonalization#table}). It needs the
 * mesh, the Dirichlet mask and the screening lambda only, not the operator, so p-multigrid starts it {@link #ahead} on a
 * host thread for every Schwarz-smoothed level, while the backend builds the levels' operators, and the level's
 * {@link SchwarzPreconditioner#bind} takes it when it needs it; made {@link #inline}, each part is computed where it is
 * first asked for. Either way the same functions make the same numbers: only where and when they run differs.
 */
final class SchwarzHostSetup {

    private final SpectralElementMesh mesh;
    private final boolean[] mask;
    private final double lambda;
    private final boolean compactRas;
    private final CompletableFuture<Parts> parts;
    private final CompletableFuture<FastDiagonalization.Table> table;

    /** The extended elements, their mask and its unmasked node count (the parts made before the table). */
    record Parts(ExtendedElements extended, boolean[] extendedMask, int unmasked) {
    }

    private SchwarzHostSetup(SpectralElementMesh mesh, boolean[] mask, double lambda, boolean compactRas,
                             CompletableFuture<Parts> parts, CompletableFuture<FastDiagonalization.Table> table) {
        this.mesh = mesh;
        this.mask = mask;
        this.lambda = lambda;
        this.compactRas = compactRas;
        this.parts = parts;
        this.table = table;
    }

    /**
     * Starts the host setup of {@code mesh} (Dirichlet {@code mask} of length {@code mesh.globalNodeCount()}, or null)
     * on {@code host}: one task that completes the extended elements and then the table (for the screening
     * {@code lambda}); {@code compactRas} asks for the extended elements from their faces only
     * ({@link ExtendedElements#faces}), else with their map ({@link ExtendedElements#of}).
     */
    static SchwarzHostSetup ahead(Executor host, SpectralElementMesh mesh, boolean[] mask, double lambda, boolean compactRas) {
        Objects.requireNonNull(host, "host");
        check(mesh, mask);
        CompletableFuture<Parts> parts = new CompletableFuture<>();
        CompletableFuture<FastDiagonalization.Table> table = new CompletableFuture<>();
        host.execute(() -> {
            Parts p;
            try {
                p = parts(mesh, mask, compactRas);
                parts.complete(p);
            } catch (RuntimeException | Error e) {
                parts.completeExceptionally(e);
                table.completeExceptionally(e);
                return;
            }
            try {
                table.complete(table(p, lambda));
            } catch (RuntimeException | Error e) {
                table.completeExceptionally(e);
            }
        });
        return new SchwarzHostSetup(mesh, mask, lambda, compactRas, parts, table);
    }

    /** The host setup made on the caller's thread, each part where it is first asked for. */
    static SchwarzHostSetup inline(SpectralElementMesh mesh, boolean[] mask, double lambda, boolean compactRas) {
        check(mesh, mask);
        return new SchwarzHostSetup(mesh, mask, lambda, compactRas, null, null);
    }

    private static void check(SpectralElementMesh mesh, boolean[] mask) {
        Objects.requireNonNull(mesh, "mesh");
        int g = mesh.globalNodeCount();
        if (mask != null && mask.length != g) {
            throw new IllegalArgumentException("mask has length " + mask.length + " but the mesh has " + g + " global nodes");
        }
    }

    /** Whether this setup was made for {@code mesh}, {@code mask} (the same arrays), {@code lambda} and the compact RAS choice. */
    boolean isFor(SpectralElementMesh mesh, boolean[] mask, double lambda, boolean compactRas) {
        return this.mesh == mesh && this.mask == mask && Double.compare(this.lambda, lambda) == 0
                && this.compactRas == compactRas;
    }

    private Parts inlineParts;
    private FastDiagonalization.Table inlineTable;

    /** The extended elements, their mask and unmasked count: waited for if made ahead, else made now (once). */
    Parts parts() {
        if (parts != null) {
            return Once.join(parts);
        }
        if (inlineParts == null) {
            inlineParts = parts(mesh, mask, compactRas);
        }
        return inlineParts;
    }

    /** The fast diagonalisation table: waited for if made ahead, else made now (once). */
    FastDiagonalization.Table table() {
        if (table != null) {
            return Once.join(table);
        }
        if (inlineTable == null) {
            inlineTable = table(parts(), lambda);
        }
        return inlineTable;
    }

    private static Parts parts(SpectralElementMesh mesh, boolean[] mask, boolean compactRas) {
        ExtendedElements ext = compactRas ? ExtendedElements.faces(mesh) : ExtendedElements.of(mesh);
        boolean[] extMask = FastDiagonalization.extendedMask(mask, mesh.globalNodeCount());
        int unmasked = 0;
        for (int g = 0; g < extMask.length - 1; g++) {
            unmasked += extMask[g] ? 0 : 1;
        }
        return new Parts(ext, extMask, unmasked);
    }

    private static FastDiagonalization.Table table(Parts p, double lambda) {
        return FastDiagonalization.table(p.extended(), p.extendedMask(), lambda, SchwarzPreconditioner.LENGTH_BITS,
                SchwarzPreconditioner.SOLVER);
    }

}
