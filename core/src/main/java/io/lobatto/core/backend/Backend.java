package io.lobatto.core.backend;

import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.mesh.ElementGeometry;
import io.lobatto.core.pointwise.PointFunction;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.Quadrature;

/**
 * The kernels of the CEED benchmark papers behind one interface (site/src/site/markdown/design.md, "The Backend SPI"):
 * memory, the streaming kernels BS1-BS5, the gather/scatter kernels BS6-BS7 and the element kernels
 * BP1.0, BP3.5, BP3.0 including hipBone's fused assembled operator. Every other layer of Lobatto talks
 * to the hardware only through this interface; the Java backend ({@code lobatto-backend-cpu}) is the
 * reference that every other backend is tested against.
 *
 * <p>Contract for all operations: arguments must be open objects created by this backend, vector
 * lengths must match exactly (else {@link IllegalArgumentException} naming the argument and both
 * lengths). Inputs and outputs of one call may not alias unless a method says so. Operations may be
 * queued asynchronously; any method that returns a value to the host (reductions, downloads)
 * completes all work queued before it, and {@link #synchronize()} waits for all queued work.
 * Reductions are deterministic: the same inputs give bitwise the same result on the same backend.
 */
public interface Backend extends AutoCloseable {

    /** Short backend name as used by {@code LOBATTO_BACKEND}: "cpu", "aparapi", ... */
    String name();

    /** The device this backend runs on. */
    DeviceInfo device();

    // ---------------------------------------------------------------- memory

    /** Allocates a vector of {@code length} zeros. */
    DeviceVector allocate(int length);

    /** Allocates a vector holding a copy of {@code values}. */
    DeviceVector upload(double[] values);

    /** Allocates an index vector holding a copy of {@code values}. */
    DeviceIntVector upload(int[] values);

    /** Overwrites {@code target} with {@code values} (lengths must match). */
    void write(double[] values, DeviceVector target);

    /** Copies {@code source} into {@code values} (lengths must match). */
    void read(DeviceVector source, double[] values);

    /** Returns a new host array holding a copy of {@code source}. */
    default double[] download(DeviceVector source) {
        double[] values = new double[source.length()];
        read(source, values);
        return values;
    }

    /**
     * Starts copying {@code source} (as the work queued before this call leaves it) into {@code values} and returns
     * without waiting for that work: {@code values} holds the copy once {@link PendingRead#await()} of the returned
     * read has returned, and must not be used before. Work queued after this call is not delayed by the wait (a backend
     * with a copy engine runs it during the copy), so a distributed operator reads its boundary values and keeps the
     * device busy with its interior. {@code source} must
     * not be written by work queued before {@code await} returns. The default reads at once ({@link #read}).
     */
    default PendingRead readAsync(DeviceVector source, double[] values) {
        read(source, values);
        return PendingRead.DONE;
    }

    /**
     * Queues {@code target = values} without waiting for the work queued before it ({@link #write} may wait for it):
     * {@code values} may be changed as soon as this returns, and work queued after it sees the new values. The copy may
     * run while the work queued before this call still runs (a backend with a copy engine overlaps them), so that work
     * must not use {@code target}. The default is {@link #write}.
     */
    default void writeAsync(double[] values, DeviceVector target) {
        write(values, target);
    }

    /** A copy to the host started by {@link #readAsync}. */
    @FunctionalInterface
    interface PendingRead {
        /** A read that is complete. */
        PendingRead DONE = () -> { };

        /** Waits until the values are on the host (only for this copy and the work queued before it); idempotent. */
        void await();
    }

    /** Waits until all queued work of this backend has finished. */
    void synchronize();

    /**
     * Names the work launched from now on in the backend's launch statistics, where it keeps them (the Aparapi
     * backend's per-kernel device times under {@code --profile}): its kernels are counted as "scope | kernel" until the
     * next call; an empty scope counts them under their own names again. p-multigrid names each level's share of a
     * V-cycle this way. No effect on the results; the default keeps no statistics and does nothing.
     *
     * @param scope the name, or "" for none; never null
     */
    default void profileScope(String scope) {
        java.util.Objects.requireNonNull(scope, "scope");
    }

    // ---------------------------------------------------------------- streaming (BS1-BS5)

    /** y_i = value. */
    void fill(DeviceVector y, double value);

    /**
     * y = the reproducible random vector of {@code seed} ({@link RandomFill}: entries in [-1/2, 1/2), the same bits on
     * every backend), made where y lives: the start vectors of the eigenvalue estimates without a host array of their
     * size. The default makes it on the host and writes it.
     */
    default void fillRandom(DeviceVector y, long seed) {
        write(RandomFill.of(y.length(), seed), y);
    }

    /** BS1: y = x. */
    void copy(DeviceVector x, DeviceVector y);

    /** BS2: y = a x + b y ({@code x} and {@code y} may be the same vector). */
    void axpby(double a, DeviceVector x, double b, DeviceVector y);

    /** y_i = a_i x_i (Jacobi preconditioning; {@code x} and {@code y} may be the same vector). */
    void pointwiseMultiply(DeviceVector a, DeviceVector x, DeviceVector y);

    /**
     * The indexed gather y_i = x_{idx_i} for i in [0, y.length()), one pass on the device: a partial injection y = P x
     * (P the rows of the identity at {@code idx}), e.g. a rank's entries of a whole coarse vector, or a vector's entries
     * put in another order. {@code idx} has y.length() entries, each in [0, x.length()), and may repeat; {@code x} and
     * {@code y} must be distinct. Backends check the ranges when {@code idx} is uploaded or used. The default throws
     * {@link UnsupportedOperationException} (an index vector cannot be read back through this interface).
     *
     * @throws IllegalArgumentException if {@code idx.length() != y.length()}, {@code x} and {@code y} are the same
     *                                  vector, or an index is not in [0, x.length()) (naming it and the range)
     */
    default void indexedGather(DeviceVector x, DeviceIntVector idx, DeviceVector y) {
        throw new UnsupportedOperationException("backend " + name() + " has no indexed gather");
    }

    /**
     * Checks the arguments of {@link #indexedGather} given the index range of {@code idx} ({@code min > max} when it is
     * empty); throws the {@link IllegalArgumentException} that names the argument, its value and the limit.
     */
    static void checkIndexedGather(DeviceVector x, DeviceIntVector idx, DeviceVector y, int min, int max) {
        if (x == y) {
            throw new IllegalArgumentException("indexedGather: x and y must be distinct vectors");
        }
        if (idx.length() != y.length()) {
            throw new IllegalArgumentException("indexedGather: idx has length " + idx.length() + " but y has length "
                    + y.length());
        }
        if (min <= max && (min < 0 || max >= x.length())) {
            throw new IllegalArgumentException("indexedGather: idx holds " + (min < 0 ? min : max) + ", not in [0, "
                    + x.length() + ") (the length of x)");
        }
    }

    /** BS4: x . y. */
    double dot(DeviceVector x, DeviceVector y);

    /** BS3: x . x (the squared 2-norm). */
    double norm2(DeviceVector x);

