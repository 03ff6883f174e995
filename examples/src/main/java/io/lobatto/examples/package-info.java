/**
 * The {@code lobatto} command-line program ({@link io.lobatto.examples.LobattoCli}): {@code poisson}, the
 * screened Poisson problem -Δu + λu = f with a manufactured solution on a (deformed) box or a Gmsh mesh, with
 * its errors, a convergence sweep over N and VTU output; and {@code nekbone}, the NekBone / hipBone proxy
 * with its figure of merit. An application of the library, not an API.
 */
package io.lobatto.examples;
