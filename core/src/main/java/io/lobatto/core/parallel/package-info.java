/**
 * The communicator SPI of distributed solves: {@link io.lobatto.core.parallel.Communicator} (rank, size,
 * allreduce, the pairwise neighbour exchange of gslib-style gather-scatter, barrier) and
 * {@link io.lobatto.core.parallel.SingleRankCommunicator}, the one-rank implementation that needs no MPI.
 * The MPI implementation lives in the optional {@code lobatto-parallel} module (Java 22+).
 */
package io.lobatto.core.parallel;
