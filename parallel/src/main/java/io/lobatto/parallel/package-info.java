/**
 * Distributed solves: {@link io.lobatto.parallel.MpiCommunicator}, the
 * {@link io.lobatto.core.parallel.Communicator} of MPI ranks, calling Open MPI's {@code libmpi.so} through
 * Java's foreign-function API (the implementation-specific handles are in {@link io.lobatto.parallel.OpenMpiAbi}),
 * and {@link io.lobatto.parallel.ThreadCommunicator}, ranks as threads of one JVM;
 * {@link io.lobatto.parallel.SlabPartition}, slabs of a box mesh along z (boundary layers first) and their shared nodes;
 * {@link io.lobatto.parallel.RecursiveBisection}, recursive coordinate bisection of any hex mesh;
 * {@link io.lobatto.parallel.HaloExchange}, the sum of shared-node contributions across ranks that completes the
 * gather Z^T, moving only the shared nodes; {@link io.lobatto.parallel.DistributedOperator} and
 * {@link io.lobatto.parallel.DistributedBackend}, which make the unchanged {@link io.lobatto.solvers.ConjugateGradient}
 * a distributed CG with hipBone's overlap of the exchange and the interior elements;
 * {@link io.lobatto.parallel.DistributedPoisson}, the main job's Poisson problem solved on MPI ranks (one device per
 * rank), also run by the {@code lobatto poisson} command line under mpirun ({@link io.lobatto.parallel.DistributedPoissonCommand});
 * and {@link io.lobatto.parallel.ScalingModel}, the per-iteration time model.
 *
 * <p>p-multigrid across ranks: {@link io.lobatto.solvers.PMultigrid.Builder#distribution} with
 * {@link io.lobatto.parallel.DistributedLevels}: (1) a {@link io.lobatto.parallel.DistributedOperator} per level on the
 * shared nodes of the level's mesh; (2) the restriction R = P^T as the local restriction of the owner-masked fine residual
 * (each shared fine node restricted once, through its owner's weights, which sum to 1) followed by a halo sum on the
 * coarse level, and the prolongation local (already complete: the interpolated value at a shared fine node is the same
 * from every element), so W is never counted across ranks; (3) the Chebyshev bounds from Lanczos on the distributed
 * operator (reductions across ranks), from a start vector made consistent (owner mask and halo sum) and with step counts
 * of the global unknowns, so every rank has the same smoother; (4) the coarse Chebyshev solve on the distributed N = 1
 * operator. The Schwarz smoothers are not distributed (their local problems would need the neighbour's elements).
 */
package io.lobatto.parallel;