    /**
     * BS5, the fused CG update of hipBone's Algorithm 1: x += alpha p; r -= alpha Ap; returns r . r
     * of the updated r, all in one pass over the four vectors.
     */
    double cgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r);

    /**
     * CG's whole vector step: BS5, the fused CG update of hipBone's Algorithm 1, with the search-direction update
     * p = r + beta p folded in. Row by row, with r the old residual: p_i = r_i + beta p_i; x_i += alpha p_i;
     * r_i -= alpha Ap_i; returns r . r of the updated r, in one pass that reads each vector once. {@code p} must hold
     * the previous direction on entry (it holds the new one on return) and {@code ap} must be A (r + beta p), the
     * operator applied to the new direction (an apply that forms r + beta p on the fly and does not write it).
     * The four vectors must be distinct and of one length. Deterministic like every reduction.
     *
     * <p>The default composes the existing ops ({@link #axpby}(1, r, beta, p), then {@link #cgUpdate}: two passes,
     * the same results up to the summation order of the reduction), so a backend without a fused kernel stays correct.
     *
     * @throws IllegalArgumentException if their lengths differ or two of the vectors are the same (naming them)
     */
    default double cgStep(double alpha, double beta, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r) {
        checkCgStep(p, ap, x, r);
        axpby(1, r, beta, p);
        return cgUpdate(alpha, p, ap, x, r);
    }

    /**
     * Checks the arguments of {@link #cgStep} before anything is written: the four vectors of p's length and distinct.
     * Throws the {@link IllegalArgumentException} that names the first vector whose length differs, its length and
     * p's, or the first two that are the same vector.
     */
    static void checkCgStep(DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r) {
        DeviceVector[] all = {p, ap, x, r};
        String[] names = {"p", "ap", "x", "r"};
        for (int i = 0; i < all.length; i++) {
            java.util.Objects.requireNonNull(all[i], names[i]);
        }
        for (int i = 1; i < all.length; i++) {
            if (all[i].length() != p.length()) {
                throw new IllegalArgumentException("cgStep: p has length " + p.length() + " but " + names[i] + " has length "
                        + all[i].length());
            }
        }
        for (int i = 0; i < all.length; i++) {
            for (int j = i + 1; j < all.length; j++) {
                if (all[i] == all[j]) {
                    throw new IllegalArgumentException("cgStep: " + names[i] + " and " + names[j] + " must be distinct vectors");
                }
            }
        }
    }

    /**
     * BS5 with Jacobi preconditioning fused in (one pass, two reductions): x += alpha p;
     * r -= alpha Ap; z = inverseDiagonal o r (pointwise, the Jacobi z = M^-1 r with M = diag(A));
     * then {@code dots[0] = r . r} and {@code dots[1] = r . z} of the updated r and z. This replaces
     * cgUpdate + pointwiseMultiply + dot of Jacobi PCG. All six vectors must be distinct and
     * {@code dots} must have length >= 2. Deterministic like every reduction.
     *
     * <p>The default composes the existing ops (three passes, same results up to the summation
     * order of the reductions), so a backend without a fused kernel stays correct.
     */
    default void pcgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r,
                           DeviceVector inverseDiagonal, DeviceVector z, double[] dots) {
        requireDots(dots);
        double rr = cgUpdate(alpha, p, ap, x, r);
        pointwiseMultiply(inverseDiagonal, r, z);
        dots[0] = rr;
        dots[1] = dot(r, z);
    }

    // ---------------------------------------------------------------- reductions less some rows (distributed solves)

    /**
     * {@link #dot} less the terms at the rows {@code excluded} (distinct, each in [0, n)): x . y - sum over k of
     * x_e y_e with e = excluded[k], each of the two sums taken in the backend's fixed order (deterministic). A rank of
     * a distributed solve counts the nodes it shares but does not own this way, with no pass over an owner mask: the
     * correction reads only the excluded rows. {@code excluded} of length 0 gives {@link #dot}. The default throws
     * {@link UnsupportedOperationException}.
     */
    default double dot(DeviceVector x, DeviceVector y, DeviceIntVector excluded) {
        throw new UnsupportedOperationException("backend " + name() + " has no reductions less excluded rows");
    }

    /**
     * {@link #cgUpdate} whose r . r leaves out the rows {@code excluded} (as {@link #dot(DeviceVector, DeviceVector,
     * DeviceIntVector)}); the update covers every row. The default throws {@link UnsupportedOperationException}.
     */
    default double cgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r,
                            DeviceIntVector excluded) {
        throw new UnsupportedOperationException("backend " + name() + " has no reductions less excluded rows");
    }

    /**
     * {@link #pcgUpdate} whose r . r and r . z leave out the rows {@code excluded} (as {@link #dot(DeviceVector,
     * DeviceVector, DeviceIntVector)}); the update covers every row. One return to the host, like {@link #pcgUpdate}, where
     * the backend can. The default throws {@link UnsupportedOperationException}.
     */
    default void pcgUpdate(double alpha, DeviceVector p, DeviceVector ap, DeviceVector x, DeviceVector r,
                           DeviceVector inverseDiagonal, DeviceVector z, DeviceIntVector excluded, double[] dots) {
        throw new UnsupportedOperationException("backend " + name() + " has no reductions less excluded rows");
    }

    /** Checks the result array of {@link #pcgUpdate}. */
    private static void requireDots(double[] dots) {
        if (dots == null || dots.length < 2) {
            throw new IllegalArgumentException("pcgUpdate: dots must be an array of length >= 2, got "
                    + (dots == null ? "null" : "length " + dots.length));
        }
    }

    // ---------------------------------------------------------------- setup where the operator runs

    /**
     * Uploads what defines the elements' shape: their geometry nodes (24 or 81 doubles per element) and point map.
     * Node positions and geometric factors are then computed here ({@link #geometricFactors}, {@link #evaluate}), so no
     * per-point array crosses from the host. The default keeps the description on the host and computes there.
     *
     * @throws IllegalArgumentException if the map cannot run on this backend (naming the construct that stops it)
     */
    default DeviceGeometry uploadGeometry(ElementGeometry geometry) {
        return HostSetup.geometry(geometry);
    }

    /**
     * The geometric factors of degree {@code basis.degree()} at the points of {@code quadrature}, computed from
     * {@code geometry}: {@code [E][P][factorsPerPoint]}, with 7 the packed (G00, G01, G02, G11, G12, G22, wJ) and
     * 1 wJ alone; the values of {@link io.lobatto.core.geometry.GeometricFactors} (to round-off).
     *
     * @throws IllegalArgumentException for {@code factorsPerPoint} other than 1 or 7, sizes beyond this backend's
     *                                  limits, or a point with |J| {@literal <=} 0 (naming the first element and point)
     */
    default DeviceVector geometricFactors(DeviceGeometry geometry, Basis1D basis, Quadrature quadrature, int factorsPerPoint) {
        return upload(HostSetup.factors(geometry.geometry(), basis, quadrature, factorsPerPoint));
    }

    /**
     * {@code out[E][Np][k]} = f_k(x) at the GLL nodes of degree {@code basis.degree()} of every element, x their
     * positions from {@code geometry}: right-hand sides, boundary data and exact solutions as element-local vectors.
     *
     * @throws IllegalArgumentException if {@code out} does not have E Np f.outputs() entries, or {@code f} cannot
     *                                  run on this backend (naming the construct)
     */
    default void evaluate(DeviceGeometry geometry, Basis1D basis, PointFunction f, DeviceVector out) {
        write(HostSetup.evaluate(geometry.geometry(), basis, f), out);
    }

    /**
     * The {@link ErrorNorms} of the element-local nodal field {@code uL} ([E][Np], e.g. Z u + g) against the closed-form
     * {@code exact} (its first output), evaluated where the field lives: the max over the GLL nodes, and the squared L2
     * norm by Gauss-Legendre quadrature of the isoparametric elements ({@link HostSetup#errorNorms} defines both; a
     * backend's values agree with it to rounding, apart from the order of the max and of the per-element sums, which is
     * element order). Only the norms cross to the host, never a field.
     *
     * @throws IllegalArgumentException if {@code uL} does not have E Np entries, or {@code exact} cannot run on this
     *                                  backend (naming the construct)
     */
    default ErrorNorms errorNorms(DeviceGeometry geometry, Basis1D basis, DeviceVector uL, PointFunction exact) {
        return HostSetup.errorNorms(geometry.geometry(), basis, download(uL), exact);
    }

    /**
     * y = 1 / x entry by entry; returns how many entries of x are not positive and finite (0 when x is a valid
     * diagonal to invert; y is undefined at the others). The default runs on the host.
     */
    default long reciprocal(DeviceVector x, DeviceVector y) {
        double[] h = download(x);
        long bad = 0;
        for (int i = 0; i < h.length; i++) {
            if (!(h[i] > 0) || !Double.isFinite(h[i])) {
                bad++;
            }
            h[i] = 1 / h[i];
        }
        write(h, y);
        return bad;
    }

    // ---------------------------------------------------------------- gather/scatter (BS6-BS7)

    /**
     * Uploads the scatter operator Z (see {@link DeviceScatter} for the meaning of the arrays).
     * Backends check the arrays' consistency (ids in range, CSR rows ascending, blockStarts covering
     * all rows) and throw {@link IllegalArgumentException} when they are not.
     */
    DeviceScatter uploadScatter(int[] scatterIds, int[] gatherStarts, int[] gatherIds, int[] blockStarts,
                                double[] inverseDegree, int globalSize);

    /**
     * Uploads Z as {@link #uploadScatter} does, given the degree of each assembled node (the diagonal of Z^T Z, length
     * {@code globalSize}) instead of W: the backend makes W = 1 / degree(scatterIds) itself ({@link ScatterWeights}), so
     * that no array of N_L doubles is made on the host or crosses to the device. The default makes W on the host.
     *
     * @param degree the degrees, or null for the row lengths of {@code gatherStarts} (the degrees of this Z itself; a
     *               distributed Z passes the degrees over all ranks instead)
     * @throws IllegalArgumentException as {@link #uploadScatter}, or naming a degree below 1
     */
    default DeviceScatter uploadScatterByDegree(int[] scatterIds, int[] gatherStarts, int[] gatherIds, int[] blockStarts,
                                                int[] degree, int globalSize) {
        if (degree == null && gatherStarts != null && gatherStarts.length == globalSize + 1) {
            degree = new int[globalSize];
            for (int a = 0; a < globalSize; a++) {
                degree[a] = gatherStarts[a + 1] - gatherStarts[a];
            }
        }
        if (degree == null || degree.length != globalSize) {
            throw new IllegalArgumentException("degree has length " + (degree == null ? "null" : degree.length)
                    + " but globalSize = " + globalSize);
        }
        return uploadScatter(scatterIds, gatherStarts, gatherIds, blockStarts, ScatterWeights.inverseDegree(scatterIds, degree),
                globalSize);
    }

    /**
     * Builds Z where it runs, from the element-local to original-global map (setup on the device): the assembled
     * numbering (the unmasked original nodes in ascending order), the scatter ids, the CSR of Z^T with each row's local
     * ids ascending, the row blocks and W, the same arrays as the host's {@code ScatterOperator.of} with its default
     * block bound. The host uploads the map and the masked nodes and makes no array of N_L entries.
     *
     * @param localToGlobal     entries 0 .. limit: the original global id of each local node; read, not retained
     * @param originalNodeCount the number of original global nodes, masked ones included
     * @param masked            length {@code originalNodeCount}, true for Dirichlet nodes, or null for none; read, not retained
     * @return Z on this backend, or empty where this backend does not build Z itself (the caller builds it on the host
     *         and uploads it); the default is empty
     * @throws IllegalArgumentException as the host build: an id out of range, a mask of the wrong length, an unmasked
     *                                  node that no local node references
     */
    default java.util.Optional<DeviceScatter> buildScatter(java.nio.IntBuffer localToGlobal, int originalNodeCount,
                                                           boolean[] masked) {
        return java.util.Optional.empty();
    }

    /**
     * Builds Z where it runs from a mesh's numbering by entities: the backend makes the local-to-global map itself
     * ({@link io.lobatto.core.mesh.ElementNumbering#globalId} at every local node, straight into its own memory), then
     * builds Z as {@link #buildScatter(java.nio.IntBuffer, int, boolean[])} does from it. Only the O(E) entity arrays
     * cross; no array of N_L entries is made on the host. The same Z as the host's {@code ScatterOperator.of} of the
     * mesh's map.
     *
     * @param numbering the mesh's numbering ({@code SpectralElementMesh.numbering()})
     * @param masked    length {@code numbering.globalNodeCount()}, true for Dirichlet nodes, or null for none; read, not
     *                  retained
     * @return Z on this backend, or empty where this backend does not make the map itself (the caller makes it on the
     *         host and builds Z from it); the default is empty
     * @throws IllegalArgumentException as {@link #buildScatter(java.nio.IntBuffer, int, boolean[])}
     */
    default java.util.Optional<DeviceScatter> buildScatter(io.lobatto.core.mesh.ElementNumbering numbering, boolean[] masked) {
        return java.util.Optional.empty();
    }

    /** BS7: x_L = Z x_G, with x_L = 0 at masked nodes (scatter id -1). */
    void scatter(DeviceScatter z, DeviceVector xG, DeviceVector xL);

    /** BS6: x_G = Z^T x_L (sums over the local copies of each assembled node). */
    void gather(DeviceScatter z, DeviceVector xL, DeviceVector xG);

    /**
     * BS6 with a dot product: y_G = Z^T y_L, then returns x_G . y_G, the sum computed in the gather's pass where the
     * backend can (as {@link #applyAssembledDot} does). The gather half of the fused operator, for callers that run
     * its element half in parts ({@link #applyAssembledElements}). Deterministic like every reduction. The default
     * composes {@link #gather} and {@link #dot}.
     */
    default double gatherDot(DeviceScatter z, DeviceVector yL, DeviceVector xG, DeviceVector yG) {
        gather(z, yL, yG);
        return dot(xG, yG);
    }

    // ---------------------------------------------------------------- distributed gather (halo)

    /**
     * Uploads the halo sums of a distributed gather (see {@link DeviceHalo} for the arrays' meaning). The default keeps
     * them on the host ({@link HostHalo}).
     *
     * @throws IllegalArgumentException if an id is out of range, a row appears twice or starts is not a CSR offset array
     */
    default DeviceHalo uploadHalo(int[] rows, int[] starts, int[] sources, int receivedSize, int globalSize) {
        return new HostHalo(rows, starts, sources, receivedSize, globalSize);
    }

    /**
     * Completes a distributed gather at the shared rows: y_G[rows[u]] = the sum, in the order of {@code sources}
     * starting from 0, of y_G[rows[u]] (source -1) and {@code received[j]} (source j). Rows not in the halo are
     * untouched. With every rank listing a node's contributions in the same order, every copy ends bitwise equal.
     * The default runs on the host (a read and a write of y_G).
     */
    default void sumHalo(DeviceHalo halo, DeviceVector received, DeviceVector yG) {
        if (!(halo instanceof HostHalo h)) {
            throw new IllegalArgumentException("halo was not uploaded by backend " + name());
        }
        if (received.length() != halo.receivedSize() || yG.length() != halo.globalSize()) {
            throw new IllegalArgumentException("sumHalo: received has length " + received.length() + " and yG " + yG.length()
                    + " but the halo needs " + halo.receivedSize() + " and " + halo.globalSize());
        }
        double[] r = download(received);
        double[] y = download(yG);
        h.sum(r, y);
        write(y, yG);
    }

    /**
     * {@link #gatherDot} and then {@link #sumHalo} at once: y_G = Z^T y_L completed at the halo's rows by the
     * received partials, and x_G . y_G of this rank's partial y_G (before the halo sums, as a distributed CG's p . Ap
     * needs it). The values are bitwise those of the two calls in turn; a backend that can does both in the gather's
     * pass (one launch fewer per distributed apply). The default makes the two calls.
     */
    default double gatherDotHalo(DeviceScatter z, DeviceVector yL, DeviceVector xG, DeviceVector yG, DeviceHalo halo,
                                 DeviceVector received) {
        double dot = gatherDot(z, yL, xG, yG);
        sumHalo(halo, received, yG);
        return dot;
    }

    /**
     * {@link #gather} and then {@link #sumHalo} at once: y_G = Z^T y_L completed at the halo's rows by the received
     * partials (a distributed apply with no dot, such as a smoother's). The values are bitwise those of the two calls in
     * turn; a backend that can does both in the gather's pass (one launch fewer per apply). The default makes the two
     * calls.
     */
    default void gatherHalo(DeviceScatter z, DeviceVector yL, DeviceVector yG, DeviceHalo halo, DeviceVector received) {
        gather(z, yL, yG);
        sumHalo(halo, received, yG);
    }

    // ---------------------------------------------------------------- element kernels

    /**
     * Uploads what {@code kernel} reads for {@code elements} elements of degree {@code basis.degree()}.
     * {@code geometricData} is {@code [E][Nqp^3][kernel.factorsPerPoint()]} with Nqp = N+1 (GLL) for
     * BP3.5 and N+2 (GL) for BP1.0 and BP3.0; packed factors are (G00,G01,G02,G11,G12,G22,wJ).
     */
    DeviceElementData uploadElementData(ElementKernel kernel, Basis1D basis, int elements, double[] geometricData);

    /**
     * As {@link #uploadElementData(ElementKernel, Basis1D, int, double[])} with the geometric data already on this
     * backend (from {@link #geometricFactors}): the returned data takes {@code geometricData} over and closes it with
     * itself. The default downloads it and uploads the copy.
     */
    default DeviceElementData uploadElementData(ElementKernel kernel, Basis1D basis, int elements, DeviceVector geometricData) {
        double[] host = download(geometricData);
        geometricData.close();
        return uploadElementData(kernel, basis, elements, host);
    }

    /**
     * Element data of BP3.5 whose kernel computes the geometric factors at every node from the element's 8 vertices on
     * each apply ("on the fly", {@link io.lobatto.core.geometry.TrilinearFactors}'s closed form) instead of reading 7
     * stored factors per node: BP3.5 then reads 24 doubles per element instead of 7 Np. {@code geometry} may be closed
     * once this returns (the data keeps what it needs). A backend that checks |J| {@literal >} 0 does so here.
     * {@link DeviceElementData#factorsOnTheFly()} tells whether the kernel really does; the default stores the factors
     * ({@link #geometricFactors} then {@link #uploadElementData(ElementKernel, Basis1D, int, DeviceVector)}), the same
     * operator to round-off.
     *
     * @throws IllegalArgumentException if {@code kernel} is not {@link ElementKernel#STIFFNESS_BP35}, the geometry is not
     *                                  trilinear ({@link ElementGeometry#isTrilinear()}: order 1 and no point map) or a node
     *                                  has |J| {@literal <=} 0
     */
    default DeviceElementData elementDataOnTheFly(ElementKernel kernel, Basis1D basis, DeviceGeometry geometry) {
        ElementGeometry g = requireOnTheFly(kernel, basis, geometry);
        DeviceVector factors = geometricFactors(geometry, basis, Quadrature.GLL, kernel.factorsPerPoint());
        try {
            return uploadElementData(kernel, basis, g.elementCount(), factors);
        } catch (RuntimeException e) {
            factors.close();
            throw e;
        }
    }

    /**
     * Checks the arguments of {@link #elementDataOnTheFly}: returns the host geometry, or throws the
     * {@link IllegalArgumentException} that names the argument, its value and the limit.
     */
    static ElementGeometry requireOnTheFly(ElementKernel kernel, Basis1D basis, DeviceGeometry geometry) {
        if (kernel != ElementKernel.STIFFNESS_BP35) {
            throw new IllegalArgumentException("elementDataOnTheFly: kernel is " + kernel
                    + "; geometric factors on the fly exist for STIFFNESS_BP35 (GLL collocation) only");
        }
        if (basis == null || geometry == null) {
            throw new IllegalArgumentException("elementDataOnTheFly: basis and geometry must not be null");
        }
        ElementGeometry g = geometry.geometry();
        String why = g.notTrilinearReason();
        if (why != null) {
            throw new IllegalArgumentException("elementDataOnTheFly: geometry must be trilinear (order 1: 8 vertices per "
                    + "element, and no point map), but " + why);
        }
        return g;
    }

    /**
     * The diagonal of each element matrix of {@code data}'s kernel (BP1.0: M^e; BP3.5, BP3.0: S^e + lambda M^e) into
     * {@code diagonalL}, {@code [E][Np]}, as {@link ElementMatrixDiagonal} computes it; {@code lambda} is ignored by
     * BP1.0. Z^T of it is the Jacobi diagonal of the assembled operator.
     *
     * @throws UnsupportedOperationException if this backend has no such kernel (callers then use the host factors)
     */
    default void elementDiagonal(DeviceElementData data, double lambda, DeviceVector diagonalL) {
        throw new UnsupportedOperationException("backend " + name() + " has no element-diagonal kernel");
    }

    /**
     * y_L = L x_L element by element, with L = M^e for BP1.0 ({@code lambda} ignored) and
     * L = S^e + lambda M^e for BP3.5 and BP3.0. {@code xL} and {@code yL} must be distinct.
     */
    void applyElements(DeviceElementData data, double lambda, DeviceVector xL, DeviceVector yL);

    /**
     * hipBone's fused assembled operator: y_L = (L + shift W) Z x_G with L as in
     * {@link #applyElements} (W the inverse degree of {@code z}), then y_G = Z^T y_L. With
     * {@code shift = 0} this is A = Z^T L Z; NekBone's A = Z^T S_L Z + lambda I is
     * {@code lambda = 0, shift = lambda}. {@code yL} is workspace of length N_L; what it holds on return is the
     * backend's (y_L where the backend forms it, as a GPU backend does before its gather; a backend that adds each
     * element's values into y_G directly need not write it), so a caller that needs y_L calls {@link #applyElements}.
     */
    void applyAssembled(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                        DeviceVector xG, DeviceVector yL, DeviceVector yG);

    /**
     * {@link #applyAssembled} that also returns x_G . y_G, computed in the same pass as the gather
     * (hipBone fuses the p . Ap reduction of CG into the operator: each gather work-group multiplies
     * the rows it has just summed by x_G and writes a partial sum). With A = Z^T (L + shift W) Z this is
     * y_G = A x_G and the return value is x_G^T A x_G. Deterministic like every reduction.
     *
     * <p>The default composes {@link #applyAssembled} and {@link #dot} (one more pass over two
     * vectors), so a backend without a fused kernel stays correct.
     */
    default double applyAssembledDot(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                     DeviceVector xG, DeviceVector yL, DeviceVector yG) {
        applyAssembled(data, z, lambda, shift, xG, yL, yG);
        return dot(xG, yG);
    }

    /**
     * {@link #applyAssembledDot} on the updated search direction: p_G = z_G + beta p_G, then y_G = A p_G
     * and returns p_G . y_G. A backend can fold the update into the operator: the element kernel reads
     * z_G + beta p_G through the scatter ids and the gather, which owns each row, writes the new p_G
     * (one pass over p instead of two). The default composes {@link #axpby} and
     * {@link #applyAssembledDot}. {@code zG}, {@code pG} and {@code yG} must be distinct.
     */
    default double applyAssembledDotUpdate(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                           DeviceVector zG, double beta, DeviceVector pG, DeviceVector yL, DeviceVector yG) {
        axpby(1, zG, beta, pG);
        return applyAssembledDot(data, z, lambda, shift, pG, yL, yG);
    }

    /**
     * Whether {@link #applyAssembledDirectionDot} runs for {@code data} with this {@code shift}. The default is false.
     */
    default boolean foldsAssembledDirectionDot(DeviceElementData data, double shift) {
        return false;
    }

    /**
     * y_G = A q_G with q_G = z_G + beta p_G, and returns q_G . y_G, leaving p_G as it is: the element kernel reads
     * z_G + beta p_G through the scatter ids, adds its outputs into y_G and sums q . A q = sum_e q_e . A_e q_e over its
     * elements (A = Z^T (L + shift W) Z), so no pass reads y_G for the dot and CG's p = z + beta p moves into the pass
     * that updates x and r ({@link #cgStep}). {@code zG}, {@code pG} and {@code yG} must be distinct. Where
     * {@link #foldsAssembledDirectionDot} is false it throws {@link UnsupportedOperationException}, as the default does.
     */
    default double applyAssembledDirectionDot(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                              DeviceVector zG, double beta, DeviceVector pG, DeviceVector yL,
                                              DeviceVector yG) {
        throw new UnsupportedOperationException("applyAssembledDirectionDot: this backend does not sum p . A p in its "
                + "element kernels");
    }

    /**
     * Plain CG's iteration after the first (hipBone's Algorithm 1) where {@link #foldsAssembledDirectionDot} holds:
     * x += pending p (the update of the step before, where it was deferred; p is still its direction); q = r + beta p,
     * y = A q and p . A p = q . y ({@link #applyAssembledDirectionDot}); alpha = {@link #cgAlpha}(rz, p . A p); p = q,
     * x += alpha p, r -= alpha y ({@link #cgStep}); y = 0 again. {@code yG} must be zero on entry and is left zero.
     * out[0] = p . A p, out[1] = the new r . r, out[2] = the alpha this call left to add to x with the new p: a backend
     * may defer x's update where {@code deferX} asks (then out[2] = alpha, and the caller passes it as the next call's
     * {@code pending} or adds it itself), so that x moves once every two steps. The default composes the calls named
     * and defers nothing (out[2] = 0).
     *
     * @throws IllegalArgumentException where out is shorter than 3, or {@code deferX} with {@code pending} not 0
     */
    default void assembledCgIteration(DeviceElementData data, DeviceScatter z, double lambda, double shift, double beta,
                                      double rz, double pending, boolean deferX, DeviceVector pG, DeviceVector yL,
                                      DeviceVector yG, DeviceVector xG, DeviceVector rG, double[] out) {
        checkCgIteration("assembledCgIteration", pending, deferX, out);
        if (pending != 0) {
            axpby(pending, pG, 1, xG);
        }
        double pAp = applyAssembledDirectionDot(data, z, lambda, shift, rG, beta, pG, yL, yG);
        out[1] = cgStep(cgAlpha(rz, pAp), beta, pG, yG, xG, rG);
        out[0] = pAp;
        out[2] = 0;
        fill(yG, 0);
    }

    /**
     * Whether {@link #queueAssembledCgIteration} runs for {@code data} with this {@code shift}: CG's scalars stay on the
     * device between iterations. The default is false.
     */
    default boolean queuesAssembledCg(DeviceElementData data, double shift) {
        return false;
    }

    /**
     * {@link #assembledCgIteration} queued, for CG iteration {@code k}: beta is set on the device from the new r . r at
     * the end of each step, so the host queues iteration after iteration without waiting, and reads each one's
     * p . A p, r . r and alpha with {@link #awaitCgIteration}(k) while later ones run. With {@code first} the device's
     * scalars start from {@code beta}, {@code rz} (r . r) and {@code pending} (the alpha of a deferred x update, 0 where
     * none); later calls ignore those three. x is deferred where {@code deferX} asks, as in {@link #assembledCgIteration};
     * a step after a deferring one adds that step's term. Iteration k+4 may not be queued before k is awaited. One
     * sequence at a time per backend: a call with {@code first} ends the one before. Where {@link #queuesAssembledCg} is
     * false it throws {@link UnsupportedOperationException}, as the default does.
     *
     * @throws IllegalArgumentException where {@code deferX} follows a deferring step (or {@code pending} with {@code first})
     * @throws IllegalStateException    where no first call started the sequence, or iteration k - 4 is not awaited yet
     */
    default void queueAssembledCgIteration(DeviceElementData data, DeviceScatter z, double lambda, double shift, int k,
                                           boolean first, double beta, double rz, double pending, boolean deferX,
                                           DeviceVector pG, DeviceVector yL, DeviceVector yG, DeviceVector xG,
                                           DeviceVector rG) {
        throw new UnsupportedOperationException("queueAssembledCgIteration: this backend does not keep CG's scalars on "
                + "the device");
    }

    /**
     * Waits for the read-back of queued CG iteration {@code k} ({@link #queueAssembledCgIteration}): out[0] = p . A p,
     * out[1] = r . r after the step, out[2] = its alpha (0 where p . A p was not positive and below 1e308: then x and r
     * stayed as they were). The iterations queued after k keep running.
     *
     * @throws IllegalStateException where iteration k is not in flight
     */
    default void awaitCgIteration(int k, double[] out) {
        throw new UnsupportedOperationException("awaitCgIteration: this backend does not keep CG's scalars on the device");
    }

    /**
     * CG's step length alpha = rz / pAp where pAp is positive and below 1e308, else 0 (the iteration then leaves x and r
     * as they are, and CG stops on pAp): the division every backend's CG iteration makes, on the host or the device.
     */
    static double cgAlpha(double rz, double pAp) {
        return pAp > 0 && pAp < 1.0e308 ? rz / pAp : 0;
    }

    /** The argument checks of {@link #assembledCgIteration} and {@code DeviceOperator.cgIteration}. */
    static void checkCgIteration(String what, double pending, boolean deferX, double[] out) {
        if (out == null || out.length < 3) {
            throw new IllegalArgumentException(what + ": out must have length >= 3, got " + (out == null ? "null" : out.length));
        }
        if (deferX && pending != 0) {
            throw new IllegalArgumentException(what + ": a step with x pending (alpha " + pending + ") cannot defer its own");
        }
    }

    /**
     * A smoother's residual update with the operator apply: y_L = (L + shift W) Z x_G, y_G = Z^T y_L (as
     * {@link #applyAssembled}), then r_G = c1 y_G + r_G and, where {@code sG} is not null, s_G = c2 y_G + s_G (r -= A d
     * with c1 = -1). {@code xG}, {@code rG}, {@code sG} and {@code yG} are distinct; {@code yG} may be left with any
     * values. The default composes {@link #applyAssembled} and {@link #axpby}; a backend may fold the updates into the
     * gather (no y_G written).
     */
    default void applyAssembledResidual(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                        DeviceVector xG, DeviceVector yL, DeviceVector yG, double c1, DeviceVector rG,
                                        double c2, DeviceVector sG) {
        applyAssembled(data, z, lambda, shift, xG, yL, yG);
        axpby(c1, yG, 1, rG);
        if (sG != null) {
            axpby(c2, yG, 1, sG);
        }
    }

    /**
     * A distributed level's residual before its restriction, as this rank's partial sums: t_G = (mask o r_G) + c1 A x_G,
     * A x_G = Z^T (L + shift W) Z x_G over this rank's elements, {@code mask} the owner mask (each shared row's r counted
     * by the rank that owns it) and c1 = -1 (t = O r - A x). The values are bitwise those of
     * {@link #pointwiseMultiply}{@code (mask, rG, tG)} and {@link #applyAssembledResidual}{@code (.., c1, tG, 0, null)}
     * in turn, which the default makes; a backend may fold the mask into the gather (two launches instead of three).
     * {@code xG}, {@code mask}, {@code rG}, {@code tG} and {@code yG} are distinct; {@code yG} may be left with any values.
     */
    default void applyAssembledMaskedResidual(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                              DeviceVector xG, DeviceVector yL, DeviceVector yG, double c1,
                                              DeviceVector mask, DeviceVector rG, DeviceVector tG) {
        requireDistinct("applyAssembledMaskedResidual", "xG mask rG tG yG", xG, mask, rG, tG, yG);
        pointwiseMultiply(mask, rG, tG);
        applyAssembledResidual(data, z, lambda, shift, xG, yL, yG, c1, tG, 0, null);
    }

    /**
     * Throws {@link IllegalArgumentException} if two of {@code vectors} are the same vector, naming {@code what} and the
     * two arguments ({@code names}: the vectors' names, separated by spaces, in order).
     */
    private static void requireDistinct(String what, String names, DeviceVector... vectors) {
        for (int i = 0; i < vectors.length; i++) {
            for (int j = i + 1; j < vectors.length; j++) {
                if (vectors[i] == vectors[j]) {
                    String[] n = names.split(" ");
                    throw new IllegalArgumentException(what + ": " + n[i] + " and " + n[j] + " are the same vector; "
                            + names.replace(" ", ", ") + " must be distinct");
                }
            }
        }
    }

    /**
     * A Chebyshev-Jacobi smoothing step that follows the operator apply: r_G = r_G - A d_G (as
     * {@link #applyAssembledResidual} with c1 = -1), then d_G = a d_G + b (inverseDiagonal o r_G) and x_G += d_G (as
     * {@link #chebyshevStep}). {@code dG}, {@code rG}, {@code inverseDiagonal}, {@code xG} and {@code yG} are distinct;
     * {@code yG} may be left with any values. The default composes the two; a backend may fold the step into the gather
     * (two launches instead of three).
     */
    default void applyAssembledResidualChebyshev(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                                 DeviceVector dG, DeviceVector yL, DeviceVector yG, DeviceVector rG,
                                                 double a, double b, DeviceVector inverseDiagonal, DeviceVector xG) {
        applyAssembledResidual(data, z, lambda, shift, dG, yL, yG, -1, rG, 0, null);
        chebyshevStep(a, b, inverseDiagonal, rG, dG, xG, yG);
    }

    /**
     * The element half of {@link #applyAssembled} on the elements [{@code first}, {@code end}) only: y_L = (L + shift W)
     * Z x_G at those elements' local nodes (x_G read through Z's scatter ids), every other entry of {@code yL} left as
     * it is. Each element's values do not depend on the range it was applied in, so [0, b) and [b, E) followed by
     * {@link #gatherDot} give bitwise the same y_G for every b (and {@link #applyAssembledDot}'s up to the order of
     * summation): a distributed operator applies its boundary elements first, starts the exchange and applies the
     * interior elements while it runs (hipBone's overlap). The default throws
     * {@link UnsupportedOperationException}: a backend without element ranges applies its operator whole.
     *
     * @throws IllegalArgumentException if {@code 0 <= first <= end <= E} does not hold or a length does not match
     */
    default void applyAssembledElements(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                        DeviceVector xG, DeviceVector yL, int first, int end) {
        throw new UnsupportedOperationException("backend " + name() + " has no element ranges for the fused operator");
    }

    /**
     * {@link #applyAssembledElements} on [{@code first}, {@code mid}) in order, and on [{@code mid}, {@code end}) alongside
     * the work queued after this call, until {@link #joinConcurrent()}: a backend with a second kernel queue runs the
     * second range there, waiting only for the work queued before this call, so that the first range (a distributed
     * operator's boundary elements) and the small launches that follow it (the boundary gather, its copy) do not leave
     * the device idle. The work queued between this call and the join must not read or write the second range's local
     * nodes. The values are bitwise those of the two ranges applied in turn (each element's values do not depend on
     * its launch). The default applies both ranges in order.
     *
     * @throws IllegalArgumentException if {@code 0 <= first <= mid <= end <= E} does not hold or a length does not match
     */
    default void applyAssembledElementsConcurrent(DeviceElementData data, DeviceScatter z, double lambda, double shift,
                                                  DeviceVector xG, DeviceVector yL, int first, int mid, int end) {
        if (mid < first || end < mid) {
            throw new IllegalArgumentException("applyAssembledElementsConcurrent: first " + first + ", mid " + mid + ", end "
                    + end + " must satisfy first <= mid <= end");
        }
        applyAssembledElements(data, z, lambda, shift, xG, yL, first, mid);
        applyAssembledElements(data, z, lambda, shift, xG, yL, mid, end);
    }

    /**
     * Makes the work queued after this call wait for the launches of {@link #applyAssembledElementsConcurrent} queued
     * alongside (the join of the two queues); no wait on the host. The default does nothing (nothing ran alongside).
     */
    default void joinConcurrent() {
    }

    // ---------------------------------------------------------------- user operators (pointwise functions)

    /**
     * Uploads a user operator: {@code function} at the points of {@code quadrature} for {@code elements} elements
     * of degree {@code basis.degree()}, with {@code pointData} of length E P {@code function.dataPerPoint()}
     * ({@code [E][P][dataPerPoint]}, P = Q^3). A backend that compiles kernels translates the function here and
     * rejects one outside its translatable subset with an {@link IllegalArgumentException} naming the construct.
     * The default throws {@link UnsupportedOperationException}.
     */
    default DevicePointwiseData uploadPointwise(PointwiseFunction function, Basis1D basis, Quadrature quadrature,
                                                int elements, double[] pointData) {
        throw new UnsupportedOperationException("backend " + name() + " has no user-operator kernels");
    }

    /**
     * y_L = B^T f(B x_L) element by element and component-blocked ({@code [ncomp][E][Np]}, see
     * {@link DevicePointwiseData}). {@code xL} and {@code yL} must be distinct, of length {@code data.localSize()}.
     */
    default void applyPointwise(DevicePointwiseData data, DeviceVector xL, DeviceVector yL) {
        throw new UnsupportedOperationException("backend " + name() + " has no user-operator kernels");
    }

    /**
     * The assembled user operator y_G = Z^T B^T f(B Z x_G), Z applied to each component block
     * ({@code xG}, {@code yG}: {@code [ncomp][N_G]} with N_G = {@code z.globalSize()}; {@code yL}: workspace of
     * length {@code data.localSize()} that holds y_L on return). All three must be distinct.
     */
    default void applyPointwiseAssembled(DevicePointwiseData data, DeviceScatter z, DeviceVector xG, DeviceVector yL,
                                         DeviceVector yG) {
        throw new UnsupportedOperationException("backend " + name() + " has no user-operator kernels");
    }

    /**
     * {@link #applyPointwiseAssembled} that also returns x_G . y_G. The default composes it with {@link #dot}.
     */
    default double applyPointwiseAssembledDot(DevicePointwiseData data, DeviceScatter z, DeviceVector xG,
                                              DeviceVector yL, DeviceVector yG) {
        applyPointwiseAssembled(data, z, xG, yL, yG);
        return dot(xG, yG);
    }

    // ---------------------------------------------------------------- p-multigrid transfer

    /**
     * Uploads the transfer between degrees {@code coarse.degree() < fine.degree()} of a mesh of {@code elements}
     * elements: the 1D GLL interpolation J (see {@link DeviceTransfer}). The default throws
     * {@link UnsupportedOperationException}: a backend without the transfer kernels cannot run p-multigrid.
     */
    default DeviceTransfer uploadTransfer(Basis1D coarse, Basis1D fine, int elements) {
        throw new UnsupportedOperationException("backend " + name() + " has no p-multigrid transfer kernels");
    }

    /**
     * p-multigrid prolongation x_f = P x_c = Z_f^T W_f J Z_c x_c: the coarse assembled vector is read through the
     * coarse scatter ids, interpolated element by element to the fine GLL points, weighted by the fine inverse
     * degree W_f (so shared nodes are counted once; 0 at masked nodes) into {@code workF}, and gathered by Z_f^T.
     * {@code workF} has length {@code zf.localSize()}; {@code xc}, {@code workF} and {@code xf} must be distinct.
     */
    default void prolongate(DeviceTransfer t, DeviceScatter zc, DeviceScatter zf, DeviceVector xc, DeviceVector workF,
                            DeviceVector xf) {
        throw new UnsupportedOperationException("backend " + name() + " has no p-multigrid transfer kernels");
    }

    /**
     * p-multigrid restriction r_c = R r_f = P^T r_f = Z_c^T J^T W_f Z_f r_f, the exact transpose of
     * {@link #prolongate}. {@code workC} has length {@code zc.localSize()}; {@code rf}, {@code workC} and
     * {@code rc} must be distinct.
     */
    default void restrict(DeviceTransfer t, DeviceScatter zf, DeviceScatter zc, DeviceVector rf, DeviceVector workC,
                          DeviceVector rc) {
        throw new UnsupportedOperationException("backend " + name() + " has no p-multigrid transfer kernels");
    }

    /**
     * The Chebyshev step of a polynomial smoother, in one pass: d = a d + b (inverseDiagonal o r), then x += d.
     * All four vectors must have the same length and be distinct. The default composes {@link #pointwiseMultiply},
     * {@link #axpby} twice and needs {@code scratch} (same length; may be null when a backend fuses the step).
     */
    default void chebyshevStep(double a, double b, DeviceVector inverseDiagonal, DeviceVector r, DeviceVector d,
                               DeviceVector x, DeviceVector scratch) {
        pointwiseMultiply(inverseDiagonal, r, scratch);
        axpby(b, scratch, a, d);
        axpby(1, d, 1, x);
    }

    /**
     * A hint, given before a solve's setup: start building, in the background, the kernels a solve with {@code kernel}
     * will launch, so that their builds run concurrently with each other and with the setup instead of one after the
     * other at each kernel's first launch. {@code degrees} are the solve's degrees, fine first (p-multigrid's levels,
     * e.g. {@code PMultigrid.halving(N)}; just N for a one-level solve). A backend that builds kernels prepares the
     * element kernels at each degree, BP1.0 at the fine degree (the load vector M f), the transfers between consecutive
     * degrees, the streaming, reduction, gather/scatter and smoother kernels and, where {@code geometry} is given
     * (null: none), the setup kernels of that geometry at each degree ({@link #geometricFactors}, {@link #elementDiagonal})
     * and of {@code functions} at the fine degree ({@link #evaluate}, {@link #errorNorms}).
     *
     * <p>Returns at once and changes no result: an operation whose kernel is still building waits for that build, and
     * one whose build failed throws there, with the build log, as it would without this call. The default does nothing.
     */
    default void prepare(ElementKernel kernel, int[] degrees, ElementGeometry geometry, PointFunction... functions) {
    }

    // ---------------------------------------------------------------- overlapping Schwarz (fast diagonalisation)

    /**
     * Uploads the fast diagonalisation of {@code elements} local problems on n^3 blocks, n = {@code points} (see
     * {@link DeviceFdm}): {@code eigenvectors} is {@code [E][3][n][n]} (V_d row-major, entry [a][i] = node a of
     * eigenvector i; d = r, s, t) and {@code eigenvalues} is {@code [E][3][n]}. Backends check the lengths and throw
     * {@link IllegalArgumentException} naming the array. The default throws {@link UnsupportedOperationException}.
     */
    default DeviceFdm uploadFdm(int points, int elements, double[] eigenvectors, double[] eigenvalues) {
        throw new UnsupportedOperationException("backend " + name() + " has no fast-diagonalisation kernels");
    }

    /**
     * Uploads the fast diagonalisation of {@code elements} local problems as a table of L distinct 1D problems:
     * {@code lineVectors} is {@code [L][n][n]} and {@code lineValues} {@code [L][n]} (one V_d and lambda_d each, as in
     * {@link #uploadFdm(int, int, double[], double[])}), and {@code lineOf} is {@code [E][3]}: the line of element e in
     * direction d. The same local inverse as the dense upload of the expanded arrays, with L (n^2 + n) + 3 E numbers
     * instead of 3 E (n^2 + n). Checked by {@link DeviceFdm#checkTable}. The default expands the table and calls the
     * dense upload.
     */
    default DeviceFdm uploadFdm(int points, int elements, double[] lineVectors, double[] lineValues, int[] lineOf) {
        DeviceFdm.checkTable(points, elements, lineVectors, lineValues, lineOf);
        int n = points, n2 = n * n;
        double[] vectors = new double[3 * elements * n2];
        double[] values = new double[3 * elements * n];
        for (int q = 0; q < lineOf.length; q++) {
            System.arraycopy(lineVectors, lineOf[q] * n2, vectors, q * n2, n2);
            System.arraycopy(lineValues, lineOf[q] * n, values, q * n, n);
        }
        return uploadFdm(points, elements, vectors, values);
    }

    /**
     * The local solves of the restricted additive Schwarz method kept on each element's own nodes, ready for the
     * gather of the mesh's own Z: for every element e,
     * <pre>
     *   yL_e = W_e [ (V_t (x) V_s (x) V_r) D_e^-1 (V_t (x) V_s (x) V_r)^T xG[extIds_e] ]_own
     * </pre>
     * where {@code extIds} ({@code [E][n^3]}) holds the assembled id of each extended point (-1: no unknown there, read
     * as 0), "own" keeps the inner (n-2)^3 points of the extended block (the element's own nodes, in z's local order)
     * and W is z's inverse degree (1/multiplicity, 0 where masked). {@code z.localSize()} is E (n-2)^3 and
     * {@code gather(z, yL)} then gives RAS's sum_e R_e^T W_e A~_e^-1 R_e r without a scatter operator on the extended
     * points: the extension's values have weight 0 in RAS. The default throws {@link UnsupportedOperationException}.
     */
    default void applyRestrictedSchwarzLocal(DeviceIntVector extIds, DeviceFdm fdm, DeviceScatter z, DeviceVector xG,
                                             DeviceVector yL) {
        throw new UnsupportedOperationException("backend " + name() + " has no restricted Schwarz kernel");
    }

    /**
     * The assembled ids of the extended elements' points, {@code [E][(N+3)^3]} (N = {@code degree}, r fastest, indices
     * -1..N+1 stored as 0..N+2): the point reached by {@link ExtendedElementWalk#local} from {@code faceNeighbour} and
     * {@code faceCode} (both [E][6]), then z's scatter id of that local node; -1 where the walk leaves the mesh or the
     * node is masked. {@code z.localSize()} is E (N+1)^3. Made on the backend: no host array of the E (N+3)^3 points.
     * Backends with {@link #hasRestrictedSchwarzLocal} have it; the default throws {@link UnsupportedOperationException}.
     *
     * @throws IllegalArgumentException naming the array whose length is not 6 E
     */
    default DeviceIntVector extendedIds(DeviceScatter z, int degree, int[] faceNeighbour, int[] faceCode) {
        throw new UnsupportedOperationException("backend " + name() + " has no extended-element walk");
    }

    /**
     * Whether {@link #applyRestrictedSchwarzLocal} runs here for blocks of {@code points}^3; where it does not, a
     * restricted Schwarz method keeps the scatter operator on the extended points. The default is false.
     */
    default boolean hasRestrictedSchwarzLocal(int points) {
        return false;
    }

    /**
     * y = (V_t (x) V_s (x) V_r) D^-1 (V_t (x) V_s (x) V_r)^T x block by block (n^3 entries per element, r fastest), with
     * D_ijk = lambda_r,i + lambda_s,j + lambda_t,k, and 0 where D_ijk &lt;= 0: the local solves of an overlapping Schwarz
     * method. {@code x} and {@code y} have length E n^3 and must be distinct.
     */
    default void applyFdm(DeviceFdm fdm, DeviceVector x, DeviceVector y) {
        throw new UnsupportedOperationException("backend " + name() + " has no fast-diagonalisation kernels");
    }

    /**
     * The local solves of an overlapping Schwarz method on the extended elements, before their sum:
     * y_ext = W (V_t (x) V_s (x) V_r) D^-1 (V_t (x) V_s (x) V_r)^T Z_ext x_G ({@link #applyFdm} on the scatter of
     * {@code xG} through {@code zExt}), times the RAS weights {@code weights} pointwise unless that is null (additive
     * Schwarz). {@code work} and {@code yExt} have length E n^3 = {@code zExt.localSize()} and are distinct; {@code work}
     * may be left with any values. The default composes {@link #scatter}, {@link #applyFdm} and
     * {@link #pointwiseMultiply}; a backend may fuse them into one pass over the elements.
     */
    default void applySchwarzLocal(DeviceScatter zExt, DeviceFdm fdm, DeviceVector weights, DeviceVector xG,
                                   DeviceVector work, DeviceVector yExt) {
        scatter(zExt, xG, work);
        applyFdm(fdm, work, yExt);
        if (weights != null) {
            pointwiseMultiply(weights, yExt, yExt);
        }
    }

    /**
     * A Chebyshev step whose relaxation ends in a gather (the sum of a Schwarz method's local solves): d = a d + b Z^T uL,
     * then x += beta d. {@code d} and {@code x} have length {@code z.globalSize()} and are distinct, {@code uL}
     * {@code z.localSize()}. The default composes {@link #gather} into {@code scratch} (same length as d) and
     * {@link #axpby} twice; a backend may fold the update into the gather (one pass, no scratch).
     */
    default void gatherChebyshevStep(DeviceScatter z, DeviceVector uL, double a, double b, double beta, DeviceVector d,
                                     DeviceVector x, DeviceVector scratch) {
        gather(z, uL, scratch);
        axpby(b, scratch, a, d);
        axpby(beta, d, 1, x);
    }

    /** Releases every resource of this backend (device memory, threads); idempotent. */
    @Override
    void close();
}
