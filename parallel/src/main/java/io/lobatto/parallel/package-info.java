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
 * <p>Not yet distributed: p-multigrid. {@link io.lobatto.solvers.PMultigrid} builds its levels as
 * {@link io.lobatto.operators.AssembledOperator}s from one mesh and calls the transfers and smoothers on them directly.
 * Across ranks it would need (1) a {@link io.lobatto.parallel.DistributedOperator} per level (the slabs' shared nodes
 * exist at any degree, so this part is reachable); (2) the transfers' inverse degree W_f counted across ranks (a halo
 * sum of the degree counts), else R = P^T counts a shared node once per rank, and a halo sum after each restriction;
 * (3) the Chebyshev bounds from distributed dot products (the level's operator backend, as CG has); (4) a distributed
 * coarse solve (Chebyshev on the N = 1 level, or CG on a DistributedOperator). That means PMultigrid taking its level
 * operators and transfers from a factory instead of binding them itself.
 */
package io.lobatto.parallel;
