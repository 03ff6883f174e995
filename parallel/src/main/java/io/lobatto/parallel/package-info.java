/**
 * Distributed solves: {@link io.lobatto.parallel.MpiCommunicator}, the
 * {@link io.lobatto.core.parallel.Communicator} of MPI ranks, calling Open MPI's {@code libmpi.so} through
 * Java's foreign-function API (the implementation-specific handles are in {@link io.lobatto.parallel.OpenMpiAbi});
 * {@link io.lobatto.parallel.SlabPartition}, slabs of a box mesh along z and their shared nodes;
 * {@link io.lobatto.parallel.HaloExchange}, the sum of shared-node contributions across ranks that completes the
 * gather Z^T; {@link io.lobatto.parallel.DistributedOperator} and {@link io.lobatto.parallel.DistributedBackend},
 * which make the unchanged {@link io.lobatto.solvers.ConjugateGradient} a distributed CG; and
 * {@link io.lobatto.parallel.DistributedPoisson}, the main job's Poisson problem solved on MPI ranks.
 */
package io.lobatto.parallel;
